"""The ten corpus projects (corpus/projects/) ported with ``hipport convert --fix`` and built with
``hipport build``, as CI requires (issue 5, point 4): for AMD with the four gfx targets gfx90a,
gfx942, gfx1030 and gfx1100 (every executable holds exactly those four code objects) and for
NVIDIA sm_90 (``cuobjdump --list-elf`` shows sm_90).

The NVIDIA build of a migrated CMake project must hand nvcc the options of the project's own CUDA
build (a differential GPU comparison of the two builds depends on it): the compile commands of
both builds (CMake's compile_commands.json; for FindCUDA, whose nvcc commands CMake does not
record, the commands ``make VERBOSE=1`` prints; for the Makefile project, ``make -n``) are
compared option by option.

Known exceptions, asserted exactly rather than skipped:

- texture_sampling: HIP 6.4 marks the texture functions unavailable on gfx942 (no image support
  on MI300; hipport reports HP1210), so the platform module leaves gfx940-942 out of the
  architectures of the target that compiles them (its library texsamp): the port builds by
  default for all four targets, and its code objects are gfx90a, gfx1030 and gfx1100.
- blas_rand: its port links hipBLAS and hipRAND, whose NVIDIA backends Debian does not package,
  so ``hipport build --platform nvidia`` stops at configure naming hipBLAS; its translation units
  are compiled for sm_90 one by one instead (``Toolchain.compile_nvidia(link=False)``).

Each project is converted once (module fixture); builds use ``--parallel 2``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hipport.build import BuildFailed, build_tree
from hipport.convert import ConvertOptions, convert_tree

from compile_commands import compile_commands, findcuda_commands, nvcc_options, port_only, toolkit_includes
from helpers import CORPUS_PROJECTS, REPO

sys.path.insert(0, str(REPO / "scripts"))
import corpus_projects  # noqa: E402

NAMES = ["blas_rand", "constant_filter", "cooperative_reduce", "legacy_findcuda", "makefile_saxpy",
         "rdc_device_functions", "stream_pipeline", "template_library", "texture_sampling",
         "warp_shuffle_scan"]
AMD_ARCHS = ("gfx90a", "gfx942", "gfx1030", "gfx1100")
#: texture_sampling's code objects: every target but gfx942 (no image support there).
TEXTURE_ARCHS = ("gfx90a", "gfx1030", "gfx1100")
#: The executables of each port, as ``hipport build`` lists them. makefile_saxpy has no
#: CMakeLists.txt of its own: the generated one names the program as its Makefile does.
EXECUTABLES = {name: [name] for name in NAMES}
#: The CMake projects whose ports build for NVIDIA (blas_rand's stops at configure).
CMAKE_LANGUAGE = ["constant_filter", "cooperative_reduce", "rdc_device_functions", "stream_pipeline",
                  "template_library", "texture_sampling", "warp_shuffle_scan"]
JOBS = 2
#: C++ files that call the HIP runtime (the CUDA build compiled them with the C++ compiler): the
#: port compiles them as GPU code on both platforms, since HIP 5.7's NVIDIA headers declare some
#: templates (hipCreateChannelDesc<T>()) for nvcc only. On NVIDIA nvcc compiles them with the
#: target's CUDA options instead of its C++ ones.
GPU_CXX = {"texture_sampling": "src/texture_image.cpp", "legacy_findcuda": "src/main.cpp"}


@pytest.fixture(scope="module")
def ports(tmp_path_factory):
    """Every project converted once with --fix: ``{name: (OUT, report)}``."""
    root = tmp_path_factory.mktemp("ports")
    return {name: (root / name, convert_tree(CORPUS_PROJECTS / name, root / name, ConvertOptions(fix=True)).report)
            for name in NAMES}


@pytest.fixture(scope="module", autouse=True)
def _compile_commands():
    """Every CMake configure of this module writes compile_commands.json (CMake reads the
    environment variable as the default of CMAKE_EXPORT_COMPILE_COMMANDS)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CMAKE_EXPORT_COMPILE_COMMANDS", "ON")
        yield


class _Once:
    """Results of expensive steps, computed the first time a test asks (module scope)."""

    def __init__(self, make):
        self.make, self.done = make, {}

    def __call__(self, name: str):
        if name not in self.done:
            self.done[name] = self.make(name)
        return self.done[name]


