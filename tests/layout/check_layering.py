#!/usr/bin/env python3
"""The library's layering (docs/architecture.md), checked on every source file of src/fastcd:

* a folder includes only the folders below it:
    common <- geometry <- subspace <- solvers <- materials <- rigs <- cd   (fastcd::core)
    io: common only                                              (fastcd::io, file formats)
    meshing: the core and io                                     (fastcd::meshing, tet meshes)
    scene: the core, io and meshing                              (fastcd::scene)
    bake: the core, io, meshing and scene                        (fastcd::bake, the bake pipeline)
    viz: common and io                                           (fastcd::viz)
    view: the core, io, meshing and scene                        (fastcd::view, no graphics)
  so io includes nothing from cd/, scene/ or viz/, and the core nothing from io/, scene/, viz/;
* Cairo is included only in viz/, nlohmann-json only in scene/, bake/ (run.json) and io/ (glTF is
  JSON), nglib
  only in meshing/,
  tinygltf only in io/ (the core links none of them);
* the library never prints (no std::cout/cerr/clog, printf, fprintf, puts, perror);
* nothing under src/ includes apps/, bench/, tests/ or python/ code, and no header is guarded
  by __has_include (every fastcd header always exists);
* anywhere in the tree (src, apps, python, tests, bench, examples), a file that names one of
  Eigen's BDCSVD or JacobiSVD of a MatrixXd includes fastcd/common/dense_decompositions.hpp,
  which makes it use the library's one compiled instance instead of compiling its own.

Usage: check_layering.py <repository root>. Prints every violation; exit status 1 if any.
       check_layering.py --self-test: checks that a tree with one violation of each kind fails."""
import pathlib
import re
import sys

CORE = ["common", "geometry", "subspace", "solvers", "materials", "rigs", "cd"]
ALLOWED = {
    "common": {"common"},
    "geometry": {"common", "geometry"},
    "subspace": {"common", "geometry", "subspace"},
    "solvers": {"common", "geometry", "subspace", "solvers"},
    "materials": {"common", "geometry", "subspace", "solvers", "materials"},
    "rigs": {"common", "geometry", "subspace", "solvers", "materials", "rigs"},
    "cd": set(CORE),
    "io": {"common", "io"},
    "meshing": set(CORE) | {"io", "meshing"},
    "scene": set(CORE) | {"io", "meshing", "scene"},
    "bake": set(CORE) | {"io", "meshing", "scene", "bake"},
    "viz": {"common", "io", "viz"},
    "view": set(CORE) | {"io", "meshing", "scene", "view"},
}
THIRD_PARTY = {"cairo": ("viz",), "nlohmann/": ("scene", "bake", "io"), "nglib": ("meshing",), "tiny_gltf": ("io",)}
PRINTING = re.compile(r"\b(std::cout|std::cerr|std::clog|printf\s*\(|fprintf\s*\(|puts\s*\(|perror\s*\()")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
DECOMPOSITION = re.compile(r"\b(BDCSVD|JacobiSVD)<(Eigen::)?MatrixXd>")
DENSE_HEADER = "fastcd/common/dense_decompositions.hpp"


def strip_comments(line):
    return line.split("//", 1)[0]


