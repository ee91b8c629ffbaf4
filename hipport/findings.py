"""Findings: what hipport could not port, or wants a human to look at.

Each finding carries a stable check id from ``rules/checks.yaml`` (``HP1001``...), so reports,
suppressions and CI baselines can refer to it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

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
        """Return the finding as a JSON-ready dict (the report schema's ``finding``)."""
        return asdict(self)

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.rule_id)


def severity_counts(findings) -> dict[str, int]:
    """Count findings per severity, with every severity present (zero when none)."""
    counts = dict.fromkeys(SEVERITIES, 0)
    for finding in findings:
        counts[finding.severity] += 1
    return counts
