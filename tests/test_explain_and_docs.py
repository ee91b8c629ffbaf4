"""`hipport explain` and the generated rule pages in docs/rules/."""

from __future__ import annotations

from click.testing import CliRunner

from hipport.cli import main
from hipport.docs import rule_pages, template_text
from hipport.rules import default_rules

from helpers import REPO

DOCS = REPO / "docs" / "rules"


def test_rule_pages_are_up_to_date():
    pages = rule_pages(default_rules())
    committed = {p.name: p.read_text() for p in DOCS.glob("*.md")}
    assert committed == pages, "docs/rules is stale: run `python -m hipport.docs`"


def test_every_check_has_a_page_with_all_sections():
    pages = rule_pages(default_rules())
    for check in default_rules().checks.values():
        page = pages[f"{check.id}.md"]
        for heading in ("## What it finds", "## Why it matters on AMD GPUs", "## Example", "## Instead"):
            assert heading in page
        assert f"`// hipport: ignore[{check.id}]`" in page


def test_template_text():
    assert template_text("{name} was removed in CUDA {cuda_removed}; '${{'") == "<name> was removed in CUDA <cuda_removed>; '${'"


def test_explain_check_by_id_and_by_name():
    runner = CliRunner()
    by_id = runner.invoke(main, ["explain", "HP1001"])
    by_name = runner.invoke(main, ["explain", "inline-ptx"])
    assert by_id.exit_code == by_name.exit_code == 0
    assert by_id.output == by_name.output == (DOCS / "HP1001.md").read_text()


def test_explain_cuda_name():
    result = CliRunner().invoke(main, ["explain", "cudaThreadSynchronize"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[:7] == [
        "CUDA             cudaThreadSynchronize",
        "HIP              hipDeviceSynchronize",
        "kind             function",
        "status           deprecated",
        "family           cuda_runtime",
        "section          Thread Management [DEPRECATED]",
        "cuda deprecated  10.0",
    ]
    assert lines[-1].startswith("defined at       ") and "cuda_runtime.yaml:" in lines[-1]


def test_explain_unknown_name_suggests():
    result = CliRunner().invoke(main, ["explain", "cudaMallocc"])
    assert result.exit_code == 2
    assert "did you mean cudaMalloc" in result.output


def test_readme_lists_every_rule_with_its_id():
    readme = (REPO / "README.md").read_text()
    for check in default_rules().checks.values():
        assert f"| {check.id} | {check.name} | {check.severity} |" in readme