def main(root):
    src = pathlib.Path(root) / "src" / "fastcd"
    problems = []
    files = sorted(p for p in src.rglob("*") if p.suffix in (".hpp", ".cpp"))
    if not files:
        problems.append(f"no sources under {src}")
    for path in files:
        rel = path.relative_to(src)
        folder = rel.parts[0] if len(rel.parts) > 1 else None  # None: the umbrella headers
        for no, line in enumerate(path.read_text().splitlines(), 1):
            code = strip_comments(line)
            where = f"src/fastcd/{rel}:{no}"
            if "__has_include" in code:
                problems.append(f"{where}: __has_include guard (fastcd headers always exist)")
            if re.search(r"\bsnprintf\b", code) is None and PRINTING.search(code):
                problems.append(f"{where}: the library prints ({PRINTING.search(code).group(1)})")
            m = INCLUDE.match(code)
            if not m:
                continue
            inc = m.group(1)
            for lib, folders in THIRD_PARTY.items():
                if inc.startswith(lib) and folder not in folders:
                    problems.append(f"{where}: includes <{inc}> outside {', '.join(folders)}/")
            if inc.startswith(("apps/", "bench/", "tests/", "python/", "bench_", "test_util")):
                problems.append(f"{where}: includes '{inc}' from outside the library")
            if not inc.startswith("fastcd/") or folder is None:
                continue
            parts = inc.split("/")
            if len(parts) < 3:
                continue
            target = parts[1]
            if target not in ALLOWED.get(folder, set()):
                problems.append(f"{where}: {folder}/ includes '{inc}' ({folder}/ may include only "
                                f"{', '.join(sorted(ALLOWED[folder]))})")
    problems += decomposition_problems(pathlib.Path(root))
    for p in problems:
        print(p)
    print(f"check_layering: {len(files)} files, {len(problems)} problem(s)")
    return 1 if problems else 0


def decomposition_problems(root):
    problems = []
    for top in ("src", "apps", "python", "tests", "bench", "examples"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in (".hpp", ".cpp", ".h", ".cc") or path.name == "dense_decompositions.hpp":
                continue
            text = path.read_text()
            code = "\n".join(strip_comments(l) for l in text.splitlines())
            m = DECOMPOSITION.search(code)
            if m and f'#include "{DENSE_HEADER}"' not in text:
                problems.append(f"{path.relative_to(root)}: uses Eigen::{m.group(0)} without including "
                                f"{DENSE_HEADER} (it would compile its own copy)")
    return problems


def self_test():
    import tempfile
    bad = {
        "io/a.cpp": '#include "fastcd/cd/full_cd.hpp"\n',
        "io/b.cpp": '#include "fastcd/scene/scene.hpp"\n',
        "geometry/c.cpp": '#include "fastcd/io/mesh_io.hpp"\n',
        "cd/d.cpp": '#include <cairo.h>\n#include <nlohmann/json.hpp>\n',
        "solvers/e.cpp": 'void f() { std::printf("x"); std::cerr << 1; }\n',
        "solvers/g.cpp": '#include "fastcd/materials/arap.hpp"\n',
        "materials/h.cpp": '#include "fastcd/cd/rig.hpp"\n#include "fastcd/solvers/polar_svd.hpp"\n',
        "viz/f.hpp": '#if __has_include("x.hpp")\n#endif\n#include "fastcd/scene/scene.hpp"\n',
        "scene/g.cpp": '#include "fastcd/bake/bake.hpp"\n',
        "common/ok.cpp": '#include "fastcd/common/types.hpp"\n// std::cout in a comment is fine\n'
                         'void g() { std::snprintf(nullptr, 0, "x"); }\n',
        "subspace/i.cpp": 'void h() { Eigen::JacobiSVD<MatrixXd> svd(A); }\n',
        "subspace/ok2.cpp": '#include "fastcd/common/dense_decompositions.hpp"\n'
                            'void h() { Eigen::BDCSVD<MatrixXd> b(A); Eigen::JacobiSVD<Matrix3d> s(F); }\n',
    }
    with tempfile.TemporaryDirectory() as d:
        for rel, text in bad.items():
            p = pathlib.Path(d) / "src" / "fastcd" / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        import contextlib
        import io
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = main(d)
        lines = [l for l in out.getvalue().splitlines() if not l.startswith("check_layering:")]
    expected = 12  # io->cd, io->scene, geometry->io, cairo, json, printing (one per line), has_include, viz->scene,
    # scene->bake, solvers->materials, materials->cd, a decomposition without its header
    ok = rc == 1 and len(lines) == expected and not any("ok.cpp" in l or "ok2.cpp" in l for l in lines)
    print("\n".join(lines))
    print(f"self-test: {len(lines)} problems found, {expected} expected: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
