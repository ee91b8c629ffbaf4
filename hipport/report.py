"""The migration report: JSON (for tools), Markdown (for pull requests) and a terminal summary.

The JSON document follows ``hipport/schemas/report.schema.json`` (``schema_version`` 1,
documented in ``docs/report-format.md``); the Markdown is rendered from
``templates/report.md.j2``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

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
    score = _effort_score(findings)
    return next(grade for grade, floor in EFFORT_GRADES if score >= floor)


#: Most characters of the Markdown report: GitHub refuses comments over 65,536 characters; the
#: margin leaves room for a heading or footer that a CI step adds around the report.
MARKDOWN_BUDGET = 60_000
#: Error findings listed in the terminal summary.
TERMINAL_ERRORS_SHOWN = 20


@dataclass(slots=True)
class FileSummary:
    """Per-file figures: input and output path (relative, ``/``), lines, rewritten references,
    kernel launches, unparsed regions, whether the file was converted (else copied), findings,
    its inline-assembly statements (:class:`hipport.findings.AsmBlock`), and whether it uses CUDA
    (a CUDA name, header or kernel launch was seen; a CMake file or Makefile that names CUDA)."""

    path: str
    output: str
    converted: bool
    lines: int = 0
    references_rewritten: int = 0
    kernel_launches: int = 0
    parse_error_regions: int = 0
    findings: list[Finding] = field(default_factory=list)
    inline_asm: list = field(default_factory=list)  # hipport.findings.AsmBlock
    uses_cuda: bool = False


@dataclass(slots=True)
class Report:
    """Everything a conversion produced, ready to be written in any format.

    Attributes:
        source, output: SRC and OUT as given on the command line (output None: ``hipport check``).
        options: the conversion options (launch syntax, offload architectures, excludes).
        files: one summary per file of the tree, sorted by path.
        seconds: wall-clock time of the conversion.
        generated: files hipport generated besides the ported tree (``CMakeLists.txt``).
        incremental: the line :meth:`summary_text` adds on what a conversion into an OUT that an
            earlier one wrote ported again and reused (:meth:`hipport.incremental.Reuse.summary_line`);
            in neither the JSON nor the Markdown report, which are those of a full conversion.
    """

    source: str
    output: str | None
    options: dict
    files: list[FileSummary]
    seconds: float = 0.0
    generated: list[str] = field(default_factory=list)
    rules: object = None  # the RuleSet used (for the PTX inventory); not serialized
    incremental: str = ""  # what an incremental conversion reused, a line of the terminal summary; not serialized

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
            "files_using_cuda": sum(1 for s in self.files if s.uses_cuda or s.findings),
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

    def json_text(self, document: dict | None = None) -> str:
        """The JSON report's text; ``document``: :meth:`to_json`'s dict when the caller has it."""
        return json.dumps(self.to_json() if document is None else document, indent=2, ensure_ascii=False) + "\n"

    def markdown_text(self, budget: int | None = None) -> str:
        """The report as GitHub-flavoured Markdown for a pull request comment.

        Findings come by severity (errors, then warnings, then info, collapsed), and the whole
        text stays within ``budget`` characters (default :data:`MARKDOWN_BUDGET`, under GitHub's
        65,536-character comment limit): the header and totals always, then as many errors,
        PTX inventory rows, warnings, per-file rows and info findings as fit, in that order;
        what is left out is counted, with a pointer to ``hipport-report.json``, which has all.
        CUDA names and code in messages are code spans, never emphasis (``__shared__``).
        """
        import jinja2  # imported here: start-up time matters for small runs

        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
            undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
        )
        # The budget search below renders the template a few dozen times for a large tree: the
        # filters are pure functions, so each answer is computed once per call (a 1,000-file
        # report took 1.8 s to render without this, 0.2 s with it).
        env.filters["md"] = _memoized(_markdown_cell)
        env.filters["prose"] = _memoized(markdown_prose)
        env.filters["code"] = _memoized(markdown_code)
        env.filters["plural"] = plural
        env.filters["effort"] = _memoized_by_identity(effort)
        # a file's findings per severity, counted once (the template's per-file row reads three
        # counts, and the budget search renders the rows dozens of times)
        env.filters["severities"] = _memoized_by_identity(severity_counts)
        env.filters["n"] = "{:,}".format
        template = env.get_template("report.md.j2")
        findings = self.findings
        by_severity = {s: [f for f in findings if f.severity == s] for s in SEVERITIES}
        converted = sorted((s for s in self.files if s.converted),
                           key=lambda s: (-_effort_score(s.findings), s.path))
        ptx = self.ptx_inventory(self.rules) if self.rules is not None else []
        sections = {"error": by_severity["error"], "ptx": ptx, "warning": by_severity["warning"],
                    "files": converted, "info": by_severity["info"]}
        totals = self.totals()
        efforts = {grade: sum(1 for s in converted if effort(s.findings) == grade) for grade, _ in EFFORT_GRADES}

        def render(shown: dict[str, int]) -> str:
            return template.render(
                report=self, totals=totals, version=__version__,
                errors=by_severity["error"][:shown["error"]], warnings=by_severity["warning"][:shown["warning"]],
                infos=by_severity["info"][:shown["info"]], ptx=ptx[:shown["ptx"]],
                files=converted[:shown["files"]],
                counts={s: len(by_severity[s]) for s in SEVERITIES}, ptx_total=len(ptx), files_total=len(converted),
                omitted=sum(len(rows) - shown[key] for key, rows in sections.items()),
                efforts=efforts,
            )

        limit = MARKDOWN_BUDGET if budget is None else budget
        full = {key: len(rows) for key, rows in sections.items()}
        text = render(full)
        if len(text) <= limit:
            return text
        # Fill the budget section by section, in order of importance; each row's cost is
        # measured by rendering (a binary search per section keeps this to a few dozen renders).
        shown = dict.fromkeys(sections, 0)
        for key in sections:
            low, high = 0, full[key]
            while low < high:
                middle = (low + high + 1) // 2
                if len(render({**shown, key: middle})) <= limit:
                    low = middle
                else:
                    high = middle - 1
            shown[key] = low
        return render(shown)

    def display_path(self, finding: Finding) -> str:
        """Where ``finding`` is, as a path a terminal or editor can open from the working folder:
        SRC as given joined with the file's path inside it (``src/ptx.cu``), made relative to
        the working folder when it lies below it."""
        source = Path(self.source)
        base = source.parent if source.suffix and not source.is_dir() else source
        path = Path(finding.path) if Path(finding.path).is_absolute() else base / finding.path
        if path.is_absolute():
            try:
                path = path.relative_to(Path.cwd())
            except ValueError:
                pass
        return path.as_posix()

    @property
    def found_no_cuda(self) -> bool:
        """True when no file of the tree uses CUDA and nothing was reported: nothing was ported."""
        return not any(s.uses_cuda or s.findings for s in self.files)

    def no_cuda_warning(self) -> str:
        """The warning printed when :attr:`found_no_cuda` (empty tree, or plain C++ only)."""
        files = len(self.files)
        return (f"hipport: warning: no CUDA found in {self.source}: "
                + (f"no CUDA name, header or kernel launch in its {plural(files, 'file')}" if files else "it has no files")
                + (", nothing was ported" if self.output is not None else ""))

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
        if self.incremental:
            lines.append(self.incremental)
        errors = [f for f in self.findings if f.severity == "error"] if list_errors else []
        for finding in errors[:TERMINAL_ERRORS_SHOWN]:
            lines.append(f"  {self.display_path(finding)}:{finding.line}:{finding.column}: {finding.rule_id} {finding.message}")
        if len(errors) > TERMINAL_ERRORS_SHOWN:
            lines.append(f"  ... and {len(errors) - TERMINAL_ERRORS_SHOWN} more errors in the report")
        return "\n".join(lines)


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``1 file``, ``2 files``, ``1,024 lines`` (thousands separated)."""
    return f"{count:,} {singular if count == 1 else (plural_form or singular + 's')}"


