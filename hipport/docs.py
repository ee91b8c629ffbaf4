"""Documentation generated from the rule data: one page per check in ``docs/rules/``.

``python -m hipport.docs [DOCS_DIR]`` rewrites the pages; a test fails when the committed pages
differ from what the rules produce, so the docs never drift from ``rules/checks.yaml``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from .emit import atomic_write
from .resources import data_dir
from .rules import Check, RuleSet, default_rules

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


def render_check(check: Check) -> str:
    """The Markdown page of one check (also what ``hipport explain`` prints)."""
    return _environment().get_template("rule.md.j2").render(check=check)


def rule_pages(rules: RuleSet) -> dict[str, str]:
    """Map file name (relative to ``docs/rules``) -> Markdown text, for every check."""
    checks = sorted(rules.checks.values(), key=lambda c: c.id)
    pages = {f"{c.id}.md": render_check(c) for c in checks}
    pages["README.md"] = _environment().get_template("rules-index.md.j2").render(checks=checks)
    return pages


def write_rule_pages(docs_dir: Path, rules: RuleSet) -> list[Path]:
    """Write :func:`rule_pages` into ``docs_dir`` and delete pages of checks that no longer exist.

    Returns:
        The paths written.
    """
    pages = rule_pages(rules)
    for stale in docs_dir.glob("HP*.md"):
        if stale.name not in pages:
            stale.unlink()
    written = []
    for name, text in pages.items():
        atomic_write(docs_dir / name, text.encode("utf-8"))
        written.append(docs_dir / name)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    docs_dir = Path(args[0]) if args else Path(__file__).resolve().parent.parent / "docs" / "rules"
    for path in write_rule_pages(docs_dir, default_rules()):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
