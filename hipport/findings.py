"""Findings: what hipport could not port, or wants a human to look at.

Each finding carries a stable check id from ``rules/checks.yaml`` (``HP1001``...), so reports,
suppressions and CI baselines can refer to it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .options import SEVERITIES  # noqa: E402  (one definition, light for the parser)


@dataclass(frozen=True, slots=True)
class Finding:
    """One reported construct.

    Attributes:
        path: the source file, relative to the converted tree, with ``/`` separators.
        line: 1-based line number.
        column: 1-based column, counted in bytes.
        rule_id: stable check id (``HP2001``).
        rule_name: the check's name (``unsupported-api``).
        severity: ``error``, ``warning`` or ``info``.
        message: what was found, filled in from the check's template.
        fix: the suggested fix.
        name: the CUDA name or construct concerned (``cudaBindTexture``, ``asm``), may be empty.
        fingerprint: a hash that identifies the finding across edits elsewhere in the file
            (see :mod:`hipport.suppress`); empty until computed.
    """

    path: str
    line: int
    column: int
    rule_id: str
    rule_name: str
    severity: str
    message: str
    fix: str
    name: str = ""
    fingerprint: str = ""

    def to_json(self) -> dict:
        """Return the finding as a JSON-ready dict (the report schema's ``finding``), its fields
        in order (what :func:`dataclasses.asdict` gives, without its deep copy)."""
        return {"path": self.path, "line": self.line, "column": self.column, "rule_id": self.rule_id,
                "rule_name": self.rule_name, "severity": self.severity, "message": self.message, "fix": self.fix,
                "name": self.name, "fingerprint": self.fingerprint}

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.rule_id)


@dataclass(frozen=True, slots=True)
class AsmBlock:
    """One inline-assembly statement: 1-based line and column (bytes), the keyword with its
    qualifiers (``asm volatile``), its PTX instructions as (opcode, operands), and its operand
    constraints and clobbers (``=r``, ``l``, ``memory``)."""

    line: int
    column: int
    statement: str
    instructions: list[tuple[str, str]]
    constraints: list[str]


def severity_counts(findings) -> dict[str, int]:
    """Count findings per severity, with every severity present (zero when none)."""
    counts = dict.fromkeys(SEVERITIES, 0)
    for finding in findings:
        counts[finding.severity] += 1
    return counts
