"""The ``register`` storage class (HP1213; with ``convert --fix``, HP1214).

clang compiles HIP as C++17 by default (``__cplusplus`` is ``201703L`` for ``-x hip``), and
C++17 removed ``register``: clang-19 rejects it ("ISO C++17 does not allow 'register' storage
class specifier", an error by default), while nvcc accepts it. The keyword has had no effect
for decades, so ``--fix`` deletes it with the blanks that follow it, leaving every other byte of
the declaration as it was. An explicit register variable (``register int x asm("v1")``, a GNU
extension) is exempt in clang and is left alone, and so are C files (``.c``), where ``register``
is still valid.

Found: ``register`` as a storage class in declarations and parameters (tree-sitter's
``storage_class_specifier``), and ``register`` in the code of a macro body (``#define REG
register``), where clang reports the error at each use of the macro.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .alternation import WORD_OR_DOLLAR_BYTES, word_matches
from .edits import Edit

if TYPE_CHECKING:
    from .analyze import _FileContext

#: ``register`` as a whole word: found with :func:`hipport.alternation.word_matches`, which rejects a
#: match after a name byte (``[A-Za-z0-9_$]``) without a leading look-behind.
_REGISTER = re.compile(rb"register(?![A-Za-z0-9_$])")
_ASM_LABEL = re.compile(rb"(?<![A-Za-z0-9_])(?:asm|__asm__|__asm)\s*\(")
_DECLARATIONS = ("declaration", "parameter_declaration", "field_declaration", "optional_parameter_declaration",
                 "for_range_loop", "condition_clause")


def _explicit_register_variable(ctx: "_FileContext", specifier) -> bool:
    """``register T name asm("reg")``: clang accepts the keyword in C++17 there."""
    declaration = specifier.parent
    while declaration is not None and declaration.type not in _DECLARATIONS:
        declaration = declaration.parent
    return declaration is not None and _ASM_LABEL.search(ctx.text(declaration)) is not None


def analyze_register_keyword(ctx: "_FileContext", fix: bool) -> None:
    """Report (or, with ``fix``, delete) each ``register`` storage class in one file.

    Args:
        ctx: the analysis context of the file (:class:`hipport.analyze._FileContext`); findings
            go to ``ctx.result.findings``, deletions to ``ctx.result.edits``.
        fix: delete the keyword and the spaces or tabs after it (``convert --fix``) and report
            HP1214 instead of HP1213.
    """
    if b"register" not in ctx.source or ctx.path.endswith(".c"):
        return
    source = ctx.source
    for match in word_matches(_REGISTER, source, WORD_OR_DOLLAR_BYTES):
        start, end = match.span()
        node = ctx.node_at(start, end)
        if node.type == "preproc_arg":
            if not ctx.in_macro_code(node, start):
                continue
            where = "macro body"
        elif node.type == "register" and node.parent is not None and node.parent.type == "storage_class_specifier":
            if _explicit_register_variable(ctx, node.parent):
                continue
            where = "declaration"
        else:
            continue
        if fix:
            stop = end
            while source[stop:stop + 1] in (b" ", b"\t"):
                stop += 1
            ctx.result.edits.append(Edit(start, stop, b""))
        ctx.report("register-removed" if fix else "register-keyword", ctx.point(start), name="register",
                   where=where)

