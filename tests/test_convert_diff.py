"""`hipport convert --diff`: the port as a unified diff, nothing written, exit 1 on changes."""

from __future__ import annotations

import shutil
import subprocess

from click.testing import CliRunner

from hipport.cli import main
from hipport.convert import convert_tree

from helpers import CORPUS, tree_digest


def test_the_diff_of_one_file_is_exact(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "scale.cu").write_text("#include <cuda_runtime.h>\n"
                                  "__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }\n"
                                  "void run(float* x) { scale<<<1, 32>>>(x); cudaDeviceSynchronize(); }\n")
    (src / "notes.txt").write_text("copied, never in the diff\n")
    before = tree_digest(src)
    result = CliRunner().invoke(main, ["convert", str(src), "--diff"])
    assert result.exit_code == 1
    assert result.stdout == (
        "diff --git a/scale.cu b/scale.hip\n"
        "rename from scale.cu\n"
        "rename to scale.hip\n"
        "--- a/scale.cu\n"
        "+++ b/scale.hip\n"
        "@@ -1,3 +1,3 @@\n"
        "-#include <cuda_runtime.h>\n"
        "+#include <hip/hip_runtime.h>\n"
        " __global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }\n"
        "-void run(float* x) { scale<<<1, 32>>>(x); cudaDeviceSynchronize(); }\n"
        "+void run(float* x) { scale<<<1, 32>>>(x); hipDeviceSynchronize(); }\n")
    assert result.stderr == "hipport: 1 file of 1 would change; nothing was written\n"
    assert tree_digest(src) == before and sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_git_apply_of_the_diff_gives_the_port(tmp_path):
    """The diff is a real patch: applied to a copy of SRC it yields what convert writes."""
    copy = tmp_path / "copy"
    shutil.copytree(CORPUS / "multi_file", copy)
    diff = CliRunner().invoke(main, ["convert", str(copy), "--diff"]).stdout_bytes
    convert_tree(CORPUS / "multi_file", tmp_path / "out")
    subprocess.run(["git", "init", "-q"], cwd=copy, check=True)
    subprocess.run(["git", "apply", "-"], cwd=copy, input=diff, check=True)
    ported = tree_digest(tmp_path / "out")
    for path, digest in tree_digest(copy).items():
        if not path.startswith(".git/"):
            assert ported[path] == digest, path
    assert (copy / "main.hip").exists() and not (copy / "main.cu").exists()


def test_nothing_to_change_exits_0(tmp_path):
    src = tmp_path / "plain"
    src.mkdir()
    (src / "a.cpp").write_text("int main() { return 0; }\n")
    result = CliRunner().invoke(main, ["convert", str(src), "--diff", "-q"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


def test_diff_and_output_folder_are_exclusive(tmp_path):
    both = CliRunner().invoke(main, ["convert", str(CORPUS / "vector_add"), "--diff", "-o", str(tmp_path / "o")])
    assert (both.exit_code, both.output) == (2, "Error: --diff writes nothing, so it takes no -o\n")
    neither = CliRunner().invoke(main, ["convert", str(CORPUS / "vector_add")])
    assert (neither.exit_code, neither.output) == (
        2, "Error: give the output folder with -o OUT (or use --diff to see what would change)\n")
    assert not (tmp_path / "o").exists()
