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
from .overloads import _SCOPES, base_type, scope_parameters
from .parse import code_only

_CALL = re.compile(rb"\b(?:min|max)(?=\s*\()")
_WORD = re.compile(rb"\b(?:min|max)\b")

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
_OBJECT_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?[ \t]*([0-9][0-9A-Za-z']*)[ \t]*\)?[ \t]*\r?$",
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
        self._scopes: dict[tuple[int, int], dict[bytes, list[tuple[int, str, int]]]] = {}
        if b"define" in source:
            for match in _OBJECT_MACRO.finditer(code_only(source)):  # not a #define in a comment
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
        if kind in ("true", "false"):
            return ("bool", (True, 1))
        if kind == "char_literal":
            prefix = node.text[:1]
            return {b"U": ("char32_t", (False, 1)), b"u": ("char16_t", (True, 1)),
                    b"L": ("wchar_t", (True, 1))}.get(prefix, ("char", (True, 1)))
        if kind == "identifier":
            name = node.text
            if name in self.macros:
                found = self.macros[name]
                return found if found in (None, FLOATING) else (_SPELLING[found], found)
            declared = self.lookup(node, name)
            if declared is None or declared[1]:
                return None  # not declared here, or a pointer or array
            return self._named(base_type(declared[0]))
        if kind in ("pointer_expression", "subscript_expression"):  # *p, p[i] of a T *p or T p[n]
            operator = node.child_by_field_name("operator")
            if kind == "pointer_expression" and (operator is None or operator.type != "*"):
                return None
            target = node.child_by_field_name("argument")
            while target is not None and target.type == "parenthesized_expression" and target.named_child_count == 1:
                target = target.named_children[0]
            if target is None or target.type != "identifier" or target.text in self.macros:
                return None
            declared = self.lookup(target, target.text)
            return self._named(base_type(declared[0])) if declared is not None and declared[1] == 1 else None
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
                return ("bool", (True, 1))
            operand = node.child_by_field_name("argument")
            found = self.raw(operand) if operand is not None else None
            return found if found in (None, FLOATING) else (_SPELLING[found[1]], found[1])
        if kind == "binary_expression":
            operator = node.child_by_field_name("operator")
            operator = operator.type if operator is not None else ""
            if operator in ("==", "!=", "<", ">", "<=", ">=", "&&", "||"):
                return ("bool", (True, 1))
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

    def lookup(self, use: tree_sitter.Node, name: bytes) -> "tuple[str, int] | None":
        """(type text, its pointer and array levels: :func:`_declared`) of the declaration of variable
        ``name`` seen at ``use``: the nearest one before it in an enclosing block, a parameter
        of the enclosing lambda or function, or at file scope (as
        :func:`hipport.overloads._lookup`, with each scope's declarations read once: a function
        of thousands of calls would otherwise read its block again for each)."""
        child, scope = use, use.parent
        while scope is not None:
            kind = scope.type
            if kind in ("lambda_expression", "function_definition"):
                parameters = scope_parameters(scope)
                found = self._declared_in(parameters, name, None) if parameters is not None else None
                if found is not None:
                    return found
            elif kind in _SCOPES:
                found = self._declared_in(scope, name, None if kind == "translation_unit" else child.start_byte)
                if found is not None:
                    return found
            child, scope = scope, scope.parent
        return None

    def _declared_in(self, scope: tree_sitter.Node, name: bytes, before: "int | None"):
        key = (scope.start_byte, scope.end_byte)
        table = self._scopes.get(key)
        if table is None:
            table = self._scopes[key] = {}
            for declaration in scope.named_children:
                if declaration.type not in ("declaration", "parameter_declaration"):
                    continue
                type_node = declaration.child_by_field_name("type")
                if type_node is None:
                    continue
                for declarator in declaration.children_by_field_name("declarator"):
                    declared, indirect = _declared(declarator)
                    if declared is not None:
                        table.setdefault(declared, []).append(
                            (declaration.start_byte, type_node.text.decode("utf-8", "replace"), indirect))
        entries = table.get(name)
        if not entries:
            return None
        if before is None:
            return entries[0][1:]
        earlier = [e for e in entries if e[0] < before]
        return earlier[-1][1:] if earlier else None

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


def _declared(declarator: "tree_sitter.Node | None") -> "tuple[bytes | None, int]":
    """(the identifier a declarator declares, how many pointer and array declarators are on the
    way to it: 1 for ``*p`` and ``s[32]``, 2 for ``**p``; a function's is 99); a reference
    (``&r``) is its type."""
    indirect = 0
    while declarator is not None:
        if declarator.type in ("identifier", "field_identifier"):
            return declarator.text, indirect
        if declarator.type in ("pointer_declarator", "array_declarator"):
            indirect += 1
        elif declarator.type == "function_declarator":
            indirect += 99
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in declarator.named_children if c.type.endswith("declarator")
                          or c.type == "identifier"), None)
        declarator = inner
    return None, indirect


#: Node types an occurrence of ``min``/``max`` may have without declaring one of its own:
#: text that is not code, and a member's use (``obj.min``).
_NOT_DECLARATIONS = frozenset({"comment", "string_literal", "string_content", "raw_string_literal", "char_literal",
                               "preproc_arg", "system_lib_string"})


def declared_names(ctx, pattern: re.Pattern[bytes]) -> set[bytes]:
    """The names ``pattern`` matches that the file gives a meaning of its own: every occurrence
    that is not an unqualified call's function (``min(a, b)``), a qualified name (``std::min``),
    a member's use (``obj.min(...)``) or text outside code: a function, method, macro, variable,
    lambda or parameter of that name, whose call then is not the library's."""
    own: set[bytes] = set()
    for match in word_matches(pattern, ctx.source):
        if match.group() in own:
            continue
        node = ctx.node_at(*match.span())
        parent = node.parent
        if node.type in _NOT_DECLARATIONS or parent is None or parent.type in _NOT_DECLARATIONS:
            continue
        if node.type == "identifier" and parent.type == "call_expression" \
                and parent.child_by_field_name("function") == node:
            continue
        if parent.type == "qualified_identifier" and parent.child_by_field_name("name") == node:
            continue  # std::min, ::min: another function, or CUDA's by its full name
        if node.type == "field_identifier" and parent.type == "field_expression":
            continue
        own.add(match.group())
    return own


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
    calls = [ctx.node_at(*match.span()) for match in word_matches(_CALL, source)]
    if not calls:
        return
    own = declared_names(ctx, _WORD)  # the file's own min/max (a method, macro, lambda...): not CUDA's
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
