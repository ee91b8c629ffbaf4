"""``min``/``max`` of two integers of different types in device code (HP2054).

CUDA 12.4 declares ``min`` and ``max`` for each integer type and for each signed/unsigned pair
of one rank (crt/math_functions.hpp lines 860-975: ``unsigned int min(int, unsigned int)``,
``unsigned long min(long, unsigned long)``, ``unsigned long long min(long long, unsigned long
long)`` and the reverse orders), so ``min(n, blockDim.x)`` with ``int n`` compares as ``unsigned
int`` and returns an ``unsigned int``; arguments of other mixed types are ambiguous there (nvcc
12.4: "more than one instance of overloaded function"). In HIP device code, clang's
``__clang_hip_cmath.h`` (``__HIP_OVERLOAD2(double, min)``, clang 19) declares a template for any
two arithmetic types of which the result is ``__promote<T1, T2>::type``, ``double`` for integers;
as an exact match it wins over every non-template overload, so the same call returns a
``double``: used as an array index it does not compile ("array subscript is not an integer"),
elsewhere it compiles and compares as ``double`` (``min(-1, 5u)`` is ``5u`` in CUDA and ``-1.0``
in HIP). Arguments of one type are unaffected (the non-template ``int min(int, int)`` or the
one-type template ``T min(T, T)`` wins).

The port casts each argument to CUDA's result type where the file shows both arguments' types
(:func:`integer_type`): both are integers of different types whose CUDA call resolves (after
the integer promotions, equal, or signed and unsigned of one rank). Then both arguments have
one type and HIP's call returns what CUDA's did. Where one argument's type is shown and is not
``int`` (``blockDim.x`` is an ``unsigned int``) and the other's is not, the call is reported
(HP2054): the port cannot tell which overload CUDA chose. Host code is left alone: there HIP
declares ``int min(int, int)`` only and CUDA all of the above, a difference no cast mends.
"""

from __future__ import annotations

import re

import tree_sitter

from .alternation import word_matches
from .device_context import device_code
from .edits import Edit
from .overloads import _lookup, base_type

_CALL = re.compile(rb"\b(?:min|max)(?=\s*\()")

#: Integer type spellings (after :func:`hipport.overloads.base_type`) -> (the type's one
#: spelling, (signed, rank) of the type after the integer promotions: rank 1 ``int``, 2 ``long``,
#: 3 ``long long``; LP64, as on the Linux hosts of CUDA 12.4 and ROCm).
_TYPES: dict[str, tuple[str, tuple[bool, int]]] = {}
for _names, _type in (
        (("int", "signed", "signed int", "int32_t", "std::int32_t"), ("int", (True, 1))),
        (("unsigned int", "unsigned", "uint32_t", "std::uint32_t", "uint"), ("unsigned int", (False, 1))),
        (("long", "long int", "signed long", "int64_t", "std::int64_t", "ssize_t", "ptrdiff_t", "std::ptrdiff_t",
          "intptr_t"), ("long", (True, 2))),
        (("unsigned long", "unsigned long int", "uint64_t", "std::uint64_t", "size_t", "std::size_t", "uintptr_t"),
         ("unsigned long", (False, 2))),
        (("long long", "long long int", "signed long long"), ("long long", (True, 3))),
        (("unsigned long long", "unsigned long long int"), ("unsigned long long", (False, 3))),
        (("short", "short int", "signed short", "int16_t", "std::int16_t"), ("short", (True, 1))),
        (("unsigned short", "unsigned short int", "uint16_t", "std::uint16_t"), ("unsigned short", (True, 1))),
        (("signed char", "int8_t", "std::int8_t"), ("signed char", (True, 1))),
        (("unsigned char", "uint8_t", "std::uint8_t"), ("unsigned char", (True, 1))),
        (("char",), ("char", (True, 1))),
        (("bool",), ("bool", (True, 1)))):
    for _name in _names:
        _TYPES[_name] = _type

#: (signed, rank) -> how the port spells the type in a cast.
_SPELLING = {(True, 1): "int", (False, 1): "unsigned int", (True, 2): "long", (False, 2): "unsigned long",
             (True, 3): "long long", (False, 3): "unsigned long long"}

#: The type of ``threadIdx.x`` and the other built-in index variables' members (``uint3``/``dim3``).
_INDEX_VARIABLES = frozenset({b"threadIdx", b"blockIdx", b"blockDim", b"gridDim"})

