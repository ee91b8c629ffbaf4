"""`hipport check`: exit codes, --fail-on, inline suppressions, baselines, [tool.hipport]
configuration and the report formats (SARIF checked by Microsoft's SARIF validator)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import fastjsonschema
import pytest
from click.testing import CliRunner

from hipport.cli import main
from hipport.resources import schema_path

from helpers import FIXTURES, REPO, tree_digest

UNPORTABLE = FIXTURES / "rewrite" / "unportable.cu"


def run(*args, cwd=None):
    runner = CliRunner()
    if cwd is None:
        return runner.invoke(main, list(map(str, args)))
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, list(map(str, args)))
    finally:
        os.chdir(old)


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "project"
    src.mkdir()
    (src / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (src / "k.cu").write_text(
        "__global__ void k(unsigned* out) {\n"
        "  unsigned lane;\n"
        '  asm("mov.u32 %0, %%laneid;" : "=r"(lane));\n'
        "  out[0] = lane;\n"
        "}\n"
        "void host() { cudaThreadSynchronize(); }\n")
    return src


def test_exit_codes_and_fail_on(project):
    errors = run("check", project)
    assert errors.exit_code == 1
    assert errors.output.splitlines()[:2] == [
        f"{project}/k.cu:3:3: HP1001 [error] inline PTX assembly (asm) cannot run on AMD GPUs: mov.u32",
        f"{project}/k.cu:6:15: HP2003 [warning] cudaThreadSynchronize is deprecated since CUDA 10.0; mapped to hipDeviceSynchronize",
    ]
    (project / "k.cu").write_text("void host() { cudaThreadSynchronize(); }\n")
    assert run("check", project).exit_code == 0
    assert run("check", project, "--fail-on", "warning").exit_code == 1
    assert run("check", project / "missing").exit_code == 2


def test_check_writes_nothing(project):
    before = tree_digest(project)
    run("check", project, "--format", "sarif")
    assert tree_digest(project) == before


@pytest.mark.parametrize("marker, remaining", [
    ("  // hipport: ignore[HP1001]", ["HP2003"]),
    ("  // hipport: ignore[HP2003]", ["HP1001", "HP2003"]),
    ("  // hipport: ignore[inline-ptx, HP2003]", ["HP2003"]),
    ("  // hipport: ignore", ["HP2003"]),
])
def test_inline_suppression_on_the_line(project, marker, remaining):
    lines = (project / "k.cu").read_text().splitlines()
    lines[2] += marker
    (project / "k.cu").write_text("\n".join(lines) + "\n")
    report = json.loads(run("check", project, "--format", "json").output)
    assert [f["rule_id"] for f in report["findings"]] == remaining


def test_inline_suppression_on_the_line_above(project):
    lines = (project / "k.cu").read_text().splitlines()
    lines.insert(2, "  // PTX on purpose: NVIDIA-only path. hipport: ignore[HP1001]")
    (project / "k.cu").write_text("\n".join(lines) + "\n")
    report = json.loads(run("check", project, "--format", "json").output)
    assert [f["rule_id"] for f in report["findings"]] == ["HP2003"]


def test_baseline_lets_only_new_findings_fail(project, tmp_path):
    baseline = tmp_path / "baseline.json"
    written = run("check", project, "--write-baseline", baseline)
    assert written.exit_code == 0
    assert written.output == f"hipport: wrote 2 findings to the baseline {baseline}\n"
    assert run("check", project, "--baseline", baseline).exit_code == 0
    # code moving down the file does not make old findings new
    (project / "k.cu").write_text("// a new first line\n" + (project / "k.cu").read_text())
    assert run("check", project, "--baseline", baseline).exit_code == 0
    (project / "k.cu").write_text((project / "k.cu").read_text() + 'void more() { asm("exit;"); }\n')
    result = run("check", project, "--baseline", baseline)
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == f"{project}/k.cu:8:15: HP1001 [error] inline PTX assembly (asm) cannot run on AMD GPUs: exit"
    assert len([line for line in result.output.splitlines() if "HP" in line]) == 1


def test_bad_baseline_is_an_input_error(project, tmp_path):
    (tmp_path / "b.json").write_text("{}")
    result = run("check", project, "--baseline", tmp_path / "b.json")
    assert result.exit_code == 2
    assert "not a hipport baseline" in result.output


def test_configuration_in_pyproject(project):
    (project / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.hipport]\nfail-on = \"warning\"\nformat = \"github\"\nexclude = [\"vendor/\"]\n")
    (project / "vendor").mkdir()
    (project / "vendor" / "v.cu").write_text('void v() { asm("exit;"); }\n')
    (project / "k.cu").write_text("void host() { cudaThreadSynchronize(); }\n")
    result = run("check", project)
    assert result.exit_code == 1  # the warning fails under fail-on = "warning"
    assert result.output == (
        f"::warning file={project.as_posix()}/k.cu,line=1,col=15,title=HP2003 deprecated-api::"
        "cudaThreadSynchronize is deprecated since CUDA 10.0; mapped to hipDeviceSynchronize. "
        "Fix: Plan a move to the API that replaces it\n")
    assert run("check", project, "--fail-on", "error").exit_code == 0  # the command line wins


def test_unknown_configuration_key_is_an_input_error(project):
    (project / "pyproject.toml").write_text("[tool.hipport]\nfail_on = \"warning\"\n")
    result = run("check", project)
    assert result.exit_code == 2
    assert f"{project / 'pyproject.toml'}: unknown key(s) in [tool.hipport]: fail_on" in result.output


def test_json_and_markdown_formats(project):
    report = json.loads(run("check", project, "--format", "json").output)
    fastjsonschema.compile(json.loads(schema_path("report").read_text()))(report)
    assert report["output"] is None
    markdown = run("check", project, "--format", "markdown").output
    assert markdown.splitlines()[2] == f"Checked `{project}` with hipport 0.1.0."


def test_convert_prints_other_formats_too(tmp_path):
    result = run("convert", UNPORTABLE, "-o", tmp_path / "out", "--format", "github")
    assert result.exit_code == 0
    assert result.output.count("::error ") == 8 and result.output.count("::warning ") == 1


# --- SARIF, validated by Microsoft's SARIF multitool from the npm registry -------------------

MULTITOOL = "@microsoft/sarif-multitool@5.7.0"


@pytest.fixture(scope="session")
def sarif_multitool(tmp_path_factory):
    """Install Microsoft's SARIF multitool from npm (at test time, cached in .toolchain/npm)."""
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI") or os.environ.get("HIPPORT_REQUIRE_TOOLCHAIN"):
            pytest.fail("npm is needed to fetch the SARIF validator", pytrace=False)
        pytest.skip("npm is not installed: cannot fetch the SARIF validator")
    prefix = REPO / ".toolchain" / "npm"
    binary = prefix / "node_modules" / "@microsoft" / "sarif-multitool-linux" / "Sarif.Multitool"
    if not binary.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", MULTITOOL],
                       check=True, capture_output=True)
    binary.chmod(0o755)  # npm may skip the package's own chmod (install scripts)
    return binary


