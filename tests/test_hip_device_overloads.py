"""Compile failures of HeCBench ports that had no finding (issue 10), fixed by class:

1. a program's own ``__device__`` definition of a function HIP 6.4 defines (``atomicMax(double*,
   double)``): kept for NVIDIA only, HP2040 (hipport/device_overloads.py; the facts are
   rules/hip_headers/device_overloads.yaml, written by tools/hip_device_overloads.py);
2. ``__ffsll``/``__ffs`` of an argument whose type is neither of HIP's two overloads: cast to CUDA's
   parameter type, HP2041 for a 64-bit ``__ffs`` argument (hipport/integer_overloads.py);
3. ``x = {}`` on ``__half``/``__half2``/``__hip_bfloat16``/``__hip_bfloat162``: ``x = T{}``
   (hipport/brace_assignment.py);
4. unqualified ``isfinite``/``isnan``/``isinf`` in host code: ``#include <math.h>``
   (hipport/classification_macros.py);
5. ``atomicAdd((half2 *)p, v)``: HP2015, the argument's typedef resolved (hipport/overloads.py).

Fixtures: tests/fixtures/trial_classes/{hip_defined,ffs_casts,half_braces,host_classification}/,
written for these tests. Each port is compiled for gfx90a and gfx1100; each rewrite is undone in
the port to show the error it removes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import FIXTURES, REPO, findings_lines
from hipport.convert import ConvertOptions, convert_tree
from hipport.device_overloads import device_overloads, normalized_type
from hipport.toolchain import CompileError

CLASSES = FIXTURES / "trial_classes"
ARCHS = ["gfx90a", "gfx1100"]
CODE_OBJECTS = ["hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
GUARD = "#if !defined(__HIP_PLATFORM_AMD__)  // hipport: HIP defines this function (HP2040)"


def _port(name: str, out: Path) -> Path:
    convert_tree(CLASSES / name, out, ConvertOptions(jobs=1))
    return out


def _findings(out: Path) -> list[str]:
    report = json.loads((out / "hipport-report.json").read_text(encoding="utf-8"))
    return [f"{f['path']}:{line}" for f, line in zip(report["findings"], findings_lines(report))]


def _compile(toolchain, out: Path, unit: str, tmp_path: Path) -> str | None:
    """None when OUT's ``unit`` compiles for gfx90a and gfx1100 (both code objects present), else
    clang's standard error."""
    obj = tmp_path / (Path(unit).stem + ".o")
    try:
        toolchain.compile_amd(out / unit, obj, ARCHS, ["-I", str(out)])
    except CompileError as exc:
        return exc.stderr
    assert toolchain.code_object_targets(obj) == CODE_OBJECTS
    return None


# --------------------------------------------------------------------------- the generated data
def test_device_overloads_file_is_current() -> None:
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "hip_device_overloads.py"), "--check"],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.strip() == "rules/hip_headers/device_overloads.yaml is up to date"


def test_device_overloads_facts() -> None:
    typedefs, functions = device_overloads()
    assert typedefs["half2"] == "__half2" and typedefs["uint64_t"] == "unsigned long"
    assert functions["atomicMax"][("double*", "double")] == "hip/amd_detail/amd_hip_atomic.h:903"
    assert functions["atomicMin"][("float*", "float")] == "hip/amd_detail/amd_hip_atomic.h:611"
    assert set(functions["__ffsll"]) == {("unsignedlonglong",), ("longlong",)}
    assert ("__half2*", "__half2") not in functions["atomicAdd"]


@pytest.mark.parametrize("text, expected", [
    ("double *", "double*"), ("float *const", "float*"), ("const float", "float"),
    ("const half2 *", "const__half2*"), ("uint64_t", "unsignedlong"), ("long unsigned int", "unsignedlong"),
    ("unsigned long long int *__restrict__", "unsignedlonglong*"), ("signed", "int"), ("float2", "HIP_vector_type<float,2>"),
])
def test_normalized_type(text: str, expected: str) -> None:
    assert normalized_type(text, device_overloads()[0]) == expected


