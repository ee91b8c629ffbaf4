"""`hipport explain` and the generated rule pages in docs/rules/."""

from __future__ import annotations

import pytest
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
        comment = "#" if check.id.startswith("HP3") else "//"
        assert f"`{comment} hipport: ignore[{check.id}]`" in page


def test_every_check_example_shows_its_finding():
    """Each page shows the finding hipport really reports on the page's example; only checks that
    depend on what one example file cannot carry (other files, its encoding or name, an earlier
    conversion, --precise) do not."""
    from hipport.docs import example_findings

    rules = default_rules()
    silent = sorted(c.id for c in rules.checks.values() if not example_findings(c, rules))
    assert silent == ["HP0002", "HP0003", "HP0004", "HP0005", "HP0006", "HP1215", "HP1301"]


def test_explain_shows_a_real_finding_and_the_suppression_for_its_file_type():
    warp = CliRunner().invoke(main, ["explain", "HP1103"]).output
    assert ("On the example below, hipport reports:\n\n```text\n"
            "example.cu:1:26: HP1103 [warning] threadIdx.x % 32: the literal 32 assumes 32-wide warps\n"
            "example.cu:2:27: HP1103 [warning] threadIdx.x >> 5: the literal 5 assumes 32-wide warps\n```\n") in warp
    assert "Suppress one finding with a comment on its line, or alone on the line above it: `// hipport: ignore[HP1103]`." in warp
    cmake = CliRunner().invoke(main, ["explain", "nvcc-flag-dropped"]).output
    assert "Severity: **warning** (reported in CMake files and Makefiles)" in cmake
    assert "```cmake\n" in cmake
    assert "`# hipport: ignore[HP3010]`" in cmake


def test_build_file_findings_are_suppressed_with_hash_comments(tmp_path):
    from hipport.convert import check_tree

    src = tmp_path / "project"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(app LANGUAGES CXX CUDA)\n"
        "add_executable(app main.cu)\n"
        "target_compile_options(app PRIVATE --maxrregcount=64)  # hipport: ignore[HP3010]\n"
        "# hipport: ignore[nvcc-flag-dropped]\n"
        "target_compile_options(app PRIVATE --maxrregcount=32)\n"
        "target_compile_options(app PRIVATE --maxrregcount=16)\n")
    (src / "main.cu").write_text("__global__ void k() {}\nint main() { k<<<1, 1>>>(); }\n")
    report = check_tree(src)
    assert [(f.line, f.rule_id) for f in report.findings if f.rule_id == "HP3010"] == [(7, "HP3010")]


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


MAPPING_DOCS = REPO / "docs" / "mappings"


def test_mapping_pages_are_up_to_date():
    from hipport.docs import mapping_pages

    pages = mapping_pages(default_rules())
    committed = {p.name: p.read_text() for p in MAPPING_DOCS.glob("*.md")}
    assert committed == pages, "docs/mappings is stale: run `python -m hipport.docs`"


def test_readme_counts_block_is_what_the_counts_command_prints():
    from hipport.docs import COUNTS_BEGIN, COUNTS_END

    readme = (REPO / "README.md").read_text()
    block = readme[readme.index(COUNTS_BEGIN) + len(COUNTS_BEGIN):readme.index(COUNTS_END)]
    result = CliRunner().invoke(main, ["counts", "--format", "markdown"])
    assert result.exit_code == 0
    assert block == result.output, "README counts are stale: run `python -m hipport.docs`"


def test_every_generated_family_maps_at_least_as_many_names_as_hipify():
    from hipport.counts import family_counts

    short = [(c.family, c.mapped, c.hipify_mapped, c.mapped_roc, c.hipify_mapped_roc)
             for c in family_counts(default_rules()) if c.meets_hipify is False]
    assert short == []


