"""Incremental conversion (hipport/incremental.py): converting again into an OUT that hipport
wrote ports only the files that changed, or whose cross-file facts changed, and the report is
the one a conversion into an empty OUT makes."""

from __future__ import annotations

import json
import os
import pathlib
import shutil

import pytest
from click.testing import CliRunner

from hipport import analyze, parse, unknown_names, warp
from hipport import convert as convert_module
from hipport.cli import main
from hipport.convert import ConvertOptions, convert_tree
from hipport.manifest import MANIFEST_NAME, OUTPUT, SOURCE, Stamps

SERIAL = ConvertOptions(jobs=1)
FILES = ["main.cu", "notes.txt", "old.cu", "util/check.h"]


def _tree(root):
    (root / "util").mkdir(parents=True)
    (root / "main.cu").write_text('#include "util/check.h"\n__global__ void k(float* x) { x[0] = 1.0f; }\n'
                                  "int main() { float* x; cudaMalloc(&x, 4); k<<<1, 1>>>(x); CUDA_CHECKED(x); }\n")
    (root / "util" / "check.h").write_text("#pragma once\ninline void check(cudaError_t e) { (void)e; }\n")
    (root / "old.cu").write_text("__global__ void old_kernel() { cudaDeviceSynchronize(); }\n")
    (root / "notes.txt").write_text("notes\n")
    return root


def _snapshot(out):
    """Every file of OUT -> (inode, modification time in ns): a file hipport writes again is a new
    file renamed over the old one (another inode, a later time), one it leaves alone keeps both."""
    return {p.relative_to(out).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in out.rglob("*") if p.is_file()}


def _rewritten(out, before):
    """The files of OUT written since ``before`` (:func:`_snapshot`), sorted."""
    return sorted(rel for rel, state in _snapshot(out).items() if before.get(rel) != state)


def _outputs(out):
    """Every file of OUT (path -> bytes), the JSON report with its seconds set to 0 and the
    manifest without its files' stamps (stat values: another conversion gets others)."""
    found = {}
    for path in sorted(out.rglob("*")):
        if path.is_file():
            found[path.relative_to(out).as_posix()] = path.read_bytes()
    report = json.loads(found.pop("hipport-report.json"))
    report["totals"]["seconds"] = 0
    found["hipport-report.json"] = json.dumps(report, indent=2).encode()
    manifest = json.loads(found.pop(MANIFEST_NAME))
    assert sorted(manifest.pop("stamps")) == ["out", "src"]
    found[MANIFEST_NAME] = json.dumps(manifest, indent=1).encode()
    return found


def _clean(src, out, options):
    """OUT as a conversion into an empty OUT of the same path makes it (the report names OUT)."""
    shutil.rmtree(out)
    convert_tree(src, out, options)
    return _outputs(out)


@pytest.fixture
def analysed(monkeypatch):
    """The paths of the files analysed (parsed) while the test runs, in order (serial runs)."""
    paths = []
    original = analyze.analyze_file

    def counting(path, *args, **kwargs):
        paths.append(path)
        return original(path, *args, **kwargs)

    monkeypatch.setattr(analyze, "analyze_file", counting)
    return paths


@pytest.fixture(params=["serial", "parallel"])
def mode(request, monkeypatch):
    if request.param == "parallel":
        monkeypatch.setattr(convert_module, "_PARALLEL_THRESHOLD_BYTES", 0)
        return ConvertOptions(jobs=2)
    return SERIAL


def test_a_second_conversion_parses_nothing_and_rewrites_nothing(tmp_path, monkeypatch):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    convert_tree(src, out, SERIAL)
    first = _outputs(out)
    before = _snapshot(out)

    class NoParser:
        def parse(self, data):
            raise AssertionError("parsed again")

    def no_analysis(*args, **kwargs):
        raise AssertionError("analysed again")

    with monkeypatch.context() as patch:
        patch.setattr(parse, "new_parser", NoParser)
        patch.setattr(analyze, "analyze_file", no_analysis)
        result = convert_tree(src, out, SERIAL)
    assert (result.reuse.ported, result.reuse.reused) == ([], FILES)
    assert result.report.incremental == ("incremental: 0 files ported again, 4 unchanged since the last conversion "
                                         "into OUT")
    assert _rewritten(out, before) == ["hipport-report.json"]  # its seconds
    assert _outputs(out) == first == _clean(src, out, SERIAL)


