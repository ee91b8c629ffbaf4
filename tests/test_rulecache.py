"""The rule-table cache (hipport.rulecache): used on the second load, rebuilt when a source
changes, a corrupt file ignored and replaced, and results identical with and without it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hipport import rulecache
from hipport.buildfiles import data as build_data
from hipport import elaborated

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(folder))
    monkeypatch.delenv("HIPPORT_NO_CACHE", raising=False)
    return folder


def _counting(value):
    calls = []

    def build():
        calls.append(1)
        return dict(value)
    return build, calls


def test_second_load_reads_the_cache(cache, tmp_path):
    source = tmp_path / "a.yaml"
    source.write_text("x: 1\n")
    build, calls = _counting({"x": 1})
    assert rulecache.cached_table("t", [source], build, dict) == {"x": 1}
    assert rulecache.cached_table("t", [source], build, dict) == {"x": 1}
    assert len(calls) == 1
    assert [p.name.split("-")[0] for p in cache.iterdir()] == ["t"]


def test_changed_source_rebuilds(cache, tmp_path):
    source = tmp_path / "a.yaml"
    source.write_text("x: 1\n")
    rulecache.cached_table("t", [source], lambda: {"x": 1}, dict)
    source.write_text("x: 2\n")
    build, calls = _counting({"x": 2})
    assert rulecache.cached_table("t", [source], build, dict) == {"x": 2}
    assert len(calls) == 1
    assert len(list(cache.iterdir())) == 2  # one file per key


@pytest.mark.parametrize("content", [b"", b"garbage", rulecache.HEADER + b"\x80\x05truncated",
                                     rulecache.HEADER + b"\x80\x04K\x01."])  # the last: an int, not a dict
def test_corrupt_cache_file_is_ignored_and_replaced(cache, tmp_path, content):
    source = tmp_path / "a.yaml"
    source.write_text("x: 1\n")
    rulecache.cached_table("t", [source], lambda: {"x": 1}, dict)
    (cached,) = cache.iterdir()
    cached.write_bytes(content)
    build, calls = _counting({"x": 1})
    assert rulecache.cached_table("t", [source], build, dict) == {"x": 1}
    assert len(calls) == 1
    assert cached.read_bytes().startswith(rulecache.HEADER) and cached.read_bytes() != content
    assert rulecache.cached_table("t", [source], build, dict) == {"x": 1} and len(calls) == 1


def test_build_errors_propagate_and_nothing_is_cached(cache, tmp_path):
    source = tmp_path / "a.yaml"
    source.write_text("x: 1\n")

    def fails():
        raise ValueError("bad rule")
    with pytest.raises(ValueError, match="bad rule"):
        rulecache.cached_table("t", [source], fails, dict)
    assert not cache.exists() or not list(cache.iterdir())


def test_no_cache_env_builds_every_time(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("HIPPORT_NO_CACHE", "1")
    source = tmp_path / "a.yaml"
    source.write_text("x: 1\n")
    build, calls = _counting({"x": 1})
    rulecache.cached_table("t", [source], build, dict)
    rulecache.cached_table("t", [source], build, dict)
    assert len(calls) == 2 and not cache.exists()


def test_build_rules_and_type_tags_come_from_the_cache(cache, monkeypatch):
    for loader in (build_data.default_build_rules, elaborated.type_tags):
        loader.cache_clear()
    first_build, first_tags = build_data.default_build_rules(), elaborated.type_tags()
    assert sorted(p.name.split("-")[0] + "-" + p.name.split("-")[1] for p in cache.iterdir()
                  if not p.name.startswith(("rules-", "yaml-"))) == ["build-rules", "type-tags"]
    for loader in (build_data.default_build_rules, elaborated.type_tags):
        loader.cache_clear()

    def not_again(*args):
        raise AssertionError("built again although cached")
    monkeypatch.setattr(build_data, "load_build_rules", not_again)
    monkeypatch.setattr(elaborated, "_load_type_tags", not_again)
    try:
        assert build_data.default_build_rules() == first_build
        assert elaborated.type_tags() == first_tags
    finally:
        for loader in (build_data.default_build_rules, elaborated.type_tags):
            loader.cache_clear()


def test_findings_identical_with_and_without_the_cache(tmp_path):
    """hipport check prints the same bytes with no cache, filling the cache and reading it."""
    files = [str(ROOT / "corpus" / name) for name in ("stream_events", "shared_reduce", "template_namespace")]
    files += [str(p) for p in sorted((ROOT / "tests" / "fixtures" / "elaborated").glob("*.cu"))]
    libs = tmp_path / "libs.cu"  # headers the build rules (libraries.yaml) know HIP lacks
    libs.write_text("#include <cuda_runtime.h>\n#include <nvjpeg.h>\n#include <cudnn.h>\n")
    files.append(str(libs))

    def check(**env):
        out = subprocess.run([sys.executable, "-m", "hipport.entry", "check", "--format", "json", "--fail-on", "info",
                              *files], capture_output=True, text=True,
                             env={**os.environ, "COLUMNS": "80", **env}).stdout
        report = json.loads(out)
        del report["totals"]["seconds"], report["generated"]  # the only fields that vary between runs
        return report
    uncached = check(HIPPORT_NO_CACHE="1")
    # findings that come from the cached tables: build rules (HP3005, HP2016) and type tags (HP2017)
    assert {"HP3005", "HP2016", "HP2017"} <= {f["rule_id"] for f in uncached["findings"]}
    filling = check(HIPPORT_CACHE_DIR=str(tmp_path / "c"))
    cached = check(HIPPORT_CACHE_DIR=str(tmp_path / "c"))
    assert any(p.name.startswith("build-rules-") for p in (tmp_path / "c").iterdir())
    assert uncached == filling == cached


def test_a_check_with_a_warm_cache_imports_neither_the_build_file_package_nor_yaml(tmp_path):
    """The library headers of the build rules (HP3005 on ``#include <nvjpeg.h>``) and the shipped
    YAML data tables (device functions, struct members...) come from the cache as plain data, so
    ``hipport check`` loads neither hipport.buildfiles nor PyYAML (issue 12: its fixed cost)."""
    unit = tmp_path / "libs.cu"
    unit.write_text("#include <cuda_runtime.h>\n#include <nvjpeg.h>\n__global__ void k(float* x) { x[0] = 1.0f; }\n")
    code = ("import sys\nfrom hipport.entry import main\n"
            f"try:\n    main(['check', {str(unit)!r}])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('hipport.buildfiles', 'yaml', 'pathspec') if m in sys.modules), file=sys.stderr)")

    def loaded():
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "HIPPORT_CACHE_DIR": str(tmp_path / "c")})
        assert "HP3005" in run.stdout, run.stdout + run.stderr
        return run.stderr.strip().splitlines()[-1]

    assert loaded() == "['hipport.buildfiles', 'yaml']"  # the cache is filled: built from the YAML
    assert loaded() == "[]"


def test_the_library_header_table_names_the_build_rule_files():
    from hipport.toolkit_headers import BUILD_RULE_SOURCES, library_headers

    assert BUILD_RULE_SOURCES == build_data.BUILD_RULE_FILES
    table = library_headers()
    libraries = build_data.default_build_rules().libraries
    assert table["all"] == {header for library in libraries for header in library.cuda_headers}
    nvjpeg = next(library for library in libraries if "nvjpeg.h" in library.cuda_headers)
    assert table["unavailable"]["hip"]["nvjpeg.h"] == (nvjpeg.name, nvjpeg.note)
    assert "thrust/sort.h" not in table["unavailable"]["hip"]


def test_shipped_yaml_data_is_read_back_from_the_cache(cache, monkeypatch):
    from hipport import resources

    first = resources.load_data_yaml("toolkit", "cub_warp_algorithms.yaml")
    import yaml

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed again although cached")

    monkeypatch.setattr(yaml, "load", no_parse)
    assert resources.load_data_yaml("toolkit", "cub_warp_algorithms.yaml") == first
