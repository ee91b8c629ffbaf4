"""Reports: the JSON validates against its published schema, the Markdown is exact."""

from __future__ import annotations

import hashlib
import json

import fastjsonschema

from hipport.convert import ConvertOptions, convert_tree
from hipport.resources import schema_path

from helpers import CORPUS, CORPUS_EXCLUDE, FIXTURES

EXPECTED_MARKDOWN = """\
## hipport migration report

Ported `{src}` to `{out}` with hipport 0.1.0.

| files converted | files copied | lines | references rewritten | kernel launches | errors | warnings | info |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| 1 | 0 | 18 | 4 | 0 | 8 | 1 | 0 |

Estimated manual effort: 1 file high, 0 medium, 0 low, 0 none (4 points per error, 1 per warning; low from 1, medium from 4, high from 12).

### Errors (8)

| location | rule | message | suggested fix |
| --- | --- | --- | --- |
| `unportable.cu:3:1` | HP2002 removed-api | `texture` was removed in CUDA 12.0; HIP keeps the name | Move to the replacement API before porting (for example texture objects instead of texture references) |
| `unportable.cu:7:3` | HP1001 inline-ptx | inline PTX assembly (`asm`) cannot run on AMD GPUs: `mov.u32` | Write instead: `%laneid` -\\> `__lane_id()` (or keep the asm behind `#ifdef __HIP_PLATFORM_NVIDIA__`) |
| `unportable.cu:8:3` | HP1001 inline-ptx | inline PTX assembly (`asm` volatile) cannot run on AMD GPUs: `membar.gl`, `bar.sync` | Write instead: `membar.gl` -\\> `__threadfence()`; `bar.sync` -\\> `__syncthreads()` (or keep the asm behind `#ifdef __HIP_PLATFORM_NVIDIA__`) |
| `unportable.cu:9:3` | HP1001 inline-ptx | inline PTX assembly (`__asm__` `__volatile__`) cannot run on AMD GPUs: `prmt.b32` | Write instead: prmt -\\> `__byte_perm(x, y, selector)` (or keep the asm behind `#ifdef __HIP_PLATFORM_NVIDIA__`) |
| `unportable.cu:14:3` | HP2002 removed-api | `cudaBindTexture` was removed in CUDA 12.0; mapped to `hipBindTexture` | Move to the replacement API before porting (for example texture objects instead of texture references) |
| `unportable.cu:15:3` | HP2001 unsupported-api | `cudaDeviceFlushGPUDirectRDMAWrites` (function, `cuda_runtime`) has no HIP equivalent | Rewrite this use with HIP APIs that exist, or keep it behind `#ifdef __HIP_PLATFORM_NVIDIA__` |
| `unportable.cu:15:38` | HP2001 unsupported-api | `cudaFlushGPUDirectRDMAWritesTargetCurrentDevice` (enumerator, `cuda_runtime`) has no HIP equivalent | Rewrite this use with HIP APIs that exist, or keep it behind `#ifdef __HIP_PLATFORM_NVIDIA__` |
| `unportable.cu:16:38` | HP2001 unsupported-api | `cudaFlushGPUDirectRDMAWritesToOwner` (enumerator, `cuda_runtime`) has no HIP equivalent | Rewrite this use with HIP APIs that exist, or keep it behind `#ifdef __HIP_PLATFORM_NVIDIA__` |

### Inline PTX inventory

| PTX | uses | first use | write instead |
| --- | ---: | --- | --- |
| `%laneid` | 1 | `unportable.cu:7:3` | `__lane_id()` |
| `bar.sync` | 1 | `unportable.cu:8:3` | `__syncthreads()` |
| `membar.gl` | 1 | `unportable.cu:8:3` | `__threadfence()` |
| `prmt.b32` | 1 | `unportable.cu:9:3` | `__byte_perm(x, y, selector)` |

### Warnings (1)

| location | rule | message | suggested fix |
| --- | --- | --- | --- |
| `unportable.cu:17:3` | HP2003 deprecated-api | `cudaThreadSynchronize` is deprecated since CUDA 10.0; mapped to `hipDeviceSynchronize` | Plan a move to the API that replaces it |

<details><summary>Per-file figures (1 converted file, most work first)</summary>

| file | output | effort | lines | rewritten | launches | errors | warnings | info |
| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |
| `unportable.cu` | `unportable.hip` | high | 18 | 4 | 0 | 8 | 1 | 0 |

</details>

Generated: `CMakeLists.txt`, `cmake/HipportPlatform.cmake`.
"""


