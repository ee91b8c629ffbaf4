"""The ported corpus compiles for real: AMD gfx90a, gfx942, gfx1030 and gfx1100 (one code object
each in the offload bundle) and NVIDIA sm_90 with nvcc 12.4 and HIP's NVIDIA headers.

Needs the toolchain from scripts/install-toolchain.sh (the ``toolchain`` fixture fails in CI
when it is missing, and skips with a reason elsewhere).
"""

from __future__ import annotations

import pytest

from hipport.convert import ConvertOptions, convert_tree

from helpers import CORPUS, CORPUS_EXCLUDE, CORPUS_PROJECTS, FIXTURES

AMD_ARCHS = ("gfx90a", "gfx942", "gfx1030", "gfx1100")
UNITS = sorted(p.relative_to(CORPUS).with_suffix(".hip").as_posix() for p in CORPUS.rglob("*.cu")
               if not p.is_relative_to(CORPUS_PROJECTS))


@pytest.fixture(scope="module", params=["chevron", "hip"])
def ported_corpus(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"corpus-{request.param}")
    convert_tree(CORPUS, out, ConvertOptions(launch_syntax=request.param, exclude=CORPUS_EXCLUDE))
    return request.param, out


def test_corpus_has_the_expected_programs():
    assert UNITS == ["multi_file/main.hip", "shared_reduce/shared_reduce.hip", "stream_events/stream_events.hip",
                     "template_namespace/template_namespace.hip", "vector_add/vector_add.hip"]


@pytest.mark.parametrize("unit", UNITS)
def test_ported_unit_compiles_for_amd(toolchain, ported_corpus, unit, tmp_path):
    syntax, out = ported_corpus
    archs = AMD_ARCHS if syntax == "chevron" else ("gfx90a",)
    obj = tmp_path / "unit.o"
    toolchain.compile_amd(out / unit, obj, archs, extra_flags=("-std=c++17",))
    assert toolchain.code_object_targets(obj) == sorted(f"hipv4-amdgcn-amd-amdhsa--{a}" for a in archs)


@pytest.mark.parametrize("unit", UNITS)
def test_ported_unit_builds_for_nvidia_sm90(toolchain, ported_corpus, unit, tmp_path):
    syntax, out = ported_corpus
    binary = tmp_path / "program"
    toolchain.compile_nvidia(out / unit, binary, link=True, extra_flags=("-std=c++17",))
    assert binary.is_file() and binary.stat().st_size > 0


@pytest.mark.parametrize("name", ["launches.hip", "launches.launch-hip.hip"])
def test_golden_launch_outputs_compile_for_amd(toolchain, name, tmp_path):
    obj = tmp_path / "golden.o"
    toolchain.compile_amd(FIXTURES / "rewrite" / "expected" / name, obj, ("gfx942",), extra_flags=("-std=c++17",))
    assert toolchain.code_object_targets(obj) == ["hipv4-amdgcn-amd-amdhsa--gfx942"]


def test_golden_runtime_api_output_compiles_for_amd(toolchain, tmp_path):
    # host code only: it compiles, and holds no device code object
    obj = tmp_path / "runtime_api.o"
    toolchain.compile_amd(FIXTURES / "rewrite" / "expected" / "runtime_api.hip", obj, ("gfx942",),
                          extra_flags=("-std=c++17",))
    assert obj.stat().st_size > 0


