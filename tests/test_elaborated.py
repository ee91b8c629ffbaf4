"""Tag keywords before CUDA type names (``struct cudaGraphicsResource *r``) where HIP's name is a
typedef (hipport/elaborated.py, HP2017), and the header facts it reads
(rules/hip_headers/type_tags.yaml, written by tools/hip_type_tags.py).

Fixtures (tests/fixtures/elaborated/): ``tags.cu``, every form hipport ports (a use, a parameter,
a cast, ``sizeof``, a template argument, ``friend``, a forward declaration, a macro body; enum
and struct tags HIP keeps), whose ports compile for gfx90a with ``--target-libs=hip`` and
``roc``; ``reported.cu``, the forms that have no HIP form, reported. Expected outputs in
``expected/`` (``<stem>.hip``, ``<stem>.roc.hip``).
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import FIXTURES, REPO
from hipport.convert import ConvertOptions, convert_tree
from hipport.elaborated import type_tags
from hipport.rules import TARGET_LIBS, load_rules

ELABORATED = FIXTURES / "elaborated"
EXPECTED = ELABORATED / "expected"

_spec = importlib.util.spec_from_file_location("hip_type_tags", REPO / "tools" / "hip_type_tags.py")
generator = importlib.util.module_from_spec(_spec)
sys.modules["hip_type_tags"] = generator
_spec.loader.exec_module(generator)


def _port(target_libs: str, tmp_path: Path) -> tuple[Path, list[str]]:
    out = tmp_path / f"out-{target_libs}"
    convert_tree(ELABORATED, out, ConvertOptions(target_libs=target_libs))
    report = json.loads((out / "hipport-report.json").read_text())
    return out, [f"{f['path']}:{f['line']}:{f['column']} {f['rule_id']} {f['message']} | {f['fix']}"
                 for f in report["findings"]]


def _expected(stem: str, target_libs: str) -> Path:
    return EXPECTED / (f"{stem}.hip" if target_libs == "hip" else f"{stem}.roc.hip")


DEFINITION = ("reported.cu:8:1 HP2017 struct cudaLaunchParams: the HIP/ROCm headers declare hipLaunchParams as a "
              "typedef of struct hipLaunchParams_t, so this definition has no HIP form | The HIP/ROCm headers declare "
              "hipLaunchParams already (hip/hip_runtime_api.h:1197): use it, and keep this definition for CUDA only "
              "(#if !defined(__HIP_PLATFORM_AMD__))")
ROC_FORWARD = ("reported.cu:12:1 HP2017 struct curandStateXORWOW: the HIP/ROCm headers declare rocrand_state_xorwow "
               "as a typedef of rocrand_device::xorwow_engine, so this forward declaration has no HIP form | Delete "
               "this forward declaration: the HIP/ROCm headers declare rocrand_state_xorwow "
               "(rocrand/rocrand_xorwow.h:228); include that header where the type is used")


@pytest.mark.parametrize("target_libs", TARGET_LIBS)
def test_ports_and_findings_exact(target_libs, tmp_path):
    out, findings = _port(target_libs, tmp_path)
    for stem in ("tags", "reported"):
        assert (out / f"{stem}.hip").read_bytes() == _expected(stem, target_libs).read_bytes(), stem
    assert findings == ([DEFINITION] if target_libs == "hip" else [DEFINITION, ROC_FORWARD])


def test_the_rewrites_exact():
    """The lines of tags.cu that change beyond a plain rename: the tag HIP's typedef names, and
    (rocRAND, whose state typedefs name class templates' specializations in a namespace) the
    keyword dropped; enum hipMemcpyKind, struct hipPitchedPtr and struct hipDeviceProp_t stay."""
    hip = (EXPECTED / "tags.hip").read_text()
    roc = (EXPECTED / "tags.roc.hip").read_text()
    for line in ("struct _hipGraphicsResource;  // declared ahead, as interop headers do",
                 "#define SLOT_POINTER struct _hipGraphicsResource *",
                 "  friend struct _hipGraphicsResource;",
                 "  Holder<struct _hipGraphicsResource> holder = {nullptr};",
                 "  struct hipExternalMemoryHandleDesc_st memory = {};",
                 "  enum hipExternalMemoryHandleType_enum handle_type = memory.type;",
                 "  struct hipLaunchParams_t launch = {};",
                 "  auto first = (struct _hipGraphicsResource **)&frame.slots[0];",
                 "static hipError_t upload(enum hipMemcpyKind kind, float *dst, const float *src, size_t bytes) {",
                 "  struct hipDeviceProp_t prop;",
                 "              sizeof(struct hipPitchedPtr), launch.func, (void *)first, prop.name);"):
        assert f"\n{line}\n" in hip and f"\n{line}\n" in roc, line
    assert "\n__global__ void seed_states(struct hiprandStateXORWOW *states, unsigned long long seed) {\n" in hip
    assert "\n__global__ void seed_states(rocrand_state_xorwow *states, unsigned long long seed) {\n" in roc
    assert "\n  hipMalloc(&states, 64 * sizeof(rocrand_state_xorwow));\n" in roc


def test_input_is_valid_cuda(toolchain, tmp_path):
    toolchain.compile_cuda(ELABORATED / "tags.cu", tmp_path / "cuda.o", link=False, extra_flags=("-std=c++17",))
    assert (tmp_path / "cuda.o").stat().st_size > 0


@pytest.mark.parametrize("target_libs", TARGET_LIBS)
def test_expected_port_compiles_for_gfx90a(toolchain, amd_library_include, target_libs, tmp_path):
    toolchain.compile_amd(_expected("tags", target_libs), tmp_path / "amd.o", ["gfx90a"], extra_flags=("-std=c++17",))
    assert (tmp_path / "amd.o").stat().st_size > 0


# ------------------------------------------------------------------------------ the header facts

def test_type_tags_file_is_current(toolchain, amd_library_include):
    """tools/hip_type_tags.py, run again over the toolchain's headers, writes the committed file."""
    text, left_out = generator.generate(toolchain)
    assert text == (REPO / "rules" / "hip_headers" / "type_tags.yaml").read_text()
    assert "hipGraphicsResource" not in left_out and "cudaGraphicsResource" not in left_out


def test_type_tags_of_sample_names():
    tags = type_tags()
    assert tags["hipGraphicsResource"] == {"is": "typedef", "kind": "struct", "tag": "_hipGraphicsResource",
                                           "at": "hip/hip_runtime_api.h:1337"}
    assert tags["hipMemcpyKind"]["is"] == "tag" and tags["hipMemcpyKind"]["kind"] == "enum"
    assert {k: tags["hipDeviceProp_t"][k] for k in ("is", "kind", "via")} == {
        "is": "tag", "kind": "struct", "via": "hipDeviceProp_tR0600"}
    assert tags["hipStream_t"] == {"is": "typedef", "kind": "none", "type": "ihipStream_t *",
                                   "at": tags["hipStream_t"]["at"]}
    assert {k: tags["hipComplex"].get(k) for k in ("kind", "tag", "type")} == {
        "kind": "struct", "tag": None, "type": "HIP_vector_type<float, 2>"}
    assert {k: tags["hipblasStatus_t"].get(k) for k in ("is", "kind", "tag")} == {
        "is": "typedef", "kind": "enum", "tag": None}


def _syntax_errors(toolchain, amd_library_include, tmp_path: Path, name: str, lines: list[str]) -> set[int]:
    """The 1-based lines of ``lines`` (after the generator's includes) that clang rejects,
    compiled as HIP host code as the generator parses the headers."""
    roots = [toolchain.hip_amd_include, amd_library_include]
    rules = {t: load_rules(target_libs=t) for t in TARGET_LIBS}
    headers = generator.header_list(rules, [Path(r) for r in roots])
    includes = [f"#include <{h}>" for h in headers]
    path = tmp_path / name
    path.write_text("\n".join(includes + lines) + "\n")
    command = [str(toolchain.clang), "-x", "hip", "--cuda-host-only", "--offload-arch=gfx90a", "-nogpulib",
               "-nogpuinc", "-std=c++17", "-fsyntax-only", "-ferror-limit=0", "-w", "-D__HIP_PLATFORM_AMD__",
               "-isystem", str(roots[0]), "-isystem", str(roots[1]), str(path)]
    stderr = subprocess.run(command, capture_output=True, text=True).stderr
    found = {int(m.group(1)) - len(includes)
             for m in re.finditer(rf"^{re.escape(str(path))}:(\d+):\d+: error:", stderr, re.M)}
    assert all(line >= 1 for line in found), stderr[:2000]
    return found


def test_every_recorded_fact_holds_for_clang(toolchain, amd_library_include, tmp_path):
    """Each entry compiled as clang sees it: a tag is named with its keyword, a typedef's tag
    with the tag's keyword, a typedef by its name alone (these must all compile); and a
    typedef's own name after a tag keyword must not compile (the case hipport rewrites)."""
    good, bad, what = [], [], []
    for index, (name, facts) in enumerate(sorted(type_tags().items())):
        if facts["is"] == "tag":
            good.append(f"{facts['kind']} {name} *tag_{index};")
        else:
            good.append(f"{name} *typedef_{index};")
            if "tag" in facts:
                good.append(f"{facts['kind']} {facts['tag']} *named_{index};")
            keyword = facts["kind"] if facts["kind"] in ("struct", "class", "union", "enum") else "struct"
            bad.append(f"{keyword} {name} *wrong_{index};")
            what.append(name)
    assert _syntax_errors(toolchain, amd_library_include, tmp_path, "good.hip", good) == set()
    rejected = _syntax_errors(toolchain, amd_library_include, tmp_path, "bad.hip", bad)
    assert [name for line, name in enumerate(what, 1) if line not in rejected] == []


def test_class_union_and_macro_forms_exact(tmp_path):
    """``class`` names a struct tag too; a union tag HIP keeps (also through HIP's macro alias
    hipKernelNodeAttrValue) stays; a keyword in a macro body, across a line continuation, is
    found in the text; a comment may stand between keyword and name."""
    source = tmp_path / "src" / "forms.cpp"
    source.parent.mkdir()
    source.write_text(
        "#include <cuda_runtime.h>\n"
        "class cudaGraphicsResource *as_class;\n"
        "union cudaLaunchAttributeValue value;\n"
        "union cudaKernelNodeAttrValue node_value;\n"
        "#define HANDLE_TYPE enum \\\n"
        "    cudaExternalMemoryHandleType\n"
        "struct /* opaque */ cudaGraphicsResource *commented;\n")
    convert_tree(source.parent, tmp_path / "out", ConvertOptions())
    assert (tmp_path / "out" / "forms.cpp").read_text() == (
        "#include <hip/hip_runtime.h>\n"
        "class _hipGraphicsResource *as_class;\n"
        "union hipLaunchAttributeValue value;\n"
        "union hipKernelNodeAttrValue node_value;\n"
        "#define HANDLE_TYPE enum \\\n"
        "    hipExternalMemoryHandleType_enum\n"
        "struct /* opaque */ _hipGraphicsResource *commented;\n")


def test_a_keyword_on_the_line_before_the_name_is_reported_at_the_keyword(tmp_path):
    source = tmp_path / "src" / "split.cpp"
    source.parent.mkdir()
    source.write_text("#include <cuda_runtime.h>\nstruct\n  cudaLaunchParams { void *func; };\n")
    report = convert_tree(source.parent, tmp_path / "out", ConvertOptions()).report
    assert [(f.line, f.column, f.rule_id) for f in report.findings] == [(2, 1, "HP2017")]
