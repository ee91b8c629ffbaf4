"""``hipport convert SRC --compat --in-place`` (issue 14): SRC gains what ``--compat -o OUT``
writes (hipport_compat.h, the hipport_compat/ shims, cmake/HipportPlatform.cmake with the
HIPPORT_COMPAT_CUDA option, the migrated CMake build, each changed build file backed up), the
sources stay byte for byte (the header is forced in by CMake, so no include line is added), a
re-run is a no-op, a re-run after an edit regenerates the header with no backup of it, Ctrl-C
leaves every file whole, and the in-place result of a corpus project builds for gfx90a and as
plain CUDA for sm_90."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport import __version__
from hipport.cli import main

from helpers import CORPUS_PROJECTS

FILL_HEADER = ("#pragma once\n"
               "#include <cuda_runtime.h>\n"
               "__global__ void fill(int* out, int value);\n")
FILL = ('#include "fill.cuh"\n'
        "__global__ void fill(int* out, int value) { out[threadIdx.x] = value; }\n")
MAIN = ("#include <cstdio>\n"
        '#include "fill.cuh"\n'
        "int main() {\n"
        "  int* values = nullptr;\n"
        "  cudaMalloc(&values, 64 * sizeof(int));\n"
        "  fill<<<1, 64>>>(values, 7);\n"
        "  int host[64];\n"
        "  cudaMemcpy(host, values, sizeof(host), cudaMemcpyDeviceToHost);\n"
        "  cudaFree(values);\n"
        '  std::printf("%d\\n", host[63]);\n'
        "  return host[63] == 7 ? 0 : 1;\n"
        "}\n")
CMAKELISTS = ("cmake_minimum_required(VERSION 3.18)\n"
              "project(fill LANGUAGES CXX CUDA)\n"
              "add_executable(fill src/main.cu src/fill.cu)\n"
              "target_include_directories(fill PRIVATE include)\n")
MIGRATED_CMAKELISTS = ("cmake_minimum_required(VERSION 3.18)\n"
                       "project(fill LANGUAGES CXX)\n"
                       "include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/HipportPlatform.cmake)\n"
                       "hipport_enable_gpu_language()\n"
                       "add_executable(fill src/main.cu src/fill.cu)\n"
                       "hipport_gpu_target(fill)\n"
                       "target_include_directories(fill PRIVATE include)\n")
SOURCES = {"include/fill.cuh": FILL_HEADER, "src/fill.cu": FILL, "src/main.cu": MAIN}


def compat_header(defines: list[str], headers: str = "cuda_runtime.h -> hip/hip_runtime.h") -> str:
    """hipport_compat.h of the fixture with these ``#define`` lines (hipport.compat.render_header)."""
    return "\n".join([
        f"// hipport_compat.h: written by hipport {__version__} (hipport convert --compat); a new run rewrites it.",
        f"// Maps the {len(defines)} CUDA names this tree uses to HIP when compiled as HIP for AMD; maps nothing",
        "// under nvcc (CUDA, or HIP on NVIDIA, where the CUDA names are CUDA's own).",
        f"// CUDA headers (hipport_compat/ on the AMD include path): {headers}",
        "// After each mapping: its rule family, then the CUDA and HIP releases the names appeared in",
        "// (rules/*.yaml, from HIPIFY's tables; (not recorded): the rule records no release).",
        "#ifndef HIPPORT_COMPAT_H",
        "#define HIPPORT_COMPAT_H",
        "#if defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)",
        "#include <hip/hip_runtime.h>",
        *(f"#define {name} {hip}  // cuda_runtime; CUDA (not recorded), HIP {release}" for name, hip, release in
          (d.split() for d in defines)),
        "#elif defined(__HIP_PLATFORM_NVIDIA__)",
        "#include <hip/hip_runtime.h>",
        "#endif",
        "#endif",
        ""])


DEFINES = ["cudaFree hipFree 1.5.0", "cudaMalloc hipMalloc 1.5.0", "cudaMemcpy hipMemcpy 1.5.0",
           "cudaMemcpyDeviceToHost hipMemcpyDeviceToHost 1.5.0"]
SHIM = (f"// cuda_runtime.h for HIP on AMD: written by hipport {__version__} (hipport convert --compat).\n"
        "#pragma once\n"
        "#include <hip/hip_runtime.h>\n"
        '#include "../hipport_compat.h"\n')
