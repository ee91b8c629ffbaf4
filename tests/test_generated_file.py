"""tools/generated_file.py: the --check / write step every generator under tools/ ends with."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("generated_file", REPO / "tools" / "generated_file.py")
generated_file = importlib.util.module_from_spec(_spec)
sys.modules["generated_file"] = generated_file
_spec.loader.exec_module(generated_file)


def test_check_passes_on_the_same_text_and_writes_nothing(tmp_path, capsys):
    output = tmp_path / "names.yaml"
    output.write_text("names:\n  - a\n")
    assert generated_file.check_or_write(output, "names:\n  - a\n", check=True) == 0
    assert capsys.readouterr().out == f"{output} is up to date\n"


def test_check_fails_on_a_stale_or_missing_file_with_the_diff(tmp_path, capsys):
    output = tmp_path / "names.yaml"
    output.write_text("names:\n  - a\n")
    assert generated_file.check_or_write(output, "names:\n  - b\n", check=True) == 1
    assert capsys.readouterr().out == (f"--- {output}\n+++ generated\n@@ -1,2 +1,2 @@\n names:\n-  - a\n+  - b\n"
                                       f"{output} is stale: run the generator without --check\n")
    assert output.read_text() == "names:\n  - a\n"
    assert generated_file.check_or_write(tmp_path / "absent.yaml", "x\n", check=True) == 1
    assert not (tmp_path / "absent.yaml").exists()


def test_write_replaces_the_file_atomically_and_leaves_no_temporary(tmp_path, capsys):
    output = tmp_path / "rules" / "names.yaml"
    assert generated_file.check_or_write(output, "names: []\n", check=False, summary="0 names") == 0
    assert output.read_text() == "names: []\n"
    assert capsys.readouterr().out == f"wrote {output}: 0 names\n"
    assert sorted(p.name for p in output.parent.iterdir()) == ["names.yaml"]
