"""Host-side API constructs whose renamed form does not compile for HIP (HP2050-HP2053).

Each pass reads one parsed file (its CUDA text, before renaming) and adds edits and findings:

- :func:`analyze_unported_case_labels` (HP2050): a ``case`` label naming a CUDA enumerator that
  has no HIP counterpart (``case CUFFT_NVSHMEM_FAILURE:`` in a switch over ``cufftResult``) is an
  undeclared name after porting. HIP's function never returns that value, so the case is removed
  (the label alone where another label falls into it or it falls into the next one).
- :func:`analyze_context_create_params` (HP2051): CUDA 12.5's four-argument
  ``cuCtxCreate(&ctx, params, flags, dev)`` (cuCtxCreate_v4, taking a ``CUctxCreateParams*``)
  becomes HIP 6.4's ``hipCtxCreate(&ctx, flags, dev)`` (hip/hip_runtime_api.h, ``hipError_t
  hipCtxCreate(hipCtx_t* ctx, unsigned int flags, hipDevice_t device)``) when the params
  argument is NULL or the address of a local ``CUctxCreateParams`` initialised empty and used
  nowhere else (its declaration is removed too); otherwise the call is reported.
- :func:`analyze_struct_member_spellings` (HP2052): a member CUDA and HIP spell differently
  (``rules/hip_headers/struct_members.yaml``: ``requestedHandleTypes``, ``hUploadStream``,
  ``gridDimX`` -> ``gridDim.x``...) is renamed where the object's declared type is that struct,
  else reported when the file names the struct at all.
- :func:`analyze_dim3_from_make_uint3` (no finding): ``d = make_uint3(x, y, z)`` on a variable
  declared ``dim3``, or initialising one: CUDA's ``dim3`` converts
  from ``uint3`` (vector_types.h, ``dim3(uint3 v)``), HIP 6.4's does not (hip/amd_detail/
  amd_hip_runtime.h ``struct dim3`` has only the three-integer constructor), so the call becomes
  ``dim3(x, y, z)``.
- :func:`analyze_initialised_vlas` (HP2053): ``T a[n] = {...}`` with a size that is not a
  constant: g++ and nvcc accept it, clang rejects it ("variable-sized object may not be
  initialized"); reported at the line.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

import tree_sitter

from .edits import Edit
from .parse import file_nodes, nodes_of_kinds
from .resources import load_data_yaml

if TYPE_CHECKING:
    from .analyze import _FileContext

_NULL = {b"NULL", b"nullptr", b"0", b"0L", b"(void*)0", b"((void*)0)"}
_FUNCTIONS = ("function_definition", "lambda_expression")


def _descendants(node: tree_sitter.Node, node_type: str) -> list[tree_sitter.Node]:
    """The nodes of type ``node_type`` in the subtree of ``node`` (``node`` included), in source
    order, outer before inner: one tree-sitter query (:func:`parse.nodes_of_kinds`) instead of a
    Python walk over every node, which took 3 of the 11 CPU s of converting cuda-samples."""
    return nodes_of_kinds(node, (node_type,))


def _enclosing(node: tree_sitter.Node, types) -> tree_sitter.Node | None:
    current = node.parent
    while current is not None and current.type not in types:
        current = current.parent
    return current


def _line_span(source: bytes, start: int, end: int) -> tuple[int, int]:
    """[start, end) widened to whole lines when only blanks lie before ``start`` on its line and
    after ``end`` on its line (the newline after ``end`` included)."""
    line_start = source.rfind(b"\n", 0, start) + 1
    line_end = source.find(b"\n", end)
    line_end = len(source) if line_end < 0 else line_end
    if source[line_start:start].strip() or source[end:line_end].strip():
        return start, end
    return line_start, min(line_end + 1, len(source))


def _remove(ctx: "_FileContext", start: int, end: int, names_at: list[tree_sitter.Node]) -> None:
    """Delete bytes [start, end): edits inside the range are dropped, and the findings reported
    at the identifiers ``names_at`` (about names the deletion takes away)."""
    ctx.result.edits[:] = [e for e in ctx.result.edits if not (start <= e.start and e.end <= end)]
    points = {(n.start_point[0] + 1, n.start_point[1] + 1) for n in names_at}
    ctx.result.findings[:] = [f for f in ctx.result.findings
                              if (f.line, f.column) not in points or f.rule_id.startswith("HP205")]
    ctx.result.edits.append(Edit(start, end, b""))


def _unported_enumerator(ctx: "_FileContext", name: str) -> bool:
    mapping = ctx.rules.identifiers.get(name)
    if mapping is None or mapping.kind != "enumerator":
        return False
    return ctx.rules.target(mapping)[0] is None


def _case_statements_falling_in(case: tree_sitter.Node) -> bool:
    previous = case.prev_named_sibling
    while previous is not None and previous.type == "comment":
        previous = previous.prev_named_sibling
    if previous is None or previous.type != "case_statement":
        return False
    return not [c for c in previous.named_children if c != previous.child_by_field_name("value")
                and c.type != "comment"]


def analyze_unported_case_labels(ctx: "_FileContext") -> None:
    """Remove the ``case`` labels naming CUDA enumerators with no HIP counterpart (HP2050).

    A case whose label is such an enumerator (a mapping of kind ``enumerator`` whose target is
    None) is deleted with its statements, whole lines where it stands alone; where the case has
    no statements of its own (it falls into the next) or the case before it has none (it falls
    into this one), only ``case NAME:`` is deleted. The HP2001/HP2008 findings at the label go
    with it; an HP2050 finding (info) names the enumerator.
    """
    if b"case" not in ctx.source:
        return
    for case in list(file_nodes(ctx, "case_statement")):
        value = case.child_by_field_name("value")
        if value is None or value.type != "identifier":
            continue
        name = ctx.text(value).decode("utf-8", "replace")
        if not _unported_enumerator(ctx, name):
            continue
        colon = next((c for c in case.children if c.type == ":"), None)
        if colon is None:
            continue
        body = [c for c in case.named_children if c != value and c.type != "comment"]
        family = ctx.rules.identifiers[name].family
        if not body or _case_statements_falling_in(case):
            start, end = _line_span(ctx.source, case.start_byte, colon.end_byte)
            removed = "the label"
        else:
            start, end = _line_span(ctx.source, case.start_byte, case.end_byte)
            removed = "the case"
        _remove(ctx, start, end, [value])
        ctx.report("unported-case-label", value, name=name, family=family, removed=removed)


def _declarations_of(scope: tree_sitter.Node, name: bytes, source: bytes):
    """(declaration node, declarator identifier) pairs declaring ``name`` directly in ``scope``'s
    subtree (functions nested in it left out)."""
    for declaration in _descendants(scope, "declaration"):
        for declarator in declaration.children_by_field_name("declarator"):
            target = declarator.child_by_field_name("declarator") if declarator.type == "init_declarator" else declarator
            if target is not None and target.type == "identifier" and source[target.start_byte:target.end_byte] == name:
                yield declaration, declarator, target


def _type_name(ctx: "_FileContext", declaration: tree_sitter.Node) -> str:
    type_node = declaration.child_by_field_name("type")
    if type_node is None:
        return ""
    words = ctx.text(type_node).decode("utf-8", "replace").split()
    return " ".join(w for w in words if w not in ("struct", "const", "volatile"))


def analyze_context_create_params(ctx: "_FileContext") -> None:
    """Port CUDA 12.5's four-argument ``cuCtxCreate`` to HIP's three-argument ``hipCtxCreate``
    (HP2051); see the module docstring for when the params argument is dropped."""
    if b"cuCtxCreate" not in ctx.source:
        return
    source = ctx.source
    for call in list(file_nodes(ctx, "call_expression")):
        function = call.child_by_field_name("function")
        if function is None or ctx.text(function) not in (b"cuCtxCreate", b"cuCtxCreate_v4"):
            continue
        arguments = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
        if len(arguments) != 4:
            continue
        params = arguments[1]
        text = b"".join(ctx.text(params).split())
        drop = text in _NULL
        declaration = None
        if not drop and text.startswith(b"&") and re.fullmatch(rb"&[A-Za-z_]\w*", text):
            name = text[1:]
            function_node = _enclosing(call, _FUNCTIONS)
            found = list(_declarations_of(function_node, name, source)) if function_node is not None else []
            if len(found) == 1:
                declaration, declarator, _ = found[0]
                value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
                empty = value is None or b"".join(ctx.text(value).split()) in (b"{}", b"{0}")
                uses = [n for n in _descendants(function_node, "identifier") if ctx.text(n) == name]
                only_here = len(uses) == 2 and any(u.start_byte >= params.start_byte and u.end_byte <= params.end_byte
                                                   for u in uses)
                drop = (empty and only_here and _type_name(ctx, declaration) == "CUctxCreateParams"
                        and len(declaration.children_by_field_name("declarator")) == 1)
                if not drop:
                    declaration = None
        if not drop:
            ctx.report("context-create-params", function, name=ctx.text(function).decode(),
                       params=ctx.text(params).decode("utf-8", "replace"))
            continue
        if function.type == "identifier" and ctx.text(function) == b"cuCtxCreate_v4":
            ctx.result.edits.append(Edit(function.start_byte, function.end_byte, b"hipCtxCreate"))
        ctx.result.edits.append(Edit(params.start_byte, arguments[2].start_byte, b""))
        if declaration is not None:
            start, end = _line_span(source, declaration.start_byte, declaration.end_byte)
            type_node = declaration.child_by_field_name("type")
            _remove(ctx, start, end, [n for n in _descendants(type_node, "type_identifier")])
        ctx.result.call_rewrites.append(("cuCtxCreate", "the 4-argument form (CUctxCreateParams) becomes hipCtxCreate(ctx, flags, dev)",
                                         call.start_point[0] + 1, call.start_point[1] + 1))


@lru_cache(maxsize=1)
def struct_member_spellings() -> dict[str, tuple[dict, ...]]:
    """CUDA member name -> its entries of ``rules/hip_headers/struct_members.yaml`` (each a dict
    with ``cuda_types`` (list of CUDA type names), ``cuda``, ``hip``, ``hip_type``, ``hip_header``)."""
    data = load_data_yaml("hip_headers", "struct_members.yaml")
    table: dict[str, list[dict]] = {}
    for entry in data["members"]:
        table.setdefault(entry["cuda"], []).append(entry)
    return {name: tuple(entries) for name, entries in table.items()}


def _declared_type(ctx: "_FileContext", node: tree_sitter.Node) -> tuple[str, bool] | None:
    """(type name, declared as a pointer) of the variable named by identifier ``node``: its
    declarations in the enclosing function (parameters and body), else at file scope; None when
    not found or declared twice with different types."""
    name = ctx.text(node)
    scopes = []
    function_node = _enclosing(node, _FUNCTIONS)
    if function_node is not None:
        scopes.append(function_node)
    scopes.append(ctx.root)
    for scope in scopes:
        seen = set()
        for kind in ("declaration", "parameter_declaration", "field_declaration"):
            if scope is ctx.root and kind != "declaration":
                continue
            for declaration in _descendants(scope, kind):
                if scope is ctx.root and _enclosing(declaration, _FUNCTIONS) is not None:
                    continue
                for declarator in declaration.children_by_field_name("declarator"):
                    pointer = False
                    target = declarator
                    while target is not None and target.type in ("init_declarator", "pointer_declarator",
                                                                  "reference_declarator"):
                        if target.type == "pointer_declarator":
                            pointer = True
                        target = (target.child_by_field_name("declarator") if target.type != "reference_declarator"
                                  else next((c for c in target.named_children), None))
                    if target is not None and target.type == "identifier" and ctx.text(target) == name:
                        seen.add((_type_name(ctx, declaration), pointer))
        if len(seen) == 1:
            return seen.pop()
        if seen:
            return None
    return None


def analyze_struct_member_spellings(ctx: "_FileContext") -> None:
    """Rename members CUDA and HIP spell differently where the object's type is known (HP2052)."""
    table = struct_member_spellings()
    if not any(name.encode() in ctx.source for name in table):
        return
    for field in list(_descendants(ctx.root, "field_expression")):
        member = field.child_by_field_name("field")
        if member is None or ctx.text(member).decode() not in table:
            continue
        entries = table[ctx.text(member).decode()]
        argument = field.child_by_field_name("argument")
        operator = ctx.text(field.child_by_field_name("operator") or member)
        known = _declared_type(ctx, argument) if argument is not None and argument.type == "identifier" else None
        entry = None
        if known is not None:
            entry = next((e for e in entries if known[0] in e["cuda_types"] and known[1] == (operator == b"->")), None)
            if entry is None:
                continue  # another struct's member of that name
            ctx.result.edits.append(Edit(member.start_byte, member.end_byte, entry["hip"].encode()))
            ctx.result.references_rewritten += 1
            continue
        first = next((e for e in entries if any(t.encode() in ctx.source for t in e["cuda_types"])), None)
        if first is None:
            continue  # the file never names the struct: the project's own member of that name
        ctx.report("struct-member-spelling", member, name=first["cuda"], hip=first["hip"],
                   struct=first["hip_type"], header=first["hip_header"])