GENERATED = ["CMakeLists.txt.hipport-bak", "cmake/HipportPlatform.cmake", "hipport-report.json", "hipport-report.md",
             "hipport_compat.h", "hipport_compat/cuda_runtime.h"]


@pytest.fixture
def src(tmp_path, monkeypatch):
    """The fixture tree (a CMake build, two .cu files, a header including cuda_runtime.h) in
    tmp_path/src, with the working folder at tmp_path."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "src"
    for rel, text in {**SOURCES, "CMakeLists.txt": CMAKELISTS}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def contents(root: Path) -> dict[str, bytes]:
    return {rel: (root / rel).read_bytes() for rel in files(root)}


def in_place(*args: str):
    return CliRunner().invoke(main, ["convert", "src", "--compat", "--in-place", *args])


def test_compat_in_place_adds_the_compat_files_and_keeps_every_source(src, tmp_path):
    shutil.copytree(src, tmp_path / "copy")
    result = in_place()
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1:] == [
        "findings: 0 error, 0 warning, 1 info",
        "in place: 1 file rewritten, 3 files created, 0 files renamed away; 1 backup (*.hipport-bak)",
        "report: src/hipport-report.md"]
    assert files(src) == sorted(["CMakeLists.txt", *GENERATED, *SOURCES])
    for rel, text in SOURCES.items():  # not one byte changed, no include line added
        assert (src / rel).read_text() == text, rel
    assert (src / "CMakeLists.txt").read_text() == MIGRATED_CMAKELISTS
    assert (src / "CMakeLists.txt.hipport-bak").read_text() == CMAKELISTS
    assert (src / "hipport_compat.h").read_text() == compat_header(DEFINES)
    assert (src / "hipport_compat" / "cuda_runtime.h").read_text() == SHIM
    module = (src / "cmake" / "HipportPlatform.cmake").read_text()
    assert 'option(HIPPORT_COMPAT_CUDA "Build the CUDA sources as plain CUDA with nvcc (no HIP)" OFF)' in module
    # exactly what --compat -o OUT writes, file for file (the reports name their own folders)
    assert CliRunner().invoke(main, ["convert", "copy", "--compat", "-o", "out", "-q"]).exit_code == 0
    out = tmp_path / "out"
    for rel in files(out):
        if rel not in ("hipport-manifest.json", "hipport-report.json", "hipport-report.md"):
            assert (src / rel).read_bytes() == (out / rel).read_bytes(), rel
    report = json.loads((src / "hipport-report.json").read_text())
    assert (report["source"], report["output"], report["options"]["compat"]) == ("src", "src", True)


def test_a_second_run_is_a_no_op(src):
    assert in_place().exit_code == 0
    before = {rel: data for rel, data in contents(src).items() if not rel.startswith("hipport-report")}
    again = in_place()
    assert again.exit_code == 0, again.output
    assert again.stdout.splitlines()[1:] == [
        "findings: 0 error, 0 warning, 0 info",
        "in place: 0 files rewritten, 0 files created, 0 files renamed away; 0 backups (*.hipport-bak)",
        "report: src/hipport-report.md"]
    assert {rel: data for rel, data in contents(src).items() if not rel.startswith("hipport-report")} == before
    assert (src / "src" / "main.cu").read_text().count("hipport_compat") == 0


def test_a_makefile_tree_gets_the_generated_build_once(tmp_path, monkeypatch):
    """A tree with a Makefile only: the Makefile stays, CMakeLists.txt is generated; the re-run
    generates it again (not migrating hipport's own CMakeLists.txt as the tree's build, nor its
    platform module as a build file) and changes nothing."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "src"
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    makefile = "fill: src/main.cu src/fill.cu\n\tnvcc -O2 -Iinclude src/main.cu src/fill.cu -o fill\n"
    (root / "Makefile").write_text(makefile)
    first = in_place()
    assert first.exit_code == 0, first.output
    assert first.stdout.splitlines()[2] == ("in place: 0 files rewritten, 4 files created, 0 files renamed away; "
                                            "0 backups (*.hipport-bak)")
    assert (root / "Makefile").read_text() == makefile
    assert (root / "CMakeLists.txt").read_text().startswith("# Generated by hipport ")
    before = {rel: data for rel, data in contents(root).items() if not rel.startswith("hipport-report")}
    again = in_place()
    assert again.stdout.splitlines()[2] == ("in place: 0 files rewritten, 0 files created, 0 files renamed away; "
                                            "0 backups (*.hipport-bak)")
    assert {rel: data for rel, data in contents(root).items() if not rel.startswith("hipport-report")} == before