# --------------------------------------------------------------------------- 1. HIP defines it
def test_own_definitions_hip_has_are_guarded(tmp_path: Path) -> None:
    out = _port("hip_defined", tmp_path / "out")
    lines = (out / "own_atomics.hip").read_text(encoding="utf-8").splitlines()
    guarded = [i + 1 for i, line in enumerate(lines) if line == GUARD]
    assert guarded == [5, 18, 31]
    assert [lines[i] for i in (15, 28, 34)] == ["#endif"] * 3
    assert lines[36] == "__device__ int atomicMin(int *where, short value) { return atomicMin(where, (int)value); }"
    assert lines[38].startswith("float atomicMax(float *where, float value)")
    assert [f for f in _findings(out) if " HP2040 " in f] == [
        "own_atomics.cu:5:1 HP2040 info atomicMax(double *, double) is a device function HIP 6.4 defines "
        "(hip/amd_detail/amd_hip_atomic.h:903): this definition is kept for NVIDIA only "
        "(#if !defined(__HIP_PLATFORM_AMD__))",
        "own_atomics.cu:16:1 HP2040 info atomicMin(float * const, const float) is a device function HIP 6.4 "
        "defines (hip/amd_detail/amd_hip_atomic.h:611): this definition is kept for NVIDIA only "
        "(#if !defined(__HIP_PLATFORM_AMD__))",
        "own_atomics.cu:27:1 HP2040 info atomicAdd(uint64_t *, uint64_t) is a device function HIP 6.4 defines "
        "(hip/amd_detail/amd_hip_atomic.h:240): this definition is kept for NVIDIA only "
        "(#if !defined(__HIP_PLATFORM_AMD__))",
    ]


def test_guarded_definitions_compile_and_fail_unguarded(tmp_path: Path, toolchain) -> None:
    out = _port("hip_defined", tmp_path / "out")
    assert _compile(toolchain, out, "own_atomics.hip", tmp_path) is None
    text = (out / "own_atomics.hip").read_text(encoding="utf-8")
    (out / "own_atomics.hip").write_text(text.replace(GUARD + "\n", "#if 1\n"), encoding="utf-8")
    errors = _compile(toolchain, out, "own_atomics.hip", tmp_path)
    assert errors is not None
    assert [line.split("own_atomics.hip:")[1] for line in errors.splitlines()
            if ": error: " in line and "gfx" not in line][:3] == [
        "6:35: error: redefinition of 'atomicMax'",
        "19:25: error: static declaration of 'atomicMin' follows non-static declaration",
        "32:31: error: functions that differ only in their return type cannot be overloaded"]


def test_half2_atomic_add_through_a_typedef_is_defined(tmp_path: Path, toolchain) -> None:
    """HIP 6.4.3 lacks atomicAdd(__half2 *, __half2): the port defines it (HP2043,
    hipport/port_definitions.py), so the call through the half2 typedef compiles."""
    out = _port("hip_defined", tmp_path / "out")
    assert [f.split(" info ")[0] for f in _findings(out) if f.startswith("half_atomics.cu")] == [
        "half_atomics.cu:4:3 HP2043"]
    assert _compile(toolchain, out, "half_atomics.hip", tmp_path) is None


# --------------------------------------------------------------------------- 2. __ffs / __ffsll
FFS_PORTED = [
    "  out[0] = __ffsll((long long)(w));",
    "  out[1] = __ffsll((long long)(words[1]));",
    "  out[2] = __ffsll(s) + __ffsll(u);",
    "  out[3] = __ffsll((long long)(z)) + __ffsll((long long)(i)) + __ffsll((long long)(w >> 3));",
    "  out[4] = __ffs(i) + __ffs(h) + __ffs((int)(w));",
]


def test_ffs_arguments_are_cast(tmp_path: Path) -> None:
    out = _port("ffs_casts", tmp_path / "out")
    assert (out / "bits.hip").read_text(encoding="utf-8").splitlines()[7:12] == FFS_PORTED
    assert _findings(out) == [
        "bits.cu:12:34 HP2041 warning __ffs of a uint64_t argument: CUDA's __ffs(int) keeps only its low 32 "
        "bits; the port casts it to (int) as CUDA converts it (HIP's __ffs has int and unsigned int overloads, "
        "so the call without the cast is ambiguous)"]


