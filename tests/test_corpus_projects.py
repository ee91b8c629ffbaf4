"""The multi-file corpus projects (corpus/projects/): their shape, their conversion, and their own
CUDA builds with nvcc 12.4 for sm_90 (one project per build kind: Make, legacy FindCUDA, modern
CMake with separable compilation, modern CMake with cuBLAS/cuRAND through FindCUDAToolkit).

Running them needs a GPU: ``scripts/corpus_projects.py`` builds all of them and writes the run
script (the H200 run is in docs/gpu-runs.md).
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from hipport.convert import convert_tree

from helpers import CORPUS_PROJECTS, REPO

sys.path.insert(0, str(REPO / "scripts"))
import corpus_projects  # noqa: E402

NAMES = ["blas_rand", "constant_filter", "cooperative_reduce", "legacy_findcuda", "makefile_saxpy",
         "rdc_device_functions", "stream_pipeline", "template_library", "texture_sampling",
         "warp_shuffle_scan"]
SOURCES = (".cu", ".cpp")


def test_the_projects_and_their_build_kinds():
    assert [p.name for p in corpus_projects.projects()] == NAMES
    kinds = {p.name: corpus_projects.build_kind(p) for p in corpus_projects.projects()}
    assert kinds.pop("makefile_saxpy") == "make"
    assert kinds.pop("legacy_findcuda") == "findcuda"
    assert set(kinds.values()) == {"cmake"}


@pytest.mark.parametrize("name", NAMES)
def test_each_project_is_several_files_printing_the_corpus_lines(name):
    project = CORPUS_PROJECTS / name
    units = [p for p in project.rglob("*") if p.suffix in SOURCES]
    headers = [p for p in project.rglob("*") if p.suffix in (".h", ".cuh")]
    assert len(units) >= 2 and headers
    text = "\n".join(p.read_text(encoding="utf-8") for p in units)
    for needle in ('"checksum ', "kernel_median_ms ", "Test PASSED", "Test FAILED"):
        assert needle in text, f"{name}: no {needle!r}"
    if (project / "CMakeLists.txt").is_file() and corpus_projects.build_kind(project) == "cmake":
        cmake = (project / "CMakeLists.txt").read_text(encoding="utf-8")
        assert re.search(r"project\([^)]*\bCUDA\b", cmake)


def test_every_project_converts_and_the_warp_code_is_reported(tmp_path):
    findings = {}
    for name in NAMES:
        result = convert_tree(CORPUS_PROJECTS / name, tmp_path / name)
        findings[name] = {(f.rule_id, f.path, f.line) for f in result.report.findings}
    # The 32-lane assumptions of warp_shuffle_scan (ballots kept in unsigned int, kWarpSize = 32).
    assert {("HP1102", "include/scan/warp_primitives.cuh", 61), ("HP1102", "src/compact.cu", 23),
            ("HP1102", "src/histogram.cu", 44), ("HP1105", "include/scan/warp_primitives.cuh", 11)} <= findings[
        "warp_shuffle_scan"]
    # Per-tile shared slots sized BlockSize / 32 in the cooperative-groups reduction.
    assert ("HP1106", "include/coop/tile_reduce.cuh", 29) in findings["cooperative_reduce"]


def test_run_script_runs_every_project(tmp_path):
    script = corpus_projects.run_script(NAMES, "../..")
    for name in NAMES:
        assert f'echo "=== {name}"' in script and f'echo "=== exit {name} $rc ($prog)"' in script
    log = tmp_path / "device.log"
    log.write_text("=== blas_rand\nchecksum x 1\nkernel_median_ms cublasSgemm 0.017280\nTest PASSED\n"
                   "=== exit blas_rand 0 (./blas_rand)\n")
    assert corpus_projects.summary(log).splitlines()[-1] == (
        "| blas_rand | 0 | `Test PASSED` | cublasSgemm 0.0173 |")


@pytest.mark.parametrize("name", ["makefile_saxpy", "legacy_findcuda", "rdc_device_functions", "blas_rand"])
def test_project_builds_as_cuda_for_sm90(toolchain, name, tmp_path):
    project = CORPUS_PROJECTS / name
    build_dir = tmp_path / "build"
    for command in corpus_projects.build_commands(project, build_dir, toolchain):
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    executable = build_dir / name
    assert executable.is_file()
    listed = subprocess.run([str(toolchain.cuobjdump), "--list-elf", str(executable)], capture_output=True,
                            text=True, check=True).stdout
    assert "sm_90" in listed
