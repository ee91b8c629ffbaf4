"""HIP's OpenGL interop header needs the HIP runtime API before it.

CUDA's ``cuda_gl_interop.h`` includes what it needs; HIP 6.4.3's ``hip/hip_gl_interop.h`` (the
rules' mapping of ``cuda_gl_interop.h`` and ``cudaGL.h``) includes only ``hip/hip_common.h``, and
its ``amd_detail/amd_hip_gl_interop.h`` (line 77) then uses ``hipError_t`` undeclared: a program
that includes the interop header before the runtime one ("unknown type name 'hipError_t'",
cuda-samples' imageDenoisingGL) compiles with nvcc and not after the port. The port writes
``#include <hip/hip_runtime.h>`` on the line before such an include, unless an earlier include
of the file is (or is ported to) ``hip/hip_runtime.h`` or ``hip/hip_runtime_api.h``, or the
port already inserts the runtime include above it. The added line is the only change.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .alternation import directive_matches
from .edits import Edit

if TYPE_CHECKING:
    from .analyze import _FileContext

#: HIP headers that use HIP runtime types without including their declarations (HIP 6.4.3).
NOT_SELF_CONTAINED = frozenset({"hip/hip_gl_interop.h"})
_RUNTIME = frozenset({"hip/hip_runtime.h", "hip/hip_runtime_api.h"})
_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"\r\n]*)[>\"]", re.MULTILINE)


def analyze_interop_includes(ctx: "_FileContext") -> None:
    """Insert ``#include <hip/hip_runtime.h>`` before each include of a HIP header that is not
    self-contained (:data:`NOT_SELF_CONTAINED`) where nothing earlier provides the runtime API.

    Args:
        ctx: the analysis context of the file (:class:`hipport.analyze._FileContext`), after the
            include rewrite and the implicit runtime include (its edits are read).
    """
    source = ctx.source
    if b"include" not in source or b"interop" not in source and b"cudaGL" not in source:
        return
    inserted = [e.start for e in ctx.result.edits if e.start == e.end and b"<hip/hip_runtime.h>" in e.text]
    provided = False
    for match in directive_matches(_INCLUDE, source):
        node = ctx.node_at(match.start(2), match.end(2))
        if node.type not in ("string_content", "system_lib_string", "string_literal"):
            continue  # in a comment or inside a macro body
        name = match.group(2).decode("utf-8", "replace")
        mapping = ctx.rules.headers.get(name)
        ported = (ctx.rules.target(mapping)[0] if mapping is not None else None) or name
        if ported in _RUNTIME:
            provided = True
        elif ported in NOT_SELF_CONTAINED and not provided:
            line_start = source.rfind(b"\n", 0, match.start()) + 1
            if any(offset <= line_start for offset in inserted):
                provided = True
                continue
            newline = b"\r\n" if source[match.end():].startswith(b"\r\n") or b"\r\n" in source else b"\n"
            ctx.result.edits.append(Edit(line_start, line_start, b"#include <hip/hip_runtime.h>" + newline))
            ctx.result.references_rewritten += 1
            provided = True
