"""Calls of a bit intrinsic that CUDA declares for one integer type and HIP for two (HP2041).

CUDA 12.4 declares ``int __ffs(int)`` and ``int __ffsll(long long)`` (crt/device_functions.h),
one overload each, so any integer argument converts. HIP 6.4.3 declares each for a signed and
an unsigned type (hip/amd_detail/amd_device_functions.h lines 66-78: ``__ffs(unsigned int)``,
``__ffs(int)``, ``__ffsll(unsigned long long)``, ``__ffsll(long long)``), so an argument of
another type (``uint64_t``, which is ``unsigned long``; ``size_t``; an ``int`` passed to
``__ffsll``) converts equally well to both and clang stops: "call to '__ffsll' is ambiguous".
The functions with this shape are found in ``rules/hip_headers/device_overloads.yaml`` (one
parameter, two or more integer overloads); CUDA's parameter type is :data:`CUDA_PARAMETER`.

The port casts the argument to CUDA's parameter type (``__ffsll((long long)(x))``), which is what
the CUDA call does implicitly, so the result is the same:

* ``__ffsll``: unless the argument's type, where the file shows it (:func:`hipport.overloads.argument_type`),
  is one of HIP's two exactly; an argument whose type hipport cannot read is cast too;
* ``__ffs``: where the argument's type is readable and is neither one of HIP's two nor promoted
  to ``int`` (``char``, ``short``, ``bool``). A 64-bit argument is reported (warning): CUDA's
  ``__ffs`` truncates it to its low 32 bits, so the port keeps that (``(int)``) and says so;
  ``__ffsll`` is probably what was meant.
"""

from __future__ import annotations

import re

from .device_overloads import device_overloads, normalized_type
from .edits import Edit
from .overloads import argument_type

#: CUDA 12.4's one parameter type of each such function (crt/device_functions.h) and its bits.
CUDA_PARAMETER = {"__ffs": ("int", 32), "__ffsll": ("long long", 64)}
_INTEGERS = {"signedchar": 8, "unsignedchar": 8, "char": 8, "bool": 8, "short": 16, "unsignedshort": 16,
             "int": 32, "unsignedint": 32, "long": 64, "unsignedlong": 64, "longlong": 64, "unsignedlonglong": 64}
_PROMOTED_TO_INT = frozenset({"signedchar", "unsignedchar", "char", "bool", "short", "unsignedshort"})


def ambiguous_functions() -> dict[str, frozenset[str]]:
    """Name -> HIP's parameter types (normalized) of each :data:`CUDA_PARAMETER` function that
    HIP's headers define for two or more one-parameter integer types."""
    functions = device_overloads()[1]
    found = {}
    for name in CUDA_PARAMETER:
        types = frozenset(key[0] for key in functions.get(name, {}) if len(key) == 1 and key[0] in _INTEGERS)
        if len(types) >= 2:
            found[name] = types
    return found


def analyze_integer_overloads(ctx) -> None:
    """Cast the argument of each ambiguous call in ``ctx``'s file and report a 64-bit argument of
    a 32-bit intrinsic (HP2041); see the module docstring.

    Args:
        ctx: the analysis context of :mod:`hipport.analyze` (``source``, ``node_at``, ``report``,
            ``result.edits``).
    """
    functions = ambiguous_functions()
    if not functions or not any(name.encode() in ctx.source for name in functions):
        return
    typedefs = device_overloads()[0]
    pattern = re.compile(rb"(?<![A-Za-z0-9_$])(" + b"|".join(re.escape(n.encode()) for n in functions) + rb")(?=\s*\()")
    for match in pattern.finditer(ctx.source):
        node = ctx.node_at(*match.span())
        call = node.parent
        if node.type != "identifier" or call is None or call.type != "call_expression" \
                or call.child_by_field_name("function") != node:
            continue
        arguments = call.child_by_field_name("arguments")
        values = [c for c in arguments.named_children if c.type != "comment"] if arguments is not None else []
        if len(values) != 1:
            continue
        name = match.group(1).decode()
        parameter, bits = CUDA_PARAMETER[name]
        seen = argument_type(values[0])
        normalized = normalized_type(seen, typedefs) if seen is not None else None
        if normalized in functions[name]:
            continue
        if bits == 32 and (normalized is None or normalized in _PROMOTED_TO_INT or normalized not in _INTEGERS):
            continue
        argument = values[0]
        ctx.result.edits.append(Edit(argument.start_byte, argument.start_byte, f"({parameter})(".encode()))
        ctx.result.edits.append(Edit(argument.end_byte, argument.end_byte, b")"))
        if normalized is not None and _INTEGERS.get(normalized, 0) > bits:
            ctx.report("intrinsic-truncates", node, name=name, type=seen, parameter=parameter,
                       wide=f"{name}ll" if not name.endswith("ll") else name)