def _validate(report: dict) -> None:
    fastjsonschema.compile(json.loads(schema_path("report").read_text()))(report)


def test_schema_rejects_a_malformed_finding():
    report = {"schema": "hipport-report"}
    try:
        _validate(report)
    except fastjsonschema.JsonSchemaValueException as error:
        assert "must contain" in error.message
    else:
        raise AssertionError("an incomplete report passed the schema")


def test_markdown_report_is_exact(tmp_path):
    src = FIXTURES / "rewrite" / "unportable.cu"
    convert_tree(src, tmp_path)
    assert (tmp_path / "hipport-report.md").read_text() == EXPECTED_MARKDOWN.format(src=src, out=tmp_path)


def test_json_report_validates_and_holds_the_figures(tmp_path):
    src = FIXTURES / "rewrite" / "unportable.cu"
    convert_tree(src, tmp_path)
    report = json.loads((tmp_path / "hipport-report.json").read_text())
    _validate(report)
    assert report["schema_version"] == 1
    assert {k: v for k, v in report["totals"].items() if k != "seconds"} == {
        "files": 1, "files_converted": 1, "files_copied": 0, "lines": 18, "references_rewritten": 4,
        "kernel_launches": 0, "parse_error_regions": 0, "files_using_cuda": 1,
        "findings": {"error": 8, "warning": 1, "info": 0},
    }
    first = report["findings"][1]
    line = b'asm("mov.u32 %0, %%laneid;" : "=r"(id));'
    expected_fingerprint = hashlib.sha256(b"\0".join([b"unportable.cu", b"HP1001", b"asm", line])).hexdigest()[:20]
    assert first.pop("fingerprint") == expected_fingerprint
    assert first == {
        "path": "unportable.cu", "line": 7, "column": 3, "rule_id": "HP1001", "rule_name": "inline-ptx",
        "severity": "error", "message": "inline PTX assembly (asm) cannot run on AMD GPUs: mov.u32",
        "fix": "Write instead: %laneid -> __lane_id() (or keep the asm behind #ifdef __HIP_PLATFORM_NVIDIA__)",
        "name": "asm",
    }


def test_corpus_report_validates(tmp_path):
    convert_tree(CORPUS, tmp_path, ConvertOptions(exclude=CORPUS_EXCLUDE))
    report = json.loads((tmp_path / "hipport-report.json").read_text())
    _validate(report)
    assert report["totals"]["findings"] == {"error": 0, "warning": 0, "info": 0}
    assert [f["output"] for f in report["files"] if f["converted"]] == [
        "multi_file/kernels/config.h", "multi_file/kernels/saxpy.cuh", "multi_file/main.hip", "multi_file/util/check.h",
        "multi_file/util/config.h", "shared_reduce/shared_reduce.hip", "stream_events/stream_events.hip",
        "template_namespace/template_namespace.hip", "vector_add/vector_add.hip",
    ]


