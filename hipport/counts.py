"""How many CUDA names hipport knows and maps, per API family, next to HIPIFY's published counts.

``hipport counts`` prints the table; the README carries the same table (a test keeps them
equal). Definitions, the same for hipport and for HIPIFY's tables so the columns compare:

* *known*: entries that name a CUDA identifier or namespace (headers are counted apart, because
  HIPIFY's tables list no headers);
* *mapped (hip)*: known entries with a HIP name (``supported``, ``deprecated``, ``experimental``,
  or ``removed`` with a replacement), including names HIP keeps unchanged (``__shfl_down``) and
  macros the port deletes (``CUDART_CB``);
* *mapped (roc)*: for a family with a ROCm library (``roc_library``), entries with a roc name.

A name two families' tables both list (``CUstream_st`` in the runtime and driver tables) counts in
both (:attr:`RuleSet.repeats <hipport.rules.RuleSet>`).

HIPIFY's figures come from the ``upstream`` block of each rules file, which
``tools/import_hipify_tables.py`` writes from the table it read (HIPIFY's
``docs/tables/*_supported_by_*.md``, ROCm/HIPIFY commit 014177bc).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from .rules import RuleSet


@dataclass(frozen=True, slots=True)
class FamilyCount:
    """Counts of one API family (see the module docstring for the definitions).

    ``hipify_*`` are None for families written by hand (no published HIPIFY table);
    ``mapped_roc`` / ``hipify_mapped_roc`` are None where the family has no roc names.
    """

    family: str
    title: str
    known: int
    mapped: int
    mapped_roc: int | None
    headers: int
    hipify_known: int | None
    hipify_mapped: int | None
    hipify_mapped_roc: int | None

    @property
    def meets_hipify(self) -> bool | None:
        """True when hipport maps at least as many names to HIP as HIPIFY does (None: no HIPIFY
        table). The ROC column is not part of the target: where HIPIFY's roc name is wrong
        (colliding rocBLAS statuses in cuSOLVER), hipport drops it and reports the name."""
        if self.hipify_mapped is None:
            return None
        return self.mapped >= self.hipify_mapped


def family_counts(rules: RuleSet) -> list[FamilyCount]:
    """One :class:`FamilyCount` per family in ``rules``, sorted by family id."""
    entries: dict[str, list] = {family: [] for family in rules.families}
    headers: dict[str, int] = {family: 0 for family in rules.families}
    for mapping in [*rules.identifiers.values(), *rules.namespaces.values(),
                    *(m for m in rules.repeats if m.kind != "header")]:
        entries.setdefault(mapping.family, []).append(mapping)
    for mapping in [*rules.headers.values(), *(m for m in rules.repeats if m.kind == "header")]:
        headers[mapping.family] = headers.get(mapping.family, 0) + 1
    counts = []
    for family_id in sorted(set(entries) | set(headers)):
        family = rules.families.get(family_id)
        upstream = family.upstream if family is not None else {}
        has_roc = bool(family and family.roc_library)
        names = entries.get(family_id, [])
        counts.append(FamilyCount(
            family=family_id,
            title=family.title if family is not None else family_id,
            known=len(names),
            mapped=sum(1 for m in names if m.hip is not None),
            mapped_roc=sum(1 for m in names if m.roc) if has_roc else None,
            headers=headers.get(family_id, 0),
            hipify_known=upstream.get("known"),
            hipify_mapped=upstream.get("mapped"),
            hipify_mapped_roc=upstream.get("mapped_roc"),
        ))
    return counts


def _total(counts: list[FamilyCount]) -> dict[str, int]:
    def total(field: str) -> int:
        return sum(getattr(c, field) or 0 for c in counts)

    return {field: total(field) for field in
            ("known", "mapped", "mapped_roc", "headers", "hipify_known", "hipify_mapped", "hipify_mapped_roc")}


def _cell(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def counts_markdown(counts: list[FamilyCount]) -> str:
    """The counts as a Markdown table (what the README shows), with a total row."""
    lines = [
        "| family | hipport: known | hipport: mapped to HIP | hipport: mapped to ROC | HIPIFY: known | HIPIFY: mapped to HIP | HIPIFY: mapped to ROC | headers |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for c in counts:
        lines.append(f"| `{c.family}` | {_cell(c.known)} | {_cell(c.mapped)} | {_cell(c.mapped_roc)} | "
                     f"{_cell(c.hipify_known)} | {_cell(c.hipify_mapped)} | {_cell(c.hipify_mapped_roc)} | {c.headers} |")
    t = _total(counts)
    lines.append(f"| **total** | {t['known']:,} | {t['mapped']:,} | {t['mapped_roc']:,} | {t['hipify_known']:,} | "
                 f"{t['hipify_mapped']:,} | {t['hipify_mapped_roc']:,} | {t['headers']} |")
    return "\n".join(lines) + "\n"


def counts_text(counts: list[FamilyCount]) -> str:
    """The counts as an aligned plain-text table, with a total row."""
    header = ("family", "known", "mapped", "roc", "HIPIFY known", "HIPIFY mapped", "HIPIFY roc", "headers")
    rows = [(c.family, _cell(c.known), _cell(c.mapped), _cell(c.mapped_roc), _cell(c.hipify_known),
             _cell(c.hipify_mapped), _cell(c.hipify_mapped_roc), str(c.headers)) for c in counts]
    t = _total(counts)
    rows.append(("total", *(f"{t[k]:,}" for k in ("known", "mapped", "mapped_roc", "hipify_known", "hipify_mapped",
                                                    "hipify_mapped_roc")), str(t["headers"])))
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    out = []
    for row in [header, *rows]:
        out.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
    return "\n".join(out) + "\n"


def counts_json(counts: list[FamilyCount]) -> str:
    """The counts as JSON: ``{"families": [...], "total": {...}}``."""
    return json.dumps({"families": [asdict(c) for c in counts], "total": _total(counts)}, indent=2) + "\n"
