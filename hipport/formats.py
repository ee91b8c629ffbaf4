"""Report formats for the terminal and for tools: text, json, markdown, sarif, github.

* ``text``: one ``path:line:column: ID [severity] message`` line per finding, then the summary.
* ``json`` / ``markdown``: the migration report (:mod:`hipport.report`).
* ``sarif``: SARIF 2.1.0 (OASIS), for code-scanning services; every check is a rule of the
  run's driver, every finding a result with a ``partialFingerprints`` entry.
* ``github``: GitHub Actions workflow commands (``::error file=...,line=...::message``), which
  annotate the pull request diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from . import __version__
from .report import Report
from .rules import RuleSet

from .options import FORMATS  # noqa: E402  (one definition, light for the parser)
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: SARIF result levels for hipport severities (SARIF 2.1.0, section 3.27.10).
SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def render(report: Report, rules: RuleSet, fmt: str) -> str:
    """Render ``report`` in the format ``fmt`` (one of :data:`FORMATS`).

    Raises:
        ValueError: unknown format.
    """
    if fmt == "text":
        return text(report)
    if fmt == "json":
        return report.json_text()
    if fmt == "markdown":
        return report.markdown_text()
    if fmt == "sarif":
        return json.dumps(sarif(report, rules), indent=2, ensure_ascii=False) + "\n"
    if fmt == "github":
        return github(report)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def text(report: Report) -> str:
    """Findings as compiler-style lines (``src/ptx.cu:6:5: HP1001 [error] ...``, paths as
    :meth:`hipport.report.Report.display_path` gives them, so terminals and editors open them),
    then the summary."""
    lines = [f"{report.display_path(f)}:{f.line}:{f.column}: {f.rule_id} [{f.severity}] {f.message}"
             for f in report.findings]
    return "\n".join(lines + [report.summary_text(list_errors=False)]) + "\n"


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(report: Report) -> str:
    """GitHub Actions workflow commands, one per finding (paths relative to the working folder,
    which in a workflow is the repository root)."""
    out = []
    for f in report.findings:
        path = report.display_path(f)
        props = f"file={_escape_property(path)},line={f.line},col={f.column},title={_escape_property(f'{f.rule_id} {f.rule_name}')}"
        out.append(f"::{GITHUB_COMMANDS[f.severity]} {props}::{_escape_data(f'{f.message}. Fix: {f.fix}')}")
    return "".join(line + "\n" for line in out)


def _artifact_location(path: str) -> dict:
    """A SARIF artifactLocation: a path relative to SRCROOT (SRC's folder; with several inputs,
    the working folder the paths were given from), or an absolute file URI for a path given
    as absolute."""
    if Path(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(Path(path).as_posix()), "uriBaseId": "SRCROOT"}


def sarif(report: Report, rules: RuleSet) -> dict:
    """The report as a SARIF 2.1.0 log (a dict ready for ``json.dumps``)."""
    from .docs import template_text

    checks = sorted(rules.checks.values(), key=lambda c: c.id)
    index = {c.id: i for i, c in enumerate(checks)}
    source = Path(report.source).resolve()
    root = source if source.is_dir() else source.parent
    driver_rules = [
        {
            "id": c.id,
            "name": c.name,
            "shortDescription": {"text": template_text(c.message)},
            "fullDescription": {"text": c.explanation},
            "help": {"text": f"{c.explanation}\n\nInstead:\n{c.instead}",
                     "markdown": f"{c.explanation}\n\nInstead:\n\n```cpp\n{c.instead}\n```"},
            "defaultConfiguration": {"level": SARIF_LEVELS[c.severity]},
        }
        for c in checks
    ]
    results = [
        {
            "ruleId": f.rule_id,
            "ruleIndex": index[f.rule_id],
            "level": SARIF_LEVELS[f.severity],
            "message": {"text": f"{f.message}. Fix: {f.fix}"},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": _artifact_location(f.path),
                    "region": {"startLine": f.line, "startColumn": f.column},
                },
            }],
            "partialFingerprints": {"hipportFingerprint/v1": f.fingerprint},
        }
        for f in report.findings
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "hipport",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": driver_rules,
            }},
            "originalUriBaseIds": {"SRCROOT": {"uri": root.as_uri() + "/"}},
            "results": results,
            "columnKind": "unicodeCodePoints",  # hipport counts bytes: the same on ASCII lines
        }],
    }
