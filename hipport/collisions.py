"""Definitions that collide once CUDA names are mapped, as in code copied from NVIDIA's sample
helpers (cuda-samples ``Common/``):

* **Overloads that become one function** (HP2007 ``mapped-overload-collision``). ``f(cudaError_t)``
  and ``f(CUresult)`` are two overloads in CUDA; both parameter types map to ``hipError_t``, so
  the port holds two definitions of ``f(hipError_t)``: a redefinition. The later definition is
  kept only where the earlier one is not compiled: the earlier gets ``#define
  HIPPORT_DEFINED_<f>_<n>`` right before it (inside whatever ``#if`` holds it), the later is
  wrapped in ``#ifndef HIPPORT_DEFINED_<f>_<n>`` ... ``#endif``. Definitions in exclusive
  branches of one ``#if``/``#else`` never collide and are left alone.
* **Operators HIP's vector types already have** (HP2005 ``vector-operator-guarded``, HP2006
  ``vector-operator-ambiguous``). CUDA's ``float2``... have no operators, so helper code defines
  ``operator*(float2, float2)``, ``operator+=(float3&, float3)``. HIP's (AMD) vector types
  define these as non-template hidden friends and members (hip/amd_detail/amd_hip_vector_types.h
  in HIP 6.4.3: members ``operator+=``/``-=``/``*=``/``/=`` and the other compound assignments
  of a ``const HIP_vector_type&``, lines 511-715; friends ``operator*`` and ``operator/`` of two
  vectors, lines 561 and 577; the same in HIP 5.7), so every use is ambiguous on AMD. The other
  HIP operators are templates, which a user's non-template beats. HIP's NVIDIA headers use
  CUDA's vector types, which have no operators. A user's definition that means the same
  (component-wise: it returns the vector type, or ``void``/a reference for a compound
  assignment) is kept for NVIDIA only, under ``#if !defined(__HIP_PLATFORM_AMD__)``; one that
  returns something else (``float operator*(float3, float3)`` as a dot product) cannot be
  dropped and is reported.
"""

from __future__ import annotations

import re
from collections import Counter

import tree_sitter

from .edits import Edit
from .parse import file_nodes

