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
project ``.cu`` file (every ported ``.cu`` includes the HIP runtime). The tree's own headers
count, in include order (:func:`hipport.project_macros.walk`): a macro may be defined in a header
the file includes, and HIP's headers may come through a header that includes a CUDA header or a
``.cu`` file (Rodinia's mummergpu: ``mummergpu_main.cpp`` defines ``uint4``, then includes
``mummergpu.h``, which includes ``common.cu``). The finding is on the file's own include line that
leads there, the first line of the include chain clang prints for each error; when every macro
involved comes from the header that line includes (or from files it includes), that header's own
finding is the one on the chain and the file reports nothing more. Directives are taken in file
order at any ``#if`` depth. A macro defined after HIP's headers are read is harmless and not
reported.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from .project_macros import Step, walk

if TYPE_CHECKING:
    from .analyze import _FileContext

#: The vector types of HIP 6.4.3's amd_hip_vector_types.h (__MAKE_VECTOR_TYPE__ at lines
#: 1184-1195 makes <name>1..4 for each base, e.g. uint -> uint1, uint2, uint3, uint4).
_BASES = ("uchar", "char", "ushort", "short", "uint", "int", "ulong", "long", "ulonglong", "longlong",
          "float", "double")
VECTOR_TYPES = frozenset(f"{base}{n}" for base in _BASES for n in range(1, 5))
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(" + b"|".join(sorted(t.encode() for t in VECTOR_TYPES)) +
                     rb")(?![A-Za-z0-9_$])", re.MULTILINE)


def analyze_vector_macros(ctx: "_FileContext", resolve_header: Callable[[str], "str | None"]) -> None:
    """Report the first include that brings HIP's headers (directly, mapped from CUDA, or through
    a project ``.cu`` file or header) while macros named like HIP vector types are defined.

    Args:
        ctx: the analysis context of the file (:class:`hipport.analyze._FileContext`); findings
            go to ``ctx.result.findings``. ``ctx.sources`` (the tree's files) lets the walk
            follow the tree's headers; without it only the file itself is read.
        resolve_header: maps a quoted include name of this file to the project path it names, or
            None (:data:`hipport.analyze.HeaderResolver`); used where ``ctx.sources`` is None.

    The finding is on this file's include line, which is on the include chain of every error
    clang then reports inside HIP's headers (the typedef redefinitions and the errors that
    follow from them); it names each macro's ``#define`` line (``PATH line N`` for a header's).
    """
    source = ctx.source
    sources = ctx.sources
    if b"include" not in source or (sources is None and _DEFINE.search(source) is None):
        return
    active: dict[str, tuple[str, int, int | None]] = {}  # name -> (path, line, offset of this file's include)
    unparsed: set[int] = set()  # this file's includes that the grammar did not parse as includes
    for step in walk(ctx.path, source, sources):
        directive = step.directive
        top = step.chain[0].directive if step.chain else directive
        if top.offset in unparsed or (not step.chain and not _seen_by_the_grammar(ctx, directive)):
            if directive.kind == "include" and not step.chain:
                unparsed.add(directive.offset)
            continue  # in a comment or a string, not a directive the grammar saw
        if directive.kind == "define":
            if directive.operand in VECTOR_TYPES:
                active[directive.operand] = (step.path, directive.line, top.offset if step.chain else None)
            continue
        if directive.kind == "undef":
            active.pop(directive.operand, None)
            continue
        target = step.target
        if sources is None and directive.operand.startswith('"'):
            target = resolve_header(directive.operand[1:-1])
        via = _runtime_via(ctx, directive.operand, target)
        if via is None:
            continue
        # Through a header: the macros defined in that header (or in files it includes) are its
        # own finding's; this file reports when one comes from itself or from an earlier include.
        if any(origin != top.offset for _, _, origin in active.values()) if step.chain else active:
            macros = ", ".join(f"{name} (line {line})" if path == ctx.path else f"{name} ({path} line {line})"
                               for name, (path, line, _) in active.items())
            node = ctx.node_at(top.offset, top.offset + len(top.operand.encode()))
            ctx.report("vector-type-macro", ctx.point(top.offset), name=top.operand, macros=macros,
                       via=_through(step, via) if step.chain else via)
        return  # HIP's headers are read: later macros do not reach them


def _seen_by_the_grammar(ctx: "_FileContext", directive) -> bool:
    """The directive (of this file) is one the grammar parsed as such: an include's operand is
    a string or ``<...>`` path, a define's name the identifier of a ``#define``."""
    size = len(directive.operand.encode())
    node = ctx.node_at(directive.offset, directive.offset + size)
    if directive.kind == "include":
        return node.type in ("string_literal", "system_lib_string")
    if directive.kind == "define":
        return node.type == "identifier" and node.parent is not None and node.parent.type in (
            "preproc_def", "preproc_function_def")
    return True


def _through(step: Step, via: str) -> str:
    """``via`` for an include met in a header: which header, on which line, includes what."""
    between = [s.target for s in step.chain[:-1]]  # the headers between this file and step.path
    passing = f" (included through {', '.join(between)})" if between else ""
    return f"{step.path} line {step.directive.line}{passing} includes {step.directive.operand}: {via}"


def _runtime_via(ctx: "_FileContext", operand: str, project_file: str | None) -> str | None:
    """How an include operand brings the HIP runtime after the port (for the message), or None.
    ``project_file``: the tree file a quoted operand names, else None."""
    if operand[:1] not in ("<", '"'):
        return None
    header = operand[1:-1]
    if project_file is not None:
        return "the ported file includes <hip/hip_runtime.h>" if project_file.endswith(".cu") else None
    if header.startswith("hip/"):
        return "a HIP header"
    mapping = ctx.rules.headers.get(header)
    if mapping is not None and (replacement := ctx.rules.target(mapping)[0]):
        return f"ported to <{replacement}>"
    return None
