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

### Findings

| severity | location | rule | message | suggested fix |
| --- | --- | --- | --- | --- |
| error | `unportable.cu:3:1` | HP2002 removed-api | texture was removed in CUDA 12.0; HIP keeps the name | Move to the replacement API before porting (for example texture objects instead of texture references) |
| error | `unportable.cu:7:3` | HP1001 inline-ptx | inline PTX assembly (asm) cannot run on AMD GPUs: mov.u32 | Write instead: %laneid -> __lane_id() (or keep the asm behind #ifdef __HIP_PLATFORM_NVIDIA__) |
| error | `unportable.cu:8:3` | HP1001 inline-ptx | inline PTX assembly (asm volatile) cannot run on AMD GPUs: membar.gl, bar.sync | Write instead: membar.gl -> __threadfence(); bar.sync -> __syncthreads() (or keep the asm behind #ifdef __HIP_PLATFORM_NVIDIA__) |
| error | `unportable.cu:9:3` | HP1001 inline-ptx | inline PTX assembly (__asm__ __volatile__) cannot run on AMD GPUs: prmt.b32 | Write instead: prmt -> __byte_perm(x, y, selector) (or keep the asm behind #ifdef __HIP_PLATFORM_NVIDIA__) |
| error | `unportable.cu:14:3` | HP2002 removed-api | cudaBindTexture was removed in CUDA 12.0; mapped to hipBindTexture | Move to the replacement API before porting (for example texture objects instead of texture references) |
| error | `unportable.cu:15:3` | HP2001 unsupported-api | cudaDeviceFlushGPUDirectRDMAWrites (function, cuda_runtime) has no HIP equivalent | Rewrite this use with HIP APIs that exist, or keep it behind #ifdef __HIP_PLATFORM_NVIDIA__ |
| error | `unportable.cu:15:38` | HP2001 unsupported-api | cudaFlushGPUDirectRDMAWritesTargetCurrentDevice (enumerator, cuda_runtime) has no HIP equivalent | Rewrite this use with HIP APIs that exist, or keep it behind #ifdef __HIP_PLATFORM_NVIDIA__ |
| error | `unportable.cu:16:38` | HP2001 unsupported-api | cudaFlushGPUDirectRDMAWritesToOwner (enumerator, cuda_runtime) has no HIP equivalent | Rewrite this use with HIP APIs that exist, or keep it behind #ifdef __HIP_PLATFORM_NVIDIA__ |
| warning | `unportable.cu:17:3` | HP2003 deprecated-api | cudaThreadSynchronize is deprecated since CUDA 10.0; mapped to hipDeviceSynchronize | Plan a move to the API that replaces it |

### Inline PTX inventory

| PTX | uses | first use | write instead |
| --- | ---: | --- | --- |
| `%laneid` | 1 | `unportable.cu:7:3` | `__lane_id()` |
| `bar.sync` | 1 | `unportable.cu:8:3` | `__syncthreads()` |
| `membar.gl` | 1 | `unportable.cu:8:3` | `__threadfence()` |
| `prmt.b32` | 1 | `unportable.cu:9:3` | `__byte_perm(x, y, selector)` |

<details><summary>Per-file figures (1 converted file)</summary>

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
        "kernel_launches": 0, "parse_error_regions": 0, "findings": {"error": 8, "warning": 1, "info": 0},
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


def test_long_finding_lists_are_collapsed(tmp_path):
    src = tmp_path / "many.cu"
    src.write_text("".join(f"void f{i}() {{ cudaThreadSynchronize(); }}\n" for i in range(30)))
    convert_tree(src, tmp_path / "out")
    text = (tmp_path / "out" / "hipport-report.md").read_text()
    assert "### Findings (first 25 of 30)" in text
    assert "<details><summary>5 more findings</summary>" in text
    assert text.count("| warning | `many.cu:") == 30