def test_generated_cmake_builds_the_ported_corpus_for_amd(toolchain, tmp_path):
    """CMake's HIP language configures and builds the generated CMakeLists.txt; the offload
    architectures come from the template's default (set here with --offload-arch)."""
    import subprocess

    out, build = tmp_path / "ported", tmp_path / "build"
    convert_tree(CORPUS, out, ConvertOptions(offload_archs=("gfx90a", "gfx1100"), exclude=CORPUS_EXCLUDE))
    configure = [str(toolchain.cmake), "-S", str(out), "-B", str(build),
                 f"-DCMAKE_TOOLCHAIN_FILE={toolchain.cmake_hip_toolchain_file}"]
    for command in (configure, [str(toolchain.cmake), "--build", str(build), "--parallel", "2"]):
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    for target in ("multi_file", "shared_reduce", "stream_events", "template_namespace", "vector_add"):
        assert (build / target).is_file()
    obj = build / "CMakeFiles" / "vector_add.dir" / "vector_add" / "vector_add.hip.o"
    assert toolchain.code_object_targets(obj) == ["hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]


def test_widened_warp_masks_compile_for_amd_and_nvidia(toolchain, tmp_path):
    """The ported shuffle reduction compiles where HIP requires 64-bit masks (HIP 6.4 with its
    warp-sync builtins enabled) and on NVIDIA."""
    convert_tree(FIXTURES / "compile" / "warp_reduce.cu", tmp_path / "out")
    ported = tmp_path / "out" / "warp_reduce.hip"
    assert "__shfl_down_sync(hipport_wave_lanes(), v, offset)" in ported.read_text()
    toolchain.compile_amd(ported, tmp_path / "amd.o", ("gfx90a", "gfx1100"), extra_flags=("-std=c++17",))
    assert toolchain.code_object_targets(tmp_path / "amd.o") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    toolchain.compile_nvidia(ported, tmp_path / "nv.o", link=False, extra_flags=("-std=c++17",))
    assert (tmp_path / "nv.o").stat().st_size > 0


def test_a_32bit_mask_does_not_compile_for_amd(toolchain, tmp_path):
    """Why the widening exists: HIP 6.4 refuses the CUDA mask as it is."""
    from hipport.toolchain import CompileError

    narrow = tmp_path / "narrow.hip"
    narrow.write_text((FIXTURES / "compile" / "warp_reduce.cu").read_text().replace("cuda_runtime.h", "hip/hip_runtime.h"))
    with pytest.raises(CompileError, match="The mask must be a 64-bit integer"):
        toolchain.compile_amd(narrow, tmp_path / "narrow.o", ("gfx90a",))


def test_code_guarded_by_cuda_macros_survives_the_port(toolchain, tmp_path):
    """#ifdef __DRIVER_TYPES_H__ / __CUDA_RUNTIME_H__ / __CUDACC__ become HIP's own guards, so
    the guarded helpers still exist and the port compiles for AMD and links for NVIDIA."""
    convert_tree(FIXTURES / "compile" / "guarded_helpers.cu", tmp_path / "out")
    ported = tmp_path / "out" / "guarded_helpers.hip"
    text = ported.read_text()
    assert "#ifdef HIP_INCLUDE_HIP_HIP_RUNTIME_API_H\n" in text
    assert "#if defined(HIP_INCLUDE_HIP_HIP_RUNTIME_H) && defined(__HIPCC__)\n" in text
    toolchain.compile_amd(ported, tmp_path / "amd.o", ("gfx90a",), extra_flags=("-std=c++17",))
    toolchain.compile_nvidia(ported, tmp_path / "nv", link=True, extra_flags=("-std=c++17",))
    assert (tmp_path / "nv").is_file()


def test_cooperative_groups_port_compiles(toolchain, tmp_path):
    convert_tree(FIXTURES / "compile" / "coop_groups.cu", tmp_path / "out")
    ported = tmp_path / "out" / "coop_groups.hip"
    assert ported.read_text().startswith("// Cooperative groups as CUDA code uses them: a block, a tile of 16 threads, "
                                         "a tile reduction.\n#include <hip/hip_cooperative_groups.h>\n"
                                         "#include <hip/hip_runtime.h>\n")
    toolchain.compile_amd(ported, tmp_path / "amd.o", ("gfx90a", "gfx1100"), extra_flags=("-std=c++17",))
    toolchain.compile_nvidia(ported, tmp_path / "nv.o", link=False, extra_flags=("-std=c++17",))
