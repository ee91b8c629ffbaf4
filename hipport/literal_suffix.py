"""A string literal written against the identifier after it: ``extern "C"__global__``,
``"%"PRIu64``.

Since C++11 a string literal directly followed by an identifier is one token, a literal with a
user-defined suffix ([lex.ext]). nvcc's front end reads ``extern "C"__global__ void k()`` as
the linkage ``"C"`` and the specifier ``__global__`` (NVIDIA's developer blog samples write
it so), and the host compiler g++ only warns about ``"%"PRIu64``; clang, which compiles HIP,
rejects both: "string literal with user-defined suffix cannot be used here" for the linkage,
"invalid suffix on literal; C++11 requires a space between literal and identifier" for the
macro. The port inserts the space, which means the same to every compiler.

A suffix that can be a real user-defined literal keeps its place: ``s`` and ``sv`` (the standard
library's string literals) and any suffix of one underscore and a letter or digit
(``"{}"_json``, ``"3"_Km``), the form a program's own literal operators take; a suffix of two
underscores (``__global__``, ``__FILE__``) is never one.
"""

from __future__ import annotations

import re

from .edits import Edit
from .parse import macro_body_non_code

_IDENTIFIER = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
#: Suffixes that name user-defined literal operators: the standard string literals' and the
#: programs' own (one ``_``, then a letter or digit).
_REAL_SUFFIX = re.compile(rb"(?:s|sv|_(?!_)[A-Za-z0-9_$]*)\Z")


def analyze_literal_suffixes(ctx) -> None:
    """Insert a space between each string literal and an identifier written against it that
    cannot be a user-defined literal's suffix (see the module docstring).

    Args:
        ctx: the analysis context of :mod:`hipport.analyze` (``source``, ``result.edits``).
    """
    source = ctx.source
    if b'"' not in source:
        return
    for start, end in macro_body_non_code(source):
        if source[end - 1:end] != b'"' or source[start:start + 1] == b"/":
            continue  # a comment, a character literal, or an unterminated string
        suffix = _IDENTIFIER.match(source, end)
        if suffix is None or _REAL_SUFFIX.match(suffix.group()):
            continue
        ctx.result.edits.append(Edit(end, end, b" "))