def test_a_re_run_after_an_edit_regenerates_the_header_and_drops_an_unneeded_shim(src):
    assert in_place().exit_code == 0
    (src / "src" / "main.cu").write_text(MAIN.replace("  cudaFree(values);\n",
                                                      "  cudaFree(values);\n  cudaDeviceReset();\n"))
    edited = in_place()
    assert edited.exit_code == 0, edited.output
    assert edited.stdout.splitlines()[2] == ("in place: 1 file rewritten, 0 files created, 0 files renamed away; "
                                             "0 backups (*.hipport-bak)")
    assert (src / "hipport_compat.h").read_text() == compat_header(
        ["cudaDeviceReset hipDeviceReset 1.6.0", *DEFINES])
    assert files(src) == sorted(["CMakeLists.txt", *GENERATED, *SOURCES])  # no backup of the header
    assert (src / "CMakeLists.txt.hipport-bak").read_text() == CMAKELISTS
    # the header no longer includes cuda_runtime.h: its shim is removed, the header says so
    (src / "include" / "fill.cuh").write_text(FILL_HEADER.replace("#include <cuda_runtime.h>\n", ""))
    dropped = in_place()
    assert dropped.exit_code == 0, dropped.output
    assert dropped.stdout.splitlines()[2] == ("in place: 1 file rewritten, 0 files created, 0 files renamed away; "
                                              "0 backups (*.hipport-bak); 1 generated file no longer needed, removed")
    assert not (src / "hipport_compat").exists()
    assert (src / "hipport_compat.h").read_text() == compat_header(
        ["cudaDeviceReset hipDeviceReset 1.6.0", *DEFINES], headers="none")


def test_a_compat_header_of_the_tree_own_is_refused_and_nothing_changes(src):
    (src / "hipport_compat.h").write_text("// my own compatibility header\n")
    before = contents(src)
    refused = in_place()
    assert refused.exit_code == 2
    assert refused.stderr == ("Error: src/hipport_compat.h: --compat writes hipport_compat.h and "
                              "hipport_compat/ into OUT; SRC must not hold files of those names\n")
    assert contents(src) == before


@pytest.mark.parametrize("args, message", [
    (["--rename-cu"], "Error: --compat keeps the .cu names, so it takes no --rename-cu\n"),
    (["-o", "out"], "Error: --in-place rewrites SRC, so it takes no -o; use -o OUT to write the port elsewhere, "
                    "or --diff to see it without writing\n"),
])
def test_refused_combinations_change_nothing(src, args, message):
    before = contents(src)
    result = in_place(*args)
    assert (result.exit_code, result.stderr) == (2, message)
    assert contents(src) == before


def test_a_single_file_is_refused(src):
    before = contents(src)
    result = CliRunner().invoke(main, ["convert", "src/src/main.cu", "--compat", "--in-place"])
    assert (result.exit_code, result.stderr) == (
        2, "Error: src/src/main.cu: --compat --in-place takes a folder (the compat header and its CMake build are "
           "written at its top); for one file use --compat -o OUT\n")
    assert contents(src) == before


def test_interrupted_compat_in_place_leaves_each_file_whole_and_a_re_run_completes_it(src, monkeypatch):
    """Ctrl-C inside the rename of the third temporary file over its file of SRC (after the
    backup and the migrated CMakeLists.txt): every file is its original or complete, the backup is
    complete, no temporary file is left; running again finishes the conversion."""
    real_replace, calls = os.replace, []

    def interrupted(source, destination):
        destination_path = Path(os.path.abspath(destination))
        if src in destination_path.parents:
            calls.append(destination_path.relative_to(src).as_posix())
            if len(calls) == 3:
                raise KeyboardInterrupt
        real_replace(source, destination)

    monkeypatch.setattr(os, "replace", interrupted)
    result = in_place()
    assert result.exit_code == 130
    assert result.stderr == "hipport: interrupted; every file written so far is complete, the reports were not written\n"
    assert calls == ["CMakeLists.txt.hipport-bak", "CMakeLists.txt", "cmake/HipportPlatform.cmake"]
    assert files(src) == sorted(["CMakeLists.txt", "CMakeLists.txt.hipport-bak", *SOURCES])
    assert (src / "CMakeLists.txt").read_text() == MIGRATED_CMAKELISTS
    assert (src / "CMakeLists.txt.hipport-bak").read_text() == CMAKELISTS
    monkeypatch.setattr(os, "replace", real_replace)
    again = in_place()
    assert again.exit_code == 0, again.output
    assert again.stdout.splitlines()[2] == ("in place: 0 files rewritten, 3 files created, 0 files renamed away; "
                                            "0 backups (*.hipport-bak)")
    assert files(src) == sorted(["CMakeLists.txt", *GENERATED, *SOURCES])
    assert (src / "hipport_compat.h").read_text() == compat_header(DEFINES)


