"""Converting again into the same OUT (hipport/manifest.py): unchanged outputs are not rewritten,
stale outputs are removed, outputs edited by hand are kept and reported unless --force."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from hipport import convert as convert_module
from hipport.cli import main
from hipport.convert import ConvertOptions, convert_tree
from hipport.manifest import MANIFEST_NAME, ManifestError, digest



def _tree(root):
    (root / "util").mkdir(parents=True)
    (root / "main.cu").write_text('#include "util/check.h"\n__global__ void k(float* x) { x[0] = 1.0f; }\n'
                                  "int main() { float* x; cudaMalloc(&x, 4); k<<<1, 1>>>(x); return 0; }\n")
    (root / "util" / "check.h").write_text("#pragma once\ninline void check(cudaError_t e) { (void)e; }\n")
    (root / "old.cu").write_text("__global__ void old_kernel() {}\n")
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


@pytest.fixture(params=["serial", "parallel"])
def mode(request, monkeypatch):
    if request.param == "parallel":
        monkeypatch.setattr(convert_module, "_PARALLEL_THRESHOLD_BYTES", 0)
        return ConvertOptions(jobs=2)
    return ConvertOptions(jobs=1)


def test_a_second_conversion_rewrites_only_the_json_report(tmp_path, mode):
    """Only its seconds changed; the Markdown report and the manifest hold what they did."""
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    convert_tree(src, out, mode)
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    assert sorted(manifest["outputs"]) == ["CMakeLists.txt", "cmake/HipportPlatform.cmake", "main.hip", "notes.txt",
                                           "old.hip", "util/check.h"]
    assert manifest["outputs"]["main.hip"] == digest((out / "main.hip").read_bytes())
    before = _snapshot(out)
    convert_tree(src, out, mode)
    assert _rewritten(out, before) == ["hipport-report.json"]
    (src / "main.cu").write_text((src / "main.cu").read_text() + "// changed\n")
    before = _snapshot(out)
    convert_tree(src, out, mode)
    assert _rewritten(out, before) == [MANIFEST_NAME, "hipport-report.json", "hipport-report.md", "main.hip"]


def test_outputs_of_deleted_or_renamed_sources_are_removed(tmp_path, mode):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    convert_tree(src, out, mode)
    (src / "old.cu").rename(src / "new.cu")
    (src / "util" / "check.h").unlink()
    (src / "util").rmdir()
    (out / "build-amd").mkdir()
    (out / "build-amd" / "CMakeCache.txt").write_text("a build folder hipport never wrote\n")
    result = convert_tree(src, out, mode)
    assert not (out / "old.hip").exists() and (out / "new.hip").exists()
    assert not (out / "util").exists()  # left empty by the removal
    assert (out / "build-amd" / "CMakeCache.txt").exists()
    assert result.report.findings == []
    assert sorted(json.loads((out / MANIFEST_NAME).read_text())["outputs"]) == [
        "CMakeLists.txt", "cmake/HipportPlatform.cmake", "main.hip", "new.hip", "notes.txt"]


def test_hand_edits_are_kept_and_reported_unless_forced(tmp_path, mode):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    convert_tree(src, out, mode)
    edited = (out / "main.hip").read_text() + "// tuned by hand for gfx942\n"
    (out / "main.hip").write_text(edited)
    (out / "CMakeLists.txt").write_text((out / "CMakeLists.txt").read_text() + "# my option\n")
    (out / "old.hip").write_text((out / "old.hip").read_text() + "// keep me\n")
    (src / "old.cu").unlink()
    (src / "main.cu").write_text((src / "main.cu").read_text() + "// changed\n")
    report = convert_tree(src, out, mode).report
    assert (out / "main.hip").read_text() == edited
    assert (out / "old.hip").exists() and (out / "CMakeLists.txt").read_text().endswith("# my option\n")
    assert [(f.path, f.line, f.rule_id, f.message) for f in report.findings] == [
        ("CMakeLists.txt", 1, "HP0005", "CMakeLists.txt was edited since hipport wrote it: kept as it is, so this "
                                        "conversion's changes to it are not there"),
        ("main.cu", 1, "HP0005", "main.hip was edited since hipport wrote it: kept as it is, so this conversion's "
                                 "changes to it are not there"),
        ("old.hip", 1, "HP0006", "old.hip has no source any more (deleted, renamed or excluded) but was edited since "
                                 "hipport wrote it: kept"),
    ]
    again = convert_tree(src, out, mode).report  # still edited: still kept and reported
    assert [f.rule_id for f in again.findings] == ["HP0005", "HP0005", "HP0006"]
    forced = convert_tree(src, out, ConvertOptions(jobs=mode.jobs, force=True)).report
    assert forced.findings == []
    assert (out / "main.hip").read_text().endswith("// changed\n") and not (out / "old.hip").exists()


def test_a_file_of_the_users_in_out_is_not_overwritten(tmp_path):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    convert_tree(src, out)
    (src / "extra.cu").write_text("__global__ void extra() {}\n")
    (out / "extra.hip").write_text("// the user's own file, not hipport's\n")
    report = convert_tree(src, out).report
    assert (out / "extra.hip").read_text() == "// the user's own file, not hipport's\n"
    assert [(f.path, f.rule_id) for f in report.findings] == [("extra.cu", "HP0005")]


def test_a_broken_manifest_is_an_error_and_nothing_is_written(tmp_path):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    out.mkdir()
    (out / MANIFEST_NAME).write_text("{not json")
    with pytest.raises(ManifestError, match="not a hipport manifest"):
        convert_tree(src, out)
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST_NAME]
    result = CliRunner().invoke(main, ["convert", str(src), "-o", str(out)])
    assert result.exit_code == 2
    assert result.output.startswith(f"Error: {out / MANIFEST_NAME}: not a hipport manifest (")
    assert result.output.endswith("delete it to convert into this folder as into a new one\n")


def test_force_on_the_command_line(tmp_path):
    src, out = _tree(tmp_path / "src"), tmp_path / "out"
    runner = CliRunner()
    assert runner.invoke(main, ["convert", str(src), "-o", str(out), "-q"]).exit_code == 0
    (out / "main.hip").write_text("// edited\n")
    assert runner.invoke(main, ["convert", str(src), "-o", str(out), "-q"]).exit_code == 0
    assert (out / "main.hip").read_text() == "// edited\n"
    assert runner.invoke(main, ["convert", str(src), "-o", str(out), "-q", "--force"]).exit_code == 0
    assert (out / "main.hip").read_text().startswith('#include <hip/hip_runtime.h>\n#include "util/check.h"')
