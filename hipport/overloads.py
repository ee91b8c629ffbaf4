"""Calls of a device function HIP declares for fewer argument types than CUDA (HP2015).

HIP 6.4 keeps the names of ``__ldcs``, ``__ldg``, ``atomicAdd``, ``sincos``... but not all of CUDA's
overloads: ``__ldcs`` exists only for ``__half``/``__half2``, so ``__ldcs(const float *)`` keeps its
name in the port and fails to compile. The rule data lists, per such function, the CUDA overloads
HIP lacks (``overloads: {hip_lacks: [...], fix: ...}`` in ``rules/cuda_device.yaml``; the lists are
checked against HIP by compiling every CUDA overload, ``tests/test_device_mappings_compile.py``).

This pass finds the calls of those functions and decides from the source as written:

* a call whose argument count matches no lacking overload is fine (``fma(a, b, c)``: only CUDA's
  four-argument ``fma`` with a rounding mode is missing);
* otherwise the type of the argument that tells the overloads apart (the first, or the first
  whose type is not a plain number: curand_init's state) is read where the file shows it: a
  variable, array or
  pointer declared in the enclosing function, its parameters or at file scope (``&sum``,
  ``&out[i]``, ``p + i``), a C cast, or a floating literal (``1.0f`` is a float). A call whose
  argument has a type HIP lacks is reported, naming the type;
* a call whose argument's type cannot be read (a member, a template parameter, a call)
  is reported only for the functions whose entry says ``unknown_type: report``: those where HIP
  has only the half-precision overloads, so most uses fail (``__ldcs``, ``__ldcg``, ``__ldca``).

Both the argument's type and the lacking overload's are compared after hipport's renames and with
the typedefs HIP's headers declare resolved (``rules/hip_headers/device_overloads.yaml``, from
HIP 6.4.3's headers: ``half2`` is ``__half2``, ``uint64_t`` is ``unsigned long``), so
``atomicAdd((half2 *)p, v)`` is ``atomicAdd(__half2 *, __half2)``. The program's own typedefs are
not followed: ``u16 *p`` is taken to be fine. Macro bodies are not looked at.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .alternation import WORD_OR_DOLLAR_BYTES, trie_alternation, word_matches
from .device_overloads import device_overloads, normalized_type

if TYPE_CHECKING:
    import tree_sitter

    from .analyze import _FileContext
    from .rules import Mapping

_DROPPED_WORDS = re.compile(r"\b(?:const|volatile|struct|enum|__restrict__|__restrict|restrict|__shared__|"
                            r"__device__|__constant__|static|extern)\b|[*&]|\[[^\]]*\]")
_CANONICAL = {
    "unsigned": "unsigned int", "signed": "int", "signed int": "int", "long int": "long",
    "long long int": "long long", "unsigned long int": "unsigned long",
    "unsigned long long int": "unsigned long long", "short int": "short",
    "unsigned short int": "unsigned short", "long unsigned int": "unsigned long",
}
_SCOPES = frozenset({"compound_statement", "translation_unit", "declaration_list", "for_statement",
                     "template_declaration", "linkage_specification", "namespace_definition"})
#: Most lacking signatures named in one message; the rest are counted.
SHOWN = 4
#: Plain number types: a parameter of one of these rarely tells overloads apart (curand_init's seed).
_NUMBERS = frozenset({"bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int",
                      "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "float",
                      "double", "size_t"})


def base_type(text: str) -> str:
    """The type name under qualifiers, pointers, references and array bounds:
    ``const float *`` -> ``float``, ``unsigned`` -> ``unsigned int``."""
    words = " ".join(_DROPPED_WORDS.sub(" ", text).split())
    return _CANONICAL.get(words, words)


def _parameters(signature: str) -> list[str]:
    return [p.strip() for p in signature.split(",")] if signature.strip() else []


def key_position(signature: str) -> int:
    """The parameter that tells a lacking overload apart: the first whose type is not a plain
    number (``curandStateTest_t *`` in curand_init's four), else the first."""
    bases = [base_type(p) for p in _parameters(signature)]
    return next((i for i, b in enumerate(bases) if b not in _NUMBERS), 0)


def _declared_name(declarator: "tree_sitter.Node | None") -> bytes | None:
    """The identifier a declarator declares (``*p``, ``s[32]``, ``x = 0``, ``&r`` -> the name)."""
    while declarator is not None:
        if declarator.type in ("identifier", "field_identifier"):
            return declarator.text
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in declarator.named_children if c.type.endswith("declarator")
                          or c.type == "identifier"), None)
        declarator = inner
    return None


def _declaration_type(declaration: "tree_sitter.Node", name: bytes) -> str | None:
    """The type text of ``name`` if ``declaration`` (a declaration or parameter) declares it."""
    type_node = declaration.child_by_field_name("type")
    if type_node is None:
        return None
    for declarator in declaration.children_by_field_name("declarator"):
        if _declared_name(declarator) == name:
            return type_node.text.decode("utf-8", "replace")
    return None


def scope_parameters(scope: "tree_sitter.Node") -> "tree_sitter.Node | None":
    """The parameter list of a ``lambda_expression`` or ``function_definition`` node, or None."""
    declarator = scope.child_by_field_name("declarator")
    while declarator is not None and scope.type == "function_definition" and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    return declarator.child_by_field_name("parameters") if declarator is not None else None


