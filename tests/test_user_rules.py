"""`--rules FILE` and `rules = [...]` in [tool.hipport]: a user's own mappings (added to the
shipped ones, and winning over them) and suppressions, validated with file:line errors."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from hipport.cli import main

SOURCE = ("void f() {\n"
          "  float* p;\n"
          "  myCudaAlloc(&p, 4);\n"
          "  cudaMalloc(&p, 4);\n"
          "  cudaFooBar(p);\n"
          "  cudaBazQux(p);\n"
          "}\n")
RULES = """\
family: myproject
title: Our CUDA wrappers
source: src/alloc.h of our project
mappings:
  - {cuda: myCudaAlloc, hip: myHipAlloc, kind: function, status: supported}
  - {cuda: cudaMalloc, hip: myHipMalloc, kind: function, status: supported, note: our pooled allocator}
suppressions:
  - check: HP2008
    names: [cudaFooBar]
    reason: cudaFooBar is our own function, declared in a vendored header
"""
UNKNOWN = ("src/a.cu:{line}:3: HP2008 [warning] {name} looks like a CUDA name, but no hipport rule knows it: "
           "left unchanged; closest known names: {close}")


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cu").write_text(SOURCE)
    return tmp_path


def check(*args):
    result = CliRunner().invoke(main, ["check", "src", *args])
    return result.exit_code, result.stdout.splitlines()[:-2], result.stderr


def test_without_rules_the_names_are_unknown(tree):
    code, lines, _ = check()
    # myCudaAlloc does not look like CUDA (no cuda/cu prefix): left as it is, without a finding
    assert (code, lines) == (0, [UNKNOWN.format(line=5, name="cudaFooBar", close="cudaFree"),
                                 UNKNOWN.format(line=6, name="cudaBazQux", close="cudaLaunch")])


def test_a_user_mapping_adds_a_name_and_wins_over_a_shipped_one(tree):
    (tree / "my-rules.yaml").write_text(RULES)
    result = CliRunner().invoke(main, ["convert", "src", "--diff", "--rules", "my-rules.yaml"])
    assert result.exit_code == 1
    assert result.stdout == ("diff --git a/a.cu b/a.hip\n"
                             "rename from a.cu\n"
                             "rename to a.hip\n"
                             "--- a/a.cu\n"
                             "+++ b/a.hip\n"
                             "@@ -1,7 +1,8 @@\n"
                             "+#include <hip/hip_runtime.h>\n"
                             " void f() {\n"
                             "   float* p;\n"
                             "-  myCudaAlloc(&p, 4);\n"
                             "-  cudaMalloc(&p, 4);\n"
                             "+  myHipAlloc(&p, 4);\n"
                             "+  myHipMalloc(&p, 4);\n"
                             "   cudaFooBar(p);\n"
                             "   cudaBazQux(p);\n"
                             " }\n")


def test_a_user_suppression_leaves_out_only_the_names_it_lists(tree):
    (tree / "my-rules.yaml").write_text(RULES)
    code, lines, _ = check("--rules", "my-rules.yaml")
    assert (code, lines) == (0, [UNKNOWN.format(line=6, name="cudaBazQux", close="cudaLaunch")])


def test_a_suppression_limited_to_paths_relative_to_the_rule_file(tree):
    (tree / "vendor.yaml").write_text("suppressions:\n  - check: unknown-cuda-name\n    paths: [src/]\n")
    (tree / "rules").mkdir()
    (tree / "rules" / "other.yaml").write_text("suppressions:\n  - check: unknown-cuda-name\n    paths: [src/]\n")
    assert check("--rules", "vendor.yaml")[:2] == (0, [])
    # rules/other.yaml's src/ is rules/src/: src/a.cu keeps its findings
    assert check("--rules", "rules/other.yaml")[:2] == (0, [UNKNOWN.format(line=5, name="cudaFooBar", close="cudaFree"),
                                                           UNKNOWN.format(line=6, name="cudaBazQux", close="cudaLaunch")])


def test_the_pyproject_key_takes_paths_relative_to_the_pyproject(tree, monkeypatch):
    (tree / "config").mkdir()
    (tree / "config" / "my-rules.yaml").write_text(RULES)
    (tree / "pyproject.toml").write_text('[tool.hipport]\nrules = ["config/my-rules.yaml"]\n')
    monkeypatch.chdir(tree / "src")
    result = CliRunner().invoke(main, ["check", "."])
    assert result.stdout.splitlines()[:-2] == [
        "a.cu:6:3: HP2008 [warning] cudaBazQux looks like a CUDA name, but no hipport rule knows it: left unchanged; "
        "closest known names: cudaLaunch"]
    # the same file named again on the command line is loaded once (no "defined twice" error)
    again = CliRunner().invoke(main, ["check", ".", "--rules", "../config/my-rules.yaml"])
    assert again.stdout.splitlines()[:-2] == result.stdout.splitlines()[:-2] and again.exit_code == 0


@pytest.mark.parametrize("text, error", [
    ("family: myproject\ntitle: t\nsource: s\nmappings:\n"
     "  - {cuda: myCudaAlloc, hip: myHipAlloc, kind: function, status: supported}\n"
     "  - {cuda: myOther, hip: x, kind: funtion, status: supported}\n",
     "bad.yaml:6: mappings/1/kind: 'funtion' must be one of ['function', 'type', 'enum', 'enumerator', 'macro', "
     "'header', 'namespace']"),
    ("family: myproject\ntitle: t\nmappings: []\n",
     "bad.yaml:1: (top level): must contain ['source'] properties"),
    ("suppressions:\n  - check: HP1001\n  - check: inline-asm\n",
     "bad.yaml:3: suppressions: 'inline-asm' is not a hipport check (did you mean 'inline-ptx'?)"),
    ("suppressions:\n  - check: HP1001\n    name: cudaFoo\n",
     "bad.yaml:2: suppressions/0: must not contain {'name'} properties"),
    ("suppressions:\n  - check: HP1001\n    paths: ['vendor/', '!']\n",
     "bad.yaml:2: suppressions/0/paths: '!' is not a gitignore-style pattern (Invalid git pattern: '!')"),
    ("checks: []\n",
     "bad.yaml:1: 'checks': a user rule file holds mappings and suppressions only (known keys: family, title, "
     "source, mappings, members, roc_library, cpp_namespace, suppressions)"),
    ("family: cuda_runtime\ntitle: t\nsource: s\nmappings: []\n",
     "bad.yaml:1: family 'cuda_runtime' is already defined in {rules}/cuda_runtime.yaml; give your file a "
     "family id of its own"),
    ("suppressions:\n  - check: HP1001\n  check: HP1002\n",
     "bad.yaml:3: invalid YAML: did not find expected '-' indicator"),
    ("- just a list\n",
     "bad.yaml:1: a user rule file is a mapping holding 'mappings:' (with 'family:', 'title:' and 'source:') "
     "and/or 'suppressions:'"),
])
def test_a_bad_rule_file_is_an_error_with_file_and_line(tree, text, error):
    from hipport.resources import data_dir

    (tree / "bad.yaml").write_text(text)
    code, _lines, stderr = check("--rules", "bad.yaml")
    assert code == 2
    assert stderr == f"Error: {error.replace('{rules}', str(data_dir('rules')))}\n"


def test_two_user_files_may_not_define_one_name(tree):
    (tree / "one.yaml").write_text(RULES)
    (tree / "two.yaml").write_text(RULES.replace("myproject", "other").split("suppressions:")[0])
    code, _lines, stderr = check("--rules", "one.yaml", "--rules", "two.yaml")
    assert (code, stderr) == (2, "Error: two.yaml:5: 'myCudaAlloc' is already defined at one.yaml:5\n")


def test_a_missing_rule_file_is_an_error(tree):
    assert check("--rules", "nope.yaml")[::2] == (2, "Error: nope.yaml: No such file or directory\n")


def test_a_bad_character_range_in_a_path_is_an_error_too(tree):
    """re's error (not pathspec's) for an inverted range; its wording after the "(" is re's."""
    (tree / "bad.yaml").write_text("suppressions:\n  - check: HP1001\n    paths: ['a/[z-a]']\n")
    code, _lines, stderr = check("--rules", "bad.yaml")
    assert code == 2
    assert stderr.startswith("Error: bad.yaml:2: suppressions/0/paths: 'a/[z-a]' is not a gitignore-style pattern "
                             "(bad character range z-a")
