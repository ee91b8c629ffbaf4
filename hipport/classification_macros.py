"""Host calls of ``isfinite``/``isnan``/``isinf``... that nvcc compiles through cuda_runtime.h's
``<math.h>``: the port adds ``#include <math.h>``.

``isfinite``, ``isnan``, ``isinf``, ``isnormal``, ``signbit`` and ``fpclassify`` are C99 macros of
``<math.h>``; libstdc++'s ``<cmath>`` removes the macros and declares them in namespace ``std``
only, its ``<math.h>`` adds them to the global namespace too. cuda_runtime.h includes
``<math.h>`` (through crt/math_functions.h), so a CUDA program's host code can call
``isfinite(x)`` unqualified after ``#include <cmath>`` or nothing at all. hip_runtime.h does not:
for host code clang 19 then finds only HIP's ``__device__`` overloads (__clang_hip_cmath.h) and
stops: "no matching function for call to 'isfinite'". Checked by compiling for gfx90a
(tests/test_hip_device_overloads.py): the call fails with no include, with ``<cmath>`` and with
``<cstdlib>``/``<stdlib.h>``, and compiles after ``#include <math.h>`` or with ``using namespace
std;``.

The port adds ``#include <math.h>`` where the file holds an unqualified call of one of
:data:`NAMES` outside ``__device__``/``__global__`` functions (host or ``__host__ __device__``
code) and neither includes ``<math.h>`` nor says ``using namespace std``. Nothing is reported: the
include declares what cuda_runtime.h declared.
"""

from __future__ import annotations

import re

from .device_context import device_code
from .edits import Edit

#: The classification macros libstdc++'s <cmath> moves into namespace std (C11 7.12.3).
NAMES = ("isfinite", "isnan", "isinf", "isnormal", "signbit", "fpclassify")
_CALL = re.compile(rb"(?<![A-Za-z0-9_$:.>])(?:" + b"|".join(n.encode() for n in NAMES) + rb")(?=\s*\()")
#: The names as bytes, for a substring test before :data:`_CALL` (a regex that starts with a
#: lookbehind is tried at every byte: several times slower).
_NAME_BYTES = tuple(name.encode() for name in NAMES)
_MATH_H = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]math\.h[>\"]", re.MULTILINE)
_USING_STD = re.compile(rb"\busing\s+namespace\s+std\s*;")


def needs_math_h(ctx) -> bool:
    """True when ``ctx``'s file calls one of :data:`NAMES` unqualified in host code and neither
    includes ``<math.h>`` nor says ``using namespace std``."""
    source = ctx.source
    if _MATH_H.search(source) or _USING_STD.search(source):
        return False
    for match in _CALL.finditer(source):
        node = ctx.node_at(*match.span())
        call = node.parent
        if node.type != "identifier" or call is None or call.type != "call_expression" \
                or call.child_by_field_name("function") != node:
            continue
        where = device_code(ctx, node)
        if where is None or where.kind == "__host__ __device__":
            return True
    return False


def analyze_classification_macros(ctx, offset: int) -> None:
    """Insert ``#include <math.h>`` at ``offset`` (a line start: where hipport puts its own
    includes, :func:`hipport.analyze._implicit_include_offset`) when :func:`needs_math_h`.

    Args:
        ctx: the analysis context of :mod:`hipport.analyze` (``source``, ``node_at``,
            ``result.edits``, ``specifier_macros``).
        offset: the byte offset of the line the include goes before.
    """
    if not any(name in ctx.source for name in _NAME_BYTES) or not _CALL.search(ctx.source) or not needs_math_h(ctx):
        return
    newline = b"\r\n" if b"\r\n" in ctx.source else b"\n"
    prefix = b"" if offset == 0 or ctx.source[offset - 1:offset] == b"\n" else newline
    ctx.result.edits.append(Edit(offset, offset, prefix + b"#include <math.h>  // hipport: cuda_runtime.h "
                                                 b"declares isfinite/isnan/isinf for host code through it" + newline))
