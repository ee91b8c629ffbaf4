"""Rule data: the shipped files validate, bad entries are reported with file and line, and a
new mapping is one line of YAML."""

from __future__ import annotations

import shutil
import textwrap

import pytest

from hipport.convert import ConvertOptions, convert_tree
from hipport.resources import data_dir
from hipport.rules import RuleError, load_rules


def test_shipped_rules_load_and_cover_the_runtime_core():
    rules = load_rules()
    runtime = {n: m for n, m in rules.identifiers.items() if m.family == "cuda_runtime"}
    assert len(runtime) > 900
    expected = {
        "cudaMalloc": "hipMalloc", "cudaMemcpyAsync": "hipMemcpyAsync", "cudaMallocHost": "hipHostMalloc",
        "cudaMallocPitch": "hipMallocPitch", "cudaStreamCreate": "hipStreamCreate",
        "cudaEventElapsedTime": "hipEventElapsedTime", "cudaGetErrorString": "hipGetErrorString",
        "cudaDeviceProp": "hipDeviceProp_t", "cudaMemcpyHostToDevice": "hipMemcpyHostToDevice",
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor": "hipOccupancyMaxActiveBlocksPerMultiprocessor",
        "cudaError_t": "hipError_t", "cudaSuccess": "hipSuccess",
    }
    assert {name: rules.identifiers[name].hip for name in expected} == expected
    assert rules.identifiers["cudaMalloc"].kind == "function"
    assert rules.identifiers["cudaStream_t"].kind == "type"
    assert rules.identifiers["cudaMemcpyKind"].kind == "enum"
    assert rules.identifiers["cudaMemcpyHostToDevice"].kind == "enumerator"
    assert rules.headers["cuda_runtime.h"].hip == "hip/hip_runtime.h"
    assert rules.headers["device_launch_parameters.h"].hip == "hip/hip_runtime.h"
    assert {c.id for c in rules.checks.values()} >= {"HP0001", "HP0002", "HP1001", "HP2001", "HP2002", "HP2003", "HP2004"}


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    return path


HEADER = """\
    family: test_family
    title: Test
    source: written for a test
    mappings:
"""


@pytest.mark.parametrize("entry, message", [
    ("  - {cuda: cudaFoo, hip: hipFoo, kind: functon, status: supported}", "'functon' must be one of ['function', 'type', 'enum', 'enumerator', 'macro', 'header', 'namespace']"),
    ("  - {cuda: cudaFoo, kind: function, status: supported}", "must contain ['hip'] properties"),
    ("  - {cuda: cudaFoo, hip: hipFoo, kind: function}", "must contain ['status'] properties"),
    ("  - {cuda: cudaFoo, hip: hipFoo, kind: function, status: supported, colour: red}",
     "must not contain {'colour'} properties"),
    ("  - {cuda: cudaFoo, hip: hipFoo, kind: function, status: unsupported}", "hip: 'hipFoo' must not be there"),
    ("  - {cuda: cudaFoo, hip: hipFoo, kind: function, status: supported, hip_added: 1.x}", "'1.x' must match pattern"),
])
def test_bad_entry_is_reported_with_file_and_line(tmp_path, entry, message):
    path = _write(tmp_path / "bad.yaml", HEADER + "      - {cuda: cudaOk, hip: hipOk, kind: function, status: supported}\n    " + entry + "\n")
    with pytest.raises(RuleError) as raised:
        load_rules([path])
    assert raised.value.path == path
    assert raised.value.line == 6
    assert str(raised.value).startswith(f"{path}:6: mappings/1")
    assert message in str(raised.value)


def test_invalid_yaml_is_reported_with_line(tmp_path):
    path = _write(tmp_path / "broken.yaml", HEADER + "      - {cuda: cudaFoo, hip: [unclosed\n")
    with pytest.raises(RuleError) as raised:
        load_rules([path])
    assert raised.value.line == 6
    assert "invalid YAML" in str(raised.value)


