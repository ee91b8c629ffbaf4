"""The pre-commit hook, for real: pre-commit from PyPI, a temporary git repository that uses this
checkout (its HEAD commit) as a hook repository, a commit refused for inline PTX, then accepted
once the line carries a suppression."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import REPO


def sh(args, cwd, env, check=True):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


@pytest.fixture(scope="module")
def pre_commit(tmp_path_factory):
    """pre-commit installed from PyPI into a virtual environment of its own."""
    venv = tmp_path_factory.mktemp("pre-commit-venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "pre-commit"], check=True, capture_output=True)
    return venv / "bin" / "pre-commit"


def test_commit_with_inline_ptx_is_refused_until_suppressed(pre_commit, tmp_path):
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache"),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    env.pop("HIPPORT_CACHE_DIR", None)
    project = tmp_path / "project"
    project.mkdir()
    sh(["git", "init", "-q", "-b", "main"], project, env)
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO}\n    rev: {head}\n    hooks:\n      - id: hipport-check\n")
    sh([str(pre_commit), "install"], project, env)
    kernel = project / "lane.cu"
    kernel.write_text('__global__ void k(unsigned* out) {\n  unsigned id;\n'
                      '  asm("mov.u32 %0, %%laneid;" : "=r"(id));\n  out[0] = id;\n}\n')
    sh(["git", "add", "."], project, env)
    refused = sh(["git", "commit", "-q", "-m", "add kernel"], project, env, check=False)
    assert refused.returncode != 0
    assert "lane.cu:3:3: HP1001 [error] inline PTX assembly (asm) cannot run on AMD GPUs: mov.u32" in refused.stdout + refused.stderr
    assert sh(["git", "log", "--oneline"], project, env, check=False).returncode != 0  # no commit yet

    kernel.write_text(kernel.read_text().replace('"=r"(id));', '"=r"(id));  // hipport: ignore[HP1001]'))
    sh(["git", "add", "."], project, env)
    accepted = sh(["git", "commit", "-q", "-m", "add kernel"], project, env, check=False)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    output = accepted.stdout + accepted.stderr
    assert "hipport check" in output and "Passed" in output


def _docs_snippet() -> str:
    """The .pre-commit-config.yaml block of docs/ci.md's pre-commit section, as written there."""
    text = (REPO / "docs" / "ci.md").read_text()
    section = text[text.index("## pre-commit"):]
    start = section.index("```yaml\n") + len("```yaml\n")
    return section[start:section.index("```", start)]


def test_the_documented_snippet_works_as_pasted(pre_commit, tmp_path):
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache"),
           "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ.get('PATH', '')}",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    env.pop("HIPPORT_CACHE_DIR", None)
    snippet = _docs_snippet()
    assert snippet.startswith("repos:\n  - repo: local\n") and "entry: hipport check\n" in snippet
    project = tmp_path / "project"
    project.mkdir()
    sh(["git", "init", "-q", "-b", "main"], project, env)
    (project / ".pre-commit-config.yaml").write_text(snippet)
    sh([str(pre_commit), "install"], project, env)
    (project / "ballot.cu").write_text("__global__ void k(unsigned* out) {\n"
                                       "  out[0] = __reduce_add_sync(0xffffffffu, 1u);\n}\n")
    (project / "notes.txt").write_text("not a source file\n")
    sh(["git", "add", "."], project, env)
    refused = sh(["git", "commit", "-q", "-m", "add kernel"], project, env, check=False)
    assert refused.returncode != 0
    assert "ballot.cu:2:12: HP1109 [error]" in refused.stdout + refused.stderr
    (project / "ballot.cu").write_text("__global__ void k(int* out) { out[threadIdx.x] = 1; }\n")
    sh(["git", "add", "."], project, env)
    accepted = sh(["git", "commit", "-q", "-m", "add kernel"], project, env, check=False)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "hipport check" in accepted.stdout + accepted.stderr
