"""Kernel launches written with blanks inside their chevrons: ``k << < g, b >> > (args)``.

nvcc 12.4 reads ``<<`` followed by blanks (spaces, tabs) and ``<`` as the launch opener, and
``>>`` followed by any white space (newlines too) and ``>`` as its closer (checked here with
nvcc 12.4 for sm_90: ``k << < 1, 32 >> > (p);`` and ``k <<<1, 32 >>\\n > (p);`` compile, while
``k < < < 1, 32 > > > (p)``, ``k <<\\n < ...`` and ``> >>`` are errors). clang's HIP front end
knows only the unbroken tokens ``<<<`` and ``>>>`` and rejects the spaced form ("expected
expression"). The port therefore writes each spaced chevron as one token.

A spaced chevron is rewritten only where the syntax tree says it is a kernel launch: the CUDA
grammar's ``<<<``/``>>>`` token of a ``kernel_call_syntax`` node, inside a ``call_expression``
with an argument list on the far side (``name << < ... >> > (``). A shift (``a << b``, ``a >> b``),
a comparison, ``operator<< <T>`` and template argument lists ending in ``>> >`` are other nodes and
never touched. Only the white space inside the token is removed; where it holds a line break it
is moved after the token, so every later line keeps its number and indentation.

With ``launch_syntax="hip"`` a launch that becomes ``hipLaunchKernelGGL`` has its punctuation
replaced by that rewrite (:func:`hipport.analyze._rewrite_launches`, which finds spaced openers
through :data:`LAUNCH_OPEN`); this module then only normalises the launches that stay chevrons
(a launch used as an expression, reported with HP1005).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .alternation import literal_matches
from .edits import Edit

if TYPE_CHECKING:
    import tree_sitter

    from .analyze import _FileContext

#: A launch opener, spaced or not: what the launch rewrite scans for. The look-behinds follow
#: the ``<<`` they test: a pattern that starts with a look-behind is tried at every byte (25 to
#: 50 times slower on cuda-samples' sources, with the same matches).
LAUNCH_OPEN = re.compile(rb"<<(?<!operator<<)(?<!operator <<)[ \t\r\n]*<")
_SPACED = re.compile(rb"<<[ \t\r\n]+<|>>[ \t\r\n]+>")
_TOKEN_SHAPE = {"<<<": re.compile(rb"<<[ \t\r\n]+<\Z"), ">>>": re.compile(rb">>[ \t\r\n]+>\Z")}


def _launch_config(token: "tree_sitter.Node") -> "tree_sitter.Node | None":
    """The ``kernel_call_syntax`` node of a launch whose chevron token is ``token``, or None
    when ``token`` is not a launch chevron with a call's argument list after it."""
    config = token.parent
    if token.type not in _TOKEN_SHAPE or config is None or config.type != "kernel_call_syntax":
        return None
    call = config.parent
    if call is None or call.type != "call_expression":
        return None
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.type != "argument_list" or arguments.start_byte < config.end_byte:
        return None
    return config


def _normalised(text: bytes, token: str) -> bytes:
    """``token`` alone, or, where the white space inside ``text`` holds a line break, ``token``
    followed by that white space (the break and the next line's indentation stay as written)."""
    inside = text[2:-1]
    return token.encode("ascii") + (inside if b"\n" in inside else b"")


_MACRO_OPEN = re.compile(rb"(?<![A-Za-z0-9_])operator[ \t]*\Z")
_MACRO_CLOSE = re.compile(rb">>([ \t]+)>(?=[ \t]*\()")
_MACRO_NEXT_OPEN = re.compile(rb"<<[ \t\r\n]*<")


def _normalise_in_macro(ctx: "_FileContext", body, start: int, end: int) -> None:
    """A spaced opener in the code of a ``#define`` body (opaque text to the grammar): ``<< <``
    is never C++ there except after ``operator``, so it is a launch opener; its closer is the
    first ``>> >`` after it, outside parentheses, that a ``(`` follows, before the next opener
    (another launch: pairing with its closer would rewrite that closer twice). Both are
    normalised only when both are found on the body's own text (no line continuation inside
    either)."""
    source = ctx.source
    if _MACRO_OPEN.search(source, body.start_byte, start) is not None:
        return
    depth = 0
    position = end
    while position < body.end_byte:
        byte = source[position:position + 1]
        if byte == b"(":
            depth += 1
        elif byte == b")":
            depth -= 1
            if depth < 0:
                return
        elif byte == b"<" and depth == 0 and _MACRO_NEXT_OPEN.match(source, position, body.end_byte):
            return  # the next launch's opener comes first: this one has no spaced closer
        elif byte == b">" and depth == 0 and (close := _MACRO_CLOSE.match(source, position, body.end_byte)):
            if not ctx.in_macro_code(body, position):
                return
            ctx.result.edits.append(Edit(start, end, b"<<<"))
            ctx.result.edits.append(Edit(close.start(), close.end(), b">>>"))
            ctx.result.references_rewritten += 1
            return
        position += 1


def analyze_launch_spacing(ctx: "_FileContext", launch_syntax: str) -> None:
    """Write the spaced chevrons of every kernel launch in one file as ``<<<`` and ``>>>``.

    Args:
        ctx: the analysis context of the file (:class:`hipport.analyze._FileContext`); edits
            go to ``ctx.result.edits``. Must run after the launch rewrite: a chevron inside the
            range of an edit already made (``hipLaunchKernelGGL`` punctuation) is left to it.
        launch_syntax: ``"chevron"`` or ``"hip"`` (see :func:`hipport.analyze.analyze_file`).

    Nothing is reported: the rewrite is exact (nvcc reads both spellings as the same tokens).
    In a ``#define`` body (opaque text to the grammar) see :func:`_normalise_in_macro`.
    """
    source = ctx.source
    spaced = list(literal_matches(_SPACED, source, (b"<<", b">>")))  # every match starts with one
    if not spaced:
        return
    taken = [(edit.start, edit.end) for edit in ctx.result.edits] if launch_syntax == "hip" else []
    for match in spaced:
        start, end = match.span()
        token = ctx.node_at(start, end)
        if token.type == "preproc_arg":
            if source[start:start + 1] == b"<" and ctx.in_macro_code(token, start):
                _normalise_in_macro(ctx, token, start, end)
            continue
        if (token.start_byte, token.end_byte) != (start, end) or _launch_config(token) is None:
            continue
        if not _TOKEN_SHAPE[token.type].match(source, start, end):
            continue
        if any(lo < end and start < hi for lo, hi in taken):
            continue  # already replaced by the hipLaunchKernelGGL rewrite
        ctx.result.edits.append(Edit(start, end, _normalised(source[start:end], token.type)))
        ctx.result.references_rewritten += 1
