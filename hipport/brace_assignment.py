"""``x = {}`` where ``x`` is a 16-bit float type: ambiguous in HIP, rewritten to ``x = T{}``.

In CUDA 12.4 ``__half2 r; r = {};`` assigns a value-initialized ``__half2`` (one assignment
operator takes it). HIP 6.4.3's ``__half``/``__half2`` (hip/amd_detail/amd_hip_fp16.h) and
``__hip_bfloat16``/``__hip_bfloat162`` (hip/amd_detail/amd_hip_bf16.h) have several assignment
operators and converting constructors that an empty braced list initializes equally well, so
clang stops: "use of overloaded operator '=' is ambiguous (with operand types '__half2' and
'void')" (checked by compiling for gfx90a and gfx1100, tests/test_hip_device_overloads.py; HIP's
vector types such as ``float2`` are not affected). Naming the type, ``r = __half2{}``, assigns
the same value-initialized object and compiles.

The type of the assigned object is read where the file declares it (a local, a parameter, a
file-scope variable, an element of an array or a pointer: :func:`hipport.overloads.argument_type`),
after hipport's renames and with HIP's typedefs resolved (``half2`` is ``__half2``,
``nv_bfloat16`` becomes ``__hip_bfloat16``). Nothing is reported: the rewrite means the same.
"""

from __future__ import annotations

from .device_overloads import device_overloads, normalized_type
from .edits import Edit
from .overloads import argument_type
from .parse import nodes_of_kinds

#: HIP 6.4.3's types whose assignment from ``{}`` is ambiguous (see the module docstring).
AMBIGUOUS_FROM_EMPTY_BRACES = ("__half", "__half2", "__hip_bfloat16", "__hip_bfloat162")


def analyze_brace_assignments(ctx) -> None:
    """Rewrite ``x = {}`` to ``x = T{}`` where ``x``'s type is one of
    :data:`AMBIGUOUS_FROM_EMPTY_BRACES` (module docstring).

    Args:
        ctx: the analysis context of :mod:`hipport.analyze` (``source``, ``root``, ``rules``,
            ``result.edits``).
    """
    if b"{}" not in ctx.source.replace(b" ", b"") or not any(
            word in ctx.source for word in (b"half", b"bfloat16")):
        return
    typedefs = device_overloads()[0]
    for node in nodes_of_kinds(ctx.root, ("assignment_expression",)):  # one walk, in C
        operator = node.child_by_field_name("operator")
        right = node.child_by_field_name("right")
        left = node.child_by_field_name("left")
        if operator is None or operator.type != "=" or right is None or left is None \
                or right.type != "initializer_list" or right.named_child_count:
            continue
        seen = argument_type(left)
        if seen is None:
            continue
        if (mapping := ctx.rules.identifiers.get(seen)) is not None:
            seen = ctx.rules.target(mapping)[0] or seen
        hip_type = normalized_type(seen, typedefs)
        if hip_type in AMBIGUOUS_FROM_EMPTY_BRACES:
            ctx.result.edits.append(Edit(right.start_byte, right.start_byte, hip_type.encode()))
