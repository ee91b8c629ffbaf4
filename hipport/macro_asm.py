"""Inline assembly written in a ``#define`` body (HP1001/HP1003 at the line inside the macro).

The CUDA grammar keeps a macro's replacement list as opaque text (a ``preproc_arg`` node), so
the asm pass of :mod:`hipport.analyze` never sees ``#define READ_CLOCK(r) asm volatile("mov.u32
%0, %%clock;" : "=r"(r))``; the port keeps the PTX and clang's AMDGPU assembler rejects it where
the macro is used ("invalid instruction", with the note "expanded from macro" at the
``#define``). Here each macro body whose code (not a comment or literal) holds ``asm``,
``__asm`` or ``__asm__`` is parsed on its own as the body of a function, and the same pass
(:func:`hipport.analyze._report_inline_asm`: PTX inventory, known equivalents, constraints)
runs on it; findings and :class:`~hipport.analyze.AsmBlock` records are moved back to the
file's line and column of the asm keyword, and their statement names the macro (``asm volatile
in macro READ_CLOCK``).

Backslash line continuations are replaced by a blank before parsing, so every byte keeps its
row and column.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tree_sitter

    from .analyze import _FileContext

_ASM = re.compile(rb"(?<![A-Za-z0-9_])(?:__asm__|__asm|asm)(?![A-Za-z0-9_])")
_CONTINUATION = re.compile(rb"\\(?=\r?\n)")
#: The snippet a macro body is parsed in: a function body on the body's first row.
_PREFIX = b"void __hipport_macro_body(void) {"
_SUFFIX = b"\n;}\n"


def _macro_name(ctx: "_FileContext", body: "tree_sitter.Node") -> str:
    definition = body.parent
    name = definition.child_by_field_name("name") if definition is not None else None
    return ctx.text(name).decode("utf-8", "replace") if name is not None else "?"


def analyze_macro_asm(ctx: "_FileContext") -> None:
    """Report the inline assembly in the ``#define`` bodies of one file, as asm in code is.

    Args:
        ctx: the analysis context of the file (:class:`hipport.analyze._FileContext`); findings
            go to ``ctx.result.findings``, asm records to ``ctx.result.inline_asm``.

    An asm word inside a comment or string literal of the body, or in a ``#error``/``#warning``
    line, is not code and is not reported. Nothing is rewritten.
    """
    source = ctx.source
    if b"asm" not in source or b"define" not in source:
        return
    bodies: dict[int, "tree_sitter.Node"] = {}
    for match in _ASM.finditer(source):
        node = ctx.node_at(match.start(), match.end())
        if node.type != "preproc_arg" or node.start_byte in bodies:
            continue
        if node.parent is None or node.parent.type != "preproc_function_def" and node.parent.type != "preproc_def":
            continue
        if ctx.in_macro_code(node, match.start()):
            bodies[node.start_byte] = node
    for body in bodies.values():
        _report_body(ctx, body)


def _report_body(ctx: "_FileContext", body: "tree_sitter.Node") -> None:
    from .analyze import _report_inline_asm
    from .parse import new_parser

    snippet = _PREFIX + _CONTINUATION.sub(b" ", ctx.text(body)) + _SUFFIX
    row0, column0 = body.start_point
    macro = _macro_name(ctx, body)

    def place(row: int, column: int) -> tuple[int, int]:
        """Snippet (row, column), 0-based -> the file's (row, column)."""
        return (row0, column0 + column - len(_PREFIX)) if row == 0 else (row0 + row, column)

    inner = _body_context_class()(ctx, macro, place, snippet, new_parser().parse(snippet))
    _report_inline_asm(inner)
    for block in inner.result.inline_asm:
        row, column = place(block.line - 1, block.column - 1)
        ctx.result.inline_asm.append(dataclasses.replace(
            block, line=row + 1, column=column + 1, statement=f"{block.statement} in macro {macro}"))


@functools.cache
def _body_context_class():
    """The context class of a parsed macro body (made on first use: hipport.analyze imports
    this module, so its :class:`~hipport.analyze._FileContext` is not there at import time)."""
    from .analyze import _FileContext

    class MacroBodyContext(_FileContext):
        """A file context over the snippet holding one macro body; its reports go to the file's
        context, at the file's positions, with the macro named in their ``statement``."""

        def __init__(self, outer: _FileContext, macro: str, place, snippet: bytes, tree) -> None:
            super().__init__(outer.path, snippet, tree, outer.rules)
            self.outer, self.macro, self.place = outer, macro, place

        def report(self, check_name, node_or_point, name="", **fields) -> None:
            row, column = node_or_point.start_point if hasattr(node_or_point, "start_point") else node_or_point
            if "statement" in fields:
                fields["statement"] = f"{fields['statement']} in macro {self.macro}"
            self.outer.report(check_name, self.place(row, column), name=name, **fields)

    return MacroBodyContext
