"""The cutil API (HP2009 ``cutil-api``): the helper library of the CUDA SDK 4.x and older
(``cutil.h``, ``cutil_inline.h``, ``cutil_math.h``...: ``cutilSafeCall``, ``cutilCheckMsg``,
``cutCreateTimer``, ``CUT_SAFE_CALL``...). It is neither part of CUDA nor of HIP, was replaced by
the cuda-samples helpers (``helper_cuda.h``: ``checkCudaErrors``, ``getLastCudaError``,
``findCudaDevice``; ``helper_timer.h``: ``sdkCreateTimer``...), and hipport does not port it: every
include of a cutil header and the first use of each cutil name in a file is reported, never
passed silently.
"""

from __future__ import annotations

import re

from .alternation import directive_matches, word_matches

#: ``#include`` of a cutil header (any folder, quoted or angled).
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]((?:[^>"\n]*/)?cutil[A-Za-z0-9_]*\.h)[>"]', re.MULTILINE)
#: The cutil names: ``cutil*`` functions and macros, the ``cut*`` timer/file/compare functions,
#: cutil.h's ``CUT_*`` error-check macros and the ``CUTBoolean`` type with its values (not every
#: ``CUT_*``: the samples' own multithreading.h defines ``CUT_THREADPROC``...).
_NAME = re.compile(  # whole words: found with hipport.alternation.word_matches (no leading \b)
    rb"(?:cutil[A-Z_][A-Za-z0-9_]*|CUT_(?:SAFE_CALL|SAFE_MALLOC|CHECK_ERROR|CHECK_ERROR_GL|DEVICE_INIT|EXIT|BANK_CHECKER|CONDITION)"
    rb"|CUTBoolean|CUTTrue|CUTFalse"
    rb"|cut(?:Create|Start|Stop|Reset|Delete)Timer|cutGet(?:Average)?TimerValue|cutFindFilePath"
    rb"|cut(?:Load|Save)P[GP]M[A-Za-z0-9]*|cutCompare[A-Za-z0-9]*|cut(?:Read|Write)File[A-Za-z0-9]*"
    rb"|cutCheckCmdLineFlag|cutGetCmdLineArgument[A-Za-z0-9]*)\b")
_NOT_CODE = frozenset({"comment", "string_literal", "string_content", "raw_string_literal", "char_literal",
                       "system_lib_string", "escape_sequence"})


def analyze_cutil(ctx) -> None:
    """Report the cutil includes and names of one file (module docstring).

    Args:
        ctx: the analysis context of :mod:`hipport.analyze` (``source``, ``root``, ``report``,
            ``in_macro_code``).
    """
    source = ctx.source
    if b"cut" not in source and b"CUT" not in source:
        return
    for match in directive_matches(_INCLUDE, source):
        start = match.start(1) - 1
        ctx.report("cutil-api", ctx.node_at(start, start + 1), name=match.group(1).decode("utf-8", "replace"),
                   what="header")
    seen: set[bytes] = set()
    for match in word_matches(_NAME, source):
        name = match.group()
        if name in seen:
            continue
        start, end = match.span()
        node = ctx.node_at(start, end)
        if node.type in _NOT_CODE or (node.type == "preproc_arg" and not ctx.in_macro_code(node, start)):
            continue
        line_start = source.rfind(b"\n", 0, start) + 1
        if source[line_start:start].lstrip().startswith(b"#") and node.type != "preproc_arg" \
                and not source[line_start:start].lstrip().startswith((b"#define", b"# define")):
            continue  # #include paths, #if conditions
        seen.add(name)
        row = source.count(b"\n", 0, start)
        ctx.report("cutil-api", (row, start - line_start), name=name.decode(), what="name")