@pytest.fixture(scope="module")
def nvidia_builds(toolchain, ports):
    """``hipport build OUT --platform nvidia --offload-arch 90`` of a port, once per project."""
    return _Once(lambda name: build_tree(ports[name][0], "nvidia", ["90"], jobs=JOBS))


@pytest.fixture(scope="module")
def original_builds(toolchain, tmp_path_factory):
    """The project's own CUDA build (scripts/corpus_projects.py's commands: nvcc 12.4, g++-12,
    sm_90, Release), once per project: its build folder and the output of its commands. A CMake
    project with CMake's CUDA language is only configured (compile_commands.json, the link
    scripts); a FindCUDA project is built with make's VERBOSE=1, which prints FindCUDA's nvcc
    commands."""
    root = tmp_path_factory.mktemp("originals")

    def build(name: str) -> tuple[Path, str]:
        project, build_dir = CORPUS_PROJECTS / name, root / name
        commands = corpus_projects.build_commands(project, build_dir, toolchain, JOBS)
        if corpus_projects.build_kind(project) == "cmake":
            commands = commands[:1]
        output = ""
        for command in commands:
            done = subprocess.run(command, capture_output=True, text=True, timeout=900,
                                  env=os.environ | {"VERBOSE": "1"})
            assert done.returncode == 0, f"{shlex.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            output += done.stdout
        return build_dir, output
    return _Once(build)


# ---------------------------------------------------------------------------- the conversions

def test_every_project_converts_and_texture_sampling_reports_hp1210(ports):
    assert sorted(ports) == NAMES
    texture = [(f.path, f.line) for f in ports["texture_sampling"][1].findings if f.rule_id == "HP1210"]
    assert texture == [("src/resample.cu", 14), ("src/resample.cu", 26), ("src/resample.cu", 35)]
    for name in NAMES:
        assert (ports[name][0] / "CMakeLists.txt").is_file()
        assert (ports[name][0] / "cmake" / "HipportPlatform.cmake").is_file()


# ---------------------------------------------------------------------------- AMD

@pytest.mark.parametrize("name", [n for n in NAMES if n != "texture_sampling"])
def test_port_builds_for_the_four_amd_targets(toolchain, ports, name, tmp_path):
    result = build_tree(ports[name][0], "amd", list(AMD_ARCHS), tmp_path / "build", jobs=JOBS)
    assert [target for target, _ in result.programs] == EXECUTABLES[name]
    for _, program in result.programs:
        assert toolchain.code_object_targets(program) == sorted(f"hipv4-amdgcn-amd-amdhsa--{a}" for a in AMD_ARCHS)


def test_texture_sampling_port_builds_by_default_leaving_gfx942_out_of_its_texture_target(toolchain, ports, tmp_path):
    """Built for all four targets (HIPPORT_OFFLOAD_ARCHS), the library that compiles the tex2D
    calls (src/resample.hip, HP1210) gets gfx90a, gfx1030 and gfx1100: the executable's code
    objects are those three; the configure step says why."""
    out = ports["texture_sampling"][0]
    assert "set(HIPPORT_IMAGE_SOURCES\n  \"src/resample.hip\"\n)\n" in (out / "cmake" / "HipportPlatform.cmake").read_text()
    build = tmp_path / "build"
    result = build_tree(out, "amd", list(AMD_ARCHS), build, jobs=JOBS)
    assert [target for target, _ in result.programs] == ["texture_sampling"]
    expected = sorted(f"hipv4-amdgcn-amd-amdhsa--{a}" for a in TEXTURE_ARCHS)
    assert toolchain.code_object_targets(result.programs[0][1]) == expected
    assert toolchain.code_object_targets(build / "CMakeFiles" / "texsamp.dir" / "src" / "resample.hip.o") == expected
    configure = (build / "hipport-configure.log").read_text().splitlines()
    assert [line for line in configure if "HP1210" in line] == [
        "-- hipport: texsamp uses texture or surface functions (HP1210): built for gfx90a gfx1030 gfx1100, "
        "not gfx942 (no image support)"]