FLOATING = "floating"  # a known type that is not an integer
#: Arguments of more syntax nodes than this are not typed (a generated thousand-term sum would
#: exceed Python's recursion limit; no hand-written min/max argument comes near it).
_LARGEST_ARGUMENT = 400
_OBJECT_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?[ \t]*([0-9][0-9A-Za-z']*)[ \t]*\)?[ \t]*(?://[^\n]*)?$",
                           re.M)


def literal_type(text: str) -> "tuple[bool, int] | str | None":
    """The type of an integer literal's text (C++ [lex.icon]: the first of its list that holds the
    value, LP64), :data:`FLOATING` for a floating literal, None for text that is neither."""
    text = text.replace("'", "").lower().lstrip("+-")  # the grammar reads ``-1`` as one literal
    if not text or not text[0].isdigit():
        return None
    hexadecimal = text.startswith("0x")
    if (not hexadecimal and ("." in text or "e" in text)) or (hexadecimal and "p" in text) or text.endswith("f") \
            and not hexadecimal:
        return FLOATING
    digits = text.rstrip("ul")
    suffix = text[len(digits):]
    try:
        value = int(digits, 16 if hexadecimal else 2 if digits.startswith("0b") else 8 if digits.startswith("0")
                    and len(digits) > 1 else 10)
    except ValueError:
        return None
    unsigned, least_rank = "u" in suffix, 1 + min(suffix.count("l"), 2)
    decimal = not (hexadecimal or digits.startswith("0b") or (digits.startswith("0") and len(digits) > 1))
    for signed, rank in ((True, 1), (False, 1), (True, 2), (False, 2), (True, 3), (False, 3)):
        if rank < least_rank or (unsigned and signed) or (decimal and not unsigned and not signed):
            continue
        if value < 2 ** ((32 if rank == 1 else 64) - (1 if signed else 0)):
            return signed, rank
    return None


def _usual_conversions(left, right):
    """C++'s usual arithmetic conversions of two promoted integer types (signed, rank)."""
    if left == right:
        return left
    if left[0] == right[0]:
        return max(left, right, key=lambda t: t[1])
    unsigned, signed = (left, right) if not left[0] else (right, left)
    if unsigned[1] >= signed[1]:
        return unsigned
    if signed[1] >= 2 and unsigned[1] == 1:  # a 64-bit signed type holds every 32-bit unsigned value
        return signed
    return (False, signed[1])


class _Typer:
    """The types of integer expressions of one file where the source shows them."""

    def __init__(self, source: bytes):
        self.macros: dict[bytes, tuple[bool, int] | str | None] = {}
        if b"define" in source:
            for match in _OBJECT_MACRO.finditer(source):
                found = literal_type(match.group(2).decode("ascii", "replace"))
                # defined twice (``#if`` branches) with values of other types: unknown
                self.macros[match.group(1)] = found if self.macros.get(match.group(1), found) == found else None

    def raw(self, node: tree_sitter.Node):
        """(spelling, promoted (signed, rank)) of ``node``'s type, :data:`FLOATING`, or None."""
        kind = node.type
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self.raw(node.named_children[0])
        if kind == "number_literal":
            found = literal_type(node.text.decode("ascii", "replace"))
            return found if found in (None, FLOATING) else (_SPELLING[found], found)
        if kind == "char_literal" or kind in ("true", "false"):
            return ("int", (True, 1))
        if kind == "identifier":
            name = node.text
            if name in self.macros:
                found = self.macros[name]
                return found if found in (None, FLOATING) else (_SPELLING[found], found)
            declared = _lookup(node, name)
            return self._named(base_type(declared)) if declared else None
        if kind == "field_expression":
            argument, field = node.child_by_field_name("argument"), node.child_by_field_name("field")
            if argument is not None and argument.type == "identifier" and argument.text in _INDEX_VARIABLES \
                    and field is not None and field.text in (b"x", b"y", b"z"):
                return ("unsigned int", (False, 1))
            return None
        if kind == "cast_expression":
            type_node = node.child_by_field_name("type")
            if type_node is None or b"*" in type_node.text or b"&" in type_node.text:
                return None
            return self._named(base_type(type_node.text.decode("utf-8", "replace")))
        if kind == "call_expression":  # static_cast<T>(x) and T(x) of an integer type T
            function = node.child_by_field_name("function")
            if function is not None and function.type == "template_function":
                name = function.child_by_field_name("name")
                types = function.child_by_field_name("arguments")
                if name is not None and name.text == b"static_cast" and types is not None \
                        and types.named_child_count == 1:
                    return self._named(base_type(types.named_children[0].text.decode("utf-8", "replace")))
                return None
            if function is not None and function.type in ("primitive_type", "type_identifier", "identifier") \
                    and function.text.decode("utf-8", "replace") in _TYPES:
                return self._named(function.text.decode("utf-8", "replace"))
            return None
        if kind in ("sizeof_expression", "alignof_expression"):
            return ("unsigned long", (False, 2))
        if kind == "unary_expression":
            operator = node.child_by_field_name("operator")
            if operator is not None and operator.type == "!":
                return ("int", (True, 1))
            operand = node.child_by_field_name("argument")
            found = self.raw(operand) if operand is not None else None
            return found if found in (None, FLOATING) else (_SPELLING[found[1]], found[1])
        if kind == "binary_expression":
            operator = node.child_by_field_name("operator")
            operator = operator.type if operator is not None else ""
            if operator in ("==", "!=", "<", ">", "<=", ">=", "&&", "||"):
                return ("int", (True, 1))
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None:
                return None
            left = self.raw(left)
            if operator in ("<<", ">>"):
                return left if left in (None, FLOATING) else (_SPELLING[left[1]], left[1])
            if operator not in ("+", "-", "*", "/", "%", "&", "|", "^"):
                return None
            right = self.raw(right)
            if FLOATING in (left, right):
                return FLOATING
            if left is None or right is None:
                return None
            common = _usual_conversions(left[1], right[1])
            return (_SPELLING[common], common)
        if kind == "conditional_expression":
            first, second = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
            if first is None or second is None:
                return None
            first, second = self.raw(first), self.raw(second)
            if FLOATING in (first, second):
                return FLOATING
            if first is None or second is None:
                return None
            common = _usual_conversions(first[1], second[1])
            return (_SPELLING[common], common)
        return None

    def mentions(self, node: tree_sitter.Node, spelling: str) -> bool:
        """True when ``node`` or an expression inside it has the type ``spelling`` (one of
        :data:`_SPELLING`'s): an argument such as ``(size_t)BLOCK * ITEMS`` is then probably of
        that type too, and is not reported."""
        stack = [node]
        while stack:
            current = stack.pop()
            found = self.raw(current)
            if found not in (None, FLOATING) and found[0] == spelling:
                return True
            stack.extend(current.named_children)
        return False

    @staticmethod
    def _named(name: str):
        if name in _TYPES:
            return _TYPES[name]
        if name in ("float", "double", "half", "__half", "long double"):
            return FLOATING
        return None


def cuda_result(left: tuple[bool, int], right: tuple[bool, int]) -> "tuple[bool, int] | None":
    """The promoted type CUDA 12.4's ``min``/``max`` of these two promoted argument types
    returns, or None where nvcc finds the call ambiguous (see the module docstring)."""
    if left == right:
        return left
    if left[1] == right[1]:
        return (False, left[1])
    return None


def analyze_min_max(ctx) -> None:
    """Cast the arguments of each device-code ``min``/``max`` of two integer types that CUDA
    resolves and HIP does not in the same way, and report the calls whose other argument's type
    hipport cannot read (HP2054); see the module docstring.

    Args:
        ctx: the analysis context of :mod:`hipport.analyze` (``source``, ``node_at``, ``report``,
            ``result.edits``).
    """
    source = ctx.source
    if b"min" not in source and b"max" not in source:
        return
    calls, own = [], set()
    for match in word_matches(_CALL, source):
        node = ctx.node_at(*match.span())
        if node.type == "identifier" and node.parent is not None and node.parent.type == "function_declarator":
            own.add(node.text)  # the file declares its own min or max: its overloads decide
        calls.append(node)
    if re.search(rb"#[ \t]*define[ \t]+(?:min|max)\b", source):
        own |= {m.group(1) for m in re.finditer(rb"#[ \t]*define[ \t]+(min|max)\b", source)}
    typer = None
    for node in calls:
        if node.text in own:
            continue
        call = node.parent
        if node.type != "identifier" or call is None or call.type != "call_expression" \
                or call.child_by_field_name("function") != node:
            continue
        arguments = call.child_by_field_name("arguments")
        values = [c for c in arguments.named_children if c.type != "comment"] if arguments is not None else []
        if len(values) != 2 or device_code(ctx, call) is None:
            continue
        typer = typer or _Typer(source)
        if any(value.descendant_count > _LARGEST_ARGUMENT for value in values):
            continue  # the typing recurses through the expression (and reads each part again)
        seen = [typer.raw(value) for value in values]
        if FLOATING in seen:
            continue
        name = node.text.decode()
        if None in seen:
            known = [s for s in seen if s is not None]
            unknown = values[seen.index(None)]
            if known and known[0][1] != (True, 1) and not typer.mentions(unknown, known[0][0]):
                ctx.report("min-max-mixed-integers", call, name=name, known=known[0][0],
                           other=unknown.text.decode("utf-8", "replace"))
            continue
        (first, first_type), (second, second_type) = seen
        if first == second:
            continue
        result = cuda_result(first_type, second_type)
        if result is None:
            continue
        spelling = _SPELLING[result]
        for value, (raw, _) in zip(values, seen):
            if raw != spelling:
                ctx.result.edits.append(Edit(value.start_byte, value.start_byte, f"({spelling})(".encode()))
                ctx.result.edits.append(Edit(value.end_byte, value.end_byte, b")"))