def test_duplicate_name_names_both_places(tmp_path):
    first = _write(tmp_path / "a.yaml", HEADER + "      - {cuda: cudaFoo, hip: hipFoo, kind: function, status: supported}\n")
    second = _write(tmp_path / "b.yaml", HEADER.replace("test_family", "other") +
                    "      - {cuda: cudaBar, hip: hipBar, kind: function, status: supported}\n"
                    "      - {cuda: cudaFoo, hip: hipFoo2, kind: function, status: supported}\n")
    with pytest.raises(RuleError) as raised:
        load_rules([first, second])
    assert str(raised.value) == (f"{second}:6: 'cudaFoo' is already defined at {first}:5 "
                                 "with another hip/roc name, kind or status")


def test_same_name_twice_in_one_file_is_an_error_even_when_identical(tmp_path):
    path = _write(tmp_path / "a.yaml", HEADER + "      - {cuda: cudaFoo, hip: hipFoo, kind: function, status: supported}\n"
                                              "      - {cuda: cudaFoo, hip: hipFoo, kind: function, status: supported}\n")
    with pytest.raises(RuleError) as raised:
        load_rules([path])
    assert str(raised.value) == f"{path}:6: 'cudaFoo' is already defined at {path}:5"


def test_same_effect_repeat_in_another_family_keeps_the_first(tmp_path):
    # HIPIFY's runtime and driver tables both list CUstream_st and friends; versions, section
    # and note may differ, what hipport does with the name may not.
    first = _write(tmp_path / "a.yaml", HEADER + "      - {cuda: CUstream_st, hip: ihipStream_t, kind: type, "
                                               "status: supported, section: Runtime, cuda_added: '9.0'}\n")
    second = _write(tmp_path / "b.yaml", HEADER.replace("test_family", "other") +
                    "      - {cuda: CUstream_st, hip: ihipStream_t, kind: type, status: supported, section: Driver, "
                    "cuda_added: '9.1', note: another note}\n")
    rules = load_rules([first, second])
    kept = rules.identifiers["CUstream_st"]
    assert (kept.family, kept.path, kept.line, kept.versions) == ("test_family", str(first), 5, {"cuda_added": "9.0"})


@pytest.mark.parametrize("second_entry", [
    "{cuda: CUstream_st, hip: ihipStream_t, kind: enum, status: supported}",
    "{cuda: CUstream_st, hip: ihipStream_t, kind: type, status: deprecated}",
    "{cuda: CUstream_st, kind: type, status: unsupported}",
])
def test_repeat_with_another_effect_is_an_error(tmp_path, second_entry):
    first = _write(tmp_path / "a.yaml", HEADER + "      - {cuda: CUstream_st, hip: ihipStream_t, kind: type, status: supported}\n")
    second = _write(tmp_path / "b.yaml", HEADER.replace("test_family", "other") + "      - " + second_entry + "\n")
    with pytest.raises(RuleError, match="already defined at .* with another hip/roc name, kind or status"):
        load_rules([first, second])


def test_repeat_with_another_roc_name_is_an_error(tmp_path):
    roc_header = HEADER.replace("    mappings:", "    roc_library: rocBLAS\n    mappings:")
    first = _write(tmp_path / "a.yaml", roc_header + "      - {cuda: cublasFoo, hip: hipblasFoo, roc: rocblas_foo, "
                                                   "kind: function, status: supported}\n")
    second = _write(tmp_path / "b.yaml", roc_header.replace("test_family", "other") +
                    "      - {cuda: cublasFoo, hip: hipblasFoo, kind: function, status: supported}\n")
    with pytest.raises(RuleError, match="with another hip/roc name, kind or status"):
        load_rules([first, second])


def test_yaml_tags_are_refused_by_the_safe_loader(tmp_path):
    path = _write(tmp_path / "evil.yaml", HEADER + "      - !!python/object/apply:os.system ['true']\n")
    with pytest.raises(RuleError, match="invalid YAML"):
        load_rules([path])


def test_adding_a_mapping_is_one_yaml_line(tmp_path):
    rules_dir = tmp_path / "rules"
    shutil.copytree(data_dir("rules"), rules_dir)
    source = tmp_path / "k.cpp"
    source.write_text("void f() { cudaFancyNewCall(1); }\n")
    with (rules_dir / "cuda_runtime.yaml").open("a") as handle:
        handle.write("  - {cuda: cudaFancyNewCall, hip: hipFancyNewCall, kind: function, status: supported}\n")
    rules = load_rules(sorted(rules_dir.glob("*.yaml")))
    convert_tree(source, tmp_path / "out", rules=rules)
    assert (tmp_path / "out" / "k.cpp").read_text() == "void f() { hipFancyNewCall(1); }\n"