def test_texture_sampling_port_for_gfx942_alone_stops_at_configure(toolchain, ports, tmp_path):
    """HIP 6.4 rejects tex2D on gfx942; with no other target the configuration says so."""
    build = tmp_path / "build"
    with pytest.raises(BuildFailed) as failed:
        build_tree(ports["texture_sampling"][0], "amd", ["gfx942"], build, jobs=JOBS)
    assert failed.value.step == "configure"
    log = re.sub(r"\s+", " ", (build / "hipport-configure.log").read_text())
    assert ("hipport: texsamp uses texture or surface functions (HP1210), which gfx942 cannot compile (no image "
            "support), and its architectures hold no other GPU: add one such as gfx90a to HIPPORT_OFFLOAD_ARCHS") in log


# ---------------------------------------------------------------------------- NVIDIA

@pytest.mark.parametrize("name", [n for n in NAMES if n != "blas_rand"])
def test_port_builds_for_nvidia_sm90(toolchain, nvidia_builds, name):
    result = nvidia_builds(name)
    assert [target for target, _ in result.programs] == EXECUTABLES[name]
    for target, program in result.programs:
        listing = subprocess.run([str(toolchain.cuobjdump), "--list-elf", str(program)], capture_output=True,
                                 text=True, check=True).stdout
        elves = listing.splitlines()
        assert elves and all(re.fullmatch(r"ELF file\s+\d+: .*\.sm_90\.cubin", line) for line in elves), listing


def test_blas_rand_port_stops_at_nvidia_configure_naming_hipblas(toolchain, ports, tmp_path):
    build = tmp_path / "build"
    with pytest.raises(BuildFailed) as failed:
        build_tree(ports["blas_rand"][0], "nvidia", ["90"], build, jobs=JOBS)
    assert failed.value.step == "configure"
    log = re.sub(r"\s+", " ", (build / "hipport-configure.log").read_text())
    assert ("hipport: hipBLAS (roc::hipblas) cannot be built for NVIDIA here: hipBLAS for NVIDIA "
            "(HIP_PLATFORM=nvidia, over cuBLAS) is not packaged by Debian. Build hipBLAS from source for "
            "NVIDIA and pass -Dhipblas_DIR=<folder of its hipblas-config.cmake>") in log


def test_blas_rand_port_translation_units_compile_for_sm90(toolchain, amd_library_include, ports, tmp_path):
    """Each translation unit of blas_rand's port, compiled by nvcc for sm_90 with HIP's NVIDIA
    headers and the headers of hipBLAS and hipRAND (whose NVIDIA paths call cuBLAS and
    cuRAND): the code compiles, only the libraries are missing."""
    out = ports["blas_rand"][0]
    headers = tmp_path / "include"  # only hipBLAS's and hipRAND's folders, not all of ROCm's (rocThrust...)
    headers.mkdir()
    for library in ("hipblas", "hipblas-common", "hiprand"):
        (headers / library).symlink_to(toolchain.amd_library_include / library)
    units = sorted(p.relative_to(out).as_posix() for p in out.rglob("*")
                   if p.suffix in (".hip", ".cpp") and not p.relative_to(out).parts[0].startswith("build-"))
    assert units == ["app/main.hip", "src/gemm_reference.hip", "src/random_fill.cpp"]
    for unit in units:
        obj = tmp_path / (Path(unit).name + ".o")
        toolchain.compile_nvidia(out / unit, obj, link=False,
                                 extra_flags=("-std=c++17", "-I", str(out / "include"), "-isystem", str(headers)))
        assert obj.stat().st_size > 0


# ---------------------------------------------------------------------------- NVIDIA: nvcc options

