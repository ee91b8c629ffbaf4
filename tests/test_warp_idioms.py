"""Differential test of ``--fix`` over generated warp idioms (issue 11: a fix is applied only
when it is right at every wavefront width, shown by running it).

tests/warp_idioms.py writes one CUDA program of 96 kernels, each a combination of the warp code
real programs have (reductions, scans, broadcasts, lane permutations, ballots, votes, segment
shuffles, lane tests; results stored per thread, by the first lane of each warp, into per-warp
slots, or per lane). The port without ``--fix`` run at wavefront width 32 is the CUDA program at
the width it was written for: the reference. The ``--fix`` port must print the reference line
of every kernel at widths 64 (gfx9) and 32 (RDNA) in the wavefront emulator: each kernel is
either widened (HP1107: only where every lane and warp number and every warp-collective result
is used in a way widening keeps, hipport/lane_flow.py) or run as 32-lane logical warps
(HP1116), never left silently wrong. Before hipport/lane_flow.py (measured 2026-12-04 with its
checks switched off), --fix widened 78 of these kernels, and 65 of them printed other numbers at
width 64 with no error finding.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from hipport import emulator
from hipport.convert import ConvertOptions, convert_tree

import warp_idioms

SEED, COUNT = 11, 96
TOTAL = COUNT + len(warp_idioms.CONTRASTS)


@pytest.fixture(scope="module")
def idioms(tmp_path_factory):
    root = tmp_path_factory.mktemp("warp-idioms")
    source = root / "idioms.cu"
    source.write_text(warp_idioms.program(SEED, COUNT))
    convert_tree(source, root / "port", ConvertOptions())
    report = convert_tree(source, root / "fix", ConvertOptions(fix=True)).report
    return root, report


def _lines(result: emulator.RunResult) -> dict[str, str]:
    assert result.returncode == 0, result.stderr[-2000:]
    return dict(line.split(" ", 1) for line in result.stdout.splitlines())


def _decisions(root: Path, report) -> dict[str, str]:
    """kernel -> the --fix rule that decided it (HP1107 widened, HP1116 logical, HP1111 left)."""
    starts = {}
    for number, line in enumerate((root / "idioms.cu").read_text().splitlines(), 1):
        match = re.match(r"__global__ void (k\d+)", line)
        if match:
            starts[number] = match.group(1)
    decided: dict[str, set[str]] = {}
    for finding in report.findings:
        if finding.rule_id in ("HP1107", "HP1111", "HP1116"):
            kernel = starts[max(start for start in starts if start <= finding.line + 1)]
            decided.setdefault(kernel, set()).add(finding.rule_id)
    return {kernel: "+".join(sorted(rules)) for kernel, rules in decided.items()}


def test_the_program_is_the_same_on_every_run():
    """The expected decisions below are of this exact text (a change to the generator, or to
    Python's random sequence for a seed, shows here first)."""
    assert hashlib.sha256(warp_idioms.program(SEED, COUNT).encode()).hexdigest() == (
        "838c27c1520d463ba93523e72a645718d8fc6707f30f2176d9270a2c9bd3a6bd")
    drawn = warp_idioms.kernels(SEED, COUNT)
    assert {stage for kernel in drawn for stage in kernel["stages"]} == set(warp_idioms.STAGES)
    assert {kernel["output"] for kernel in drawn} == set(warp_idioms.OUTPUTS)


def test_every_kernel_is_decided_and_none_is_left_as_written(idioms):
    root, report = idioms
    decisions = _decisions(root, report)
    assert sorted(decisions, key=lambda k: int(k[1:])) == [f"k{i}" for i in range(TOTAL)]
    widened = sorted((k for k, rule in decisions.items() if rule == "HP1107"), key=lambda k: int(k[1:]))
    assert widened == ["k96", "k103", "k104", "k110", "k113"]
    assert sum(rule == "HP1116" for rule in decisions.values()) == TOTAL - len(widened)
    assert not [f for f in report.findings if f.severity == "error"]
    # the widened kernels: whole-warp sums and any-votes reaching memory only through the first
    # lane of each warp, combined across warps by the reduction's own operation (an any-vote by OR
    # or maximum); their contrasts (the same result counted, compared, squared, bumped or combined
    # by another operation) and the maximum reductions (a partial wavefront adds 0s) run as
    # logical warps
    shapes = {k["name"]: f"{'+'.join(k['stages'])}->{k['output']}" for k in warp_idioms.kernels(SEED, COUNT)}
    assert [shapes[k] for k in widened] == [
        "reduce_down->first_lane_atomic", "vote_any_value->first_lane_or", "vote_any_value->first_lane_max",
        "ballot_count->first_lane_atomic", "reduce_down->shared_fold"]


@pytest.mark.parametrize("wave", [64, 32])
def test_fix_output_prints_the_reference_at_both_widths(idioms, wave):
    root, _ = idioms
    reference = _lines(emulator.execute(root / "port" / "idioms.hip", wave=32, timeout=300))
    assert len(reference) == TOTAL
    fixed = _lines(emulator.execute(root / "fix" / "idioms.hip", wave=wave, timeout=300))
    assert {k: v for k, v in fixed.items() if reference[k] != v} == {}