COUNT_RULES = """\
family: lib
title: A library
source: test
roc_library: rocLIB
upstream: {table: LIB_API_supported_by_HIP_and_ROC.md, known: 5, mapped: 3, mapped_roc: 2}
mappings:
  - {cuda: libA, hip: hiplibA, roc: roclib_a, kind: function, status: supported, roc_added: '1.0'}
  - {cuda: libB, hip: hiplibB, kind: function, status: deprecated, cuda_deprecated: '12.0'}
  - {cuda: libC, kind: function, status: unsupported}
  - {cuda: libD, hip: libD, roc: libD, kind: type, status: supported}
  - {cuda: libns, hip: hiplibns, kind: namespace, status: supported}
  - {cuda: lib.h, hip: hiplib/hiplib.h, roc: roclib/roclib.h, kind: header, status: supported}
"""


def test_counts_follow_the_documented_definitions(tmp_path):
    from hipport.counts import counts_text, family_counts
    from hipport.rules import load_rules

    path = tmp_path / "lib.yaml"
    path.write_text(COUNT_RULES)
    [count] = family_counts(load_rules([path]))
    assert (count.known, count.mapped, count.mapped_roc, count.headers) == (5, 4, 2, 1)
    assert (count.hipify_known, count.hipify_mapped, count.hipify_mapped_roc) == (5, 3, 2)
    assert count.meets_hipify is True
    assert counts_text([count]).splitlines() == [
        "family  known  mapped  roc  HIPIFY known  HIPIFY mapped  HIPIFY roc  headers",
        "lib         5       4    2             5              3           2        1",
        "total       5       4    2             5              3           2        1",
    ]


def test_explain_shows_the_roc_name_status_and_versions(tmp_path):
    from hipport.cli import describe_mapping
    from hipport.rules import load_rules

    path = tmp_path / "lib.yaml"
    path.write_text(COUNT_RULES)
    rules = load_rules([path])
    assert describe_mapping(rules.identifiers["libA"]).splitlines()[:7] == [
        "CUDA        libA", "HIP         hiplibA", "roc         roclib_a", "kind        function",
        "status      supported", "family      lib", "roc added   1.0"]
    assert describe_mapping(rules.identifiers["libB"]).splitlines()[2] == \
        "roc              (none: rocLIB has no equivalent) [unsupported]"
    assert rules.headers["lib.h"].target("roc") == ("roclib/roclib.h", "supported")
    assert rules.headers["lib.h"].target("hip") == ("hiplib/hiplib.h", "supported")


def test_explain_shows_the_header_facts_of_a_type_and_an_absent_header():
    graphics = CliRunner().invoke(main, ["explain", "cudaGraphicsResource"]).output.splitlines()
    assert ("HIP type    hipGraphicsResource is a typedef of struct _hipGraphicsResource "
            "(hip/hip_runtime_api.h:1337)") in graphics
    state = CliRunner().invoke(main, ["explain", "curandStateXORWOW"]).output.splitlines()
    assert [line for line in state if line.startswith(("HIP type", "roc type"))] == [
        "HIP type    hiprandStateXORWOW is a struct tag (hiprand/hiprand_kernel.h:65)",
        "roc type    rocrand_state_xorwow is a typedef of rocrand_device::xorwow_engine (rocrand/rocrand_xorwow.h:228)"]
    cudnn = CliRunner().invoke(main, ["explain", "cudnn.h"]).output.splitlines()
    assert "absent      no HIP 6.4 or ROCm 6.4 package ships hipdnn.h (HP2016)" in cudnn
    assert any(line.startswith("instead     Use MIOpen, ROCm's DNN library (#include <miopen/miopen.h>)") for line in cudnn)


def test_docs_generator_usage_writes_nothing(tmp_path, monkeypatch, capsys):
    """``python -m hipport.docs --help`` prints its usage; an unknown option is a usage error.
    Neither is taken as the folder to write into (``--help`` once created a folder of that name)."""
    from hipport.docs import main as docs_main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as done:
        docs_main(["--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage: python -m hipport.docs [-h] [docs_dir]\n")
    with pytest.raises(SystemExit) as done:
        docs_main(["--bogus"])
    assert done.value.code == 2
    assert list(tmp_path.iterdir()) == []
    docs_main([str(tmp_path / "pages")])
    assert (tmp_path / "pages" / "rules" / "HP3005.md").is_file()