def test_validated_files_are_cached_and_edits_invalidate_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path / "cache"))
    path = _write(tmp_path / "a.yaml", HEADER + "      - {cuda: cudaFoo, hip: hipFoo, kind: function, status: supported}\n")
    first = load_rules([path]).identifiers["cudaFoo"]
    cached = list((tmp_path / "cache").glob("rules-*.json"))
    assert len(cached) == 1
    second = load_rules([path]).identifiers["cudaFoo"]
    assert first == second and second.line == 5 and second.path == str(path)
    # an edit is validated again: a bad edit is caught although a cache entry exists
    path.write_text(path.read_text().replace("kind: function", "kind: functon"))
    with pytest.raises(RuleError, match="'functon' must be one of"):
        load_rules([path])
    # a corrupt cache file is ignored
    path.write_text(path.read_text().replace("kind: functon", "kind: function"))
    for cache_file in (tmp_path / "cache").glob("rules-*.json"):
        cache_file.write_text("{not json")
    assert load_rules([path]).identifiers["cudaFoo"].hip == "hipFoo"


def test_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HIPPORT_NO_CACHE", "1")
    path = _write(tmp_path / "a.yaml", HEADER + "      - {cuda: cudaFoo, hip: hipFoo, kind: function, status: supported}\n")
    load_rules([path])
    assert not (tmp_path / "cache").exists()


def test_every_header_mapping_names_a_header_of_the_toolchain(toolchain, amd_library_include):
    """Each header entry's hip and roc header is a file below the toolchain's HIP 6.4.3 or ROCm
    6.4 library include folders, except the entries marked ``absent`` (reported as HP2016),
    whose hip header is in neither: the mark is exactly where the header is missing."""
    roots = [toolchain.hip_amd_include, amd_library_include]
    missing, marked = [], []
    for target in ("hip", "roc"):
        for name, mapping in sorted(load_rules(target_libs=target).headers.items()):
            replacement = mapping.target(target)[0]
            if replacement is None:
                continue
            if not any((root / replacement).is_file() for root in roots):
                missing.append(f"{target}: {name} -> {replacement}")
            if mapping.absent_fix and replacement == mapping.hip:
                marked.append(f"{target}: {name} -> {replacement}")
    assert missing == marked == ["hip: cudnn.h -> hipdnn.h"]


def test_absent_belongs_to_a_header_entry(tmp_path):
    path = _write(tmp_path / "a.yaml", HEADER + "      - {cuda: cudaFoo, hip: hipFoo, kind: function, status: supported, "
                                                "absent: {fix: use bar}}\n")
    with pytest.raises(RuleError, match=r"a\.yaml:5: cudaFoo: 'absent' belongs to a header entry with a hip name"):
        load_rules([path])


def test_an_absent_header_is_reported_on_its_include_line(tmp_path):
    """HP2016 with the entry's fix, under --target-libs=hip only where the hip header is used
    (--target-libs=roc ports cudnn.h to miopen/miopen.h, which ROCm 6.4 ships)."""
    source = tmp_path / "src" / "net.cpp"
    source.parent.mkdir()
    source.write_text("#include <cstdio>\n#include <cudnn.h>\nint main() { return 0; }\n")
    for target, expected in (("hip", [(2, "HP2016")]), ("roc", [])):
        report = convert_tree(source.parent, tmp_path / target, ConvertOptions(target_libs=target)).report
        assert [(f.line, f.rule_id) for f in report.findings] == expected
    finding = convert_tree(source.parent, tmp_path / "again", ConvertOptions()).report.findings[0]
    assert (finding.column, finding.message, finding.fix) == (
        10, "<cudnn.h> is ported to <hipdnn.h>, which neither HIP 6.4 nor the ROCm 6.4 libraries ship (hipDNN "
            "(ROCm/hipDNN) is archived and not part of ROCm 6.4; --target-libs=roc ports to MIOpen.)",
        "Use MIOpen, ROCm's DNN library (#include <miopen/miopen.h>); its API differs from cuDNN's: convert with "
        "--target-libs=roc, which maps the cuDNN names MIOpen has and reports the others, or keep the cuDNN code "
        "behind #ifdef __HIP_PLATFORM_NVIDIA__")