@pytest.mark.parametrize("name", CMAKE_LANGUAGE)
def test_nvidia_port_compiles_with_the_options_of_the_cuda_build(toolchain, ports, nvidia_builds, original_builds,
                                                                 name):
    """Every translation unit of the port's NVIDIA build gets the compiler and options of the
    project's own CUDA build (same order), but for HIP's NVIDIA headers and
    __HIP_PLATFORM_NVIDIA__; C++ files also get the CUDA toolkit's include folders (HIP's NVIDIA
    headers include the CUDA runtime's), which are left out of both sides."""
    out = ports[name][0]
    original = compile_commands(original_builds(name)[0], CORPUS_PROJECTS / name)
    port = compile_commands(nvidia_builds(name).build_dir, out)
    assert sorted(port) == sorted(original)
    toolkit = {f"{flag} {folder}" for flag in ("-I", "-isystem") for folder in toolkit_includes(toolchain)}
    for unit, (compiler, options) in original.items():
        port_compiler, port_options = port[unit]
        assert "-D__HIP_PLATFORM_NVIDIA__" in port_options and f"-isystem {toolchain.hip_nvidia_include}" in port_options
        port_options = port_only(port_options, toolchain.hip_nvidia_include)
        if GPU_CXX.get(name) == unit:
            # the C++ compiler's options of the CUDA build, then what nvcc gets in the port
            assert (compiler, port_compiler) == ("c++", "nvcc")
            assert options == ["-I <src>/include", *(f"-I {d}" for d in toolkit_includes(toolchain)),
                               "-O3", "-DNDEBUG", "-std=gnu++17"]
            assert port_options == [
                "-forward-unknown-to-host-compiler", f"-ccbin {toolchain.ccbin}", "-I <src>/include",
                *(f"-I {d}" for d in toolkit_includes(toolchain)), "-O3", "-DNDEBUG",
                "--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-lineinfo", "-std=c++17", "-x cu"]
            continue
        assert port_compiler == compiler, unit
        if compiler != "nvcc":
            options = [o for o in options if o not in toolkit]
            port_options = [o for o in port_options if o not in toolkit]
        assert port_options == options, unit


def test_nvidia_port_keeps_the_nvcc_options_the_migration_maps(toolchain, ports, nvidia_builds):
    """The options each project hands nvcc, as the NVIDIA build of its port passes them (the
    migrated CMakeLists.txt holds both their CUDA form and their HIP form)."""
    wanted = {
        "constant_filter": ("src/convolution.cu", ["--use_fast_math", "-Xptxas=-O3"]),
        "rdc_device_functions": ("src/forces.cu", ["-lineinfo", "--expt-relaxed-constexpr", "-rdc=true"]),
        "cooperative_reduce": ("src/grid_reduce.cu", ["-lineinfo", "--ptxas-options=-warn-spills"]),
        "template_library": ("src/stencil.cu", ["--expt-extended-lambda", "-std=c++17"]),
        "warp_shuffle_scan": ("src/scan.cu", ["-lineinfo", "--use_fast_math", "-std=c++17"]),
        "stream_pipeline": ("src/kernels.cu", ["-Xcompiler -Wall", "-lineinfo", "-std=c++17"]),
    }
    for name, (unit, options) in wanted.items():
        _, port_options = compile_commands(nvidia_builds(name).build_dir, ports[name][0])[unit]
        assert [o for o in port_options if o in options] == options, name


def test_rdc_port_links_device_code_as_the_cuda_build(nvidia_builds, original_builds, ports):
    """CUDA_SEPARABLE_COMPILATION stays for NVIDIA builds: the same nvcc -dlink step and the
    same final link (device runtime, static CUDA runtime) as the project's own build."""
    original, port = original_builds("rdc_device_functions")[0], nvidia_builds("rdc_device_functions").build_dir
    for step in ("dlink.txt", "link.txt", "linkLibs.rsp"):
        folder = Path("CMakeFiles/rdc_device_functions.dir")
        assert (port / folder / step).read_text() == (original / folder / step).read_text(), step


