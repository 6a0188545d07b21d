#!/usr/bin/env python3
"""Every C++ file git tracks is formatted as .clang-format says.

Usage: check_format.py <clang-format> <repository root>. Prints the files that differ (with the
first differing lines) and exits 1 if any; run `clang-format -i FILE` to fix one."""
import difflib
import subprocess
import sys
from pathlib import Path


def main(clang_format, root):
    root = Path(root)
    files = subprocess.run(["git", "-C", str(root), "ls-files", "*.cpp", "*.hpp"], check=True, capture_output=True,
                           text=True).stdout.split()
    if not files:
        print("check_format: git lists no C++ files (not a git checkout?)")
        return 1
    bad = 0
    for rel in files:
        path = root / rel
        if not path.is_file():
            continue  # deleted in the working tree
        text = path.read_text()
        out = subprocess.run([clang_format, "--style=file", f"--assume-filename={path}"], input=text,
                             capture_output=True, text=True, check=True, cwd=root).stdout
        if out != text:
            bad += 1
            diff = list(difflib.unified_diff(text.splitlines(), out.splitlines(), rel, rel + " (formatted)", n=0,
                                             lineterm=""))
            print("\n".join(diff[:12]))
    print(f"check_format: {len(files)} files, {bad} not formatted (fix with: clang-format -i FILE)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