def _build(toolchain, source_dir: Path, build: Path, *args) -> None:
    for command in ([toolchain.cmake, "-S", source_dir, "-B", build, "-DCMAKE_BUILD_TYPE=Release", *args],
                    [toolchain.cmake, "--build", build, "--parallel", "2"]):
        done = subprocess.run([str(c) for c in command], capture_output=True, text=True)
        assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def test_the_in_place_result_of_a_corpus_project_builds_for_gfx90a_and_as_plain_cuda(toolchain, tmp_path,
                                                                                     monkeypatch):
    """corpus/projects/constant_filter converted in place: its .cu, .cuh, .h and .cpp files stay
    byte for byte, and the tree builds for AMD (gfx90a code object) and as plain CUDA (sm_90)."""
    monkeypatch.chdir(tmp_path)
    project = CORPUS_PROJECTS / "constant_filter"
    root = tmp_path / "constant_filter"
    shutil.copytree(project, root)
    converted = CliRunner().invoke(main, ["convert", "constant_filter", "--compat", "--in-place", "-q"])
    assert converted.exit_code == 0, converted.output
    for source in project.rglob("*"):
        rel = source.relative_to(project).as_posix()
        if source.is_file() and rel != "CMakeLists.txt":
            assert (root / rel).read_bytes() == source.read_bytes(), rel
    assert (root / "CMakeLists.txt.hipport-bak").read_bytes() == (project / "CMakeLists.txt").read_bytes()
    _build(toolchain, root, tmp_path / "build-amd", f"-DCMAKE_TOOLCHAIN_FILE={toolchain.cmake_hip_toolchain_file}",
           "-DHIPPORT_OFFLOAD_ARCHS=gfx90a")
    assert toolchain.code_object_targets(tmp_path / "build-amd" / "constant_filter") == [
        "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    _build(toolchain, root, tmp_path / "build-cuda", "-DHIPPORT_COMPAT_CUDA=ON",
           f"-DCMAKE_CUDA_COMPILER={toolchain.nvcc}", f"-DCMAKE_CUDA_HOST_COMPILER={toolchain.ccbin}",
           "-DHIPPORT_OFFLOAD_ARCHS=90")
    done = subprocess.run([str(toolchain.cuobjdump), "--list-elf", str(tmp_path / "build-cuda" / "constant_filter")],
                          capture_output=True, text=True)
    assert done.returncode == 0 and "sm_90" in done.stdout, done.stderr


def test_fix_edits_the_sources_in_place_with_their_backups(tmp_path, monkeypatch):
    """--compat --in-place --fix applies the --compat --fix edits (here: deleting ``register``,
    an error in C++17) to the source itself, after its backup; the re-run finds nothing to do."""
    monkeypatch.chdir(tmp_path)
    original = ("__global__ void k(int* out) {\n"
                "  register int lane = threadIdx.x;\n"
                "  out[lane] = lane;\n"
                "}\n"
                "int main() { int* p; cudaMalloc(&p, 256); k<<<1, 64>>>(p); cudaFree(p); }\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(original)
    fixed = in_place("--fix")
    assert fixed.exit_code == 0, fixed.output
    assert fixed.stdout.splitlines()[2] == ("in place: 1 file rewritten, 3 files created, 0 files renamed away; "
                                            "1 backup (*.hipport-bak)")
    assert (tmp_path / "src" / "k.cu").read_text() == original.replace("  register int", "  int")
    assert (tmp_path / "src" / "k.cu.hipport-bak").read_text() == original
    assert files(tmp_path / "src") == ["CMakeLists.txt", "cmake/HipportPlatform.cmake", "hipport-report.json",
                                       "hipport-report.md", "hipport_compat.h", "k.cu", "k.cu.hipport-bak"]
    again = in_place("--fix")
    assert again.stdout.splitlines()[2] == ("in place: 0 files rewritten, 0 files created, 0 files renamed away; "
                                            "0 backups (*.hipport-bak)")
