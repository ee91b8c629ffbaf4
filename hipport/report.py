"""The migration report: JSON (for tools), Markdown (for pull requests) and a terminal summary.

The JSON document follows ``hipport/schemas/report.schema.json`` (``schema_version`` 1,
documented in ``docs/report-format.md``); the Markdown is rendered from
``templates/report.md.j2``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from . import __version__
from .findings import SEVERITIES, Finding, severity_counts
from .resources import data_dir

REPORT_SCHEMA_VERSION = 1
#: Manual-effort grade of a file from its findings: points per severity, and the lowest score of
#: each grade. An error usually means code to rewrite by hand; a warning, code to review.
EFFORT_POINTS = {"error": 4, "warning": 1, "info": 0}
EFFORT_GRADES = (("high", 12), ("medium", 4), ("low", 1), ("none", 0))


def effort(findings) -> str:
    """Grade the manual work a file needs: ``none``, ``low``, ``medium`` or ``high`` (see
    :data:`EFFORT_POINTS` and :data:`EFFORT_GRADES`)."""
    score = sum(EFFORT_POINTS[f.severity] for f in findings)
    return next(grade for grade, floor in EFFORT_GRADES if score >= floor)
#: Findings listed in the Markdown report's main table; the rest sit in a collapsed section.
MARKDOWN_TOP_FINDINGS = 25
#: Error findings listed in the terminal summary.
TERMINAL_ERRORS_SHOWN = 20


@dataclass(slots=True)
class FileSummary:
    """Per-file figures: input and output path (relative, ``/``), lines, rewritten references,
    kernel launches, unparsed regions, whether the file was converted (else copied), findings,
    and its inline-assembly statements (:class:`hipport.analyze.AsmBlock`)."""

    path: str
    output: str
    converted: bool
    lines: int = 0
    references_rewritten: int = 0
    kernel_launches: int = 0
    parse_error_regions: int = 0
    findings: list[Finding] = field(default_factory=list)
    inline_asm: list = field(default_factory=list)  # hipport.analyze.AsmBlock


@dataclass(slots=True)
class Report:
    """Everything a conversion produced, ready to be written in any format.

    Attributes:
        source, output: SRC and OUT as given on the command line (output None: ``hipport check``).
        options: the conversion options (launch syntax, offload architectures, excludes).
        files: one summary per file of the tree, sorted by path.
        seconds: wall-clock time of the conversion.
        generated: files hipport generated besides the ported tree (``CMakeLists.txt``).
    """

    source: str
    output: str | None
    options: dict
    files: list[FileSummary]
    seconds: float = 0.0
    generated: list[str] = field(default_factory=list)
    rules: object = None  # the RuleSet used (for the PTX inventory); not serialized

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for s in self.files for f in s.findings), key=Finding.sort_key)

    def totals(self) -> dict:
        converted = [s for s in self.files if s.converted]
        return {
            "files": len(self.files),
            "files_converted": len(converted),
            "files_copied": len(self.files) - len(converted),
            "lines": sum(s.lines for s in converted),
            "references_rewritten": sum(s.references_rewritten for s in converted),
            "kernel_launches": sum(s.kernel_launches for s in converted),
            "parse_error_regions": sum(s.parse_error_regions for s in converted),
            "findings": severity_counts(self.findings),
            "seconds": round(self.seconds, 3),
        }

    def ptx_inventory(self, rules) -> list[dict]:
        """Every PTX instruction used, grouped by opcode: uses, first location, what to write instead.

        Args:
            rules: the :class:`hipport.rules.RuleSet` whose ``ptx`` entries give the equivalents.
        """
        groups: dict[str, dict] = {}
        for summary in self.files:
            for block in summary.inline_asm:
                for opcode, operands in block.instructions:
                    entry = rules.ptx_equivalent(opcode, operands)
                    key = entry.match if entry is not None and entry.match.startswith("%") else opcode
                    group = groups.setdefault(key, {
                        "instruction": key, "uses": 0, "first": f"{summary.path}:{block.line}:{block.column}",
                        "hip": entry.hip if entry is not None and entry.hip else None,
                        "note": entry.note if entry is not None else "no known equivalent",
                    })
                    group["uses"] += 1
        return sorted(groups.values(), key=lambda g: (-g["uses"], g["instruction"]))

    def to_json(self) -> dict:
        """The report as a JSON-ready dict (see ``report.schema.json``)."""
        return {
            "schema": "hipport-report",
            "schema_version": REPORT_SCHEMA_VERSION,
            "tool": {"name": "hipport", "version": __version__},
            "source": self.source,
            "output": self.output,
            "options": self.options,
            "totals": self.totals(),
            "generated": self.generated,
            "files": [
                {
                    "path": s.path, "output": s.output, "converted": s.converted, "lines": s.lines,
                    "references_rewritten": s.references_rewritten, "kernel_launches": s.kernel_launches,
                    "parse_error_regions": s.parse_error_regions, "findings": severity_counts(s.findings),
                    "effort": effort(s.findings),
                }
                for s in self.files
            ],
            "findings": [f.to_json() for f in self.findings],
            "inline_asm": [
                {"path": s.path, "line": b.line, "column": b.column, "statement": b.statement,
                 "instructions": [{"opcode": op, "operands": operands} for op, operands in b.instructions],
                 "constraints": b.constraints}
                for s in self.files for b in s.inline_asm
            ],
        }

    def json_text(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    def markdown_text(self) -> str:
        """The report as GitHub-flavoured Markdown for a pull request comment."""
        import jinja2  # imported here: start-up time matters for small runs

        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
            undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
        )
        env.filters["md"] = _markdown_cell
        env.filters["plural"] = plural
        env.filters["effort"] = effort
        findings = self.findings
        return env.get_template("report.md.j2").render(
            report=self, totals=self.totals(), severities=SEVERITIES,
            top=findings[:MARKDOWN_TOP_FINDINGS], rest=findings[MARKDOWN_TOP_FINDINGS:],
            files_with_work=[s for s in self.files if s.findings],
            ptx=self.ptx_inventory(self.rules) if self.rules is not None else [],
            efforts={grade: sum(1 for s in self.files if s.converted and effort(s.findings) == grade)
                     for grade, _ in EFFORT_GRADES},
        )

    def summary_text(self, list_errors: bool = True) -> str:
        """A few lines for the terminal (with the first errors listed unless ``list_errors`` is False)."""
        t = self.totals()
        counts = ", ".join(f"{t['findings'][s]} {s}" for s in SEVERITIES)
        if self.output is None:  # hipport check: nothing was written
            head = f"hipport: {plural(t['files_converted'], 'file')} checked, {t['files_copied']:,} other"
            rewrite = "to rewrite"
        else:
            head = f"hipport: {plural(t['files_converted'], 'file')} converted, {t['files_copied']:,} copied"
            rewrite = "rewritten"
        lines = [
            f"{head}, {plural(t['lines'], 'line')}, {plural(t['references_rewritten'], 'reference')} {rewrite}, "
            f"{plural(t['kernel_launches'], 'kernel launch', 'kernel launches')} in {t['seconds']:.2f} s",
            f"findings: {counts}",
        ]
        errors = [f for f in self.findings if f.severity == "error"] if list_errors else []
        for finding in errors[:TERMINAL_ERRORS_SHOWN]:
            lines.append(f"  {finding.path}:{finding.line}:{finding.column}: {finding.rule_id} {finding.message}")
        if len(errors) > TERMINAL_ERRORS_SHOWN:
            lines.append(f"  ... and {len(errors) - TERMINAL_ERRORS_SHOWN} more errors in the report")
        return "\n".join(lines)


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``1 file``, ``2 files``, ``1,024 lines`` (thousands separated)."""
    return f"{count:,} {singular if count == 1 else (plural_form or singular + 's')}"


def _markdown_cell(text: str) -> str:
    """Escape text for a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")
