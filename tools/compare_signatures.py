"""Compare the parameters of mapped CUDA functions with those of their HIP twins.

For every ``kind: function`` entry of ``rules/*.yaml`` that names a HIP function, this parses
the CUDA declaration (CUDA 12.4's headers, as ``scripts/install-toolchain.sh`` unpacks them) and
the HIP one (HIP 6.4.3's and the ROCm 6.4 libraries' headers) with libclang, then checks two
things:

1. argument counts: each side is the set of argument counts its declarations accept (every
   overload, with or without its default arguments -- ``= v``, also written through CUDA's
   ``__dv(v)`` and HIP's ``__dparm(v)``: a parameter with an expression child; a macro defined as another function's name counts as that function). A name
   differs when a CUDA call may have an argument count no HIP declaration accepts.
2. with ``--calls``: argument types. A C++20 file holds, for each function whose counts agree,
   ``static_assert(requires { hipX(std::declval<T>()...); })`` with CUDA's parameter types renamed
   as hipport renames them (``const cuComplex *`` -> ``const hipComplex *``); clang-19 compiles it
   against the HIP headers (``--define HIPBLAS_V2`` and the like can be added) and each failing
   assertion names a function the port cannot call with the arguments CUDA takes.

Functions one header set does not declare (removed APIs, device functions, macros of other
shapes) are counted apart.

Usage (from the repository root, after scripts/install-toolchain.sh)::

    .venv/bin/python tools/compare_signatures.py [--family cusparse ...] [--calls] [--define HIPBLAS_V2] [--json FILE]

The rule data records what was found with ``differs`` entries in ``rules/calls.yaml``
(reported as HP2010). This script only reads; it writes no file except ``--json`` and a
temporary folder for the ``--calls`` compile.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hipport.rules import load_rules  # noqa: E402

TOOLCHAIN = REPO / ".toolchain"
CUDA_INCLUDE = TOOLCHAIN / "pkgs/trixie/nvidia-cuda-dev/usr/include"
CUDA_LIBCUXX = TOOLCHAIN / "pkgs/trixie/libcu++-dev/usr/include"
HIP_INCLUDE = TOOLCHAIN / "pkgs/sid/libamdhip64-dev/usr/include"
LIB_INCLUDE = TOOLCHAIN / "amd-libs/usr/include"
LIBCLANG = Path("/usr/lib/llvm-19/lib/libclang-19.so.1")
RESOURCE_DIR = Path("/usr/lib/llvm-19/lib/clang/19")
CLANG = "clang++-19"

#: family -> (CUDA headers, HIP headers) whose declarations are compared.
HEADERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cuda_runtime": (("cuda_runtime.h",), ("hip/hip_runtime_api.h",)),
    "cuda_driver": (("cuda.h",), ("hip/hip_runtime_api.h",)),
    "cublas": (("cublas_v2.h",), ("hipblas/hipblas.h",)),
    "cublaslt": (("cublasLt.h",), ("hipblaslt/hipblaslt.h",)),
    "cusparse": (("cusparse.h",), ("hipsparse/hipsparse.h",)),
    "cusolver": (("cusolverDn.h", "cusolverSp.h", "cusolverRf.h"), ("hipsolver/hipsolver.h",)),
    "cufft": (("cufft.h", "cufftXt.h"), ("hipfft/hipfft.h", "hipfft/hipfftXt.h")),
    "curand": (("curand.h",), ("hiprand/hiprand.h",)),
    "nvrtc": (("nvrtc.h",), ("hip/hiprtc.h",)),
}

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Declaration:
    """One declaration of a function: ``params`` as (type spelling, name, has a default),
    ``template`` when it is a function template (or a specialization of one), ``where`` its
    ``header:line`` (the path below the include root)."""

    def __init__(self, params: tuple[tuple[str, str, bool], ...], template: bool, where: str = ""):
        self.params, self.template, self.where = params, template, where

    def counts(self) -> set[int]:
        total = len(self.params)
        return set(range(total - sum(1 for *_, default in self.params if default), total + 1))


def _declarations(cindex, index, headers: tuple[str, ...], args: list[str]) -> dict[str, list[Declaration]]:
    """name -> declarations of the functions declared in ``headers`` (and what they include); a
    macro defined as another function's name (``#define cublasSgemm cublasSgemm_v2``) gets that
    function's declarations."""
    source = "".join(f"#include <{h}>\n" for h in headers)
    unit = index.parse("signatures.cpp", args=args, unsaved_files=[("signatures.cpp", source)],
                       options=cindex.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES
                       | cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    errors = [d for d in unit.diagnostics if d.severity >= cindex.Diagnostic.Error]
    if errors:
        raise SystemExit(f"{headers}: {errors[0]}")
    found: dict[str, dict[tuple, Declaration]] = {}
    aliases: dict[str, str] = {}
    stack = [unit.cursor]
    while stack:
        cursor = stack.pop()
        for child in cursor.get_children():
            if child.kind in (cindex.CursorKind.FUNCTION_DECL, cindex.CursorKind.FUNCTION_TEMPLATE):
                template = (child.kind == cindex.CursorKind.FUNCTION_TEMPLATE
                            or child.get_num_template_arguments() > 0)
                params = list(child.get_arguments()) if not template else \
                    [c for c in child.get_children() if c.kind == cindex.CursorKind.PARM_DECL]
                key = tuple((p.type.spelling, p.spelling, any(c.kind.is_expression() for c in p.get_children()))
                            for p in params)
                location = child.location
                where = f"{_short(location.file.name if location.file else '?')}:{location.line}"
                found.setdefault(child.spelling, {}).setdefault((key, template), Declaration(key, template, where))
            elif child.kind == cindex.CursorKind.MACRO_DEFINITION:
                tokens = [t.spelling for t in child.get_tokens()]
                if len(tokens) == 2 and tokens[1].isidentifier():
                    aliases[tokens[0]] = tokens[1]
            elif child.kind in (cindex.CursorKind.LINKAGE_SPEC, cindex.CursorKind.NAMESPACE,
                                cindex.CursorKind.UNEXPOSED_DECL):
                stack.append(child)
    for alias, target in aliases.items():
        if alias not in found and target in found:
            found[alias] = found[target]
    return {name: list(lists.values()) for name, lists in found.items()}


def _short(path: str) -> str:
    """A header path below its include root (``hipsparse/hipsparse.h``)."""
    for root in (CUDA_INCLUDE, CUDA_LIBCUXX, HIP_INCLUDE, LIB_INCLUDE):
        if path.startswith(str(root) + "/"):
            return path[len(str(root)) + 1:]
    return path


def _decayed(spelling: str) -> str:
    """A parameter type as the function sees it: a trailing array bound becomes a pointer."""
    return re.sub(r"\s*\[[^\]]*\]$", " *", spelling)


def _ported_type(spelling: str, rules) -> str:
    """A CUDA parameter type as hipport's renaming ports it (``const cuComplex *`` ->
    ``const hipComplex *``), ``struct``/``enum`` tags dropped."""
    def rename(match):
        mapping = rules.identifiers.get(match.group())
        return mapping.hip if mapping is not None and mapping.hip else match.group()
    return re.sub(r"\b(?:struct|enum)\s+", "", _WORD.sub(rename, spelling))


def compare(families: list[str]) -> dict:
    """Parameter-count comparison. Returns ``{"differs": [...], "same_count": [(cuda, hip,
    [Declaration...]), ...], "missing_cuda": [...], "missing_hip": [...], "compared": N}``."""
    from clang import cindex
    if LIBCLANG.is_file() and not cindex.Config.loaded:
        cindex.Config.set_library_file(str(LIBCLANG))
    index = cindex.Index.create()
    base = ["-x", "c++", "-std=c++17", "-resource-dir", str(RESOURCE_DIR)]
    cuda_args = base + ["-isystem", str(CUDA_INCLUDE), "-isystem", str(CUDA_LIBCUXX)]
    hip_args = base + ["-D__HIP_PLATFORM_AMD__", "-isystem", str(HIP_INCLUDE), "-isystem", str(LIB_INCLUDE)]
    rules = load_rules()
    result: dict = {"differs": [], "same_count": [], "missing_cuda": [], "missing_hip": [], "compared": 0}
    for family in families:
        cuda_headers, hip_headers = HEADERS[family]
        cuda = _declarations(cindex, index, cuda_headers, cuda_args)
        hip = _declarations(cindex, index, hip_headers, hip_args)
        for mapping in sorted((m for m in rules.identifiers.values() if m.family == family and m.kind == "function"
                               and m.hip), key=lambda m: m.line):
            if mapping.cuda not in cuda:
                result["missing_cuda"].append(f"{family} {mapping.cuda}")
                continue
            if mapping.hip not in hip:
                result["missing_hip"].append(f"{family} {mapping.cuda} -> {mapping.hip}")
                continue
            result["compared"] += 1
            cuda_counts = set().union(*(d.counts() for d in cuda[mapping.cuda] if not d.template))
            hip_counts = set().union(*(d.counts() for d in hip[mapping.hip]))
            if cuda_counts and not cuda_counts <= hip_counts:
                result["differs"].append({
                    "family": family, "cuda": mapping.cuda, "hip": mapping.hip,
                    "cuda_counts": sorted(cuda_counts), "hip_counts": sorted(hip_counts),
                    "cuda_params": [[d.where] + [f"{t} {n}" for t, n, _ in d.params] for d in cuda[mapping.cuda]],
                    "hip_params": [[d.where] + [f"{t} {n}" for t, n, _ in d.params] for d in hip[mapping.hip]]})
            else:
                result["same_count"].append((family, mapping.cuda, mapping.hip,
                                             [d for d in cuda[mapping.cuda] if not d.template]))
    result["rules"] = rules
    return result


def check_calls(result: dict, defines: list[str]) -> list[dict]:
    """Compile the ``static_assert(requires {...})`` file (see the module docstring) for the
    functions of ``result["same_count"]``; return those whose HIP twin rejects the ported CUDA
    argument types, each with clang's reason."""
    rules = result["rules"]
    lines = ["#include <utility>", "#include <hip/hip_fp16.h>", "#include <hip/hip_complex.h>"]
    lines += [f"#include <{h}>" for h in dict.fromkeys(h for _, hips in HEADERS.values() for h in hips)]
    asserts: dict[int, tuple] = {}
    for family, cuda, hip, declarations in result["same_count"]:
        for declaration in declarations:
            types = [_ported_type(_decayed(t), rules) for t, _, _ in declaration.params]
            arguments = ", ".join(f"std::declval<{t}>()" for t in types)
            lines.append(f'static_assert(requires {{ {hip}({arguments}); }}, "{cuda}");')
            asserts[len(lines)] = (family, cuda, hip, types, declaration.where)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "calls.cpp"
        path.write_text("\n".join(lines) + "\n")
        command = [CLANG, "-x", "c++", "-std=c++20", "-fsyntax-only", "-ferror-limit=0", "-w", "-D__HIP_PLATFORM_AMD__",
                   "-isystem", str(HIP_INCLUDE), "-isystem", str(LIB_INCLUDE), *[f"-D{d}" for d in defines], str(path)]
        stderr = subprocess.run(command, capture_output=True, text=True).stderr
    failed: dict[int, list[str]] = {}
    current = None
    for line in stderr.splitlines():
        match = re.match(rf"^{re.escape(str(path))}:(\d+):\d+: error: (.*)$", line)
        if match:
            current = failed.setdefault(int(match.group(1)), [])
            current.append(match.group(2))
        elif current is not None and ": note: " in line:
            current.append(line.split(": note: ", 1)[1])
    unknown = [line for line in failed if line not in asserts]
    if unknown:
        raise SystemExit(f"the call-check file itself does not compile at line {unknown[0]}: {failed[unknown[0]][0]}")
    return [{"family": f, "cuda": c, "hip": h, "ported_types": t, "cuda_declaration": w, "clang": failed[line],
             "unported_type": not failed[line][0].startswith("no matching function")}
            for line, (f, c, h, t, w) in asserts.items() if line in failed]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", action="append", choices=sorted(HEADERS), help="default: all")
    parser.add_argument("--calls", action="store_true", help="also check argument types (compiles with clang-19)")
    parser.add_argument("--define", action="append", default=[], help="a macro for the --calls compile (HIPBLAS_V2)")
    parser.add_argument("--json", type=Path, help="write the full result here")
    options = parser.parse_args(argv)
    result = compare(options.family or sorted(HEADERS))
    for entry in result["differs"]:
        print(f"counts {entry['family']:12} {entry['cuda']}{entry['cuda_counts']} -> {entry['hip']}{entry['hip_counts']}")
    calls = check_calls(result, options.define) if options.calls else []
    for entry in calls:
        what = "unported" if entry["unported_type"] else "types "
        print(f"{what} {entry['family']:12} {entry['cuda']} -> {entry['hip']}: {entry['clang'][-1]}")
    print(f"compared {result['compared']}: argument counts differ for {len(result['differs'])}"
          + (f", argument types for {len({e['cuda'] for e in calls if not e['unported_type']})}, and "
             f"{len({e['cuda'] for e in calls if e['unported_type']})} take a CUDA type hipport does not port"
             if options.calls else "")
          + f"; not declared in the CUDA headers: {len(result['missing_cuda'])}, in the HIP headers: "
          f"{len(result['missing_hip'])}", file=sys.stderr)
    if options.json:
        out = {k: v for k, v in result.items() if k not in ("rules", "same_count")}
        out["types"] = calls
        options.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
