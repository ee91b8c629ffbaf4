"""`hipport convert SRC --in-place`: SRC rewritten with a backup of every file changed, names
kept unless --rename-cu (then includes and build files follow), refusals, no half-written file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main

MAIN = ('#include "lib/scale.cu"\n'
        "int main() {\n"
        "  float* x;\n"
        "  cudaMalloc(&x, 32 * sizeof(float));\n"
        "  run(x);\n"
        "  cudaFree(x);\n"
        "}\n")
SCALE = ("__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }\n"
         "void run(float* x) { scale<<<1, 32>>>(x); cudaDeviceSynchronize(); }\n")
MAKEFILE = "app: main.cpp lib/scale.cu\n\tnvcc -O2 -x cu main.cpp -o app\n"

PORTED_SCALE = ("#include <hip/hip_runtime.h>\n"
                "__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }\n"
                "void run(float* x) { scale<<<1, 32>>>(x); hipDeviceSynchronize(); }\n")


def ported_main(include: str) -> str:
    return (f'#include "{include}"\n'
            "int main() {\n"
            "  float* x;\n"
            "  hipMalloc(&x, 32 * sizeof(float));\n"
            "  run(x);\n"
            "  hipFree(x);\n"
            "}\n")


@pytest.fixture
def src(tmp_path, monkeypatch):
    """A small CUDA tree in tmp_path/src, with the working folder at tmp_path."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "src"
    (root / "lib").mkdir(parents=True)
    (root / "main.cpp").write_text(MAIN)
    (root / "lib" / "scale.cu").write_text(SCALE)
    (root / "Makefile").write_text(MAKEFILE)
    (root / "notes.txt").write_text("notes\n")
    return root