def analyze_dim3_from_make_uint3(ctx: "_FileContext") -> None:
    """``make_uint3(x, y, z)`` (three arguments) assigned to a variable declared ``dim3`` (in the
    enclosing function, else at file scope) or initialising one becomes ``dim3(x, y, z)``; other
    uses (a launch configuration, helper_math.h's one- and two-argument overloads, whose
    meaning dim3's constructor does not share) are left alone."""
    if b"make_uint3" not in ctx.source or b"dim3" not in ctx.source:
        return
    for call in list(file_nodes(ctx, "call_expression")):
        function = call.child_by_field_name("function")
        if function is None or ctx.text(function) != b"make_uint3":
            continue
        arguments = call.child_by_field_name("arguments")
        if arguments is None or len([a for a in arguments.named_children if a.type != "comment"]) != 3:
            continue  # helper_math.h's make_uint3(s) is (s, s, s), dim3(s) is (s, 1, 1)
        parent = call.parent
        target = None
        if parent.type == "assignment_expression" and parent.child_by_field_name("right") == call:
            target = parent.child_by_field_name("left")
        elif parent.type == "init_declarator" and parent.child_by_field_name("value") == call:
            target = parent.child_by_field_name("declarator")
        if target is None:
            continue
        if target.type == "identifier":
            known = _declared_type(ctx, target)
            if known is None or known != ("dim3", False):
                continue
            ctx.result.edits[:] = [e for e in ctx.result.edits
                                   if not (e.start == function.start_byte and e.end == function.end_byte)]
            ctx.result.edits.append(Edit(function.start_byte, function.end_byte, b"dim3"))
            ctx.result.references_rewritten += 1


