#!/usr/bin/env python3
"""The README says what the tree is:

* every ```cpp block of README.md is, line for line, the [readme] block of one of the examples
  under examples/cpp/ (which the test suite builds and runs: examples_* tests);
* the README's layout table names every folder of src/fastcd, and every `src/...` or `apps/...`
  folder it names exists;
* docs/architecture.md's folder table names every folder of src/fastcd too.

Usage: check_readme.py <repository root>. Prints every problem; exit status 1 if any."""
import re
import sys
import textwrap
from pathlib import Path


def readme_blocks(text, lang):
    return re.findall(r"^```" + lang + r"\n(.*?)^```", text, flags=re.S | re.M)


def example_blocks(root):
    blocks = {}
    for path in sorted((root / "examples" / "cpp").glob("*.cpp")):
        text = path.read_text()
        parts = text.split("// [readme]\n")
        if len(parts) != 3:
            continue
        blocks[path.relative_to(root).as_posix()] = textwrap.dedent(parts[1])
    return blocks


def main(root):
    root = Path(root)
    readme = (root / "README.md").read_text()
    problems = []
    examples = example_blocks(root)
    if not examples:
        problems.append("no examples/cpp/*.cpp with a // [readme] block")
    cpp = readme_blocks(readme, "cpp")
    if not cpp:
        problems.append("README.md has no ```cpp block")
    for i, block in enumerate(cpp, 1):
        body = textwrap.dedent(block)
        hits = [name for name, ex in examples.items() if ex == body]
        if not hits:
            first = body.strip().splitlines()[0] if body.strip() else ""
            problems.append(f"README C++ block {i} ('{first}') is not the [readme] block of any examples/cpp file")
    folders = sorted(p.name for p in (root / "src" / "fastcd").iterdir() if p.is_dir())
    table = re.findall(r"^\| `((?:src|apps)/[^`]+)` \|", readme, flags=re.M)
    for f in folders:
        if f"src/fastcd/{f}" not in table:
            problems.append(f"README's layout table does not name src/fastcd/{f}")
    for t in table:
        if not (root / t).is_dir():
            problems.append(f"README's layout table names {t}, which does not exist")
    arch = (root / "docs" / "architecture.md").read_text()
    for f in folders:
        if f"`src/fastcd/{f}`" not in arch:
            problems.append(f"docs/architecture.md does not name src/fastcd/{f}")
    for p in problems:
        print(p)
    print(f"check_readme: {len(cpp)} C++ blocks, {len(examples)} examples, {len(table)} layout rows, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