def test_editing_one_source_ports_exactly_that_one(tmp_path, analysed):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    convert_tree(src, out, SERIAL)
    assert analysed == ["main.cu", "old.cu", "util/check.h"]
    (src / "old.cu").write_text("__global__ void old_kernel() { cudaDeviceReset(); }\n")
    before = _snapshot(out)
    analysed.clear()
    result = convert_tree(src, out, SERIAL)
    assert analysed == ["old.cu"]
    assert (result.reuse.ported, result.reuse.reused) == (["old.cu"], ["main.cu", "notes.txt", "util/check.h"])
    assert _rewritten(out, before) == [MANIFEST_NAME, "hipport-report.json", "hipport-report.md", "old.hip"]
    # a header's own text is no cross-file fact of its includers: only the header is ported again
    (src / "util" / "check.h").write_text("#pragma once\ninline void check(cudaError_t e) { (void)e; }  // ok\n")
    analysed.clear()
    result = convert_tree(src, out, SERIAL)
    assert analysed == ["util/check.h"]
    assert _outputs(out) == _clean(src, out, SERIAL)


def test_an_output_deleted_or_edited_in_out(tmp_path, mode):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    convert_tree(src, out, mode)
    expected = (out / "old.hip").read_bytes()
    (out / "old.hip").unlink()
    (out / "main.hip").write_text("// tuned by hand\n")
    result = convert_tree(src, out, mode)
    assert (out / "old.hip").read_bytes() == expected  # ported again: OUT lacked it
    assert (out / "main.hip").read_text() == "// tuned by hand\n"  # reused, and kept as a full run keeps it
    assert (result.reuse.ported, result.reuse.reused) == (["old.cu"], ["main.cu", "notes.txt", "util/check.h"])
    assert [(f.path, f.rule_id) for f in result.report.findings if f.rule_id == "HP0005"] == [("main.cu", "HP0005")]
    forced = convert_tree(src, out, ConvertOptions(jobs=mode.jobs, force=True))
    assert forced.reuse.ported == ["main.cu"]
    assert (out / "main.hip").read_text().startswith("#include <hip/hip_runtime.h>\n")


def test_options_and_rules_port_everything_again(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path / "src")
    (tmp_path / "mine.yaml").write_text("family: mine\ntitle: Ours\nsource: our wrappers\nmappings:\n"
                                        "  - {cuda: CUDA_CHECKED, hip: HIP_CHECKED, kind: macro, status: supported}\n")
    runs = [[], ["--fix"], ["--fix", "--target-libs", "roc"], ["--fix", "--target-libs", "roc", "--rules", "mine.yaml"],
            "edit", ["--fix", "--target-libs", "roc", "--rules", "mine.yaml"]]
    lines = []
    for arguments in runs:
        if arguments == "edit":
            (tmp_path / "mine.yaml").write_text((tmp_path / "mine.yaml").read_text().replace("HIP_CHECKED", "HIP_OK"))
            arguments = runs[3]
        result = CliRunner().invoke(main, ["convert", "src", "-o", "out", *arguments])
        assert result.exit_code == 0, result.output
        lines.append(next((line for line in result.output.splitlines() if line.startswith("incremental:")), None))
    assert lines == [
        None,  # a first conversion into OUT
        "incremental: every file ported again: --fix changed since the last conversion into OUT",
        "incremental: every file ported again: --target-libs changed since the last conversion into OUT",
        "incremental: every file ported again: the rules (shipped rules and templates, or --rules files) changed "
        "since the last conversion into OUT",
        "incremental: every file ported again: the rules (shipped rules and templates, or --rules files) changed "
        "since the last conversion into OUT",
        "incremental: 0 files ported again, 4 unchanged since the last conversion into OUT",
    ]
    assert "HIP_OK(x)" in (tmp_path / "out" / "main.hip").read_text()