def files(root) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_in_place_rewrites_and_backs_up_every_changed_file_keeping_names(src):
    result = CliRunner().invoke(main, ["convert", "src", "--in-place"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1:] == [
        "findings: 0 error, 0 warning, 0 info",
        "in place: 3 files rewritten, 2 files created, 0 files renamed away; 3 backups (*.hipport-bak)",
        "report: src/hipport-report.md"]
    assert files(src) == ["CMakeLists.txt", "Makefile", "Makefile.hipport-bak", "cmake/HipportPlatform.cmake",
                          "hipport-report.json", "hipport-report.md", "lib/scale.cu", "lib/scale.cu.hipport-bak",
                          "main.cpp", "main.cpp.hipport-bak", "notes.txt"]
    # without --rename-cu the .cu file keeps its name, and so does the include of it
    assert (src / "main.cpp").read_text() == ported_main("lib/scale.cu")
    assert (src / "lib" / "scale.cu").read_text() == PORTED_SCALE
    assert (src / "Makefile").read_text() == ("app: main.cpp lib/scale.cu\n"
                                              "\thipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS -O2 -x hip main.cpp -o app\n")
    # the backups hold the originals, byte for byte; the unchanged file got none
    assert (src / "main.cpp.hipport-bak").read_text() == MAIN
    assert (src / "lib" / "scale.cu.hipport-bak").read_text() == SCALE
    assert (src / "Makefile.hipport-bak").read_text() == MAKEFILE
    report = json.loads((src / "hipport-report.json").read_text())
    assert report["output"] == "src" and report["options"]["exclude"] == []


def test_rename_cu_renames_and_the_include_and_the_makefile_follow(src):
    result = CliRunner().invoke(main, ["convert", "src", "--in-place", "--rename-cu"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[2] == ("in place: 2 files rewritten, 3 files created, 1 file renamed away; "
                                             "3 backups (*.hipport-bak)")
    assert files(src) == ["CMakeLists.txt", "Makefile", "Makefile.hipport-bak", "cmake/HipportPlatform.cmake",
                          "hipport-report.json", "hipport-report.md", "lib/scale.cu.hipport-bak", "lib/scale.hip",
                          "main.cpp", "main.cpp.hipport-bak", "notes.txt"]
    assert (src / "main.cpp").read_text() == ported_main("lib/scale.hip")
    assert (src / "lib" / "scale.hip").read_text() == PORTED_SCALE
    assert (src / "lib" / "scale.cu.hipport-bak").read_text() == SCALE
    assert (src / "Makefile").read_text() == ("app: main.cpp lib/scale.hip\n"
                                              "\thipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS -O2 -x hip main.cpp -o app\n")


def test_a_second_run_changes_nothing_and_an_existing_backup_is_never_replaced(src):
    assert CliRunner().invoke(main, ["convert", "src", "--in-place"]).exit_code == 0
    again = CliRunner().invoke(main, ["convert", "src", "--in-place"])
    assert again.exit_code == 0
    assert again.stdout.splitlines()[2] == ("in place: 0 files rewritten, 0 files created, 0 files renamed away; "
                                            "0 backups (*.hipport-bak)")
    # a CUDA call added after the first run: its backup would replace the first run's one
    edited = ported_main("lib/scale.cu") + "void more() { cudaDeviceReset(); }\n"
    (src / "main.cpp").write_text(edited)
    refused = CliRunner().invoke(main, ["convert", "src", "--in-place"])
    assert refused.exit_code == 2
    assert refused.stderr == ("Error: src/main.cpp.hipport-bak: a backup of an earlier --in-place conversion exists; "
                              "nothing was changed. Restore the files from the backups or delete them, then run again\n")
    assert (src / "main.cpp").read_text() == edited and (src / "main.cpp.hipport-bak").read_text() == MAIN


def test_a_second_run_leaves_the_generated_cmake_build_as_it_is(tmp_path, monkeypatch):
    """A tree with no build of its own gets hipport's CMakeLists.txt on the first run; the second
    run must not migrate that generated file again (it once added hipport_gpu_target(app) to it,
    with a backup, so each run rewrote the tree's build)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "app.cu").write_text("__global__ void k() {}\n"
                                              "int main() { k<<<1, 1>>>(); cudaDeviceSynchronize(); }\n")
    first = CliRunner().invoke(main, ["convert", "app", "--in-place"])
    assert first.exit_code == 0
    assert first.stdout.splitlines()[2] == ("in place: 1 file rewritten, 2 files created, 0 files renamed away; "
                                            "1 backup (*.hipport-bak)")
    generated = (tmp_path / "app" / "CMakeLists.txt").read_text()
    assert generated.startswith("# Generated by hipport ") and 'add_executable(app "app.cu")' in generated
    again = CliRunner().invoke(main, ["convert", "app", "--in-place"])
    assert again.exit_code == 0
    assert again.stdout.splitlines()[2] == ("in place: 0 files rewritten, 0 files created, 0 files renamed away; "
                                            "0 backups (*.hipport-bak)")
    assert (tmp_path / "app" / "CMakeLists.txt").read_text() == generated
    assert not (tmp_path / "app" / "CMakeLists.txt.hipport-bak").exists()


@pytest.mark.parametrize("args, message", [
    (["--in-place", "-o", "out"], "Error: --in-place rewrites SRC, so it takes no -o; use -o OUT to write the port "
                                  "elsewhere, or --diff to see it without writing\n"),
    (["--in-place", "--diff"], "Error: --in-place rewrites SRC, so it takes no --diff; use -o OUT to write the port "
                               "elsewhere, or --diff to see it without writing\n"),
    (["--rename-cu", "-o", "out"], "Error: --rename-cu goes with --in-place (convert -o OUT always names the ports "
                                   "of .cu files .hip)\n"),
    (["--rename-cu", "--diff"], "Error: --rename-cu goes with --in-place (convert -o OUT always names the ports "
                                "of .cu files .hip)\n"),
    (["--in-place", "--force"], "Error: --force is about hand edits in -o OUT; --in-place keeps a backup of every "
                                "file instead\n"),
])
def test_refused_combinations_change_nothing(src, tmp_path, args, message):
    before = {name: (src / name).read_bytes() for name in files(src)}
    result = CliRunner().invoke(main, ["convert", "src", *args])
    assert (result.exit_code, result.stderr) == (2, message)
    assert {name: (src / name).read_bytes() for name in files(src)} == before
    assert not (tmp_path / "out").exists()


def test_without_in_place_the_source_is_never_modified(src, tmp_path):
    before = {name: (src / name).read_bytes() for name in files(src)}
    assert CliRunner().invoke(main, ["convert", "src", "-o", "out"]).exit_code == 0
    assert {name: (src / name).read_bytes() for name in files(src)} == before


def test_interrupted_in_place_leaves_each_file_whole_with_its_backup(src, monkeypatch):
    """Ctrl-C during the writes (inside the rename of a temporary file over a file of SRC): every
    file is its original or its complete port, every file replaced so far has its complete
    backup, and no temporary file is left."""
    real_replace, calls = os.replace, []

    def interrupted(source, destination):
        destination_path = Path(os.path.abspath(destination))
        if src in destination_path.parents:
            calls.append(destination_path.relative_to(src).as_posix())
            if len(calls) == 5:  # after the 3 backups and 1 port: Ctrl-C
                raise KeyboardInterrupt
        real_replace(source, destination)

    monkeypatch.setattr(os, "replace", interrupted)
    result = CliRunner().invoke(main, ["convert", "src", "--in-place"])
    assert result.exit_code == 130
    assert result.stderr == "hipport: interrupted; every file written so far is complete, the reports were not written\n"
    assert calls == ["Makefile.hipport-bak", "lib/scale.cu.hipport-bak", "main.cpp.hipport-bak", "CMakeLists.txt",
                     "Makefile"]
    assert files(src) == ["CMakeLists.txt", "Makefile", "Makefile.hipport-bak", "lib/scale.cu",
                          "lib/scale.cu.hipport-bak", "main.cpp", "main.cpp.hipport-bak", "notes.txt"]
    assert (src / "Makefile").read_text() == MAKEFILE  # the write that was interrupted: still the original
    assert (src / "main.cpp").read_text() == MAIN and (src / "lib" / "scale.cu").read_text() == SCALE
    for name, original in (("Makefile", MAKEFILE), ("main.cpp", MAIN), ("lib/scale.cu", SCALE)):
        assert (src / (name + ".hipport-bak")).read_text() == original


@pytest.mark.parametrize("rename", [False, True])
def test_an_in_place_cmake_tree_builds_for_amd_with_or_without_renames(toolchain, tmp_path, monkeypatch, rename):
    """Kept .cu names compile as HIP too: the platform module marks a target's .cu sources."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "b"
    root.mkdir()
    (root / "main.cu").write_text("#include <cstdio>\n"
                                  "__global__ void k(float* x) { x[threadIdx.x] = 2.0f; }\n"
                                  "int main() { float* x; cudaMalloc(&x, 128); k<<<1, 32>>>(x);\n"
                                  "  cudaDeviceSynchronize(); cudaFree(x); std::printf(\"ok\\n\"); }\n")
    (root / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\nproject(b LANGUAGES CXX CUDA)\n"
                                         "add_executable(app main.cu)\n")
    converted = CliRunner().invoke(main, ["convert", "b", "--in-place", "-q", *(["--rename-cu"] if rename else [])])
    assert converted.exit_code == 0, converted.output
    source = "main.hip" if rename else "main.cu"
    assert (root / "CMakeLists.txt").read_text() == (
        "cmake_minimum_required(VERSION 3.21)\nproject(b LANGUAGES CXX)\n"
        "include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/HipportPlatform.cmake)\nhipport_enable_gpu_language()\n"
        f"add_executable(app {source})\nhipport_gpu_target(app)\n")
    built = CliRunner().invoke(main, ["build", "b", "--platform", "amd", "--offload-arch", "gfx90a", "-j", "1"])
    assert built.exit_code == 0, built.output
    assert built.stdout == f"built 1 executable in b/build-amd:\n  {root / 'build-amd' / 'app'}\n"
    assert toolchain.code_object_targets(root / "build-amd" / "app") == ["hipv4-amdgcn-amd-amdhsa--gfx90a"]