def _lookup(node: "tree_sitter.Node", name: bytes) -> str | None:
    """The declared type of the variable ``name`` used at ``node``: the nearest declaration
    before it in an enclosing block, a parameter of the enclosing lambda or function, or at file
    scope."""
    child, scope = node, node.parent
    while scope is not None:
        if scope.type in ("lambda_expression", "function_definition"):
            parameters = scope_parameters(scope)
            for parameter in parameters.named_children if parameters is not None else ():
                found = _declaration_type(parameter, name)
                if found:
                    return found
        elif scope.type in _SCOPES:
            for sibling in scope.named_children:
                if sibling.start_byte >= child.start_byte and scope.type != "translation_unit":
                    break
                if sibling.type == "declaration":
                    found = _declaration_type(sibling, name)
                    if found:
                        return found
        child, scope = scope, scope.parent
    return None


def argument_type(argument: "tree_sitter.Node") -> str | None:
    """The base type (:func:`base_type`) of a call's argument where the source shows it, else None."""
    node = argument
    while True:
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        elif node.type == "pointer_expression" or node.type == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif node.type == "binary_expression" and node.child_by_field_name("operator").type in ("+", "-"):
            node = node.child_by_field_name("left")
        else:
            break
        if node is None:
            return None
    if node.type == "cast_expression":
        type_node = node.child_by_field_name("type")
        return base_type(type_node.text.decode("utf-8", "replace")) if type_node is not None else None
    if node.type == "number_literal":
        text = node.text.decode("ascii", "replace").lower()
        if text.startswith("0x"):
            return None
        if text.endswith("f"):
            return "float"
        return "double" if "." in text or "e" in text else None
    if node.type == "identifier":
        found = _lookup(node, node.text)
        return base_type(found) if found else None
    return None


def _resolved(ctx: "_FileContext", type_name: str) -> str:
    """``type_name`` (a :func:`base_type`) as HIP spells it: renamed as hipport renames it
    (``__nv_bfloat162`` -> ``__hip_bfloat162``), then through HIP's typedefs (``half2`` ->
    ``__half2``: :func:`hipport.device_overloads.device_overloads`), in one spelling
    (:func:`hipport.device_overloads.normalized_type`)."""
    if (mapping := ctx.rules.identifiers.get(type_name)) is not None:
        type_name = ctx.rules.target(mapping)[0] or type_name
    return normalized_type(type_name, device_overloads()[0])


def _abbreviated(name: str, signatures: list[str]) -> str:
    shown = ", ".join(f"{name}({s})" for s in signatures[:SHOWN])
    return shown + (f" and {len(signatures) - SHOWN} more" if len(signatures) > SHOWN else "")


def _check_call(ctx: "_FileContext", node: "tree_sitter.Node", mapping: "Mapping") -> None:
    call = node.parent
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return
    values = [c for c in arguments.named_children if c.type != "comment"]
    lacking = [s for s in mapping.hip_lacks if len(_parameters(s)) == len(values)]
    if not lacking:
        return
    if not values:
        found, matching = None, lacking
    else:
        found, matching = None, []
        for signature in lacking:
            position = key_position(signature)
            seen = argument_type(values[position])
            if seen is not None and _resolved(ctx, seen) == _resolved(ctx, base_type(_parameters(signature)[position])):
                found = seen
                matching.append(signature)
            elif seen is not None and found is None:
                found = ""  # readable, and not a type HIP lacks here
        if found == "":
            return  # a type HIP declares it for (or a typedef hipport does not follow)
        if found is None and not mapping.report_unknown_type:
            return
    ctx.report("missing-overload", node, name=mapping.cuda,
               type=found if found is not None else "an argument whose type hipport cannot read",
               lacks=_abbreviated(mapping.cuda, matching or lacking), fix=mapping.overload_fix)


def analyze_overloads(ctx: "_FileContext") -> None:
    """Report (HP2015) each call, in ``ctx``'s file, of a function whose rule entry lists CUDA
    overloads HIP lacks, where the call may use one of them (see the module docstring).

    Args:
        ctx: the analysis context of the file (:class:`hipport.analyze._FileContext`); findings
            go to ``ctx.result.findings``. Nothing is edited.
    """
    functions = ctx.rules.missing_overloads
    if not functions:
        return
    pattern = _pattern(tuple(sorted(functions)))
    for match in word_matches(pattern, ctx.source, WORD_OR_DOLLAR_BYTES):
        node = ctx.node_at(*match.span())
        if node.type != "identifier" or (node.start_byte, node.end_byte) != match.span():
            continue
        parent = node.parent
        if parent is None or parent.type != "call_expression" or parent.child_by_field_name("function") != node:
            continue
        _check_call(ctx, node, functions[match.group().decode("ascii")])


_PATTERNS: dict[tuple[str, ...], re.Pattern[bytes]] = {}


def _pattern(names: tuple[str, ...]) -> re.Pattern[bytes]:
    """One regex matching any of ``names`` followed by ``(`` (cached per name set); scanned with
    :func:`hipport.alternation.word_matches`, whole words only."""
    if names not in _PATTERNS:
        # a trie (hipport.alternation), not a flat alternation: the same matches, several times faster
        _PATTERNS[names] = re.compile(trie_alternation(n.encode("ascii") for n in names) + rb"(?=\s*\()")
    return _PATTERNS[names]