def test_a_quoted_include_that_now_names_a_project_file(tmp_path, analysed):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "a.cu").write_text('#include "cuda_runtime.h"\nvoid f() { cudaDeviceSynchronize(); }\n')
    (src / "b.cu").write_text("void g() { cudaDeviceSynchronize(); }\n")
    convert_tree(src, out, SERIAL)
    assert (out / "a.hip").read_text().startswith('#include "hip/hip_runtime.h"\n')
    (src / "cuda_runtime.h").write_text("#pragma once\n// the project's own cuda_runtime.h\n")
    analysed.clear()
    result = convert_tree(src, out, SERIAL)
    # a.cu's include now names a project file, which is never mapped
    assert analysed == ["a.cu", "cuda_runtime.h"]
    assert (result.reuse.ported, result.reuse.reused) == (["a.cu", "cuda_runtime.h"], ["b.cu"])
    assert (out / "a.hip").read_text().startswith('#include <hip/hip_runtime.h>\n#include "cuda_runtime.h"\n')
    assert _outputs(out) == _clean(src, out, SERIAL)


def test_fix_reports_a_file_again_when_a_header_it_shares_a_warp_size_with_changes(tmp_path, analysed):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "warp.cuh").write_text("#pragma once\n#define WARP_SIZE 32\n")
    (src / "k.cu").write_text('#include "warp.cuh"\n__global__ void k(int* out) { if (threadIdx.x % WARP_SIZE == 0) '
                              "atomicAdd(out, __popc(__ballot_sync(0xffffffff, out[threadIdx.x + 1] > 0))); }\n")
    fix = ConvertOptions(jobs=1, fix=True)
    convert_tree(src, out, fix)
    assert (out / "warp.cuh").read_text() == "#pragma once\n#define WARP_SIZE warpSize\n"
    # a use --fix cannot widen, in the header: WARP_SIZE stays 32 in every file using it, which
    # runs as 32-lane logical warps instead (HP1116)
    (src / "warp.cuh").write_text("#pragma once\n#define WARP_SIZE 32\ntemplate <int N> __device__ int width() "
                                  "{ return N; }\n__device__ inline int lanes() { return width<WARP_SIZE>(); }\n")
    analysed.clear()
    result = convert_tree(src, out, fix)
    assert analysed == ["k.cu", "warp.cuh"]  # k.cu did not change, its port did
    assert [(f.path, f.line, f.rule_id) for f in result.report.findings if f.path == "k.cu"] == [
        ("k.cu", 2, "HP1116"), ("k.cu", 2, "HP1101")]
    assert _outputs(out) == _clean(src, out, fix)
    analysed.clear()
    assert convert_tree(src, out, fix).reuse.ported == [] and analysed == []


def test_generated_cmake_follows_a_header_that_reaches_a_library(tmp_path):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    convert_tree(src, out, SERIAL)
    assert "roc::hipblas" not in (out / "CMakeLists.txt").read_text()
    (src / "util" / "check.h").write_text("#pragma once\n#include <cublas_v2.h>\n")
    result = convert_tree(src, out, SERIAL)
    # main.cu reads the directives of the header it includes (its macros, HP1215): they changed
    assert result.reuse.ported == ["main.cu", "util/check.h"]
    assert "roc::hipblas" in (out / "CMakeLists.txt").read_text()
    assert _outputs(out) == _clean(src, out, SERIAL)