def _effort_score(findings) -> int:
    """Effort points of a file's findings (:data:`EFFORT_POINTS`)."""
    return sum(EFFORT_POINTS[f.severity] for f in findings)


def _memoized(function):
    """``function`` (pure, of hashable arguments) with its answers kept for the caller's lifetime."""
    answers: dict = {}

    def memoized(*args):
        if args not in answers:
            answers[args] = function(*args)
        return answers[args]
    return memoized


def _memoized_by_identity(function):
    """``function`` of one list that is not changed while the caller runs (a file's findings),
    its answers kept by the list's identity for the caller's lifetime."""
    answers: dict[int, tuple] = {}

    def memoized(argument):
        kept = answers.get(id(argument))
        if kept is None or kept[0] is not argument:
            kept = answers[id(argument)] = (argument, function(argument))
        return kept[1]
    return memoized


def _markdown_cell(text: str) -> str:
    """Escape text for a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


#: A C/C++ token as messages quote it: an optional ``#``/``%``/``-`` prefix, a name with ``::``,
#: ``.`` or ``->`` parts, optional template arguments and one level of call parentheses.
_CODE_TOKEN = re.compile(
    r"--?[A-Za-z][A-Za-z0-9_-]*(?:=[^\s|,;)]+)?"
    r"|(?:#[a-z]+[ \t]+(?=[A-Za-z_])|#|%)?[A-Za-z_][A-Za-z0-9_]*(?:(?:::|\.|->)[A-Za-z_][A-Za-z0-9_]*)*"
    r"(?:<[^<>\s|]*(?:<[^<>\s|]*>)?[^<>\s|]*>)?(?:\([^()|]*\))?(?:\[[^\[\]|]*\])?")
_CAMEL = re.compile(r"[a-z][A-Z]")
_PROSE_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc"})
#: ASCII punctuation that CommonMark may read as markup in running text.
_MARKUP = re.compile(r"([\\`*_\[\]<>!~&|#])")


def _looks_like_code(token: str, names: frozenset[str]) -> bool:
    if token in names:
        return True
    if token[0] in "#%":
        return len(token) > 1
    if token[0] == "-":
        return True  # an option: -fgpu-rdc, --use_fast_math
    return ("_" in token or "::" in token or "(" in token or "<" in token or "[" in token
            or "->" in token or _CAMEL.search(token) is not None
            or ("." in token and token not in _PROSE_ABBREVIATIONS))


def markdown_code(text: str) -> str:
    """``text`` as one Markdown code span, safe in a table cell (backticks fenced, ``|`` escaped)."""
    text = str(text).replace("\n", " ")
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"


def markdown_prose(text: str, *names: str) -> str:
    """A message or fix for a Markdown table cell: C/C++ names and snippets become code spans
    (``__shared__`` must not render as bold ``shared``), all other markup characters are
    backslash-escaped, so CommonMark shows the text as written.

    Args:
        text: one line of prose (a newline becomes a space).
        names: words that are code wherever they appear (the finding's CUDA name: ``texture``).
    """
    text = str(text).replace("\n", " ")
    code_names = frozenset(n for n in names if n)
    out = []
    position = 0
    for match in _CODE_TOKEN.finditer(text):
        token = match.group()
        if match.start() and (text[match.start() - 1].isalnum() or text[match.start() - 1] == "_"):
            continue  # inside a word (a version such as 12.0a)
        if not _looks_like_code(token, code_names):
            continue
        if token[0] == "-" and match.start() and not text[match.start() - 1].isspace() \
                and text[match.start() - 1] not in "(,":
            continue  # a hyphen inside prose: "wave-64"
        out.append(_MARKUP.sub(r"\\\1", text[position:match.start()]))
        out.append(markdown_code(token))
        position = match.end()
    out.append(_MARKUP.sub(r"\\\1", text[position:]))
    return "".join(out)