_CONSTANT_SIZE = re.compile(rb"[\s\d()+\-*/%<>uUlLxXa-fA-F]*")


def analyze_initialised_vlas(ctx: "_FileContext") -> None:
    """Report ``T a[n] = {...}`` whose size ``n`` is not a constant expression (HP2053).

    The size counts as constant when it is an integer literal expression, ``sizeof``, or a name
    declared ``const``/``constexpr`` (or an enumerator, or a macro: ``#define N 4``) in the file
    with no other declaration; other names (a parameter, a plain local) make the array
    variable-length.
    """
    if b"[" not in ctx.source:
        return
    source = ctx.source
    constants = None  # the file's macro and enumerator names, read when a candidate array needs them
    for declarator in list(file_nodes(ctx, "init_declarator")):
        array = declarator.child_by_field_name("declarator")
        value = declarator.child_by_field_name("value")
        if array is None or array.type != "array_declarator" or value is None or value.type != "initializer_list":
            continue
        if _enclosing(declarator, _FUNCTIONS) is None:
            continue
        size = array.child_by_field_name("size")
        if size is None:
            continue
        names = [n for n in _descendants(size, "identifier")]
        if not names or b"sizeof" in ctx.text(size):
            continue
        if constants is None:
            constants = set(re.findall(rb"#\s*define\s+([A-Za-z_]\w*)", source))
            for enumerator in file_nodes(ctx, "enumerator"):
                enumerator_name = enumerator.child_by_field_name("name")
                if enumerator_name is not None:
                    constants.add(ctx.text(enumerator_name))
        variable = False
        for name in names:
            if ctx.text(name) in constants:
                continue
            found = _declared_type(ctx, name)
            declarations = [d for scope in (_enclosing(name, _FUNCTIONS), ctx.root) if scope is not None
                            for d, _, _ in _declarations_of(scope, ctx.text(name), source)]
            qualified = any(b"const" in ctx.text(d).split(b"=")[0].split() or b"constexpr" in ctx.text(d)
                            for d in declarations)
            if found is None or not qualified:
                variable = True
                break
        if variable:
            ctx.report("initialised-vla", declarator, name=ctx.text(array).decode("utf-8", "replace"),
                       size=ctx.text(size).decode("utf-8", "replace"))