def _html(markdown: str) -> str:
    """The Markdown as GitHub would show it: CommonMark with GFM tables (markdown-it-py)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(markdown)


def test_findings_come_by_severity_and_info_is_collapsed(tmp_path):
    src = tmp_path / "mixed.cu"
    src.write_text("__managed__ int counter;\n"            # HP1201 warning
                   "void f() { cudaThreadSynchronize(); }\n"  # HP2003 warning
                   "__global__ void k() { asm(\"exit;\"); }\n")  # HP1003 error
    convert_tree(src, tmp_path / "out", ConvertOptions(launch_syntax="hip"))
    text = (tmp_path / "out" / "hipport-report.md").read_text()
    errors, warnings = text.index("### Errors (1)"), text.index("### Warnings (2)")
    assert errors < text.index("### Inline PTX inventory") < warnings < text.index("<details><summary>Per-file")
    assert "| `mixed.cu:3:" in text[errors:warnings]
    assert [line.split(" | ")[0] for line in text[warnings:].splitlines() if line.startswith("| `mixed.cu:")] == [
        "| `mixed.cu:1:1`", "| `mixed.cu:2:12`"]


def test_cuda_names_render_as_code_not_emphasis(tmp_path):
    src = tmp_path / "shared.cu"
    src.write_text("__global__ void k(float* out) {\n"
                   "  __shared__ float partial[32];\n"
                   "  out[threadIdx.x] = partial[threadIdx.x % 32];\n"
                   "}\n")
    convert_tree(src, tmp_path / "out")
    html = _html((tmp_path / "out" / "hipport-report.md").read_text())
    assert "<strong>" not in html and "<em>" not in html
    assert "<td><code>__shared__</code> array sized [32]: one slot per 32-lane warp or per lane of one warp</td>" in html
    assert "<code>threadIdx.x % 32</code>" in html or "<code>threadIdx.x</code>" in html


def test_markdown_prose_escapes_markup_and_quotes_code():
    from hipport.report import markdown_code, markdown_prose

    assert markdown_prose("use __launch_bounds__ or *not*") == "use `__launch_bounds__` or \\*not\\*"
    assert markdown_prose("guard with #if defined(__HIP_PLATFORM_AMD__)") == "guard with `#if defined(__HIP_PLATFORM_AMD__)`"
    assert markdown_prose("HIP 6.4, e.g. gfx90a [CDNA] <wave64> a|b") == "HIP 6.4, e.g. gfx90a \\[CDNA\\] \\<wave64\\> a\\|b"
    assert markdown_prose("pass -fgpu-rdc and --use_fast_math, not wave-64") == (
        "pass `-fgpu-rdc` and `--use_fast_math`, not wave-64")
    assert markdown_prose("the name texture is gone", "texture") == "the name `texture` is gone"
    assert markdown_code("a`b|c") == "``a`b\\|c``"
    html = _html("| x |\n| --- |\n| " + markdown_code("a`b|c") + " |\n")
    assert "<td><code>a`b|c</code></td>" in html


def test_long_reports_fit_a_pull_request_comment(tmp_path):
    src = tmp_path / "many"
    src.mkdir()
    for i in range(400):  # 400 files x 5 findings: 800 errors, 1,200 warnings
        (src / f"unit_{i:03d}.cu").write_text(
            "".join(f"void f{j}() {{ cudaThreadSynchronize(); cudaBindTexture(0, 0, 0, 0); }}\n" for j in range(2))
            + "__managed__ int m0, m1;\n")
    convert_tree(src, tmp_path / "out")
    text = (tmp_path / "out" / "hipport-report.md").read_text()
    assert len(text) <= 60_000
    report = json.loads((tmp_path / "out" / "hipport-report.json").read_text())
    assert report["totals"]["findings"] == {"error": 800, "warning": 1200, "info": 0}
    assert "| 400 | 0 | 1,200 | 1,600 | 0 | 800 | 1,200 | 0 |" in text
    shown_errors = text.count("| HP2002 removed-api |")
    assert 100 < shown_errors <= 800 and f"### Errors (first {shown_errors} of 800)" in text
    assert "### Warnings (1,200)\n\nNot shown here (see `hipport-report.json`).\n" in text
    assert "left out** to keep this comment under GitHub's 65,536-character limit: `hipport-report.json`" in text
    assert text.rstrip().endswith("Generated: `CMakeLists.txt`, `cmake/HipportPlatform.cmake`.")
    html = _html(text)  # still well-formed: every shown row is a table row
    assert html.count("<td><code>unit_") == shown_errors + text.count("| HP2003 deprecated-api |") + text.count("| HP1201")


def test_markdown_budget_is_exact_for_a_small_report(tmp_path):
    src = FIXTURES / "rewrite" / "unportable.cu"
    convert_tree(src, tmp_path)
    from hipport.convert import check_paths

    report = check_paths([src])
    small = report.markdown_text(budget=1_800)
    assert len(small) <= 1_800
    assert "### Errors (first " in small and "left out** to keep" in small