#: HIP's vector type names (hip/amd_detail/amd_hip_vector_types.h: ``__MAKE_VECTOR_TYPE__``).
VECTOR_TYPES = frozenset(f"{base}{n}" for base in (
    "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "ulonglong", "float", "double")
    for n in (1, 2, 3, 4))
#: Operators of two equal vector types that HIP defines as non-templates (see the module docstring).
_BINARY = frozenset({"*", "/"})
_COMPOUND = frozenset({"+=", "-=", "*=", "/=", "%=", "^=", "|=", "&=", ">>=", "<<="})
_TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|::|[^\sA-Za-z0-9_]")
_SCOPES = frozenset({"namespace_definition", "class_specifier", "struct_specifier", "union_specifier"})
_CONDITIONALS = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"})
_AMD_GUARD = b"#if !defined(__HIP_PLATFORM_AMD__)  // hipport: HIP's vector types define this operator on AMD"


def _function_declarator(definition: tree_sitter.Node) -> tree_sitter.Node | None:
    node = definition.child_by_field_name("declarator")
    while node is not None and node.type != "function_declarator":
        node = node.child_by_field_name("declarator") or (node.named_children[0] if node.named_children else None)
    return node


def _parameters(declarator: tree_sitter.Node) -> list[tree_sitter.Node]:
    parameters = declarator.child_by_field_name("parameters")
    return [p for p in parameters.named_children if p.type != "comment"] if parameters is not None else []


def _parameter_type(ctx, parameter: tree_sitter.Node, mapped: bool) -> str:
    """The type of a parameter as tokens (its name and default value left out), CUDA names
    mapped to their HIP names when ``mapped``."""
    return _parameter_types(ctx, parameter)[1 if mapped else 0]


def _parameter_types(ctx, parameter: tree_sitter.Node) -> tuple[str, str]:
    """(:func:`_parameter_type` unmapped, mapped) of ``parameter``, from one tokenization."""
    end = parameter.end_byte
    default = parameter.child_by_field_name("default_value")
    if default is not None:
        end = default.start_byte
    text = ctx.source[parameter.start_byte:end].rstrip().rstrip(b"=")
    name = _declared_name(parameter)
    name_at = name.start_byte - parameter.start_byte if name is not None else -1
    # the same parameter text is often written many times in a file (float *d_in): read each once
    cache = getattr(ctx, "cache", None)
    known = cache.setdefault("collisions.parameter_types", {}) if cache is not None else {}
    found = known.get((text, name_at))
    if found is not None:
        return found
    tokens, mapped_tokens = [], []
    identifiers = ctx.rules.identifiers
    for match in _TOKEN.finditer(text):
        if match.start() == name_at:
            continue
        word = match.group().decode("utf-8", "replace")
        tokens.append(word)
        if (mapping := identifiers.get(word)) is not None:
            word = ctx.rules.target(mapping)[0] or word
        mapped_tokens.append(word)
    found = known[(text, name_at)] = (" ".join(tokens), " ".join(mapped_tokens))
    return found


def _declared_name(parameter: tree_sitter.Node) -> tree_sitter.Node | None:
    node = parameter.child_by_field_name("declarator")
    while node is not None and node.type not in ("identifier", "field_identifier"):
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None else next((c for c in node.named_children if c.type == "identifier"), None)
    return node


def _scope(node: tree_sitter.Node, source: bytes) -> tuple[str, ...]:
    names = []
    parent = node.parent
    while parent is not None:
        if parent.type in _SCOPES:
            name = parent.child_by_field_name("name")
            names.append(source[name.start_byte:name.end_byte].decode("utf-8", "replace") if name else "")
        parent = parent.parent
    return tuple(reversed(names))


def _in_class(node: tree_sitter.Node) -> bool:
    """True when ``node`` is inside a class, struct or union (a member operator)."""
    parent = node.parent
    while parent is not None:
        if parent.type in ("class_specifier", "struct_specifier", "union_specifier"):
            return True
        parent = parent.parent
    return False


def _branch_path(node: tree_sitter.Node) -> list[tuple[int, int]]:
    """(id of each enclosing conditional, 0 for its first branch or the id of the #else/#elif
    branch the node is in), outermost first."""
    path = []
    child, parent = node, node.parent
    while parent is not None:
        if parent.type in _CONDITIONALS:
            alternative = parent.child_by_field_name("alternative")
            in_alternative = alternative is not None and alternative.start_byte <= child.start_byte < alternative.end_byte
            path.append((parent.id, alternative.id if in_alternative else 0))
        child, parent = parent, parent.parent
    return list(reversed(path))


def _exclusive(first: tree_sitter.Node, second: tree_sitter.Node) -> bool:
    """True when the two nodes sit in different branches of one ``#if``/``#else`` chain."""
    branches = dict(_branch_path(first))
    return any(conditional in branches and branches[conditional] != branch
               for conditional, branch in _branch_path(second))


def _line_start(source: bytes, offset: int) -> int | None:
    """The start of the line holding ``offset`` when only blanks precede it there, else None."""
    begin = source.rfind(b"\n", 0, offset) + 1
    return begin if source[begin:offset].strip(b" \t") == b"" else None


def _line_end(source: bytes, offset: int) -> int:
    """The offset just after the newline that ends the line holding ``offset`` (or the file's end)."""
    end = source.find(b"\n", offset)
    return len(source) if end < 0 else end + 1


def outermost_definitions(ctx) -> list[tree_sitter.Node]:
    """The function definitions of ``ctx``'s file (``ctx.root``) that are not inside another one
    (local classes inside function bodies are left out), in source order.

    One query finds every definition, sorted outer before inner, and a definition starting
    inside the last one kept is nested in it (tree nodes do not overlap, and a definition is
    never empty): the same nodes as a walk that stops at each definition, at a fraction of its
    cost. The list is kept in ``ctx.cache`` (where the context has one) for the other passes.
    """
    cache = getattr(ctx, "cache", None)
    if cache is not None and "outermost_definitions" in cache:
        return cache["outermost_definitions"]
    found = []
    end = -1
    for node in file_nodes(ctx, "function_definition"):
        if node.start_byte >= end:
            found.append(node)
            end = node.end_byte
    if cache is not None:
        cache["outermost_definitions"] = found
    return found


def _newline(source: bytes) -> bytes:
    return b"\r\n" if b"\r\n" in source else b"\n"


def analyze_collisions(ctx) -> None:
    """Guard or report the definitions of one file that collide after mapping (module docstring).

    Args:
        ctx: the analysis context of :mod:`hipport.analyze` (``source``, ``root``, ``rules``,
            ``report``, ``result.edits``).
    """
    source = ctx.source
    if b"(" not in source:
        return
    newline = _newline(source)
    seen: dict[tuple, list[tuple[tree_sitter.Node, tuple[str, ...]]]] = {}
    guards = 0
    named = []
    for definition in outermost_definitions(ctx):
        declarator = _function_declarator(definition)
        if declarator is None:
            continue
        name_node = declarator.child_by_field_name("declarator")
        if name_node is None:
            continue
        named.append((definition, declarator, name_node, ctx.text(name_node)))
    # only a name defined twice can collide: the parameter types are read for those alone
    count = Counter(name for *_, name in named)
    for definition, declarator, name_node, name_bytes in named:
        if name_node.type != "operator_name" and count[name_bytes] < 2:
            continue
        name = name_bytes.decode("utf-8", "replace")
        parameters = _parameters(declarator)
        if name_node.type == "operator_name" and _vector_operator(ctx, definition, name, parameters, newline):
            continue
        types = [_parameter_types(ctx, p) for p in parameters]
        original = tuple(unmapped for unmapped, _ in types)
        mapped = tuple(hip for _, hip in types)
        qualifiers = tuple(ctx.text(c).decode() for c in declarator.children if c.type == "type_qualifier")
        key = (_scope(definition, source), name, mapped, qualifiers)
        for earlier, earlier_original in seen.get(key, ()):
            if earlier_original == original or _exclusive(earlier, definition):
                continue
            guards += 1
            _guard_later(ctx, earlier, definition, name, original, earlier_original, mapped, guards, newline)
            break
        seen.setdefault(key, []).append((definition, original))


def _guard_later(ctx, earlier, later, name, original, earlier_original, mapped, number, newline) -> None:
    source = ctx.source
    first_line, later_line = _line_start(source, earlier.start_byte), _line_start(source, later.start_byte)
    macro = f"HIPPORT_DEFINED_{re.sub(r'[^A-Za-z0-9_]', '_', name)}_{number}".encode()
    fields = dict(params=", ".join(mapped) or "void", first=str(earlier.start_point[0] + 1),
                  types=" and ".join(f"{name}({', '.join(p) or 'void'})" for p in (earlier_original, original)))
    if first_line is None or later_line is None:
        ctx.report("mapped-overload-collision", later, name=name,
                   action="not guarded (the definitions do not start their lines): remove one by hand", **fields)
        return
    ctx.result.edits.append(Edit(first_line, first_line, b"#define " + macro + b"  // hipport: see below" + newline))
    ctx.result.edits.append(Edit(later_line, later_line, b"#ifndef " + macro + newline))
    end = _line_end(source, later.end_byte - 1)
    tail = b"" if source[end - 1:end] == b"\n" else newline
    ctx.result.edits.append(Edit(end, end, tail + b"#endif  // " + macro + newline))
    ctx.report("mapped-overload-collision", later, name=name,
               action=f"kept only where the first is not compiled (#ifndef {macro.decode()})", **fields)


def _vector_type(text: str) -> tuple[str, str] | None:
    """(vector type, how it is passed: ``value``, ``const&`` or ``&``) of a parameter type."""
    tokens = text.split()
    const = "const" in tokens
    tokens = [t for t in tokens if t not in ("const", "__restrict__")]
    ref = tokens[-1] == "&" if tokens else False
    if ref:
        tokens = tokens[:-1]
    if len(tokens) != 1 or tokens[0] not in VECTOR_TYPES:
        return None
    return tokens[0], ("const&" if const and ref else "&" if ref else "const" if const else "value")


def _vector_operator(ctx, definition, name: str, parameters, newline: bytes) -> bool:
    """Guard (or report) a free operator of two equal HIP vector types that HIP already defines;
    True when it was one."""
    symbol = name.removeprefix("operator").strip()
    if len(parameters) != 2 or symbol not in _BINARY | _COMPOUND or _in_class(definition):
        return False
    left = _vector_type(_parameter_type(ctx, parameters[0], True))
    right = _vector_type(_parameter_type(ctx, parameters[1], True))
    if left is None or right is None or left[0] != right[0] or right[1] == "&":
        return False
    vector = left[0]
    returned = definition.child_by_field_name("type")
    declarator = definition.child_by_field_name("declarator")
    result = (ctx.text(returned).decode() if returned is not None else "") + (
        "&" if declarator is not None and declarator.type == "reference_declarator" else "")
    if symbol in _COMPOUND:
        if left[1] != "&":
            return False
        safe = result in ("void", f"{vector}&")
    else:
        if left[1] == "&":
            return False
        safe = result == vector
    where = "a member" if symbol in _COMPOUND else "a friend"
    start = _line_start(ctx.source, definition.start_byte)
    if not safe or start is None:
        ctx.report("vector-operator-ambiguous", definition, name=name, vector=vector, where=where,
                   result=result or "?")
        return True
    ctx.result.edits.append(Edit(start, start, _AMD_GUARD + newline))
    end = _line_end(ctx.source, definition.end_byte - 1)
    tail = b"" if ctx.source[end - 1:end] == b"\n" else newline
    ctx.result.edits.append(Edit(end, end, tail + b"#endif" + newline))
    ctx.report("vector-operator-guarded", definition, name=name, vector=vector, where=where, result=result)
    return True
