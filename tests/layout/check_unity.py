#!/usr/bin/env python3
"""The test executable is a unity build (tests/CMakeLists.txt, FASTCD_UNITY_TESTS): its files are
compiled several to a translation unit. So that a batch means the same as its files compiled one
by one, each file of fastcd_tests

* keeps its helpers and tests in a namespace named after the file, `test_<file stem>`, and never
  opens an anonymous namespace (anonymous namespaces of one translation unit are one namespace:
  two files' `beam()` helpers would clash, or worse, one would silently call the other's);
* defines no macro (a macro would leak into the files after it in the batch).

The files are the ones the CMakeLists.txt under tests/ add to fastcd_tests (target_sources).

Usage: check_unity.py <repository root> | --self-test. Prints every problem; exit status 1 if any."""
import re
import sys
import tempfile
from pathlib import Path


def unity_sources(root):
    """Every source file target_sources(fastcd_tests ...) lists, as paths."""
    files = []
    for cmake in sorted((root / "tests").rglob("CMakeLists.txt")):
        text = re.sub(r"#[^\n]*", "", cmake.read_text())
        for block in re.findall(r"target_sources\(\s*fastcd_tests\s+PRIVATE(.*?)\)", text, flags=re.S):
            files += [cmake.parent / name for name in block.split() if name.endswith(".cpp")]
    return files


def problems_of(path, root):
    text = path.read_text()
    rel = path.relative_to(root).as_posix()
    stem = path.stem
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(r"\s*namespace\s*\{", line):
            out.append(f"{rel}:{number}: an anonymous namespace; use `namespace {stem} {{` (unity build)")
        m = re.match(r"\s*namespace\s+(test_\w+)\s*\{", line)
        if m and m.group(1) != stem:
            out.append(f"{rel}:{number}: namespace {m.group(1)} in {path.name}; name it {stem}")
        if re.match(r"\s*#\s*define\b", line):
            out.append(f"{rel}:{number}: a macro in a unity-built test file; use a function or constant")
    if not re.search(r"^\s*namespace\s+" + re.escape(stem) + r"\s*\{", text, flags=re.M):
        out.append(f"{rel}: no `namespace {stem} {{` around its helpers and tests")
    return out


def check(root):
    files = unity_sources(root)
    problems = [] if files else ["no files found in target_sources(fastcd_tests ...)"]
    for path in files:
        if not path.is_file():
            problems.append(f"{path.relative_to(root).as_posix()}: listed for fastcd_tests but missing")
            continue
        problems += problems_of(path, root)
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "tests" / "a").mkdir(parents=True)
        (root / "tests" / "a" / "CMakeLists.txt").write_text(
            "target_sources(fastcd_tests PRIVATE\n  test_good.cpp\n  test_anon.cpp  # a comment\n"
            "  test_macro.cpp test_wrong.cpp)\n")
        good = "namespace fastcd {\nnamespace test_good {\nint f() { return 1; }\n}  // namespace test_good\n}\n"
        (root / "tests" / "a" / "test_good.cpp").write_text(good)
        (root / "tests" / "a" / "test_anon.cpp").write_text("namespace fastcd {\nnamespace {\nint f();\n}\n}\n")
        (root / "tests" / "a" / "test_macro.cpp").write_text(
            "namespace test_macro {\n#define TWICE(x) (2 * (x))\n}\n")
        (root / "tests" / "a" / "test_wrong.cpp").write_text("namespace test_good {\n}\n")
        got = check(root)
        expected = [
            ("test_anon.cpp:2: an anonymous namespace",),
            ("test_anon.cpp: no `namespace test_anon {`",),
            ("test_macro.cpp:2: a macro",),
            ("test_wrong.cpp:1: namespace test_good in test_wrong.cpp",),
            ("test_wrong.cpp: no `namespace test_wrong {`",),
        ]
        ok = len(got) == len(expected) and all(any(e[0] in g for g in got) for e in expected)
        ok = ok and not any("test_good.cpp" in g for g in got)
        if not ok:
            print("check_unity self-test failed; got:\n  " + "\n  ".join(got))
            return 1
        print(f"check_unity self-test: {len(got)} problems found as expected")
        return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1])
        return 2
    problems = check(Path(argv[1]))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
