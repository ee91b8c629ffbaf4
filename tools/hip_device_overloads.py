"""Record the device functions HIP 6.4's headers define, by name and parameter types, so
hipport can tell when a program defines one of them itself.

CUDA lacks some overloads that programs then write themselves (``__device__ double
atomicMax(double *, double)``, ``float atomicMin(float *, float)``); HIP 6.4.3 defines them
(hip/amd_detail/amd_hip_atomic.h: ``atomicMin(float*, float)`` line 611, ``atomicMax(double*,
double)`` line 903), so the port holds two definitions and clang reports "redefinition of
'atomicMax'". :mod:`hipport.device_overloads` reads the data this script writes to keep such a
definition for NVIDIA only (HP2040).

What is read (nothing is written but the output file): ``hip/hip_runtime.h``, ``hip/hip_fp16.h``
and ``hip/hip_bf16.h`` of HIP 6.4.3 (``hip_amd_include`` of ``.toolchain/toolchain.json``),
parsed together by libclang (clang 19's, ``/usr/lib/llvm-19``) as HIP device code for gfx90a
(``-x hip --cuda-device-only --offload-arch=gfx90a --hip-path=...``, with
``-DHIP_ENABLE_WARP_SYNC_BUILTINS`` as hipport's compiles).
Counted are the function declarations at global scope (also inside ``extern "C"`` and unnamed
namespaces), not
templates, that are definitions (a body in the header: a second definition is a redefinition),
carry ``__device__`` (also ``__host__ __device__``) and lie in a file below the HIP include
folder. A parameter type is written as its canonical spelling with top-level ``const``
dropped (it does not change the signature): ``const __half2 *``, ``unsigned long long *``.

The typedefs a program's parameter may be spelled with are recorded too (``typedefs``: name ->
canonical spelling): every global typedef of a HIP header (``half2`` -> ``__half2``,
``__hip_bfloat16``), and the C/C++ standard integer typedefs (``uint64_t`` -> ``unsigned long``
on the amdgcn and x86-64 targets, ``size_t``...), resolved by the same parse.

Output (``rules/hip_headers/device_overloads.yaml``)::

    typedefs:
      half2: __half2
    device_overloads:
      atomicMax:
        - {params: [double *, double], returns: double, at: 'hip/amd_detail/amd_hip_atomic.h:903'}

Usage (from the repository root, after scripts/install-toolchain.sh)::

    .venv/bin/python tools/hip_device_overloads.py            # rewrite the file
    .venv/bin/python tools/hip_device_overloads.py --check    # exit 1 if the file is not current

tests/test_hip_device_overloads.py runs ``--check``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hipport.precise import SYSTEM_LIBCLANG, SYSTEM_RESOURCE_DIR  # noqa: E402
from hipport.toolchain import Toolchain, default_toolchain_dir  # noqa: E402

sys.path.insert(0, str(REPO / "tools"))
from generated_file import check_or_write  # noqa: E402

OUTPUT = REPO / "rules" / "hip_headers" / "device_overloads.yaml"
# Debian's libclang-19 and its resource headers, as hipport's precise mode uses them.
LIBCLANG, RESOURCE_DIR = SYSTEM_LIBCLANG, SYSTEM_RESOURCE_DIR
HEADERS = ("hip/hip_runtime.h", "hip/hip_fp16.h", "hip/hip_bf16.h")
#: The standard typedefs a parameter may be written with (C11 <stdint.h>, <stddef.h>).
STANDARD_TYPEDEFS = tuple(f"{sign}int{bits}_t" for sign in ("", "u") for bits in (8, 16, 32, 64)) + (
    "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "intmax_t", "uintmax_t")


def _anonymous_namespace(cursor) -> bool:
    return cursor.kind.name == "NAMESPACE" and not cursor.spelling


def _global(cursor) -> bool:
    """The declaration is at global scope: ``extern "C"`` blocks and unnamed namespaces count as
    global (amd_hip_fp16.h defines its ``__half`` functions in ``namespace {``, line 541, so
    unqualified lookup at global scope finds them next to a program's own)."""
    parent = cursor.semantic_parent
    while parent is not None and (parent.kind.name == "LINKAGE_SPEC" or _anonymous_namespace(parent)):
        parent = parent.semantic_parent
    return parent is not None and parent.kind.name == "TRANSLATION_UNIT"


def _where(path: str, line: int, root: Path) -> str | None:
    """``path:line`` below ``root``; None when the file is not below it."""
    prefix = str(root) + "/"
    return f"{path[len(prefix):]}:{line}" if path.startswith(prefix) else None


def parameter_spelling(type_) -> str:
    """The canonical spelling of a parameter's libclang type, top-level ``const`` dropped."""
    spelling = type_.get_canonical().spelling
    if spelling.startswith("const ") and type_.get_canonical().kind.name not in ("POINTER", "LVALUEREFERENCE"):
        spelling = spelling[len("const "):]
    return spelling.removesuffix(" const") if spelling.endswith("* const") else spelling


def header_facts(toolchain, libclang: Path = LIBCLANG) -> tuple[dict[str, list[dict]], dict[str, str]]:
    """Parse :data:`HEADERS` of ``toolchain``'s HIP (a :class:`hipport.toolchain.Toolchain`:
    ``hip_amd_include``, ``hip_amd_root``, ``rocm_device_lib_path``) in one translation unit
    with libclang, with the flags hipport compiles ports with (``--hip-path``,
    ``-DHIP_ENABLE_WARP_SYNC_BUILTINS``).

    Returns:
        (name -> list of ``{"params", "returns", "at"}`` for every device function the headers
        define, in header order; typedef name -> canonical spelling).

    Raises:
        SystemExit: the headers do not parse without errors (names the first error).
    """
    from clang import cindex
    if libclang.is_file() and not cindex.Config.loaded:
        cindex.Config.set_library_file(str(libclang))
    include = Path(toolchain.hip_amd_include)
    args = ["-isystem", str(include), "-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a",
            f"--hip-path={toolchain.hip_amd_root}", f"--rocm-device-lib-path={toolchain.rocm_device_lib_path}",
            "-std=c++17", "-resource-dir", str(RESOURCE_DIR), "-DHIP_ENABLE_WARP_SYNC_BUILTINS"]
    source = "".join(f"#include <{h}>\n" for h in HEADERS) + "#include <stdint.h>\n#include <stddef.h>\n"
    unit = cindex.Index.create().parse(
        "device_overloads.hip", args=args, unsaved_files=[("device_overloads.hip", source)],
    )
    errors = [d for d in unit.diagnostics if d.severity >= cindex.Diagnostic.Error]
    if errors:
        raise SystemExit(f"the headers do not parse: {errors[0]}")
    functions: dict[str, list[dict]] = {}
    typedefs: dict[str, str] = {}
    seen: set[tuple[str, tuple[str, ...]]] = set()
    stack = [unit.cursor]
    while stack:
        for child in stack.pop().get_children():
            kind = child.kind.name
            if kind in ("LINKAGE_SPEC", "UNEXPOSED_DECL") or _anonymous_namespace(child):
                stack.append(child)
                continue
            path = child.location.file.name if child.location.file is not None else ""
            at = _where(path, child.location.line, include)
            if kind in ("TYPEDEF_DECL", "TYPE_ALIAS_DECL") and (at is not None or child.spelling in STANDARD_TYPEDEFS):
                typedefs.setdefault(child.spelling, child.underlying_typedef_type.get_canonical().spelling)
            elif kind == "FUNCTION_DECL" and at is not None and child.is_definition() and _global(child):
                if not any(c.kind.name == "CUDADEVICE_ATTR" for c in child.get_children()):
                    continue
                params = tuple(parameter_spelling(a.type) for a in child.get_arguments())
                if (child.spelling, params) in seen:
                    continue
                seen.add((child.spelling, params))
                functions.setdefault(child.spelling, []).append(
                    {"params": list(params), "returns": child.result_type.get_canonical().spelling, "at": at})
    return functions, {name: typedefs[name] for name in sorted(typedefs) if typedefs[name] != name}


def render(functions: dict[str, list[dict]], typedefs: dict[str, str], version: str) -> str:
    """The output file's text (see the module docstring)."""
    lines = [
        "# The device functions HIP's headers define (not templates), by name and parameter types, and",
        "# the typedefs a parameter may be spelled with. hipport.device_overloads uses it to keep a",
        "# program's own definition of one of them for NVIDIA only (HP2040).",
        "# GENERATED by tools/hip_device_overloads.py (do not edit; run it again after changing the",
        "# toolchain): libclang 19 over these headers, parsed as HIP device code for gfx90a:",
        *(f"#   {h}" for h in HEADERS),
        f"# from libamdhip64-dev {version}. params: canonical spellings, top-level const dropped.",
        "typedefs:",
        *(f"  {name}: {json.dumps(spelling)}" for name, spelling in typedefs.items()),
        "device_overloads:",
    ]
    for name in sorted(functions):
        lines.append(f"  {name}:")
        for entry in functions[name]:
            params = ", ".join(json.dumps(p) for p in entry["params"])
            lines.append(f"    - {{params: [{params}], returns: {json.dumps(entry['returns'])}, at: {json.dumps(entry['at'])}}}")
    return "\n".join(lines) + "\n"


def generate(toolchain) -> tuple[str, int]:
    """(the output text, the number of overloads) from the headers of ``toolchain`` (a
    :class:`hipport.toolchain.Toolchain`: ``hip_amd_include``, ``hip_amd_version``)."""
    functions, typedefs = header_facts(toolchain)
    return render(functions, typedefs, toolchain.hip_amd_version), sum(len(v) for v in functions.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file; exit 1 if it differs")
    parser.add_argument("--toolchain", type=Path, default=default_toolchain_dir(),
                        help="the toolchain folder or its toolchain.json (default: .toolchain/)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    options = parser.parse_args(argv)
    text, count = generate(Toolchain.load(options.toolchain))
    return check_or_write(options.output, text, options.check, f"{count} overloads")


if __name__ == "__main__":
    sys.exit(main())