def test_build_files_are_migrated_again_together(tmp_path):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    (src / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\n"
                                        "add_executable(p main.cu old.cu)\nadd_subdirectory(util)\n")
    (src / "util" / "CMakeLists.txt").write_text("add_library(u STATIC tool.cpp)\n")
    (src / "util" / "tool.cpp").write_text("int tool() { return 0; }\n")
    convert_tree(src, out, SERIAL)
    again = convert_tree(src, out, SERIAL)
    assert again.reuse.ported == [] and "CMakeLists.txt" in again.reuse.reused
    # tool.cpp now uses CUDA: util/CMakeLists.txt compiles it as a GPU source, so both build files
    # are migrated again (one file's facts shape another's)
    (src / "util" / "tool.cpp").write_text("#include <cuda_runtime.h>\n"
                                           "int tool() { return cudaDeviceSynchronize(); }\n")
    result = convert_tree(src, out, SERIAL)
    assert result.reuse.ported == ["CMakeLists.txt", "util/CMakeLists.txt", "util/tool.cpp"]
    assert _outputs(out) == _clean(src, out, SERIAL)


def test_an_old_or_damaged_record_ports_again_without_failing(tmp_path, analysed):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    convert_tree(src, out, SERIAL)
    path = out / MANIFEST_NAME
    document = json.loads(path.read_text())

    def convert_with(manifest):
        path.write_text(json.dumps(manifest))
        analysed.clear()
        return convert_tree(src, out, SERIAL)

    old = convert_with({"schema": "hipport-manifest", "schema_version": 1, "outputs": document["outputs"]})
    assert old.reuse.ported == FILES and analysed == ["main.cu", "old.cu", "util/check.h"]
    assert old.report.incremental == ("incremental: every file ported again: the manifest has no record of the files' "
                                      "ports (written by an older hipport, by --compat or with --precise)")
    assert convert_with({**document, "incremental": ["not", "a", "record"]}).reuse.ported == FILES
    assert convert_with({**document, "incremental": {**document["incremental"], "sources": 7}}).report.incremental == (
        "incremental: every file ported again: the manifest's record of the files' ports is unreadable")
    damaged = json.loads(json.dumps(document))
    damaged["incremental"]["sources"]["old.cu"]["summary"]["lines"] = "many"
    damaged["incremental"]["sources"]["main.cu"]["summary"]["findings"] = [["main.cu", 1]]
    damaged["incremental"]["sources"]["util/check.h"]["deps"] = None
    result = convert_with(damaged)
    assert (result.reuse.ported, result.reuse.reused) == (["main.cu", "old.cu", "util/check.h"], ["notes.txt"])
    assert _outputs(out) == _clean(src, out, SERIAL)


def _report_rows(out, path):
    report = json.loads((out / "hipport-report.json").read_text())
    return [(f["line"], f["rule_id"]) for f in report["findings"] if f["path"] == path]


