"""Documentation generated from the rule data: one page per check in ``docs/rules/`` and one
page per API family in ``docs/mappings/``.

``python -m hipport.docs [DOCS_DIR]`` rewrites the pages (``DOCS_DIR`` default: the repository's
``docs``); a test fails when the committed pages differ from what the rules produce, so the docs
never drift from ``rules/*.yaml``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from .emit import atomic_write
from .resources import data_dir
from .counts import counts_markdown, family_counts
from .rules import Check, Mapping, RuleSet, default_rules

_FIELD = re.compile(r"\{(\w+)\}")


def template_text(template: str) -> str:
    """Show a message template to a reader: ``{name}`` becomes ``<name>``, ``{{`` becomes ``{``."""
    return _FIELD.sub(r"<\1>", template).replace("{{", "{").replace("}}", "}")


def _environment():
    import jinja2  # imported here: start-up time matters for small runs

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
    )
    env.filters["template_text"] = template_text
    return env


#: Checks with ids in this range are about build files (CMake files, Makefiles), where comments
#: start with ``#``; the others are about C, C++ and CUDA sources.
BUILD_FILE_CHECK_PREFIX = "HP3"
#: Ways of running the analysis on a check's example, tried in order until the check fires:
#: (file name of the example, ``--fix``, ``--launch-syntax``, whether the example is statements
#: to wrap in a device function).
_EXAMPLE_RUNS = {
    "source": (("example.cu", False, "chevron", False), ("example.cu", False, "chevron", True),
               ("example.cu", True, "chevron", False), ("example.cu", True, "chevron", True),
               ("example.cu", False, "hip", False)),
    "build": (("CMakeLists.txt", False, "chevron", False), ("Makefile", False, "chevron", False)),
}
#: The line a statements-only example is wrapped in (one line above the example, so reported
#: lines are shifted back by one).
_EXAMPLE_WRAPPER = "__device__ void example() {"


#: Checks that only ``convert --compat`` reports (:mod:`hipport.compat`); their examples are
#: also run through :func:`hipport.compat.compat_tree`.
COMPAT_ONLY_CHECKS = frozenset({"compat-source-edit", "compat-macro-kept"})


def is_build_file_check(check: Check) -> bool:
    """True for checks reported in CMake files and Makefiles (ids ``HP3xxx``)."""
    return check.id.startswith(BUILD_FILE_CHECK_PREFIX)


def example_findings(check: Check, rules: RuleSet) -> list[str]:
    """What hipport reports for ``check`` on the check's own example: compiler-style lines
    (``example.cu:1:12: HP1103 [warning] ...``), or [] when the example needs more context than
    one file gives (a file that is not UTF-8, precise mode, a file name CMake cannot list).

    The example is written to a temporary folder as ``example.cu`` (build-file checks: as
    ``CMakeLists.txt``, then as ``Makefile``) and checked as ``hipport check`` would (also as
    the body of a device function, for an example made of statements), then with ``--fix``, then
    with ``--launch-syntax hip``, until the check fires; a check of :data:`COMPAT_ONLY_CHECKS` is
    then run as ``convert --compat``. Lines and columns are the example's own.
    """
    import tempfile

    from .convert import ConvertOptions, check_tree

    runs = _EXAMPLE_RUNS["build" if is_build_file_check(check) else "source"]
    with tempfile.TemporaryDirectory(prefix="hipport-example-") as folder:
        for name, fix, launch_syntax, wrap in runs:
            path = Path(folder) / name
            path.write_text(f"{_EXAMPLE_WRAPPER}\n{check.example}\n}}\n" if wrap else check.example + "\n",
                            encoding="utf-8")
            report = check_tree(Path(folder), ConvertOptions(fix=fix, launch_syntax=launch_syntax, jobs=1,
                                                             target_libs=rules.target_libs), rules)
            path.unlink()
            lines = [f"{f.path}:{f.line - wrap}:{f.column}: {f.rule_id} [{f.severity}] {f.message}"
                     for f in report.findings if f.rule_id == check.id and f.line > wrap]
            if lines:
                return lines
        if check.name in COMPAT_ONLY_CHECKS:
            from .compat import compat_tree

            path = Path(folder) / "src" / "example.cu"
            path.parent.mkdir()
            path.write_text(check.example + "\n", encoding="utf-8")
            result = compat_tree(path.parent, Path(folder) / "out",
                                 ConvertOptions(jobs=1, target_libs=rules.target_libs), rules)
            return [f"example.cu:{f.line}:{f.column}: {f.rule_id} [{f.severity}] {f.message}"
                    for f in result.report.findings if f.rule_id == check.id]
    return []


def render_check(check: Check, rules: RuleSet | None = None) -> str:
    """The Markdown page of one check (also what ``hipport explain`` prints): what it finds,
    shown as the finding hipport reports on the check's example (:func:`example_findings`),
    why it matters, the example, what to write instead, and how to suppress it in the kind of
    file it is reported in.

    Args:
        check: the check.
        rules: the loaded rules (default: the shipped ones).
    """
    rules = rules or default_rules()
    return _environment().get_template("rule.md.j2").render(
        check=check, reported=example_findings(check, rules),
        comment="#" if is_build_file_check(check) else "//",
        files="CMake files and Makefiles" if is_build_file_check(check) else "C, C++ and CUDA sources")


def rule_pages(rules: RuleSet) -> dict[str, str]:
    """Map file name (relative to ``docs/rules``) -> Markdown text, for every check."""
    checks = sorted(rules.checks.values(), key=lambda c: c.id)
    pages = {f"{c.id}.md": render_check(c, rules) for c in checks}
    pages["README.md"] = _environment().get_template("rules-index.md.j2").render(checks=checks)
    return pages


_VERSION_LETTERS = (("added", "A"), ("deprecated", "D"), ("changed", "C"), ("removed", "R"))


def _versions(mapping: Mapping, side: str) -> str:
    """``A 11.0, D 12.4`` for the ``side`` (cuda, hip, roc) versions of ``mapping``; empty if none."""
    return ", ".join(f"{letter} {mapping.versions[f'{side}_{what}']}" for what, letter in _VERSION_LETTERS
                     if f"{side}_{what}" in mapping.versions)


def _code(name: str | None) -> str:
    return "" if name is None else "(deleted)" if name == "" else f"`{name}`"


def mapping_pages(rules: RuleSet) -> dict[str, str]:
    """Map file name (relative to ``docs/mappings``) -> Markdown text: one page per family
    (entries grouped by section, in file order) and a ``README.md`` index with the counts."""
    env = _environment()
    counts = {c.family: c for c in family_counts(rules)}
    by_family: dict[str, list[Mapping]] = {family: [] for family in rules.families}
    for mapping in [*rules.identifiers.values(), *rules.namespaces.values(), *rules.headers.values(), *rules.repeats]:
        by_family.setdefault(mapping.family, []).append(mapping)
    pages = {}
    families = sorted(rules.families.values(), key=lambda f: f.id)
    for family in families:
        roc = bool(family.roc_library)
        columns = ["CUDA", "HIP", *(["roc"] if roc else []), "kind", "status", "CUDA versions", "HIP versions",
                   *(["roc versions"] if roc else [])]
        sections: dict[str, list[list[str]]] = {}
        for m in sorted(by_family.get(family.id, []), key=lambda m: m.line):
            status = m.status + (f" (roc: {m.roc_status})" if roc and m.roc_status else "")
            cells = [_code(m.cuda), _code(m.hip), *([_code(m.roc)] if roc else []), m.kind, status,
                     _versions(m, "cuda"), _versions(m, "hip"), *([_versions(m, "roc")] if roc else [])]
            section = "Headers" if m.kind == "header" else (m.section or "Other")
            sections.setdefault(section, []).append([c.replace("|", "\\|") for c in cells])
        members = [[", ".join(member.of), _code(member.cuda), _code(member.hip or None), member.status,
                    member.instead or (f"on a const object: {member.const_instead}" if member.const_instead else ""),
                    member.note]
                   for entries in rules.members.values() for member in entries if member.family == family.id]
        pages[f"{family.id}.md"] = env.get_template("mappings.md.j2").render(
            family=family, file_name=Path(family.path).name, count=counts[family.id], columns=columns,
            sections=list(sections.items()), members=[[c.replace("|", "\\|") for c in row] for row in members])
    pages["README.md"] = env.get_template("mappings-index.md.j2").render(
        families=families, counts_table=counts_markdown(list(counts.values())))
    return pages


def _write_pages(folder: Path, pages: dict[str, str], stale_glob: str) -> list[Path]:
    """Write ``pages`` into ``folder`` (created) and delete generated pages that no longer exist."""
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(stale_glob):
        if stale.name not in pages:
            stale.unlink()
    written = []
    for name, text in pages.items():
        atomic_write(folder / name, text.encode("utf-8"))
        written.append(folder / name)
    return written


def write_rule_pages(docs_dir: Path, rules: RuleSet) -> list[Path]:
    """Write :func:`rule_pages` into ``docs_dir`` and delete pages of checks that no longer exist.

    Returns:
        The paths written.
    """
    return _write_pages(docs_dir, rule_pages(rules), "HP*.md")


def write_mapping_pages(mappings_dir: Path, rules: RuleSet) -> list[Path]:
    """Write :func:`mapping_pages` into ``mappings_dir`` and delete pages of families that no
    longer exist. Returns the paths written."""
    return _write_pages(mappings_dir, mapping_pages(rules), "*.md")


COUNTS_BEGIN = "<!-- hipport counts: begin (python -m hipport.docs rewrites this block) -->\n"
COUNTS_END = "<!-- hipport counts: end -->\n"


def readme_with_counts(readme: str, rules: RuleSet) -> str:
    """``readme`` with the block between :data:`COUNTS_BEGIN` and :data:`COUNTS_END` replaced by
    the ``hipport counts --format markdown`` table.

    Raises:
        ValueError: the markers are missing or out of order.
    """
    start, end = readme.find(COUNTS_BEGIN), readme.find(COUNTS_END)
    if start < 0 or end < start:
        raise ValueError("README.md lacks the hipport counts markers")
    return readme[:start + len(COUNTS_BEGIN)] + counts_markdown(family_counts(rules)) + readme[end:]


def main(argv: list[str] | None = None) -> int:
    """Regenerate the rule and mapping pages (into DOCS_DIR, default the repository's docs/) and,
    without DOCS_DIR, the README's counts. ``--help`` prints the usage and writes nothing; an
    unknown option is a usage error (exit 2), not a folder name."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m hipport.docs",
                                     description="Regenerate docs/rules, docs/mappings and the README's counts.")
    parser.add_argument("docs_dir", nargs="?", type=Path,
                        help="write the pages under this folder instead (the README is then left alone)")
    chosen = parser.parse_args(sys.argv[1:] if argv is None else argv).docs_dir
    repo = Path(__file__).resolve().parent.parent
    docs_dir = chosen if chosen is not None else repo / "docs"
    rules = default_rules()
    for path in [*write_rule_pages(docs_dir / "rules", rules), *write_mapping_pages(docs_dir / "mappings", rules)]:
        print(path)
    if chosen is None:
        readme = repo / "README.md"
        atomic_write(readme, readme_with_counts(readme.read_text(encoding="utf-8"), rules).encode("utf-8"))
        print(readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
