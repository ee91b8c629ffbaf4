"""bench/bench_issue12.py: the rows and CPU ratios of its table (no timing: made-up runs)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_issue12  # noqa: E402
from bench_vs_hipify_perl import Run  # noqa: E402


def test_comparison_rows_and_ratios():
    hipport = Run(wall=2.0, cpu=4.0, others=0.0)
    hipify = [("batch, 1 process", Run(wall=80.0, cpu=80.0, others=0.0)),
              ("batch, 2 processes", Run(wall=40.0, cpu=79.0, others=0.0))]
    rows, ratios = bench_issue12.comparison_rows(400_000, hipport, hipify, 20.0)
    assert ratios == [20.0, 19.75]
    assert rows == [
        ["hipport convert (default jobs)", "2.00", "4.00", "100,000", "", ">= 100,000 lines per CPU s", "yes"],
        ["hipify-perl batch, 1 process", "80.00", "80.00", "5,000", "20.0x", "hipport >= 20x in CPU s", "yes"],
        ["hipify-perl batch, 2 processes", "40.00", "79.00", "5,063", "19.8x", "hipport >= 20x in CPU s", "NO"],
    ]


def test_least_cpu_run_is_the_one_shown():
    runs = [Run(wall=1.0, cpu=3.0, others=0.0), Run(wall=2.0, cpu=2.5, others=0.0), Run(wall=1.5, cpu=2.9, others=0.0)]
    assert bench_issue12.least_cpu(runs) == runs[1]
