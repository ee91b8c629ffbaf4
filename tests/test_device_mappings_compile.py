"""Every device function and type the rules map compiles for AMD, or its use has a finding
(issue 10 point 6).

A generated test: from the rule data (``rules/cuda_device.yaml``, ``rules/cucomplex.yaml``) and the
argument types CUDA 12.4's own headers declare each function for
(``tests/fixtures/device_overloads/cuda-12.4.yaml``, written by ``tools/cuda_device_overloads.py``
from ``sm_32_intrinsics.h``, ``device_atomic_functions.h``, ``cuda_fp16.h``, ``cuda_bf16.h``,
``cuComplex.h`` ...), it writes ONE CUDA translation unit with one line per (function, CUDA
overload) of every name the rules port to HIP (status supported, deprecated or experimental, with
a HIP name) and one line per mapped type (the lane mask of the ``*_sync`` warp functions is
declared 64 bits wide, as HIP 6.4 requires and finding HP1102 asks, so what is checked there is the
value type), ports it with ``hipport convert`` and compiles the port
for gfx90a with the project toolchain (HIP 6.4.3). Compile errors are attributed to the line of
the use (an error inside a HIP header to the first line of this unit in its instantiation notes).

Checked:

* every use that does not compile carries a finding on its line that names the function or type
  (or a parameter type of that overload), so a real program that uses it is never ported silently
  into a compile error;
* where the data lists the CUDA overloads HIP lacks (``overloads: {hip_lacks: [...]}``, kept in
  ``HIP_FIXES`` of ``tools/import_hipify_tables.py``), that list is exact: the overloads listed
  fail, every other CUDA overload of the name compiles (a correction of the data that is too
  strict or too lax fails here);
* the uses that pass clang's semantic checks also pass code generation: a second translation unit
  of only those compiles to a code object for gfx90a and gfx1100.

Also checked: the CUDA unit itself compiles with nvcc 12.4 for sm_90, so every use is a real CUDA
call. Cooperative groups: HIP keeps the namespace and the names, so no rule entry lists the group
members; a second unit uses every public member of CUDA 12.4's group classes, and the members HIP
6.4.3 lacks (``num_threads``, the arrive/wait barrier, grid_group's block queries, ``get_type``) are
pinned exactly; the port renames num_threads (size) and thread_block::dim_threads (group_dim), and
every other failing member carries a finding (HP2020, hipport/group_members.py). Three compiles of about 1,200 uses each; about two minutes on 2 cores. (At -O0, gfx1100 code
generation fails for __syncthreads_and/_or/_count with this toolchain: "wavefront shifts are not
supported on GFX10+" from the LLVM 17 device libraries under clang 19; the code-generation check
compiles at the toolchain's -O2, as the ports build by default.)
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from helpers import FIXTURES
from hipport.convert import ConvertOptions, convert_tree
from hipport.port_definitions import port_definitions
from hipport.rules import default_rules
from hipport.toolchain import CompileError
from hipport.warp import MASK_FUNCTIONS

OVERLOADS = FIXTURES / "device_overloads" / "cuda-12.4.yaml"
#: Mapping files whose device-side functions and types are compiled.
FAMILIES = ("cuda_device", "cucomplex", "curand")
#: Sections of a family that hold its device API (cuRAND's host API is not callable in device code).
DEVICE_SECTIONS = {"curand": ("Device API Functions", "CURAND Data types")}
PORTED_STATUSES = ("supported", "deprecated", "experimental")
HEADERS = ("assert.h", "cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cuComplex.h", "curand_kernel.h")
_MARK = re.compile(r"// use (\d+)$")
_DIAGNOSTIC = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<column>\d+): (?P<kind>error|note|warning): (?P<text>.*)$")


@dataclass(frozen=True)
class Use:
    """One line of the generated unit: ``name`` called with ``params`` (CUDA's spelling of one
    overload's parameter types), or ``params`` None for a type."""

    name: str
    params: tuple[str, ...] | None
    widened: bool = False

    def names(self) -> set[str]:
        """The function or type, and the identifiers of its parameter types: a finding naming any
        of them explains a failure of the line (``curandStateTest_t``, which HIP lacks)."""
        words = {w for p in self.params or () for w in re.findall(r"[A-Za-z_]\w*", p)}
        return {self.name} | words

    def label(self) -> str:
        if self.params is None:
            return self.name
        return f"{self.name}({', '.join(self.params)})" + (" [mask widened to 64 bits]" if self.widened else "")


def _declarator(type_text: str, name: str) -> str:
    """``type_text name`` as a parameter declaration (pointer-to-function and array types get a
    name inside their spelling)."""
    if "(*)" in type_text:
        return type_text.replace("(*)", f"(*{name})", 1)
    if type_text.endswith("]"):
        at = type_text.index("[")
        return f"{type_text[:at]}{name}{type_text[at:]}"
    return f"{type_text} {name}"


def generate_unit() -> tuple[str, list[Use], list[str]]:
    """(CUDA source, the uses by number, mapped function names CUDA 12.4 declares no overload of).

    Use number ``i`` is the line ending in ``// use i``.
    """
    data = yaml.safe_load(OVERLOADS.read_text(encoding="utf-8"))
    overloads: dict[str, list[list[str]]] = data["overloads"]
    opaque = set(data["opaque_types"])
    rules = default_rules()
    lines = [f"#include <{h}>" for h in HEADERS]
    uses: list[Use] = []
    undeclared: list[str] = []
    for mapping in sorted(rules.identifiers.values(), key=lambda m: m.cuda):
        if mapping.family not in FAMILIES or mapping.status not in PORTED_STATUSES or not mapping.hip:
            continue
        if mapping.family in DEVICE_SECTIONS and mapping.section not in DEVICE_SECTIONS[mapping.family]:
            continue
        if mapping.kind == "type":
            number = len(uses)
            uses.append(Use(mapping.cuda, None))
            complete = "" if mapping.cuda in opaque else f"static_assert(sizeof({mapping.cuda}) > 0, \"\"); "
            lines.append(f"__device__ void type_{number}({mapping.cuda} *p) {{ {complete}(void)p; }} // use {number}")
        elif mapping.kind == "function":
            if mapping.cuda not in overloads:
                undeclared.append(mapping.cuda)
                continue
            for params in overloads[mapping.cuda]:
                fixed = [p for p in params if p != "..."]
                number = len(uses)
                written = list(fixed)
                widened = mapping.cuda in MASK_FUNCTIONS and written[:1] == ["unsigned int"]
                if widened:
                    written[0] = "unsigned long long"  # as HP1102 asks: HIP 6.4 wants 64-bit masks
                uses.append(Use(mapping.cuda, tuple(fixed), widened))
                declared = ", ".join(_declarator(p, f"a{k}") for k, p in enumerate(written))
                arguments = ", ".join(f"a{k}" for k in range(len(fixed)))
                lines.append(f"__device__ void use_{number}({declared}) {{ (void){mapping.cuda}({arguments}); }} "
                             f"// use {number}")
    return "\n".join(lines) + "\n", uses, undeclared


def use_lines(text: str) -> dict[int, int]:
    """1-based line -> use number, from the ``// use N`` marks of a (ported) unit."""
    marks = {}
    for index, line in enumerate(text.splitlines(), 1):
        match = _MARK.search(line)
        if match:
            marks[index] = int(match.group(1))
    return marks


def failing_lines(stderr: str, unit: Path) -> tuple[dict[int, list[str]], list[str]]:
    """Attribute clang's errors to lines of ``unit``: (line -> error messages, errors with no
    line of the unit). An error located in a header belongs to the first line of ``unit`` among
    the notes that follow it (``in instantiation of ... requested here``, ``expanded from``)."""
    by_line: dict[int, list[str]] = defaultdict(list)
    lost: list[str] = []
    group: list[tuple[str, int, str, str]] = []
    last = [0]

    def close() -> None:
        if not group:
            return
        file, line, _, text = group[0]
        at = next((ln for f, ln, _, _ in group if Path(f).name == unit.name), None)
        if at is None and Path(file).name != unit.name and by_line:
            at = last[0]  # a second error of the same instantiation: clang prints its notes once
        if at is None:
            lost.append(f"{file}:{line}: {text}")
        else:
            by_line[at].append(text if Path(file).name == unit.name else f"{text} ({Path(file).name}:{line})")
            last[0] = at

    for raw in stderr.splitlines():
        match = _DIAGNOSTIC.match(raw)
        if match is None:
            if raw.startswith("fatal error") or (" error: " in raw and not raw.startswith("In file")):
                close()
                group = []
                lost.append(raw)
            continue
        kind = match["kind"]
        if kind in ("error", "warning"):
            close()
            group = [(match["file"], int(match["line"]), kind, match["text"])] if kind == "error" else []
        elif group:
            group.append((match["file"], int(match["line"]), kind, match["text"]))
    close()
    return by_line, lost


def _compile(toolchain, source: Path, archs: list[str], optimize: bool = False) -> str:
    """clang's stderr for ``source`` (empty string when it compiled without errors). Without
    ``optimize`` at -O0 (semantic errors do not depend on it), else at the toolchain's -O2."""
    flags = ["-ferror-limit=0", "-w"] + ([] if optimize else ["-O0"])
    try:
        toolchain.compile_amd(source, source.with_suffix(".o"), archs, extra_flags=flags, timeout=600)
    except CompileError as error:
        return error.stderr or str(error)
    return ""


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    """(uses, ported HIP text, findings by line, undeclared names, out folder)."""
    base = tmp_path_factory.mktemp("device_mappings")
    source, uses, undeclared = generate_unit()
    src = base / "src"
    src.mkdir()
    (src / "device_uses.cu").write_text(source)
    out = base / "out"
    convert_tree(src, out, ConvertOptions(jobs=1))
    report = json.loads((out / "hipport-report.json").read_text())
    cuda_lines = use_lines(source)
    findings: dict[int, list[dict]] = defaultdict(list)
    for finding in report["findings"]:
        if finding["line"] in cuda_lines:
            findings[cuda_lines[finding["line"]]].append(finding)
    return uses, (out / "device_uses.hip").read_text(), findings, undeclared, out


@pytest.fixture(scope="module")
def compiled(ported, toolchain):
    """use number -> its compile errors (gfx90a), for the uses that do not compile."""
    uses, text, _, _, out = ported
    unit = out / "device_uses.hip"
    stderr = _compile(toolchain, unit, ["gfx90a"])
    by_line, lost = failing_lines(stderr, unit)
    assert not lost, "compile errors outside any use line:\n" + "\n".join(lost[:20])
    marks = use_lines(text)
    stray = sorted(set(by_line) - set(marks))
    assert not stray, "errors on lines that are not uses: " + ", ".join(f"{ln}: {by_line[ln][0]}" for ln in stray[:10])
    return {marks[line]: errors for line, errors in by_line.items()}


def test_every_mapped_function_has_cuda_overloads(ported):
    """The generated unit covers the mapped functions: those CUDA 12.4 declares no overload of
    (clang built-ins, names CUDA 12 removed for sm_70 and newer) are only these."""
    _, _, _, undeclared, _ = ported
    assert undeclared == ["__assertfail", "__shfl", "__shfl_down", "__shfl_up", "__shfl_xor"]


def test_the_cuda_unit_is_valid_cuda(toolchain, tmp_path):
    """Every generated use is a real CUDA 12.4 call: the CUDA unit compiles with nvcc for sm_90
    (so a failure for AMD is HIP's, not a wrong overload in the data)."""
    source, _, _ = generate_unit()
    unit = tmp_path / "device_uses.cu"
    unit.write_text(source)
    toolchain.compile_cuda(unit, tmp_path / "device_uses.o", link=False, extra_flags=("-std=c++17",))
    assert (tmp_path / "device_uses.o").stat().st_size > 0


def test_every_failing_use_has_a_finding_naming_it(ported, compiled):
    uses, _, findings, _, _ = ported
    silent = [f"{uses[n].label()}: {errors[0]}" for n, errors in sorted(compiled.items())
              if not any(f["name"] in uses[n].names() for f in findings.get(n, []))]
    assert not silent, f"{len(silent)} uses do not compile for gfx90a and have no finding:\n" + "\n".join(silent)


def test_hip_lacks_in_the_data_is_exact(ported, compiled):
    """For a name whose entry lists ``overloads: {hip_lacks: ...}``: exactly the CUDA overloads
    listed there fail (except those the port defines, rules/definitions/device_functions.yaml,
    which must compile), and each listed one is a real CUDA 12.4 overload."""
    uses, _, _, _, _ = ported
    rules = default_rules()
    wrong, seen = [], defaultdict(set)
    port_defined = {f"{name}({p})" for entry in port_definitions() for name, lists in entry.overloads.items()
                    for p in lists}
    for number, use in enumerate(uses):
        mapping = rules.identifiers[use.name]
        if use.params is None or not mapping.hip_lacks:
            continue
        signature = ", ".join(use.params)
        seen[use.name].add(signature)
        listed = signature in mapping.hip_lacks
        if listed and f"{use.name}({signature})" in port_defined:
            if number in compiled:  # HIP lacks it; the port defines it (HP2043), so it must compile
                wrong.append(f"{use.label()}: the port defines it, yet it fails ({compiled[number][0]})")
            continue
        if listed != (number in compiled):
            wrong.append(f"{use.label()}: " + ("listed in hip_lacks but compiles" if listed else
                                               f"fails but is not in hip_lacks ({compiled[number][0]})"))
    for name, mapping in sorted(rules.missing_overloads.items()):
        wrong += [f"{name}({s}): in hip_lacks but not a CUDA 12.4 overload" for s in mapping.hip_lacks
                  if s not in seen[name]]
    assert not wrong, "\n".join(wrong)


def test_uses_that_pass_sema_generate_code(ported, compiled, toolchain, tmp_path):
    uses, text, _, _, _ = ported
    keep = []
    marks = {line: n for line, n in use_lines(text).items()}
    for index, line in enumerate(text.splitlines(), 1):
        keep.append("" if marks.get(index) in compiled else line)
    unit = tmp_path / "device_uses_ok.hip"
    unit.write_text("\n".join(keep) + "\n")
    stderr = _compile(toolchain, unit, ["gfx90a", "gfx1100"], optimize=True)
    by_line, lost = failing_lines(stderr, unit)
    failing = [f"{uses[marks[line]].label()}: {errors[0]}" for line, errors in sorted(by_line.items()) if line in marks]
    assert not failing and not lost and not stderr.strip(), "\n".join(failing + lost) or stderr[-3000:]


CALLS = """\
#include <cuda_fp16.h>
struct Buffers { const float* in; };
__device__ unsigned long long total;
__global__ void calls(const float* in, float* out, const __half* hin, __half2* h2, Buffers* b, double x, int* counts) {
  out[threadIdx.x] = __ldcs(&in[threadIdx.x]);
  __half h = __ldcs(hin + threadIdx.x);
  out[1] = __ldcs(b->in);
  atomicAdd(&out[2], 1.0f);
  atomicAdd(h2, __floats2half2_rn(1.0f, 2.0f));
  atomicAdd(counts + 3, 1);
  atomicAnd(&total, 1ull);
  float s, c;
  sincos(1.5f, &s, &c);
  double ds, dc;
  sincos(x, &ds, &dc);
  out[3] = fma(out[4], 2.0f, 1.0f);
  out[5] = __ldg((const float*)b->in);  // __ldg(b->in) and "__ldcs(p)" in a comment or string: nothing
}
"""


def test_missing_overload_findings(tmp_path):
    """HP2015 where the first argument's type is one HIP lacks (read from a parameter, a cast, a
    literal), or cannot be read for __ldcs; nothing for the types HIP has (float atomicAdd,
    double sincos, __half __ldcs), an argument count no missing overload has (fma), or __half2
    atomicAdd, whose overload the port defines (HP2043, tests/test_port_definitions.py)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "calls.cu").write_text(CALLS)
    out = tmp_path / "out"
    convert_tree(src, out, ConvertOptions(jobs=1))
    report = json.loads((out / "hipport-report.json").read_text())
    assert [f"{f['line']}:{f['column']} {f['rule_id']} {f['severity']} {f['message']}"
            for f in report["findings"] if f["rule_id"] == "HP2015"] == [
        "5:22 HP2015 warning __ldcs has no HIP 6.4 overload for float: HIP lacks __ldcs(const float *)",
        "7:12 HP2015 warning __ldcs has no HIP 6.4 overload for an argument whose type hipport cannot "
        "read: HIP lacks __ldcs(const long *), __ldcs(const unsigned long *), __ldcs(const char *), "
        "__ldcs(const signed char *) and 28 more",
        "13:3 HP2015 warning sincos has no HIP 6.4 overload for float: HIP lacks "
        "sincos(float, float *, float *)",
    ]
    fixes = {f["line"]: f["fix"] for f in report["findings"] if f["rule_id"] == "HP2015"}
    assert fixes[5] == ("HIP has __ldcs only for __half and __half2 (a plain load there); for other types write "
                        "__builtin_nontemporal_load(p), clang's streaming load")
    assert fixes[13] == "Call sincosf for float arguments"


INSTEAD = """\
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
__global__ void instead(const float* in, float* out, const int4* v, int4* w, float2* f2, float2 add, long long* m) {
  out[threadIdx.x] = __builtin_nontemporal_load(&in[threadIdx.x]);
  w[threadIdx.x] = *(v + threadIdx.x);
  atomicAdd(&f2->x, add.x);
  atomicAdd(&f2->y, add.y);
  atomicAnd(reinterpret_cast<unsigned long long*>(m), 1ull);
  float s, c;
  sincosf(out[0], &s, &c);
  sincospif(out[0], &s, &c);
  out[1] = s + c + static_cast<float>(__fma_rn(1.0, 2.0, 3.0));
}
__global__ void instead_half(__half2* h2, __half2 v, const __hip_bfloat16* b, __hip_bfloat16* r, unsigned int* word) {
  unsafeAtomicAdd(h2, v);
  __half2 m = __halves2half2(__hmax(__low2half(v), __low2half(h2[1])), __hmax(__high2half(v), __high2half(h2[1])));
  h2[2] = m;
  r[0] = __float2bfloat16(__saturatef(__bfloat162float(b[0]) + __bfloat162float(b[1])));
  __hip_bfloat162 pair = __float22bfloat162_rn(make_float2(__bfloat162float(b[0]), 1.0f));
  r[1] = pair.x;
  atomicCAS(word, 0u, 1u);
}
"""


def test_the_fixes_compile(toolchain, tmp_path):
    """What HP2015's fixes say to write instead compiles for gfx90a and gfx1100 (HIP 6.4.3)."""
    unit = tmp_path / "instead.hip"
    unit.write_text(INSTEAD)
    toolchain.compile_amd(unit, tmp_path / "instead.o", ["gfx90a", "gfx1100"])
    assert sorted(toolchain.code_object_targets(tmp_path / "instead.o")) == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]