def test_a_header_macro_is_a_fact_of_its_includers_but_its_other_text_is_not(tmp_path, analysed):
    """An includer's port reads the macros of the tree headers it includes (HP1215 follows a
    CUDA name through them): a changed ``#define`` ports the includer again, an edit elsewhere in
    the header does not."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "sync.h").write_text("#pragma once\n#define DEVICE_SYNC() cudaDeviceSynchronize()\n")
    (src / "main.cu").write_text('#include "sync.h"\n#include <cuda_runtime.h>\nint main() { DEVICE_SYNC(); return 0; }\n')
    convert_tree(src, out, SERIAL)
    assert _report_rows(out, "main.cu") == []
    (src / "sync.h").write_text("#pragma once\n// the device-wide barrier\n#define DEVICE_SYNC() cudaDeviceSynchronize()\n")
    analysed.clear()
    result = convert_tree(src, out, SERIAL)
    # the define moved to line 3: its line is part of what main.cu read
    assert (result.reuse.ported, analysed) == (["main.cu", "sync.h"], ["main.cu", "sync.h"])
    (src / "sync.h").write_text("#pragma once\n// the device-wide barrier\n#define DEVICE_SYNC() cudaDeviceSynchronize()\n"
                                "inline int sync_count() { return 1; }\n")  # code after the directives
    analysed.clear()
    result = convert_tree(src, out, SERIAL)
    assert (result.reuse.ported, analysed) == (["sync.h"], ["sync.h"])
    # a macro named like a HIP vector type, seen before main.cu's runtime include: HP1215 there
    (src / "sync.h").write_text("#pragma once\n// the device-wide barrier\n#define DEVICE_SYNC() cudaDeviceSynchronize()\n"
                                "#define int2 lane_pair\ninline int sync_count() { return 1; }\n")
    analysed.clear()
    result = convert_tree(src, out, SERIAL)
    assert result.reuse.ported == ["main.cu", "sync.h"]
    assert _report_rows(out, "main.cu") == [(2, "HP1215")]
    assert _outputs(out) == _clean(src, out, SERIAL)


def test_a_mask_defined_in_a_header_is_a_fact_of_the_calls_using_it(tmp_path, analysed):
    """Where a ``*_sync`` mask is defined is a tree-wide prepass (HP1102 at the call in another
    file): a header's 32-bit mask constant widened to 64 bits changes main.cu's findings though
    main.cu and the header's directives did not change."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "masks.h").write_text("#pragma once\nconstexpr unsigned kAllLanes = 0xffffffffu;\n")
    (src / "main.cu").write_text('#include "masks.h"\n__global__ void k(int* v) {\n'
                                 "  v[threadIdx.x] = __shfl_sync(kAllLanes, v[threadIdx.x], 0);\n}\n")
    convert_tree(src, out, SERIAL)
    assert ("HP1102" in [rule for _, rule in _report_rows(out, "main.cu")])
    (src / "masks.h").write_text("#pragma once\nconstexpr unsigned long long kAllLanes = 0xffffffffffffffffull;\n")
    analysed.clear()
    result = convert_tree(src, out, SERIAL)
    assert result.reuse.ported == ["main.cu", "masks.h"]
    assert "HP1102" not in [rule for _, rule in _report_rows(out, "main.cu")]
    assert _outputs(out) == _clean(src, out, SERIAL)


