"""scripts/gpu_run.py turns the recorded device log into the table in docs/gpu-runs.md."""

from __future__ import annotations

import importlib.util

from helpers import REPO

spec = importlib.util.spec_from_file_location("gpu_run", REPO / "scripts" / "gpu_run.py")
gpu_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu_run)

LOG = REPO / "docs" / "gpu-runs" / "2026-11-30-corpus.log"
ALL_LOG = REPO / "docs" / "gpu-runs" / "2026-11-30-corpus-all.log"


def test_recorded_table_matches_the_log():
    table = gpu_run.table(LOG)
    assert table.splitlines()[2:] == [
        "| multi_file | saxpy | 0 / 0 | `Test PASSED` | yes | 0.008672 | 0.008576 | 0.989 |",
        "| shared_reduce | block_reduce_sum | 0 / 0 | `Test PASSED` | yes | 0.011168 | 0.011072 | 0.991 |",
        "| stream_events | affine_sin | 0 / 0 | `Test PASSED` | yes | 0.018192 | 0.017904 | 0.984 |",
        "| template_namespace | scale_add | 0 / 0 | `Test PASSED` | yes | 0.008608 | 0.009008 | 1.046 |",
        "| vector_add | vector_add | 0 / 0 | `Test PASSED` | yes | 0.006848 | 0.007008 | 1.023 |",
    ]
    assert table in (REPO / "docs" / "gpu-runs.md").read_text()


def test_recorded_table_of_every_runnable_program_matches_the_log():
    table = gpu_run.table(ALL_LOG)
    rows = table.splitlines()[2:]
    programs = {row.split(" | ")[0].lstrip("| ") for row in rows}
    assert programs == {"multi_file", "shared_reduce", "stream_events", "template_namespace", "vector_add",
                        "constant_filter", "cooperative_reduce", "legacy_findcuda", "makefile_saxpy",
                        "rdc_device_functions", "stream_pipeline", "template_library", "texture_sampling",
                        "warp_shuffle_scan"}
    assert all(" | 0 / 0 | `Test PASSED` | yes | " in row for row in rows)
    assert len(rows) == 18  # one row per timed kernel
    assert table in (REPO / "docs" / "gpu-runs.md").read_text()
    assert set(gpu_run.NOT_RUNNABLE) == {"blas_rand"}


def test_differing_outputs_are_flagged(tmp_path):
    log = tmp_path / "log"
    log.write_text(
        "=== p cuda round 1\nsum 10\nstream 0: 1.250 ms\nkernel_median_ms k 0.5\nTest PASSED\n=== exit p cuda 0\n"
        "=== p hip round 1\nsum 11\nstream 0: 1.750 ms\nkernel_median_ms k 0.25\nTest FAILED\n=== exit p hip 1\n"
    )
    assert gpu_run.table(log).splitlines()[2] == "| p | k | 0 / 1 | `Test FAILED` | NO | 0.500000 | 0.250000 | 0.500 |"


def test_timing_lines_are_not_compared(tmp_path):
    log = tmp_path / "log"
    log.write_text(
        "=== p cuda round 1\nstream 0: 1.250 ms\nkernel_median_ms k 0.5\nTest PASSED\n=== exit p cuda 0\n"
        "=== p hip round 1\nstream 0: 1.750 ms\nkernel_median_ms k 0.5\nTest PASSED\n=== exit p hip 0\n"
    )
    assert gpu_run.table(log).splitlines()[2] == "| p | k | 0 / 0 | `Test PASSED` | yes | 0.500000 | 0.500000 | 1.000 |"
