#!/usr/bin/env python3
"""Write ``rules/hip_headers/host_math.yaml``: the math functions CUDA provides in host code
and HIP only in device code.

CUDA 12.4's math_functions.h declares its math library ``__host__ __device__`` (``normcdf``,
``erfcinv``, ``rsqrt``, ``sincospi``... compile and run in host code with nvcc); HIP 6.4.3
defines the functions that the C library lacks in clang's ``__clang_hip_math.h`` for device code
only, so the same host call does not compile ("no matching function for call to 'normcdf'").

Method: every function that clang's ``__clang_hip_math.h`` (the header HIP's math library is,
from the toolchain's clang) defines ``__DEVICE__``, whose name does not start with ``__`` and
whose parameters are all arithmetic types or pointers to them, is called once, one line each, in a host function, with
one of its overloads (``double`` first, then ``float``, then the first): once as CUDA, compiled
with the toolchain's nvcc 12.4 (``-c``, host and device), and once as HIP, compiled with clang
for gfx90a (``-fsyntax-only -ferror-limit=0``). A name is written when its line compiles as CUDA
and fails as HIP.

Usage: ``.venv/bin/python tools/hip_host_math.py`` (needs ``scripts/install-toolchain.sh``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hipport.toolchain import Toolchain  # noqa: E402

OUTPUT = REPO / "rules" / "hip_headers" / "host_math.yaml"
_ARITHMETIC = {"float", "double", "int", "unsigned int", "long", "unsigned long", "long long",
               "unsigned long long", "short", "unsigned short", "char", "signed char", "unsigned char", "bool"}


_DEFINITION = re.compile(
    r"^__DEVICE__\s*(?:__CONSTEXPR__\s*)?(?:__RETURN_TYPE|[a-z][a-z ]*?)\s+([a-z][a-z0-9_]*)\(([^()]*)\)\s*\{", re.M)


def _candidates(header: Path) -> dict[str, tuple[str, ...]]:
    """Name -> the parameter types of the overload to call, from clang's ``__clang_hip_math.h``
    (``__DEVICE__ double normcdf(double __x) {``): functions not starting with ``__`` whose
    parameters are all arithmetic types or pointers to them."""
    found: dict[str, list[tuple[str, ...]]] = {}
    for match in _DEFINITION.finditer(header.read_text()):
        name, parameters = match.group(1), match.group(2).strip()
        params = []
        for parameter in (p.strip() for p in parameters.split(",")) if parameters else ():
            words = re.sub(r"\b(?:const|__restrict__|__attribute__\(\(\w+\)\))\b", " ", parameter).split()
            pointer = "*" in parameter
            words = [w.strip("*") for w in words if w.strip("*")]
            base = " ".join(words[:-1]) if len(words) > 1 else ""
            params.append(base + (" *" if pointer else ""))
        if params and all(p.rstrip(" *") in _ARITHMETIC and p.count("*") <= 1 for p in params):
            found.setdefault(name, []).append(tuple(params))
    chosen = {}
    for name, overloads in sorted(found.items()):
        overloads.sort(key=lambda ps: (0 if ps[0].startswith("double") else 1 if ps[0].startswith("float") else 2, ps))
        chosen[name] = overloads[0]
    return chosen


def _call(name: str, params: tuple[str, ...]) -> str:
    arguments = []
    for index, param in enumerate(params):
        base = param.rstrip(" *")
        arguments.append(f"&v{index}" if param.endswith("*") else f"({base})1")
    locals_ = " ".join(f"{p.rstrip(' *')} v{i}{{}};" for i, p in enumerate(params) if p.endswith("*"))
    return f"{{ {locals_} (void){name}({', '.join(arguments)}); }}"


def _failing_lines(stderr: str, pattern: str) -> set[int]:
    return {int(m.group(1)) for m in re.finditer(pattern, stderr)}


def main() -> int:
    toolchain = Toolchain.load()
    resource = subprocess.run([str(toolchain.clang), "-print-resource-dir"], capture_output=True, text=True,
                              check=True).stdout.strip()
    header = Path(resource) / "include" / "__clang_hip_math.h"
    calls = _candidates(header)
    names = list(calls)
    body = [f"    {_call(name, calls[name])}" for name in names]
    first = 4  # the line of the first call in both files
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cuda = tmp / "calls.cu"
        cuda.write_text("#include <cuda_runtime.h>\n#include <cmath>\nvoid host_calls() {\n" + "\n".join(body) + "\n}\n")
        hip = tmp / "calls.hip"
        hip.write_text("#include <hip/hip_runtime.h>\n#include <cmath>\nvoid host_calls() {\n" + "\n".join(body) + "\n}\n")
        done = subprocess.run(toolchain.cuda_compile_command(cuda, tmp / "c.o", link=False), capture_output=True, text=True)
        cuda_fails = _failing_lines(done.stderr, r"calls\.cu\((\d+)\): error")
        done = subprocess.run(toolchain.amd_compile_command(hip, tmp / "h.o", ["gfx90a"], ["-fsyntax-only", "-ferror-limit=0"]),
                              capture_output=True, text=True)
        hip_fails = _failing_lines(done.stderr, r"calls\.hip:(\d+):\d+: error")
    device_only = [name for i, name in enumerate(names) if first + i not in cuda_fails and first + i in hip_fails]
    lines = [
        "# Math functions CUDA 12.4 provides in host code and HIP 6.4.3 in device code only.",
        "# hipport.host_math reports their calls in host code (HP2055).",
        "# GENERATED by tools/hip_host_math.py (do not edit; run it again after changing the toolchain):",
        f"# each function {header.name} defines for the device called once in a host function, compiled as CUDA with",
        f"# nvcc {toolchain.cuda_version} and as HIP with {Path(str(toolchain.clang)).name} and libamdhip64-dev "
        f"{toolchain.hip_amd_version} for gfx90a;",
        "# listed: the calls that compile as CUDA and fail as HIP.",
        "device_only_in_hip:",
        *[f"  - {name}" for name in device_only],
    ]
    OUTPUT.write_text("\n".join(lines) + "\n")
    print(f"{OUTPUT}: {len(device_only)} of {len(names)} functions "
          f"(CUDA host fails: {len(cuda_fails)}, HIP host fails: {len(hip_fails)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