def test_ffs_casts_compile_and_fail_without(tmp_path: Path, toolchain) -> None:
    out = _port("ffs_casts", tmp_path / "out")
    assert _compile(toolchain, out, "bits.hip", tmp_path) is None
    text = (out / "bits.hip").read_text(encoding="utf-8")
    (out / "bits.hip").write_text(text.replace("(long long)", "").replace("(int)", ""), encoding="utf-8")
    errors = _compile(toolchain, out, "bits.hip", tmp_path)
    assert errors is not None
    first_target = errors.split("errors generated when compiling for")[0]
    assert [line.split("bits.hip:")[1] for line in first_target.splitlines() if ": error: " in line] == [
        "8:12: error: call to '__ffsll' is ambiguous", "9:12: error: call to '__ffsll' is ambiguous",
        "11:12: error: call to '__ffsll' is ambiguous", "11:27: error: call to '__ffsll' is ambiguous",
        "11:42: error: call to '__ffsll' is ambiguous", "12:34: error: call to '__ffs' is ambiguous"]


# --------------------------------------------------------------------------- 3. x = {}
def test_empty_braces_name_the_half_types(tmp_path: Path) -> None:
    out = _port("half_braces", tmp_path / "out")
    assert (out / "zero.hip").read_text(encoding="utf-8").splitlines()[7:13] == [
        "  total = __half2{};",
        "  pairs[threadIdx.x] = total;",
        "  halves[threadIdx.x] = __half{};",
        "  *bpairs = __hip_bfloat162{};",
        "  bvalues[threadIdx.x] = __hip_bfloat16{};",
        "  floats[threadIdx.x] = {};",
    ]
    assert _findings(out) == []


def test_named_braces_compile_and_fail_without(tmp_path: Path, toolchain) -> None:
    out = _port("half_braces", tmp_path / "out")
    assert _compile(toolchain, out, "zero.hip", tmp_path) is None
    text = (out / "zero.hip").read_text(encoding="utf-8")
    for hip_type in ("__half2", "__half", "__hip_bfloat162", "__hip_bfloat16"):
        text = text.replace(f"= {hip_type}{{}}", "= {}")
    (out / "zero.hip").write_text(text, encoding="utf-8")
    errors = _compile(toolchain, out, "zero.hip", tmp_path)
    assert errors is not None
    assert [line.split(": error: ")[0].rsplit("/", 1)[-1] for line in errors.splitlines()
            if "use of overloaded operator '=' is ambiguous" in line][:4] == [
        "zero.hip:8:9", "zero.hip:10:23", "zero.hip:11:11", "zero.hip:12:24"]


# --------------------------------------------------------------------------- 4. host isfinite
MATH_H = "#include <math.h>  // hipport: cuda_runtime.h declares isfinite/isnan/isinf for host code through it"


def test_host_classification_gets_math_h(tmp_path: Path) -> None:
    out = _port("host_classification", tmp_path / "out")
    assert (out / "check.h").read_text(encoding="utf-8").splitlines()[:5] == [
        "#ifndef CHECK_H", "#define CHECK_H", MATH_H, "#include <cmath>", "#include <hip/hip_runtime.h>"]
    assert MATH_H not in (out / "device_only.hip").read_text(encoding="utf-8")
    assert MATH_H not in (out / "main.hip").read_text(encoding="utf-8")


def test_math_h_compiles_and_cmath_alone_fails(tmp_path: Path, toolchain) -> None:
    out = _port("host_classification", tmp_path / "out")
    assert _compile(toolchain, out, "main.hip", tmp_path) is None
    assert _compile(toolchain, out, "device_only.hip", tmp_path) is None
    header = out / "check.h"
    header.write_text(header.read_text(encoding="utf-8").replace(MATH_H + "\n", ""), encoding="utf-8")
    errors = _compile(toolchain, out, "main.hip", tmp_path)
    assert errors is not None and "check.h:11:10: error: no matching function for call to 'isfinite'" in errors
