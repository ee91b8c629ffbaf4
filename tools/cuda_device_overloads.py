#!/usr/bin/env python3
"""Record the argument types CUDA's own headers declare each device function for.

``tests/test_device_mappings_compile.py`` ports one translation unit that calls every mapped
device function (``rules/cuda_device.yaml``, ``rules/cucomplex.yaml``, the device API of ``rules/curand.yaml``) once per CUDA overload and
compiles it for gfx90a, so it must know CUDA's overloads: ``__ldcs`` has 35 of them in CUDA 12.4
(``sm_32_intrinsics.h`` for the scalar and vector types, ``cuda_fp16.h`` and ``cuda_bf16.h`` for the
half types), ``atomicAdd`` 11. This tool finds them by parsing the CUDA headers with libclang and
writes the facts (function name -> list of parameter-type lists) to
``tests/fixtures/device_overloads/cuda-<version>.yaml``; no header text is copied.

How the headers are read: as CUDA device code for sm_90 (``--cuda-device-only
--cuda-gpu-arch=sm_90``, so every ``__CUDA_ARCH__``-guarded overload is visible) with clang's own
CUDA wrapper headers turned off (``-nocudainc``; they would replace ``__ldg``, ``__ldcs`` and the
``__shfl*`` functions with clang's versions) and ``__CUDACC__`` defined as nvcc does. The
translation unit includes ``cuda_runtime.h`` (device functions, atomics, the ``sm_*`` intrinsics,
CUDA's math functions), ``cuda_fp16.h``, ``cuda_bf16.h``, ``cuComplex.h`` and ``curand_kernel.h``. Only
declarations whose file lies under the CUDA include folder count (glibc's ``sinf`` is not CUDA's),
and only those marked ``__device__`` (curand.h's host API is left out). Function templates
are listed apart (``templates``), since a use needs its template arguments. Overloads taking
``long double`` are left out: CUDA declares them only "to avoid warnings on the call graph" (its
``crt/math_functions.h`` says long double is not supported on the device).

A parameter type is written as clang spells it with top-level ``const`` removed (it does not
change the overload: ``const __half2 *const`` -> ``const __half2 *``); typedef names are kept as
CUDA spells them (``__nv_bfloat16``, ``cuFloatComplex``), since hipport renames them in the port.

Usage::

    .venv/bin/python tools/cuda_device_overloads.py            # CUDA of .toolchain/ (12.4)
    .venv/bin/python tools/cuda_device_overloads.py --cuda-include DIR --cuda-version 12.4 -o FILE

Needs the libclang Python bindings (``pip install 'hipport[precise]'``; Debian's libclang-19 is
preferred, as in ``hipport/precise.py``) and CUDA headers (``scripts/install-toolchain.sh`` unpacks
CUDA 12.4's into ``.toolchain/cuda/include``). Exit status 0, or 2 with a message when something
is missing or the headers do not parse.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hipport.precise import SYSTEM_LIBCLANG, SYSTEM_RESOURCE_DIR  # noqa: E402  (Debian's libclang-19, as precise mode)

RULE_FILES = (REPO / "rules" / "cuda_device.yaml", REPO / "rules" / "cucomplex.yaml", REPO / "rules" / "curand.yaml")
DEFAULT_INCLUDE = REPO / ".toolchain" / "cuda" / "include"
DEFAULT_OUTPUT = REPO / "tests" / "fixtures" / "device_overloads"
HEADERS = ("cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cuComplex.h", "curand_kernel.h")


def rule_names(kind: str, rule_files=RULE_FILES) -> set[str]:
    """Every CUDA name of ``kind`` (``function``, ``type``) in the given mapping files (any status)."""
    names: set[str] = set()
    for path in rule_files:
        for entry in yaml.safe_load(path.read_text(encoding="utf-8"))["mappings"]:
            if entry["kind"] == kind:
                names.add(entry["cuda"])
    return names


_TOP_CONST_AFTER = re.compile(r"\s*\bconst\s*$")
_TOP_CONST_BEFORE = re.compile(r"^const\s+")


def normalize_type(spelling: str) -> str:
    """A parameter type without its top-level ``const`` (``const int`` -> ``int``,
    ``const __half *const`` -> ``const __half *``), with single spaces."""
    text = " ".join(spelling.split())
    if text.endswith(("*const", "* const", "&const")) or (text.endswith(" const") and "*" in text):
        return _TOP_CONST_AFTER.sub("", text)
    if "*" not in text and "&" not in text and "[" not in text:
        return _TOP_CONST_BEFORE.sub("", text)
    return text


def cuda_version(include: Path) -> str:
    """``MAJOR.MINOR`` from ``cuda.h``'s ``CUDA_VERSION`` (e.g. 12040 -> ``12.4``).

    Raises:
        SystemExit: cuda.h is missing or has no CUDA_VERSION.
    """
    header = include / "cuda.h"
    try:
        match = re.search(r"^#define\s+CUDA_VERSION\s+(\d+)", header.read_text(errors="replace"), re.M)
    except OSError as error:
        raise SystemExit(f"{header}: {error.strerror}") from None
    if match is None:
        raise SystemExit(f"{header}: no CUDA_VERSION")
    number = int(match.group(1))
    return f"{number // 1000}.{number % 1000 // 10}"


def collect(include: Path, names: set[str], type_names: set[str] = frozenset()
            ) -> tuple[dict[str, list[list[str]]], dict[str, str], list[str]]:
    """Parse CUDA's headers below ``include`` and return (name -> distinct parameter-type lists in
    header order, name -> header of a function template of that name) for the function ``names``,
    and the sorted ``type_names`` that CUDA declares as incomplete (opaque) types.

    Raises:
        SystemExit: libclang is missing, or the headers do not parse (first errors shown).
    """
    try:
        from clang import cindex
    except ImportError:
        raise SystemExit("the libclang Python bindings are missing (pip install 'hipport[precise]')") from None
    if SYSTEM_LIBCLANG.is_file() and not cindex.Config.loaded:
        cindex.Config.set_library_file(str(SYSTEM_LIBCLANG))
    args = ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
            "-D__CUDACC__", "-Wno-unknown-cuda-version", "-std=c++17", "-ferror-limit=0",
            "-isystem", str(include)]
    libcxx = include.parent / "include-libcu++"
    if libcxx.is_dir():
        args += ["-isystem", str(libcxx)]
    if SYSTEM_RESOURCE_DIR.is_dir():
        args += ["-resource-dir", str(SYSTEM_RESOURCE_DIR)]
    root = str(include.resolve())
    with tempfile.TemporaryDirectory() as scratch:
        unit_path = Path(scratch) / "overloads.cu"
        unit_path.write_text("".join(f"#include <{h}>\n" for h in HEADERS))
        unit = cindex.Index.create().parse(str(unit_path), args=args)
    fatal = [d for d in unit.diagnostics if d.severity >= cindex.Diagnostic.Fatal]
    if fatal:
        raise SystemExit("the CUDA headers do not parse:\n" + "\n".join(str(d) for d in fatal[:5]))
    overloads: dict[str, list[list[str]]] = {}
    templates: dict[str, str] = {}
    complete: dict[str, bool] = {}
    for cursor in unit.cursor.walk_preorder():
        if cursor.kind in (cindex.CursorKind.TYPEDEF_DECL, cindex.CursorKind.STRUCT_DECL) and cursor.spelling in type_names:
            size = cursor.type.get_size()  # negative for an incomplete type
            complete[cursor.spelling] = complete.get(cursor.spelling, False) or size > 0
            continue
        if cursor.kind not in (cindex.CursorKind.FUNCTION_DECL, cindex.CursorKind.FUNCTION_TEMPLATE):
            continue
        if cursor.spelling not in names or cursor.location.file is None:
            continue
        where = str(Path(cursor.location.file.name).resolve())
        if not where.startswith(root + "/"):
            continue
        if cursor.kind == cindex.CursorKind.FUNCTION_TEMPLATE:
            templates.setdefault(cursor.spelling, where[len(root) + 1:])
            continue
        if not any(c.kind == cindex.CursorKind.CUDADEVICE_ATTR for c in cursor.get_children()):
            continue  # a host function (curand.h's curandCreateGenerator): device code cannot call it
        params = [normalize_type(a.type.spelling) for a in cursor.get_arguments()]
        if any("long double" in p for p in params):
            continue  # crt/math_functions.h: "long double is not supported on the device"
        if cursor.type.is_function_variadic():
            params.append("...")
        known = overloads.setdefault(cursor.spelling, [])
        if params not in known:
            known.append(params)
    return overloads, templates, sorted(name for name, whole in complete.items() if not whole)


def render(version: str, overloads: dict[str, list[list[str]]], templates: dict[str, str],
           missing: list[str], opaque: list[str] = ()) -> str:
    """The data file's text: a header comment, then one line per function (sorted by name)."""
    def flow(items: list[str]) -> str:
        return "[" + ", ".join(yaml.safe_dump(i, default_style="'").strip() if i else "''" for i in items) + "]"

    lines = [
        f"# Parameter types of CUDA {version}'s device functions, per overload, for the names of",
        "# rules/cuda_device.yaml, rules/cucomplex.yaml and rules/curand.yaml. Generated by",
        "# tools/cuda_device_overloads.py (libclang over CUDA's own headers: cuda_runtime.h, cuda_fp16.h,",
        "# cuda_bf16.h, cuComplex.h, curand_kernel.h);",
        "# read by tests/test_device_mappings_compile.py. Do not edit: regenerate.",
        f"cuda_version: '{version}'",
        "overloads:",
    ]
    lines += [f"  {name}: [{', '.join(flow(p) for p in overloads[name])}]" for name in sorted(overloads)]
    lines.append("# Function templates (a use needs template arguments): the header declaring each.")
    lines.append("templates:" + ("" if templates else " {}"))
    lines += [f"  {name}: {templates[name]}" for name in sorted(templates)]
    lines.append("# Function names of the rules that CUDA's headers do not declare as device functions (host")
    lines.append("# functions of curand.h, macros, names of other CUDA versions or architectures).")
    lines.append("undeclared: [" + ", ".join(missing) + "]")
    lines.append("# Types of the rules that CUDA declares but never defines (opaque handles): no sizeof.")
    lines.append("opaque_types: [" + ", ".join(opaque) + "]")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cuda-include", type=Path, default=DEFAULT_INCLUDE,
                        help="CUDA's include folder (default: .toolchain/cuda/include)")
    parser.add_argument("--cuda-version", help="version recorded in the file (default: from cuda.h)")
    parser.add_argument("-o", "--output", type=Path, help="file to write (default: "
                        "tests/fixtures/device_overloads/cuda-VERSION.yaml)")
    options = parser.parse_args(argv)
    try:
        include = options.cuda_include
        if not (include / "cuda_runtime.h").is_file():
            raise SystemExit(f"{include}: no cuda_runtime.h (run scripts/install-toolchain.sh or give --cuda-include)")
        version = options.cuda_version or cuda_version(include)
        names = rule_names("function")
        overloads, templates, opaque = collect(include, names, rule_names("type"))
        missing = sorted(names - set(overloads) - set(templates))
        output = options.output or DEFAULT_OUTPUT / f"cuda-{version}.yaml"
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(render(version, overloads, templates, missing, opaque), encoding="utf-8")
    except SystemExit as stop:
        if isinstance(stop.code, str):
            print(f"cuda_device_overloads: {stop.code}", file=sys.stderr)
            return 2
        raise
    print(f"{output}: {len(overloads)} functions, {sum(map(len, overloads.values()))} overloads, "
          f"{len(templates)} templates, {len(missing)} names CUDA does not declare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