def test_findcuda_port_gets_findcuda_nvccnvcc_options(toolchain, ports, nvidia_builds, original_builds):
    """legacy_findcuda: FindCUDA's nvcc commands (make VERBOSE=1) against the port's (CMake's
    CUDA language through hipport_findcuda_target). Same options (-m64, CUDA_NVCC_FLAGS less its
    -gencode, -DNVCC, no -O3 -DNDEBUG of CMake's Release flags, no -std of CXX_STANDARD); what
    differs, exactly: CMake's CUDA language adds -forward-unknown-to-host-compiler and -x cu,
    the architectures come from HIPPORT_OFFLOAD_ARCHS (sm_90 SASS plus compute_90 PTX where
    FindCUDA's -gencode gave SASS only), and the toolkit's include folder, which nvcc searches
    anyway, is a system folder."""
    build_dir, make_output = original_builds("legacy_findcuda")
    original = findcuda_commands(make_output, toolchain.nvcc, CORPUS_PROJECTS / "legacy_findcuda")
    port = compile_commands(nvidia_builds("legacy_findcuda").build_dir, ports["legacy_findcuda"][0])
    assert sorted(original) == ["src/histogram.cu", "src/timing.cu", "src/transpose.cu"]
    assert sorted(port) == sorted([*original, "src/main.cpp"])
    cuda_include = toolchain.nvcc.parent.parent / "include"
    for unit in original:
        options = original[unit][1]
        port_options = port_only(port[unit][1], toolchain.hip_nvidia_include)
        assert options == [f"-ccbin {toolchain.ccbin}", "-m64", "-gencode arch=compute_90,code=sm_90", "-std=c++14",
                           "-O3", "-lineinfo", "-Xcompiler -fPIC", "-DNVCC", f"-I {cuda_include}", "-I <src>/include"]
        assert port_options == ["-forward-unknown-to-host-compiler", f"-ccbin {toolchain.ccbin}", "-I <src>/include",
                                f"-isystem {cuda_include}", "--generate-code=arch=compute_90,code=[compute_90,sm_90]",
                                "-m64", "-std=c++14", "-O3", "-lineinfo", "-Xcompiler -fPIC", "-DNVCC", "-x cu"]
    # the C++ main calls the HIP runtime: compiled as GPU code (GPU_CXX), so with the target's
    # FindCUDA options where the CUDA build's C++ compiler gave it -O3 -DNDEBUG -std=gnu++14
    compiler, main = port["src/main.cpp"]
    assert compiler == "nvcc"
    assert port_only(main, toolchain.hip_nvidia_include) == [
        "-forward-unknown-to-host-compiler", f"-ccbin {toolchain.ccbin}", "-I <src>/include", f"-isystem {cuda_include}",
        "--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-m64", "-std=c++14", "-O3", "-lineinfo",
        "-Xcompiler -fPIC", "-DNVCC", "-x cu"]


def test_makefile_saxpy_generated_cmake_nvccnvcc_options(toolchain, ports, nvidia_builds, tmp_path):
    """makefile_saxpy has no CMakeLists.txt: hipport migrates its Makefile (for AMD) and
    generates a CMakeLists.txt, whose NVIDIA build does not take the Makefile's options. The
    differences, exactly (documented in corpus/README.md): the Makefile's -Xcompiler
    -Wall,-Wextra and -Isrc are missing, CMake's Release flags -O3 -DNDEBUG and the port's top
    folder come instead, and the architectures are HIPPORT_OFFLOAD_ARCHS's (sm_90 SASS and
    compute_90 PTX, as the Makefile's two -gencode options)."""
    project = tmp_path / "makefile_saxpy"
    shutil.copytree(CORPUS_PROJECTS / "makefile_saxpy", project)
    dry = subprocess.run(["make", "-n", "-C", str(project), f"NVCC={toolchain.nvcc}",
                          f"HOST_COMPILER={toolchain.ccbin}", "SMS=90", "BUILD_DIR=b"],
                         capture_output=True, text=True, check=True).stdout
    compiles = [shlex.split(line) for line in dry.splitlines() if line.startswith(str(toolchain.nvcc)) and " -c " in line]
    assert len(compiles) == 3
    makefile = nvcc_options(compiles[0], compiles[0][compiles[0].index("-c") + 1], project)
    assert makefile == [f"-ccbin {toolchain.ccbin}", "-std=c++17", "-O3", "-Xcompiler -Wall,-Wextra", "-I src",
                        "-gencode arch=compute_90,code=sm_90", "-gencode arch=compute_90,code=compute_90"]
    port = compile_commands(nvidia_builds("makefile_saxpy").build_dir, ports["makefile_saxpy"][0])
    assert sorted(port) == ["src/dot.cu", "src/main.cu", "src/saxpy.cu"]
    for unit, (compiler, options) in port.items():
        assert compiler == "nvcc"
        assert port_only(options, toolchain.hip_nvidia_include) == [
            "-forward-unknown-to-host-compiler", f"-ccbin {toolchain.ccbin}", "-I <src>", "-O3", "-DNDEBUG",
            "--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-std=c++17", "-x cu"], unit