def test_a_new_tree_file_an_angled_include_can_name_ports_the_includer_again(tmp_path, analysed):
    """Whether ``#include <helpers.h>`` above the runtime include names a tree file (found
    through an ``-I`` folder: the port then adds the HIP runtime include at the top) is a fact
    of main.cu's port: adding common/helpers.h ports main.cu again."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "main.cu").write_text("#include <helpers.h>\n#include <cuda_runtime.h>\n"
                                 "int main() { return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1; }\n")
    convert_tree(src, out, SERIAL)
    assert (out / "main.hip").read_text().startswith("#include <helpers.h>\n")
    (src / "common").mkdir()
    (src / "common" / "helpers.h").write_text("#pragma once\n")
    analysed.clear()
    result = convert_tree(src, out, SERIAL)
    assert result.reuse.ported == ["common/helpers.h", "main.cu"]
    assert (out / "main.hip").read_text().startswith("#include <hip/hip_runtime.h>\n")
    assert _outputs(out) == _clean(src, out, SERIAL)


def _trust_stamps(out):
    """Move the manifest's modification time 1 s on, as if it were saved a while after the last
    output: the stamps it records are then all trusted (:class:`hipport.manifest.Stamps`)."""
    info = (out / MANIFEST_NAME).stat()
    os.utime(out / MANIFEST_NAME, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))


def test_a_rerun_reads_no_source_and_no_output_whose_stamp_is_as_recorded(tmp_path, monkeypatch):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    (src / "CMakeLists.txt").write_text("project(p LANGUAGES CXX CUDA)\nadd_executable(p main.cu old.cu)\n")
    convert_tree(src, out, SERIAL)
    first = _outputs(out)
    _trust_stamps(out)
    read = []
    original = pathlib.Path.read_bytes

    def reading(path):
        read.append(path)
        return original(path)

    with monkeypatch.context() as patch:
        patch.setattr(pathlib.Path, "read_bytes", reading)
        result = convert_tree(src, out, SERIAL)
    assert result.reuse.ported == []
    # the build files are migrated from their bytes (or their recorded migration checked against
    # them) on every run; the reports and the manifest are compared with what they would hold
    assert sorted(p.relative_to(tmp_path).as_posix() for p in read if p.is_relative_to(tmp_path)) == [
        "out/hipport-manifest.json", "out/hipport-report.json", "out/hipport-report.md", "src/CMakeLists.txt"]
    assert _outputs(out) == first


def test_an_output_edited_to_the_same_size_with_its_time_put_back_is_still_kept(tmp_path):
    """The status-change time, which no program can set back, tells the edit."""
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    convert_tree(src, out, SERIAL)
    _trust_stamps(out)
    path = out / "old.hip"
    text, info = path.read_text(), path.stat()
    path.write_text(text.replace("old_kernel", "new_kernel"))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert path.stat().st_size == info.st_size and path.stat().st_mtime_ns == info.st_mtime_ns
    result = convert_tree(src, out, SERIAL)
    assert [(f.path, f.rule_id) for f in result.report.findings if f.rule_id == "HP0005"] == [("old.cu", "HP0005")]
    assert "new_kernel" in path.read_text()


def test_a_stamp_is_trusted_when_it_is_as_recorded_and_older_than_the_manifest():
    entry = [12, 1_000, 1_500, 7, 3, "ab" * 32]
    stamps = Stamps({SOURCE: {"a.cu": entry}}, trusted_before_ns=1_001)
    assert stamps.known(SOURCE, "a.cu", (12, 1_000, 1_500, 7, 3)) == "ab" * 32
    assert stamps.fresh[SOURCE] == {"a.cu": entry}  # kept for the next manifest
    assert stamps.known(SOURCE, "a.cu", (12, 1_000, 1_501, 7, 3)) is None  # its status changed since
    assert stamps.known(SOURCE, "a.cu", (12, 1_000, 1_500, 8, 3)) is None  # another file now
    assert stamps.known(OUTPUT, "a.cu", (12, 1_000, 1_500, 7, 3)) is None  # another area
    # written in the manifest's clock tick: a second write in that tick would leave the same times
    assert Stamps({SOURCE: {"a.cu": entry}}, trusted_before_ns=1_000).known(SOURCE, "a.cu", (12, 1_000, 1_500, 7, 3)) \
        is None
    assert Stamps({SOURCE: {"a.cu": ["12", 1_000]}}, 2_000).known(SOURCE, "a.cu", (12, 1_000, 1_500, 7, 3)) is None


def test_the_closest_known_names_of_unknown_names_are_recorded_not_searched_again(tmp_path, monkeypatch):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "a.cu").write_text("void f() { cudaDeviceSynchronise(); }\n")
    first = convert_tree(src, out, SERIAL).report
    [finding] = [f for f in first.findings if f.rule_id == "HP2008"]
    assert "closest known names: cudaDeviceSynchronize" in finding.message
    assert json.loads((out / MANIFEST_NAME).read_text())["incremental"]["groups"]["closest"] == {
        "cudaDeviceSynchronise": list(unknown_names.closest_names(first.rules, "cudaDeviceSynchronise"))}
    before = _outputs(out)
    unknown_names._CACHE.clear()  # a new process knows no answer

    def no_search(*args, **kwargs):
        raise AssertionError("searched again")

    monkeypatch.setattr(unknown_names, "close_matches", no_search)
    again = convert_tree(src, out, SERIAL).report
    assert [f.message for f in again.findings if f.rule_id == "HP2008"] == [finding.message]
    assert _outputs(out) == before


def test_porting_only_build_files_again_runs_no_tree_prepass(tmp_path, monkeypatch):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    (src / "CMakeLists.txt").write_text("project(p LANGUAGES CXX CUDA)\nadd_executable(p main.cu old.cu)\n")
    convert_tree(src, out, SERIAL)

    def no_prepass(*args, **kwargs):
        raise AssertionError("prepass run")

    monkeypatch.setattr(warp, "mask_names", no_prepass)
    result = convert_tree(src, out, SERIAL)
    assert result.reuse.ported == [] and "CMakeLists.txt" in result.reuse.reused
