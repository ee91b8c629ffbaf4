"""A macro named like a HIP vector type, defined before the HIP runtime is included (HP1215).

Host code compiled by g++ in a CUDA build may ``#define uint4 uint32_t`` or ``#define int2
int32_t`` and then ``#include`` a ``.cu`` file, which relied on nvcc's implicit
``cuda_runtime.h`` and so names no header. The port gives that file (``.hip``) an explicit
``#include <hip/hip_runtime.h>``, and HIP's amd_hip_vector_types.h (HIP 6.4.3, lines 1184-1195
and 2166-2221) then declares ``using uint4 = HIP_vector_type<unsigned int, 4>``, which the macro
turns into a redeclaration of ``uint32_t``: "typedef redefinition with different types", then
errors that follow from it (``hipCreateChannelDesc`` redefinitions, "excess elements in scalar
initializer") with no note pointing back at the macro (seen in Rodinia's mummergpu). Keeping the
``.cu`` file without the runtime include is no fix: it is a CUDA file that other units may
compile, and the names it uses may be the vector types. So it is reported, on the include line
(on the include chain of every one of those errors), naming the ``#define`` lines.

Reported at the first include that, with such macros defined and not ``#undef``-ed, is or
becomes a HIP header after the port (``hip/...``, or a CUDA header the rules map), or names a
project ``.cu`` file (every ported ``.cu`` includes the HIP runtime). Directives are taken in
file order at any ``#if`` depth. A project header that includes CUDA headers itself is not
followed. A macro defined after HIP's headers are read is harmless and not reported.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from .analyze import _FileContext

#: The vector types of HIP 6.4.3's amd_hip_vector_types.h (__MAKE_VECTOR_TYPE__ at lines
#: 1184-1195 makes <name>1..4 for each base, e.g. uint -> uint1, uint2, uint3, uint4).
_BASES = ("uchar", "char", "ushort", "short", "uint", "int", "ulong", "long", "ulonglong", "longlong",
          "float", "double")
VECTOR_TYPES = frozenset(f"{base}{n}" for base in _BASES for n in range(1, 5))
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(" + b"|".join(sorted(t.encode() for t in VECTOR_TYPES)) +
                     rb")(?![A-Za-z0-9_$])", re.MULTILINE)
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(include|undef)[ \t]*([<\"][^>\"\r\n]*[>\"]|[A-Za-z0-9_]+)", re.MULTILINE)


def analyze_vector_macros(ctx: "_FileContext", resolve_header: Callable[[str], "str | None"]) -> None:
    """Report the first include that brings HIP's headers (directly, mapped from CUDA, or through
    a project ``.cu`` file) while macros named like HIP vector types are defined.

    Args:
        ctx: the analysis context of the file (:class:`hipport.analyze._FileContext`); findings
            go to ``ctx.result.findings``.
        resolve_header: maps a quoted include name to the project path it names, or None
            (:data:`hipport.analyze.HeaderResolver`).

    The finding is on the include line, which is on the include chain of every error clang then
    reports inside HIP's headers (the typedef redefinitions and the errors that follow from
    them); it names each macro's ``#define`` line.
    """
    source = ctx.source
    if b"define" not in source or _DEFINE.search(source) is None:
        return
    from .analyze import _point_of
    events = [(m.start(1), b"define", m.group(1)) for m in _DEFINE.finditer(source)]
    events += [(m.start(2), m.group(1), m.group(2)) for m in _DIRECTIVE.finditer(source)]
    active: dict[bytes, int] = {}
    for offset, kind, operand in sorted(events):
        if kind == b"define":
            node = ctx.node_at(offset, offset + len(operand))
            if node.type == "identifier" and node.parent is not None and node.parent.type in ("preproc_def", "preproc_function_def"):
                active[operand] = _point_of(ctx, node, offset)[0] + 1
        elif kind == b"undef":
            active.pop(operand, None)
        elif (via := _runtime_via(ctx, operand, resolve_header)) is not None:
            node = ctx.node_at(offset, offset + len(operand))
            if node.type not in ("string_literal", "system_lib_string"):
                continue  # in a comment or a string, not an include the grammar saw
            if active:
                macros = ", ".join(f"{name.decode()} (line {line})" for name, line in active.items())
                ctx.report("vector-type-macro", _point_of(ctx, node, offset), name=operand.decode("utf-8", "replace"),
                           macros=macros, via=via)
            return  # HIP's headers are read: later macros do not reach them


def _runtime_via(ctx: "_FileContext", operand: bytes, resolve_header) -> str | None:
    """How an include operand brings the HIP runtime after the port (for the message), or None."""
    if operand[:1] not in (b"<", b'"'):
        return None
    header = operand[1:-1].decode("utf-8", "replace")
    quoted = operand[:1] == b'"'
    if quoted and (project_file := resolve_header(header)) is not None:
        return "the ported file includes <hip/hip_runtime.h>" if project_file.endswith(".cu") else None
    if header.startswith("hip/"):
        return "a HIP header"
    mapping = ctx.rules.headers.get(header)
    if mapping is not None and (replacement := ctx.rules.target(mapping)[0]):
        return f"ported to <{replacement}>"
    return None