def validate_sarif(multitool, path, tmp_path):
    out = tmp_path / "validation.sarif"
    done = subprocess.run([str(multitool), "validate", str(path), "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(out.read_text())["runs"][0]["results"]
    return [r for r in results if r.get("level", "warning") == "error"], results


def test_sarif_is_valid_for_the_validator(project, tmp_path, sarif_multitool):
    sarif_file = tmp_path / "hipport.sarif"
    result = run("check", project, "--format", "sarif", "--output-file", sarif_file)
    assert result.exit_code == 1
    errors, results = validate_sarif(sarif_multitool, sarif_file, tmp_path)
    assert errors == []
    # the only remark: hipport has no public informationUri yet
    assert {r["ruleId"] for r in results} <= {"SARIF2005"}
    log = json.loads(sarif_file.read_text())
    run_ = log["runs"][0]
    assert log["version"] == "2.1.0"
    assert [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]) for r in run_["results"]] == [
        ("HP1001", "error", {"startLine": 3, "startColumn": 3}),
        ("HP2003", "warning", {"startLine": 6, "startColumn": 15}),
    ]
    assert [rule["id"] for rule in run_["tool"]["driver"]["rules"]][:2] == ["HP0001", "HP0002"]


def test_the_validator_rejects_broken_sarif(tmp_path, sarif_multitool):
    broken = tmp_path / "broken.sarif"
    broken.write_text(json.dumps({"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [{"level": "loud"}]}]}))
    errors, _ = validate_sarif(sarif_multitool, broken, tmp_path)
    assert errors


def test_paths_are_clickable_from_the_working_folder(project):
    """Text and github formats name files from the working folder (src/k.cu:3:3), as compilers do."""
    nested = project / "src"
    nested.mkdir()
    (project / "k.cu").rename(nested / "k.cu")
    text = run("check", "project", cwd=project.parent).output.splitlines()
    assert text[0] == "project/src/k.cu:3:3: HP1001 [error] inline PTX assembly (asm) cannot run on AMD GPUs: mov.u32"
    inside = run("check", "src/k.cu", cwd=project).output.splitlines()
    assert inside[0] == "src/k.cu:3:3: HP1001 [error] inline PTX assembly (asm) cannot run on AMD GPUs: mov.u32"
    absolute = run("check", nested, "--format", "github", cwd=project).output.splitlines()
    assert absolute[0].startswith("::error file=src/k.cu,line=3,col=3,title=HP1001 inline-ptx::")


def test_sarif_locations_hold_with_several_inputs(project, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "w.cu").write_text("void host() { cudaThreadSynchronize(); }\n")
    log = json.loads(run("check", "project/k.cu", other, "--format", "sarif", cwd=project.parent).output)
    run_log = log["runs"][0]
    assert run_log["originalUriBaseIds"] == {"SRCROOT": {"uri": project.parent.as_uri() + "/"}}
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run_log["results"]] == [
        {"uri": (other / "w.cu").as_uri()},  # findings sort by path: the absolute one first
        {"uri": "project/k.cu", "uriBaseId": "SRCROOT"}, {"uri": "project/k.cu", "uriBaseId": "SRCROOT"},
    ]


def test_check_says_checked_and_no_cuda(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.cpp").write_text("int main() { return 0; }\n")
    result = run("check", plain)
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        f"hipport: warning: no CUDA found in {plain}: no CUDA name, header or kernel launch in its 1 file",
        "hipport: 1 file checked, 0 other, 1 line, 0 references to rewrite, 0 kernel launches in "
        + result.output.split(" kernel launches in ")[1].splitlines()[0],
        "findings: 0 error, 0 warning, 0 info",
    ]
    markdown = run("check", plain, "--format", "markdown").output
    assert "| files checked | other files | lines | references to rewrite |" in markdown
    assert "**No CUDA found**: no file uses a CUDA name, header or kernel launch, so nothing was checked." in markdown
    assert "Nothing needs a human" not in markdown


def test_sigterm_during_check_has_its_own_message(project, monkeypatch, capfd):
    """SIGTERM while checking: check's own message and exit status 143 (the signal is sent from
    inside the check, so the test does not depend on timing)."""
    import signal

    import hipport.convert  # the check command imports check_paths from here when it runs

    real_check_paths = hipport.convert.check_paths

    def check_paths_then_terminated(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        return real_check_paths(*args, **kwargs)

    monkeypatch.setattr(hipport.convert, "check_paths", check_paths_then_terminated)
    previous = signal.getsignal(signal.SIGTERM)
    try:
        result = CliRunner().invoke(main, ["check", str(project)])
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert (result.exit_code, result.stdout) == (143, "")
    assert result.stderr == "hipport: check interrupted; nothing was written and no result was given\n"


def _git(repo, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=repo, check=True,
                   capture_output=True)


def test_diff_base_reports_only_changed_lines(project):
    """A pull request reviews its diff: findings on lines unchanged since the base do not count."""
    _git(project, "init", "-q")
    _git(project, "add", "k.cu", "pyproject.toml")
    _git(project, "commit", "-q", "-m", "base")
    assert run("check", project, "--diff-base", "HEAD").output.splitlines()[0].startswith("hipport: 1 file checked")
    lines = (project / "k.cu").read_text().splitlines()
    lines.insert(5, '__device__ void added() { asm("exit;"); }')  # new line 6; host() moves to line 7
    (project / "k.cu").write_text("\n".join(lines) + "\n")
    (project / "new.cu").write_text("void host2() { cudaThreadSynchronize(); }\n")  # untracked: all new
    result = run("check", ".", "--diff-base", "HEAD", "--fail-on", "warning", cwd=project)
    assert result.exit_code == 1
    assert result.output.splitlines()[:2] == [
        "k.cu:6:27: HP1001 [error] inline PTX assembly (asm) cannot run on AMD GPUs: exit",
        "new.cu:1:16: HP2003 [warning] cudaThreadSynchronize is deprecated since CUDA 10.0; mapped to hipDeviceSynchronize",
    ]
    _git(project, "add", "k.cu", "new.cu")
    _git(project, "commit", "-q", "-m", "change")
    assert run("check", project, "--diff-base", "HEAD~1", "--format", "json").exit_code == 1
    assert run("check", project, "--diff-base", "HEAD").exit_code == 0  # nothing changed since HEAD


def test_diff_base_errors_are_clear(project, tmp_path):
    outside = run("check", project, "--diff-base", "HEAD")
    assert outside.exit_code == 2
    # the tmp folder is not inside a git work tree
    assert outside.output == f"Error: --diff-base needs a git work tree, and {project} is not in one\n"
    _git(project, "init", "-q")
    _git(project, "add", "k.cu")
    _git(project, "commit", "-q", "-m", "base")
    unknown = run("check", project, "--diff-base", "no-such-branch")
    assert (unknown.exit_code, unknown.output) == (
        2, f"Error: --diff-base no-such-branch: git knows no such revision in {project}\n")
    option = run("check", project, "--diff-base", "--output=x")
    assert (option.exit_code, option.output) == (2, "Error: --diff-base '--output=x': a revision cannot start with '-'\n")


def test_unified_diff_hunks_give_new_side_lines():
    from hipport.changed_lines import parse_unified_diff

    diff = (b"diff --git a/src/a.cu b/src/a.cu\n--- a/src/a.cu\n+++ b/src/a.cu\n"
            b"@@ -3 +3 @@\n-x\n+y\n@@ -10,0 +11,2 @@\n+p\n+q\n@@ -20,3 +22,0 @@\n-gone\n"
            b"diff --git a/old.cu b/old.cu\ndeleted file mode 100644\n--- a/old.cu\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n"
            b"diff --git a/b.cu b/b.cu\nnew file mode 100644\n--- /dev/null\n+++ b/b.cu\n@@ -0,0 +1,3 @@\n+1\n+2\n+3\n")
    assert parse_unified_diff(diff) == {"src/a.cu": frozenset({3, 11, 12}), "b.cu": frozenset({1, 2, 3})}
