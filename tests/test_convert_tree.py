"""Whole-tree conversion: mirroring, excludes, safety (SRC untouched, atomic writes, OUT inside
SRC), idempotence, and the command line."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from click.testing import CliRunner

from hipport import emit
from hipport.cli import main
from hipport.convert import ConvertOptions, convert_tree
from hipport.discover import DiscoveryError

from helpers import CORPUS, tree_digest


def _source_tree(root):
    (root / "a" / "kernels").mkdir(parents=True)
    (root / "b").mkdir()
    (root / "a" / "kernels" / "util.cu").write_text("__global__ void k(int* p) { p[0] = 1; }\n")
    (root / "b" / "util.cu").write_text("#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    (root / "a" / "main.cpp").write_text('#include "kernels/helper.cuh"\nint main() { cudaStream_t s; return 0; }\n')
    (root / "a" / "kernels" / "helper.cuh").write_text('#include "util.cu"\n')
    (root / "notes.txt").write_text("cudaMalloc stays in a text file\n")
    (root / "data.bin").write_bytes(bytes(range(256)))
    (root / "run.sh").write_text("#!/bin/sh\necho cudaMalloc\n")
    os.chmod(root / "run.sh", 0o755)
    return root


def test_tree_is_mirrored_with_cu_renamed_and_other_files_copied(tmp_path):
    src = _source_tree(tmp_path / "src")
    result = convert_tree(src, tmp_path / "out")
    out = tmp_path / "out"
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "CMakeLists.txt", "a/kernels/helper.cuh", "a/kernels/util.hip", "a/main.cpp", "b/util.hip",
        "cmake/HipportPlatform.cmake", "data.bin", "hipport-manifest.json", "hipport-report.json", "hipport-report.md",
        "notes.txt", "run.sh",
    ]
    assert (out / "a/kernels/util.hip").read_text() == (
        "#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n")
    assert (out / "b/util.hip").read_text() == "#include <hip/hip_runtime.h>\nvoid f() { hipDeviceSynchronize(); }\n"
    assert (out / "a/main.cpp").read_text() == '#include "kernels/helper.cuh"\nint main() { hipStream_t s; return 0; }\n'
    # an #include of a project .cu file follows the rename
    assert (out / "a/kernels/helper.cuh").read_text() == '#include "util.hip"\n'
    assert (out / "notes.txt").read_text() == "cudaMalloc stays in a text file\n"
    assert (out / "data.bin").read_bytes() == bytes(range(256))
    assert os.stat(out / "run.sh").st_mode & 0o777 == 0o755
    totals = result.report.totals()
    assert (totals["files"], totals["files_converted"], totals["files_copied"]) == (7, 4, 3)
    assert totals["references_rewritten"] == 4


def test_source_tree_is_never_written(tmp_path):
    src = _source_tree(tmp_path / "src")
    before = tree_digest(src)
    convert_tree(src, tmp_path / "out", ConvertOptions(launch_syntax="hip"))
    assert tree_digest(src) == before


def test_exclude_uses_gitignore_patterns(tmp_path):
    src = _source_tree(tmp_path / "src")
    convert_tree(src, tmp_path / "out", ConvertOptions(exclude=("b/", "*.bin", "!notes.txt", "a/**/helper.cuh")))
    names = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert names == ["CMakeLists.txt", "a/kernels/util.hip", "a/main.cpp", "cmake/HipportPlatform.cmake",
                     "hipport-manifest.json", "hipport-report.json", "hipport-report.md", "notes.txt", "run.sh"]


def test_output_inside_source_is_refused_unless_excluded(tmp_path):
    src = _source_tree(tmp_path / "src")
    with pytest.raises(DiscoveryError, match="inside the source tree"):
        convert_tree(src, src / "hip")
    assert not (src / "hip").exists()
    convert_tree(src, src / "hip", ConvertOptions(exclude=("hip/",)))
    assert (src / "hip" / "b" / "util.hip").exists()
    assert not (src / "hip" / "hip").exists()


def test_output_equal_to_source_is_refused(tmp_path):
    src = _source_tree(tmp_path / "src")
    with pytest.raises(DiscoveryError, match="is the source folder"):
        convert_tree(src, src)


def test_name_clash_is_refused_before_writing(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("int a;\n")
    (src / "k.hip").write_text("int b;\n")
    with pytest.raises(DiscoveryError, match="k.hip"):
        convert_tree(src, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_converting_a_converted_tree_changes_nothing(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    convert_tree(CORPUS, first, ConvertOptions(launch_syntax="hip"))
    convert_tree(first, second, ConvertOptions(launch_syntax="hip"))
    reports = {"hipport-report.json", "hipport-report.md", "hipport-manifest.json"}
    one = {k: v for k, v in tree_digest(first).items() if k not in reports}
    two = {k: v for k, v in tree_digest(second).items() if k not in reports}
    assert one == two
    report = json.loads((second / "hipport-report.json").read_text())
    assert report["totals"]["references_rewritten"] == 0


def test_interrupted_write_leaves_no_partial_file(tmp_path, monkeypatch):
    target = tmp_path / "out" / "x.hip"
    atomic_write = emit.atomic_write

    def interrupted_replace(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(emit.os, "replace", interrupted_replace)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, b"data" * 1000)
    assert list((tmp_path / "out").iterdir()) == []


def test_existing_output_file_is_replaced_whole(tmp_path):
    target = tmp_path / "x.hip"
    target.write_bytes(b"old content that is longer than the new one\n")
    emit.atomic_write(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["x.hip"]


def test_cli_convert_prints_summary(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["convert", str(CORPUS / "vector_add"), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("hipport: 1 file converted, 0 copied, 134 lines, 30 references rewritten, 1 kernel launch in ")
    assert lines[1] == "findings: 0 error, 0 warning, 0 info"
    assert lines[2] == f"report: {tmp_path / 'out' / 'hipport-report.md'}"
    assert (tmp_path / "out" / "vector_add.hip").exists()


def test_cli_errors_exit_2_with_a_clear_message(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(main, ["convert", str(tmp_path / "nope"), "-o", str(tmp_path / "out")])
    assert missing.exit_code == 2
    assert f"Error: {tmp_path / 'nope'}: no such file or directory" in missing.output
    bad_arch = runner.invoke(main, ["convert", str(CORPUS), "-o", str(tmp_path / "o"), "--offload-arch", "gfx90a;vega"])
    assert bad_arch.exit_code == 2
    assert "'vega' is not an offload architecture name" in bad_arch.output
    bad_syntax = runner.invoke(main, ["convert", str(CORPUS), "-o", str(tmp_path / "o"), "--launch-syntax", "cuda"])
    assert bad_syntax.exit_code == 2


def test_output_that_is_a_file_or_standard_output_is_refused(tmp_path):
    runner = CliRunner()
    existing = tmp_path / "notes.txt"
    existing.write_text("keep me\n")
    to_file = runner.invoke(main, ["convert", str(CORPUS / "vector_add"), "-o", str(existing)])
    assert (to_file.exit_code, to_file.output) == (
        2, f"Error: {existing}: the output must be a folder, and this is an existing file; choose another -o\n")
    assert existing.read_text() == "keep me\n"
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        to_stdout = runner.invoke(main, ["convert", str(CORPUS / "vector_add"), "-o", "-"])
    finally:
        os.chdir(old)
    assert to_stdout.exit_code == 2
    assert to_stdout.output == ("Error: -o -: hipport writes a folder (the ported tree and its reports), not standard "
                                "output; name a folder, or use --format to choose what is printed\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("files, said", [
    ({}, "it has no files"),
    ({"a.cpp": "int main() { return 0; }\n", "README": "plain C++\n"},
     "no CUDA name, header or kernel launch in its 2 files"),
])
def test_a_tree_without_cuda_is_a_warning_not_a_success(tmp_path, files, said):
    src = tmp_path / "src"
    src.mkdir()
    for name, text in files.items():
        (src / name).write_text(text)
    result = CliRunner().invoke(main, ["convert", str(src), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0
    assert result.stderr == f"hipport: warning: no CUDA found in {src}: {said}, nothing was ported\n"
    markdown = (tmp_path / "out" / "hipport-report.md").read_text()
    assert "**No CUDA found**: no file uses a CUDA name, header or kernel launch, so nothing was ported." in markdown
    assert "Nothing needs a human" not in markdown


def test_cli_reports_bad_rule_file_with_line(tmp_path, monkeypatch):
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    (rules_dir / "x.yaml").write_text("family: x\ntitle: X\nsource: s\nmappings:\n  - {cuda: a, kind: nope, status: supported}\n")
    import hipport.rules as rules_module
    monkeypatch.setattr(rules_module, "data_dir", lambda name: rules_dir)
    rules_module.default_rules.cache_clear()
    try:
        result = CliRunner().invoke(main, ["convert", str(CORPUS / "vector_add"), "-o", str(tmp_path / "out")])
    finally:
        rules_module.default_rules.cache_clear()
    assert result.exit_code == 2
    assert f"Error: {rules_dir / 'x.yaml'}:5: mappings/0" in result.output


def test_parallel_and_serial_conversions_agree(tmp_path):
    src = tmp_path / "big"
    for index in range(40):
        shutil.copytree(CORPUS / "template_namespace", src / f"copy{index}")
    from hipport import convert as convert_module
    serial = convert_tree(src, tmp_path / "serial", ConvertOptions(jobs=1))
    old = convert_module._PARALLEL_THRESHOLD_BYTES
    convert_module._PARALLEL_THRESHOLD_BYTES = 0
    try:
        parallel = convert_tree(src, tmp_path / "parallel", ConvertOptions(jobs=2))
    finally:
        convert_module._PARALLEL_THRESHOLD_BYTES = old
    reports = {"hipport-report.json", "hipport-report.md", "hipport-manifest.json"}
    assert {k: v for k, v in tree_digest(tmp_path / "serial").items() if k not in reports} == \
           {k: v for k, v in tree_digest(tmp_path / "parallel").items() if k not in reports}

    def manifest(out):  # but for the record of the report, whose text names OUT, and OUT's files' stamps
        document = json.loads((out / "hipport-manifest.json").read_text())
        del document["incremental"]["groups"]["report"]
        del document["stamps"]["out"]
        return document
    assert manifest(tmp_path / "serial") == manifest(tmp_path / "parallel")
    assert serial.report.totals()["references_rewritten"] == parallel.report.totals()["references_rewritten"] > 0


def _run_hipport(args, stderr_is_tty):
    """Run the installed CLI in a subprocess, stderr on a pseudo-terminal when asked."""
    import pty
    import subprocess
    import sys

    command = [sys.executable, "-m", "hipport.cli", *args]
    if not stderr_is_tty:
        done = subprocess.run(command, capture_output=True)
        return done.returncode, done.stderr
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 24 rows, 100 columns
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return process.wait(), b"".join(chunks)


def test_progress_bar_only_on_a_terminal(tmp_path):
    code, stderr = _run_hipport(["convert", str(CORPUS), "-o", str(tmp_path / "tty")], stderr_is_tty=True)
    assert code == 0
    assert b"file/s]" in stderr  # tqdm's bar, e.g. "0file [00:00, ?file/s]"
    code, stderr = _run_hipport(["convert", str(CORPUS), "-o", str(tmp_path / "pipe")], stderr_is_tty=False)
    assert code == 0
    assert stderr == b""