RNG = """\
#include <curand_kernel.h>
__global__ void rng(unsigned long long seed, float* out) {
  curandState state;
  curand_init(seed, threadIdx.x, 0, &state);
  curandStateTest_t test_state;
  curand_init(seed, 0, 0, &test_state);
  out[threadIdx.x] = curand_uniform(&state) + curand_uniform(&test_state);
}
"""


def test_missing_overload_is_told_by_the_state_argument(tmp_path):
    """curand_init's seed (a plain number, which every overload takes) does not decide: the state
    argument does, so only the calls with the state hipRAND lacks are reported."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "rng.cu").write_text(RNG)
    out = tmp_path / "out"
    convert_tree(src, out, ConvertOptions(jobs=1))
    report = json.loads((out / "hipport-report.json").read_text())
    assert [f"{f['line']}:{f['column']} {f['message']}" for f in report["findings"] if f["rule_id"] == "HP2015"] == [
        "6:3 curand_init has no HIP 6.4 overload for curandStateTest_t: HIP lacks curand_init(unsigned long long, "
        "unsigned long long, unsigned long long, curandStateTest_t *)",
        "7:47 curand_uniform has no HIP 6.4 overload for curandStateTest_t: HIP lacks "
        "curand_uniform(curandStateTest_t *)",
    ]


# ---------------------------------------------------------------- cooperative groups (members)

#: The public member functions of CUDA 12.4's group classes (cooperative_groups.h and
#: cooperative_groups/details/*.h, listed with libclang) and the free functions HIP keeps, each
#: as a use on a group made as CUDA code makes it. HIP keeps the namespace and these names, so
#: hipport renames nothing here.
CG_GROUPS = {
    "B": "cg::thread_block g = cg::this_thread_block();",
    "G": "cg::grid_group g = cg::this_grid();",
    "M": "cg::multi_grid_group g = cg::this_multi_grid();",
    "T": "cg::thread_block_tile<32> g = cg::tiled_partition<32>(cg::this_thread_block());",
    "C": "cg::coalesced_group g = cg::coalesced_threads();",
    "X": "cg::thread_group g = cg::this_thread_block();",
}
CG_USES = [
    ("B", "barrier_arrive", "auto t = g.barrier_arrive(); g.barrier_wait(std::move(t));"),
    ("B", "dim_threads", "sink = g.dim_threads().x;"), ("B", "group_dim", "sink = g.group_dim().x;"),
    ("B", "group_index", "sink = g.group_index().x;"), ("B", "thread_index", "sink = g.thread_index().x;"),
    ("B", "num_threads", "sink = g.num_threads();"), ("B", "size", "sink = g.size() + g.thread_rank(); g.sync();"),
    ("G", "barrier_arrive", "auto t = g.barrier_arrive(); g.barrier_wait(std::move(t));"),
    ("G", "block_index", "sink = g.block_index().x;"), ("G", "block_rank", "sink = g.block_rank();"),
    ("G", "dim_blocks", "sink = g.dim_blocks().x;"), ("G", "dim_threads", "sink = g.dim_threads().x;"),
    ("G", "group_dim", "sink = g.group_dim().x;"), ("G", "is_valid", "sink = g.is_valid();"),
    ("G", "num_blocks", "sink = g.num_blocks();"), ("G", "num_threads", "sink = g.num_threads();"),
    ("G", "thread_index", "sink = g.thread_index().x;"), ("G", "size", "sink = g.size() + g.thread_rank(); g.sync();"),
    ("M", "grid_rank", "sink = g.grid_rank() + g.num_grids() + g.is_valid();"),
    ("M", "num_threads", "sink = g.num_threads();"), ("M", "size", "sink = g.size() + g.thread_rank(); g.sync();"),
    ("T", "vote", "sink = g.all(1) + g.any(1) + (int)g.ballot(1);"),
    ("T", "match", "sink = (int)g.match_all(1, sink) + (int)g.match_any(1);"),
    ("T", "shfl", "sink = g.shfl(1, 0) + g.shfl_down(1, 1) + g.shfl_up(1, 1) + g.shfl_xor(1, 1); g.sync();"),
    ("T", "num_threads", "sink = g.num_threads();"), ("T", "size", "sink = g.size() + g.thread_rank();"),
    ("T", "meta_group_rank", "sink = g.meta_group_rank() + g.meta_group_size();"),
    ("C", "vote", "sink = g.all(1) + g.any(1) + (int)g.ballot(1);"),
    ("C", "match", "sink = (int)g.match_all(1, sink) + (int)g.match_any(1);"),
    ("C", "shfl", "sink = g.shfl(1, 0) + g.shfl_down(1, 1) + g.shfl_up(1, 1); g.sync();"),
    ("C", "num_threads", "sink = g.num_threads();"), ("C", "size", "sink = g.size() + g.thread_rank();"),
    ("C", "meta_group_rank", "sink = g.meta_group_rank() + g.meta_group_size();"),
    ("X", "get_type", "sink = (int)g.get_type();"), ("X", "num_threads", "sink = g.num_threads();"),
    ("X", "size", "sink = g.size() + g.thread_rank(); g.sync();"),
    ("T", "binary_partition", "cg::coalesced_group p = cg::binary_partition(g, sink > 0); sink = p.size();"),
    ("B", "free functions", "sink = cg::group_size(g) + cg::thread_rank(g); cg::sync(g);"),
    ("B", "tiled_partition", "cg::thread_group p = cg::tiled_partition(g, 4); sink = p.size();"),
]
#: What HIP 6.4.3's hip/amd_detail/amd_hip_cooperative_groups.h lacks of them (no member of that
#: name): CUDA 12's num_threads() (HIP has size()), the arrive/wait barrier, and grid_group's
#: block-level queries; thread_group::get_type.
CG_HIP_LACKS = {
    ("B", "barrier_arrive"), ("B", "dim_threads"), ("B", "num_threads"),
    ("G", "barrier_arrive"), ("G", "block_index"), ("G", "block_rank"), ("G", "dim_blocks"), ("G", "dim_threads"),
    ("G", "num_blocks"), ("G", "num_threads"), ("G", "thread_index"),
    ("M", "num_threads"), ("T", "num_threads"), ("C", "num_threads"), ("X", "get_type"), ("X", "num_threads"),
}
#: Those of CG_HIP_LACKS that HIP has under another name with the same meaning, which the port
#: renames (rules/cooperative_groups.yaml members:, hipport/group_members.py): num_threads() is
#: size(), thread_block::dim_threads() is group_dim(). The others fail and carry HP2020.
CG_RENAMED = {(group, "num_threads") for group in CG_GROUPS} | {("B", "dim_threads")}


def cg_source() -> str:
    """The CUDA unit of :data:`CG_USES`, one use per line (``// use N``)."""
    lines = ["#include <cooperative_groups.h>", "namespace cg = cooperative_groups;", "__device__ int sink;"]
    for number, (group, _, body) in enumerate(CG_USES):
        lines.append(f"__device__ void cg_{number}() {{ {CG_GROUPS[group]} {body} }} // use {number}")
    return "\n".join(lines) + "\n"


def test_cooperative_groups_unit_is_valid_cuda(toolchain, tmp_path):
    unit = tmp_path / "cg_uses.cu"
    unit.write_text(cg_source())
    toolchain.compile_cuda(unit, tmp_path / "cg_uses.o", link=False, extra_flags=("-std=c++17",))
    assert (tmp_path / "cg_uses.o").stat().st_size > 0


@pytest.fixture(scope="module")
def cooperative_groups_port(toolchain, tmp_path_factory):
    """(the uses with a finding on their line, the uses that fail for gfx90a) of the ported CG unit."""
    base = tmp_path_factory.mktemp("cg")
    source = cg_source()
    (base / "src").mkdir()
    (base / "src" / "cg_uses.cu").write_text(source)
    convert_tree(base / "src", base / "out", ConvertOptions(jobs=1))
    unit = base / "out" / "cg_uses.hip"
    by_line, lost = failing_lines(_compile(toolchain, unit, ["gfx90a"]), unit)
    assert not lost, lost
    marks = use_lines(unit.read_text())
    source_marks = use_lines(source)
    report = json.loads((base / "out" / "hipport-report.json").read_text())
    with_finding = {source_marks[f["line"]] for f in report["findings"] if f["line"] in source_marks}
    return with_finding, {marks[line] for line in by_line}


def test_cooperative_groups_members_hip_lacks(cooperative_groups_port):
    """Exactly the members listed in CG_HIP_LACKS, less those the port renames, fail for gfx90a (HIP 6.4.3)."""
    _, failing = cooperative_groups_port
    assert {CG_USES[n][:2] for n in failing} == CG_HIP_LACKS - CG_RENAMED


def test_cooperative_groups_failures_have_findings(cooperative_groups_port):
    with_finding, failing = cooperative_groups_port
    assert sorted(CG_USES[n][:2] for n in failing - with_finding) == []
