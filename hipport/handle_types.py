"""Integer operations on CUDA handles whose HIP twin is a pointer (HP1216).

CUDA 12.4 defines some handles as integers and HIP 6.4.3 defines their twins as pointers:
``CUdeviceptr`` is ``unsigned long long`` (cuda.h:258) and ``hipDeviceptr_t`` is ``void *``
(hip/driver_types.h:47); ``cudaTextureObject_t``/``CUtexObject`` and
``cudaSurfaceObject_t``/``CUsurfObject`` are ``unsigned long long`` and HIP's
``hipTextureObject_t``/``hipSurfaceObject_t`` are ``struct __hip_texture *`` and ``struct
__hip_surface *``. The facts are the ``representation`` fields of the type entries in
``rules/cuda_driver.yaml`` and ``rules/cuda_runtime.yaml`` (written by
``tools/import_hipify_tables.py`` from ``_INTEGER_HANDLES``); an entry counts here when its CUDA
definition starts with an integer type and its HIP definition ends in ``*``.

Code that treats such a handle as the integer it is in CUDA does not compile once renamed; this
module reports each such use in one file, at the operation:

- an arithmetic or bitwise binary operator with a handle operand (``*dptr + n``: "arithmetic on
  a pointer to void"; ``obj >> 32``: "invalid operands to binary expression"), ``++``/``--`` of
  a handle, and a compound assignment (``+=``, ``|=`` ...) with a handle on either side;
- ``static_cast`` of a handle to an integer type, or of a value that is not a handle to a handle
  type; a C-style cast of a handle to an integer type narrower than 64 bits (``(uint)obj``,
  "cast from pointer to smaller type"); a C-style cast to ``unsigned long long`` or to the handle
  type compiles in HIP and is not reported;
- ``h = v`` and ``T h = v`` where ``v`` is an integer: a number other than 0 (0 is a null
  pointer constant), ``sizeof``, or a variable declared with an integer type in the file.

A handle value is a variable, parameter or member declared in the file with one of the types
(``CUdeviceptr d``, ``CUdeviceptr *p`` read as ``*p`` or ``p[i]``, ``s.ptr``/``s->ptr`` where
some struct of the file declares ``ptr`` with the type), a cast to the type (``(CUdeviceptr)x``,
``*reinterpret_cast<CUdeviceptr *>(buf)``), read through parentheses. A name is looked up in the
function around its use (parameters and body) when that declares it, else at file scope, and
counts only when every declaration found there has the handle type (a name declared twice there
with different types is left alone); a member name counts when every struct of the file that
declares it gives it the handle type. Typedefs of the handle types are not followed. The result
of an operation is not a handle value again, so ``(h | x) << 32`` is reported once.

An integer is a known integer expression: a number, ``sizeof``, a variable or member the file
declares with an integer type, a macro the file defines once as an integer constant
(:func:`integer_macro_body`: ``#define SLOT 4ULL * 1024ULL``), a cast to an integer type, and ``+ - * / % & | ^ << >>`` and unary
``- + ~`` of known integers (a bare ``0`` is a null pointer constant and not reported).

With ``convert --fix`` the uses whose rewrite keeps CUDA's exact value are rewritten (HP1222 in
place of HP1216), for the handles HIP defines as ``void *`` (``CUdeviceptr`` ->
``hipDeviceptr_t``; a texture or surface object is an opaque pointer in HIP, never rewritten):

- ``h = v`` and ``CUdeviceptr h = v`` with ``v`` a known integer become ``h =
  (hipDeviceptr_t)(uintptr_t)(v)``: the integer, converted to ``uintptr_t`` (64 bits on the
  64-bit targets HIP supports, like CUDA's ``unsigned long long``, so the same value modulo
  2^64), is stored as the pointer's bits, which is what CUDA stored;
- ``d + n``, ``n + d`` and ``d - n`` with ``d`` a handle value and ``n`` a known integer become
  ``(hipDeviceptr_t)((char *)d + n)`` (the operands stay in place): CUDA adds ``n`` bytes to the
  address held in the integer, ``char *`` arithmetic adds ``n`` bytes to the pointer. Rewritten
  only where the result is used as a handle: the value of ``CUdeviceptr x = ...`` or of an
  assignment to a handle, the operand of a cast to a pointer type or to the handle type, or the
  argument of a driver function at a ``CUdeviceptr`` parameter (:func:`deviceptr_parameters`);
  elsewhere, in integer arithmetic or at an integer parameter, a pointer would not compile.

Everything else keeps its HP1216 error.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING

from .alternation import WORD_OR_DOLLAR_BYTES, contains_any, trie_alternation, word_matches
from .edits import Edit
from .parse import END_BYTE, START_BYTE, file_nodes, nodes_around, nodes_of_kinds

if TYPE_CHECKING:
    import tree_sitter

    from .analyze import _FileContext
    from .rules import Mapping, RuleSet

_DECLARATIONS = ("declaration", "parameter_declaration", "optional_parameter_declaration", "field_declaration")
_DECLARATION_KINDS = frozenset(_DECLARATIONS)
#: The node kinds :func:`analyze_handle_types` looks at (the operations of the module docstring).
_OPERATIONS = ("binary_expression", "update_expression", "assignment_expression", "init_declarator",
               "cast_expression", "call_expression")
_OPERATION_KINDS = frozenset(_OPERATIONS)
_ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"})
_COMPOUND = frozenset({"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
_INTEGER_WORDS = re.compile(r"(?:(?:const|volatile|signed|unsigned|short|long|int|char|bool)\b\s*)+$"
                            r"|(?:std::)?u?int(?:8|16|32|64|ptr|max)_t$|(?:std::)?s?size_t$|ptrdiff_t$"
                            r"|uint$|ushort$|uchar$|ulong$")
#: Integer types at least as wide as a 64-bit pointer (a C-style cast of a pointer to one compiles).
_WIDE = re.compile(r"(?:unsigned\s+)?long(?:\s+long)?(?:\s+int)?$|(?:std::)?u?int(?:64|ptr|max)_t$"
                   r"|(?:std::)?s?size_t$|ptrdiff_t$|ulong$|(?:signed\s+)?long(?:\s+long)?(?:\s+int)?$")
#: Integer literals (C and C++ digits, separators and suffixes); a floating literal is not one.
_INTEGER_LITERAL = re.compile(r"(?:0[xX][0-9a-fA-F']+|0[bB][01']+|[0-9][0-9']*)[uUlLzZ]*")
_NULL_LITERAL = re.compile(r"0+[uUlL]*|0[xX]0+[uUlL]*")
_INTEGER_OPERATORS = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"})
#: A name as the declarations index it (the words an operation's names can be).
_WORD = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
#: tree-sitter's token that starts a ``preproc_def`` (grammar.js: ``preprocessor('define')``).
_DEFINE = re.compile(rb"#[ \t]*define")
#: A file can hold a handle operation only if it names one of the handle types (a substring of each).
_PREFILTER = (b"CUdeviceptr", b"TextureObject_t", b"SurfaceObject_t", b"CUtexObject", b"CUsurfObject")


def deviceptr_parameters() -> dict[str, list[int]]:
    """CUDA driver function name (``cuMemMap``) -> the 0-based positions of its ``CUdeviceptr``
    parameters: ``rules/toolkit/cuda_deviceptr_parameters.yaml``, generated from CUDA 12.4's
    cuda.h by ``tools/cuda_deviceptr_parameters.py``. Read once per process."""
    global _DEVICEPTR_PARAMETERS
    if _DEVICEPTR_PARAMETERS is None:
        from .resources import load_data_yaml

        _DEVICEPTR_PARAMETERS = dict(load_data_yaml("toolkit", "cuda_deviceptr_parameters.yaml")["functions"])
    return _DEVICEPTR_PARAMETERS


_DEVICEPTR_PARAMETERS: dict[str, list[int]] | None = None


def integer_handles(rules: "RuleSet") -> dict[str, "Mapping"]:
    """The CUDA type names that are integers in CUDA and pointers in HIP.

    Args:
        rules: the loaded rules; read from the ``representation`` of their type mappings.

    Returns:
        CUDA type name (``CUdeviceptr``) -> its :class:`hipport.rules.Mapping`.
    """
    cached = getattr(rules, "_integer_handles", None)
    if cached is None:
        cached = {name: m for name, m in rules.identifiers.items()
                  if m.representation and m.hip and _INTEGER_WORDS.match(m.representation[0].split(" (")[0].strip())
                  and m.representation[1].split(" (")[0].strip().endswith("*")}
        try:
            object.__setattr__(rules, "_integer_handles", cached)
        except (AttributeError, TypeError):
            pass
    return cached


_MACRO_TOKEN = re.compile(rb"0[xX][0-9a-fA-F']+[uUlL]*|[0-9][0-9']*[uUlL]*|<<|>>|[-+*/%&|^~()]|\S")
_LITERAL_TOKEN = re.compile(rb"0[xX][0-9a-fA-F']+[uUlL]*|[0-9][0-9']*[uUlL]*")


def integer_macro_body(body: bytes) -> bool:
    """True when a macro body is an integer constant that reads the same wherever it is expanded
    next to ``+`` or ``-``: integer literals and operators only, with no operator outside
    parentheses but ``* / %`` (``4ULL * 1024ULL``, ``(1 << 20)``; not ``1 << 20``, which next
    to a ``+`` would shift the sum)."""
    tokens = _MACRO_TOKEN.findall(body.split(b"//")[0].split(b"/*")[0])
    if not tokens or not any(_LITERAL_TOKEN.fullmatch(t) for t in tokens):
        return False
    depth = 0
    for token in tokens:
        if token == b"(":
            depth += 1
        elif token == b")":
            depth -= 1
            if depth < 0:
                return False
        elif _LITERAL_TOKEN.fullmatch(token):
            continue
        elif token not in (b"+", b"-", b"*", b"/", b"%", b"&", b"|", b"^", b"~", b"<<", b">>"):
            return False
        elif depth == 0 and token not in (b"*", b"/", b"%"):
            return False
    return depth == 0


def _text(ctx: "_FileContext", node) -> str:
    return ctx.text(node).decode("utf-8", "replace")


def _norm(type_text: str) -> str:
    return " ".join(type_text.replace("const", " ").replace("volatile", " ").split())


def _unparenthesized(node):
    """``node`` read through its parentheses: ``((x))`` -> ``x`` (None stays None)."""
    while node is not None and node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node


def _declared(node: "tree_sitter.Node") -> tuple[bytes, int] | None:
    """(name, pointer or array depth) of one declarator; None for a function declarator."""
    depth = 0
    while node is not None:
        kind = node.type
        if kind in ("identifier", "field_identifier"):
            return node.text, depth
        if kind == "function_declarator":
            return None
        if kind in ("pointer_declarator", "array_declarator"):
            depth += 1
        node = node.child_by_field_name("declarator") or (node.named_children[0] if kind in (
            "parenthesized_declarator", "reference_declarator") and node.named_children else None)
    return None


class _FunctionSpans:
    """The function definition around a node, by binary search in the file's definitions (a walk
    up the parents costs the depth of the tree per node: 0.24 CPU s for 78,000 nodes of a 5 MB file).

    A tree node lies inside exactly the nodes whose byte ranges hold its start (children lie
    within their parent, siblings do not overlap), so the innermost definition holding a node's
    start byte is the one a walk up its parents meets first. Definitions are sorted by start
    (outer before inner); each keeps the index of the one around it."""

    def __init__(self, ctx: "_FileContext"):
        definitions = file_nodes(ctx, "function_definition")
        self.starts = [d.start_byte for d in definitions]
        self.ends = [d.end_byte for d in definitions]
        self.outer: list[int] = []
        open_: list[int] = []
        for index, start in enumerate(self.starts):
            while open_ and self.ends[open_[-1]] <= start:
                open_.pop()
            self.outer.append(open_[-1] if open_ else -1)
            open_.append(index)

    def of(self, node) -> int:
        """The start byte of the innermost definition around ``node`` (not ``node`` itself, which
        is never a definition here), or -1 at file scope."""
        offset = node.start_byte
        index = bisect.bisect_right(self.starts, offset) - 1
        while index >= 0 and self.ends[index] <= offset:
            index = self.outer[index]
        return self.starts[index] if index >= 0 else -1


class Declarations:
    """The declarations of variables, parameters and members in one file, read from the syntax
    tree (declarations, parameters, struct fields; typedefs are not followed).

    A declaration is read when a name it may declare is first looked up, not all up front (a
    50 MB file holds 550,000 declarations, and the handle-type pass looks up the names of a few
    thousand operations): the name's whole-word occurrences are found in the text, and every
    declaration around one of them (:func:`hipport.parse.nodes_around`) is read. A declaration of ``n`` holds ``n``'s identifier, a whole word of the source, so
    every declaration of ``n`` is among those read.

    Attributes:
        variables: name (bytes) -> start byte of the function definition the declaration is in
            (-1 at file scope) -> the (type text with const/volatile dropped, pointer-or-array
            depth) of each declaration of it there; indexed by function so that looking a name up
            costs the same in a file of one function and of ten thousand. Complete for the names
            looked up (:meth:`resolve`), partial for the others.
        fields: name (bytes) -> the (type text, depth, -1) of each member of that name in the
            file's structs and classes; complete for the names looked up, as ``variables``.
    """

    #: Names looked up one at a time (a scan of the file each) before the rest of the file's
    #: declarations are read at once, which bounds the cost of callers that look up names
    #: without :meth:`resolve` first.
    SINGLE_LOOKUPS = 8

    def __init__(self, ctx: "_FileContext"):
        """The declarations of ``ctx``'s file, none read yet: each is read when a name it may declare
        is looked up (:meth:`resolve`, :meth:`of`, :meth:`field`)."""
        self.variables: dict[bytes, dict[int, set[tuple[str, int]]]] = {}
        self.fields: dict[bytes, set[tuple[str, int, int]]] = {}
        self._ctx = ctx
        self._functions = _FunctionSpans(ctx)
        self._integer_macros: frozenset[bytes] | None = None
        self._read: set[int] = set()  # the ids of the declaration nodes read
        self._resolved: set[bytes] = set()
        self._all_read = False
        self._single_lookups = 0

    @property
    def integer_macros(self) -> frozenset[bytes]:
        """The object-like macros the file defines once, as integer constants
        (:func:`integer_macro_body`): the ``preproc_def`` nodes, found from the ``#define``
        tokens of the text (tree-sitter's token for the directive is ``#[ \\t]*define``)."""
        if self._integer_macros is None:
            bodies: dict[bytes, list[bytes]] = {}
            node_at = self._ctx.root.descendant_for_byte_range
            for match in _DEFINE.finditer(self._ctx.source):
                node = node_at(match.start(), match.start() + 1).parent
                if node is None or node.type != "preproc_def" or node.start_byte != match.start():
                    continue  # in a comment or literal, or a function-like macro
                name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
                if name is not None:
                    bodies.setdefault(name.text, []).append(value.text if value is not None else b"")
            self._integer_macros = frozenset(
                name for name, values in bodies.items() if len(values) == 1 and integer_macro_body(values[0]))
        return self._integer_macros

    def resolve(self, names) -> None:
        """Read every declaration of the file that may declare one of ``names`` (bytes), with one
        scan of the text for all of them; afterwards :meth:`of`, :meth:`field` and
        :meth:`integer` answer for them without another scan."""
        pending = {name for name in names if name not in self._resolved}
        if not pending or self._all_read:
            return
        if any(not name or not WORD_OR_DOLLAR_BYTES.issuperset(name) for name in pending):
            self._read_all()  # a name of other bytes: the whole-word scan needs name bytes
            return
        pattern = re.compile(trie_alternation(pending) + rb"(?![A-Za-z0-9_$])")
        self._read_around([match.start() for match in word_matches(pattern, self._ctx.source, WORD_OR_DOLLAR_BYTES)])
        self._resolved |= pending

    def resolve_typed(self, type_names) -> None:
        """Read every declaration whose type may be one of ``type_names`` (str): those around an
        occurrence of one of them anywhere in the text (a type text equal to the name once
        const and volatile are dropped holds the name), so that :attr:`variables` and
        :attr:`fields` hold every entry of one of those types."""
        if self._all_read or not type_names:
            return
        pattern = re.compile(trie_alternation({name.encode() for name in type_names}))
        self._read_around([match.start() for match in pattern.finditer(self._ctx.source)])

    def _read_around(self, offsets: list[int]) -> None:
        """Read the declarations that hold one of the byte ``offsets`` (:func:`hipport.parse.nodes_around`)."""
        for node in nodes_around(self._ctx.root, offsets, _DECLARATION_KINDS):
            if node.id not in self._read:
                self._read_declaration(node)

    def _read_all(self) -> None:
        for node in nodes_of_kinds(self._ctx.root, _DECLARATIONS):
            if node.id not in self._read:
                self._read_declaration(node)
        self._all_read = True

    def _lookup(self, name: bytes) -> None:
        if self._all_read or name in self._resolved:
            return
        if self._single_lookups >= self.SINGLE_LOOKUPS:
            self._read_all()
            return
        self._single_lookups += 1
        self.resolve((name,))

    def _read_declaration(self, node) -> None:
        self._read.add(node.id)
        type_node = node.child_by_field_name("type")
        if type_node is None:
            return
        type_text = _norm(_text(self._ctx, type_node))
        fields = node.type == "field_declaration"
        function = -1 if fields else self._functions.of(node)
        for declarator in node.children_by_field_name("declarator"):
            found = _declared(declarator)
            if found is None:
                continue
            if fields:
                self.fields.setdefault(found[0], set()).add((type_text, found[1], -1))
            else:
                self.variables.setdefault(found[0], {}).setdefault(function, set()).add((type_text, found[1]))

    def of(self, name: bytes, use) -> set[tuple[str, int]]:
        """The (type, depth) of the declarations of variable ``name`` seen at node ``use``: those
        of the function around it when it declares the name (parameters included), else those
        at file scope."""
        self._lookup(name)
        by_function = self.variables.get(name)
        if not by_function:
            return set()
        function = self._functions.of(use)
        return (function != -1 and by_function.get(function)) or by_function.get(-1, set())

    def in_member(self, name: bytes, use) -> set[tuple[str, int]]:
        """As :meth:`of` for a ``use`` inside a member function (:func:`_in_member_function`),
        in C++'s order: the function's own declarations, then the class's members (the file's
        structs' members of that name), then file scope."""
        self._lookup(name)
        by_function = self.variables.get(name) or {}
        function = self._functions.of(use)
        local = by_function.get(function) if function != -1 else None
        return local or self.field(name) or by_function.get(-1, set())

    def field(self, name: bytes) -> set[tuple[str, int]]:
        """The (type, depth) of every member named ``name`` in the file's structs and classes."""
        self._lookup(name)
        return {(t, d) for t, d, _ in self.fields.get(name, ())}

    @staticmethod
    def _only(entries: set[tuple[str, int]], handles, depth: int) -> str | None:
        if len(entries) != 1:
            return None
        ((type_text, declared_depth),) = entries
        return type_text if declared_depth == depth and type_text in handles else None

    def integer(self, name: bytes, use) -> bool:
        """True when every declaration of variable ``name`` seen at ``use`` has an integer type,
        or, with none, when the file defines ``name`` once as an integer constant macro."""
        entries = self.in_member(name, use) if _in_member_function(use) else self.of(name, use)
        if not entries:
            return name in self.integer_macros
        return all(d == 0 and _INTEGER_WORDS.match(t) for t, d in entries)


def _in_member_function(node) -> bool:
    """True when ``node`` is inside a member function's body: a function defined in a class or
    struct body, or one whose name is qualified (``Vec::grow``, defined outside the class)."""
    function = node.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    if function is None:
        return False
    parent = function.parent
    if parent is not None and parent.type == "template_declaration":
        parent = parent.parent  # template <class T> size_t at() const {...} in the class
    if parent is not None and parent.type == "field_declaration_list":
        return True
    declarator = function.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    return name is not None and name.type == "qualified_identifier"


class _Finder:
    def __init__(self, ctx: "_FileContext", handles: dict[str, "Mapping"]):
        self.ctx = ctx
        self.handles = handles
        self.names = Declarations(ctx)

    def cast_type(self, node) -> str | None:
        """The type text of a ``static_cast``/``reinterpret_cast<T>`` call, else None."""
        function = node.child_by_field_name("function")
        if function is None or function.type != "template_function":
            return None
        name = function.child_by_field_name("name")
        arguments = function.child_by_field_name("arguments")
        if name is None or arguments is None or not arguments.named_children:
            return None
        return _norm(_text(self.ctx, arguments.named_children[0]))

    def handle(self, node, depth: int = 0) -> str | None:
        """The CUDA handle type of the value of expression ``node`` read through ``depth``
        dereferences, or None when it is not known to be one."""
        node = _unparenthesized(node)
        if node is None:
            return None
        kind = node.type
        if kind == "identifier":
            # in a member function a member named by itself (``this->`` implied) hides a global
            declared = (self.names.in_member(node.text, node) if _in_member_function(node)
                        else self.names.of(node.text, node))
            return Declarations._only(declared, self.handles, depth)
        if kind == "field_expression":
            field = node.child_by_field_name("field")
            return Declarations._only(self.names.field(field.text), self.handles, depth) if field is not None else None
        if kind == "pointer_expression" and node.child_by_field_name("operator").type == "*":
            return self.handle(node.child_by_field_name("argument"), depth + 1)
        if kind == "subscript_expression":
            return self.handle(node.child_by_field_name("argument"), depth + 1)
        if kind == "cast_expression":
            return self._typed(_norm(_text(self.ctx, node.child_by_field_name("type"))), depth)
        if kind == "call_expression":
            cast = self.cast_type(node)
            return self._typed(cast, depth) if cast is not None else None
        return None

    def _typed(self, type_text: str, depth: int) -> str | None:
        base = type_text.replace(" ", "").rstrip("*")
        stars = len(type_text.replace(" ", "")) - len(base)
        return base if base in self.handles and stars == depth else None

    def integer_expression(self, node) -> bool:
        """True when expression ``node`` is a known integer (the module docstring's list).

        An operator's operands are checked from a stack, not by recursion: a sum of a thousand
        terms (``1 + 1 + ...``, nested once per ``+``) would exceed Python's recursion limit."""
        pending = [node]
        while pending:
            node = pending.pop()
            node = _unparenthesized(node)
            if node is None:
                return False
            kind = node.type
            if kind == "binary_expression":
                if node.child_by_field_name("operator").type not in _INTEGER_OPERATORS:
                    return False
                pending += (node.child_by_field_name("right"), node.child_by_field_name("left"))  # left first
            elif kind == "unary_expression":
                if node.child_by_field_name("operator").type not in ("-", "+", "~"):
                    return False
                pending.append(node.child_by_field_name("argument"))
            elif not self._integer_operand(node):
                return False
        return True

    def _integer_operand(self, node) -> bool:
        """:meth:`integer_expression` of ``node``, not parenthesized and not an operator."""
        kind = node.type
        if kind == "number_literal":
            return _INTEGER_LITERAL.fullmatch(_text(self.ctx, node)) is not None
        if kind == "sizeof_expression":
            return True
        if kind == "identifier":
            return self.names.integer(node.text, node)
        if kind == "field_expression":
            field = node.child_by_field_name("field")
            entries = self.names.field(field.text) if field is not None else set()
            return bool(entries) and all(d == 0 and _INTEGER_WORDS.match(t) for t, d in entries)
        if kind == "cast_expression":
            return _INTEGER_WORDS.match(_norm(_text(self.ctx, node.child_by_field_name("type")))) is not None
        if kind == "call_expression":
            target = self.cast_type(node)
            function = node.child_by_field_name("function")
            return target is not None and function.child_by_field_name("name").text == b"static_cast" \
                and _INTEGER_WORDS.match(target) is not None
        return False

    def integer_value(self, node) -> bool:
        """True when ``node`` is a known integer that is not a null pointer constant (``0``)."""
        inner = _unparenthesized(node)
        if inner.type == "number_literal" and _NULL_LITERAL.fullmatch(_text(self.ctx, inner)):
            return False
        return self.integer_expression(node)

    def used_as_handle(self, node) -> bool:
        """True when the value of expression ``node`` goes where a pointer-typed handle is
        accepted as well as CUDA's integer: the initialiser of a handle variable, the value
        assigned to a handle, the operand of a cast to a pointer type or to a handle type."""
        child, parent = node, node.parent
        while parent is not None and parent.type == "parenthesized_expression":
            child, parent = parent, parent.parent
        if parent is None:
            return False
        if parent.type == "init_declarator" and parent.child_by_field_name("value") == child:
            declaration = parent.parent
            type_node = declaration.child_by_field_name("type") if declaration is not None else None
            declared = _declared(parent.child_by_field_name("declarator"))
            return type_node is not None and declared is not None and declared[1] == 0 \
                and _norm(_text(self.ctx, type_node)) in self.handles
        if parent.type == "assignment_expression" and parent.child_by_field_name("right") == child:
            return parent.child_by_field_name("operator").type == "=" \
                and self.handle(parent.child_by_field_name("left")) is not None
        if parent.type == "cast_expression" and parent.child_by_field_name("value") == child:
            target = _norm(_text(self.ctx, parent.child_by_field_name("type")))
            return target.endswith("*") or target in self.handles
        if parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "call_expression":
            function = parent.parent.child_by_field_name("function")
            positions = deviceptr_parameters().get(_text(self.ctx, function)) if function is not None else None
            arguments = [argument for argument in parent.named_children if argument.type != "comment"]
            return bool(positions) and child in arguments and arguments.index(child) in positions
        return False

def _fields(mapping: "Mapping") -> dict[str, str]:
    pointer = "void" in mapping.representation[1].split("(")[0]
    if pointer:
        advice = ("Compute on an integer or a char pointer and convert back: (hipDeviceptr_t)((char *)p + n), "
                  "reinterpret_cast<uintptr_t>(p) for bits, and keep integers out of hipDeviceptr_t")
    else:
        advice = (f"Keep the {mapping.hip} as its own type; where its bits are needed use "
                  f"reinterpret_cast<uintptr_t>(obj) and reinterpret_cast<{mapping.hip}>(bits)")
    return {"cuda_definition": mapping.representation[0], "hip": mapping.hip or "",
            "hip_definition": mapping.representation[1], "advice": advice}


def _void_pointer(mapping: "Mapping") -> bool:
    """True when HIP defines the handle's twin as ``void *`` (``hipDeviceptr_t``)."""
    return mapping.representation[1].split(" (")[0].replace(" ", "") == "void*"


def _fix(ctx: "_FileContext", finder: _Finder, node, operation: str, mapping: "Mapping") -> str | None:
    """With --fix, the edits that make HIP compute CUDA's value for the reported ``node``, added
    to ``ctx.result.edits``; returns the rewritten form as the finding names it, or None when
    this use is not one the module docstring lists."""
    if not _void_pointer(mapping):
        return None
    hip = mapping.hip
    if operation in ("an integer assigned to it", "initialised with an integer"):
        value = node.child_by_field_name("right" if node.type == "assignment_expression" else "value")
        ctx.result.edits.append(Edit(value.start_byte, value.start_byte, f"({hip})(uintptr_t)(".encode()))
        ctx.result.edits.append(Edit(value.end_byte, value.end_byte, b")"))
        return f"({hip})(uintptr_t)({_text(ctx, value)})"
    if node.type != "binary_expression" or operation not in ("operator +", "operator -"):
        return None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if finder.handle(left) and finder.integer_expression(right):
        pointer, integer = left, right
    elif operation == "operator +" and finder.handle(right) and finder.integer_expression(left):
        pointer, integer = right, left
    else:
        return None
    if not finder.used_as_handle(node):
        return None
    if pointer is left:
        ctx.result.edits.append(Edit(node.start_byte, node.start_byte, f"({hip})((char *)".encode()))
    else:
        ctx.result.edits.append(Edit(node.start_byte, node.start_byte, f"({hip})(".encode()))
        ctx.result.edits.append(Edit(pointer.start_byte, pointer.start_byte, b"(char *)"))
    ctx.result.edits.append(Edit(node.end_byte, node.end_byte, b")"))
    operator = operation.split()[1]
    if pointer is left:
        return f"({hip})((char *){_text(ctx, pointer)} {operator} {_text(ctx, integer)})"
    return f"({hip})({_text(ctx, integer)} {operator} (char *){_text(ctx, pointer)})"


def _handle_mentions(ctx: "_FileContext", handles: dict[str, "Mapping"], names: Declarations) -> list[int] | None:
    """The start bytes, in order, of the whole words of the file that can make an operation one on
    a handle: the handle type names, and the variables and members with a declaration of a handle
    type. :meth:`_Finder.handle` finds a handle only through an identifier or member of such a
    declaration, or a cast to a handle type; an initialiser only through its declaration's type.
    None (every operation is read) when one of those names holds a byte other than ``[A-Za-z0-9_$]``."""
    names.resolve_typed(handles)
    words = {name.encode() for name in handles}
    words |= {name for name, by_function in names.variables.items()
              if any(type_text in handles for entries in by_function.values() for type_text, _ in entries)}
    words |= {name for name, entries in names.fields.items() if any(entry[0] in handles for entry in entries)}
    if any(not WORD_OR_DOLLAR_BYTES.issuperset(word) for word in words):
        return None  # a name of other bytes (UTF-8): word_matches' whole-word scan needs name bytes
    pattern = re.compile(trie_alternation(words) + rb"(?![A-Za-z0-9_$])")
    return [match.start() for match in word_matches(pattern, ctx.source, WORD_OR_DOLLAR_BYTES)]


def _operations_around(ctx: "_FileContext", mentions: list[int]) -> "list[tree_sitter.Node]":
    """The operations (:data:`_OPERATIONS`) around a mention, in the order of
    :func:`hipport.parse.nodes_of_kinds`, found without a walk of the whole tree: the nodes that
    hold a mention's first byte (:func:`hipport.parse.nodes_around`). An ``init_declarator``
    the pass reports (a declaration of a handle type, a declarator that names a variable) holds
    a mention of its own, the variable's name, so none is missed that the mention test of
    :func:`analyze_handle_types` keeps; the caller still applies that test to each."""
    operations = list(nodes_around(ctx.root, mentions, _OPERATION_KINDS))
    operations.sort(key=END_BYTE, reverse=True)
    operations.sort(key=START_BYTE)
    return operations


def analyze_handle_types(ctx: "_FileContext", fix: bool = False) -> None:
    """Report (HP1216) each integer operation on a CUDA handle whose HIP twin is a pointer, and
    with ``fix`` rewrite those whose rewrite keeps CUDA's value (HP1222; see the module docstring).

    Args:
        ctx: the analysis context of one file (:class:`hipport.analyze._FileContext`); findings
            go to ``ctx.result.findings``, the --fix edits to ``ctx.result.edits`` (insertions
            only, so the renames inside the rewritten expressions still apply).
        fix: ``convert --fix``; without it nothing is edited.
    """
    if not contains_any(ctx.source, _PREFILTER):
        return
    handles = integer_handles(ctx.rules)
    if not handles:
        return
    finder = _Finder(ctx, handles)
    mentions = _handle_mentions(ctx, handles, finder.names)
    if mentions is None:  # every operation of the file is read (a walk of the whole tree)
        finder.names._read_all()
        nodes = nodes_of_kinds(ctx.root, _OPERATIONS)
    else:
        nodes = _operations_around(ctx, mentions)
    operations = []
    for node in nodes:
        kind = node.type
        # an operation involves a handle only through a word of ``mentions`` inside it (an
        # initialiser: inside its declaration); the others are skipped unread
        first = node.parent.start_byte if kind == "init_declarator" and node.parent is not None else node.start_byte
        if mentions is not None:
            at = bisect.bisect_left(mentions, first)
            if at == len(mentions) or mentions[at] >= node.end_byte:
                continue
        operations.append((node, first))
    # the names those operations can look up, read from the file's declarations with one scan
    words: set[bytes] = set()
    reach = -1
    for node, first in operations:
        if node.end_byte > reach:
            words.update(_WORD.findall(ctx.source, max(first, reach), node.end_byte))
            reach = node.end_byte
    finder.names.resolve(words)
    for node, _ in operations:
        kind = node.type
        found: tuple[str, str] | None = None  # (handle type, what is done to it)
        if kind == "binary_expression":
            operator = node.child_by_field_name("operator").type
            if operator in _ARITHMETIC:
                for side in ("left", "right"):
                    handle = finder.handle(node.child_by_field_name(side))
                    if handle:
                        found = (handle, f"operator {operator}")
                        break
        elif kind == "update_expression":
            handle = finder.handle(node.child_by_field_name("argument"))
            if handle:
                found = (handle, "operator " + node.child_by_field_name("operator").type)
        elif kind == "assignment_expression":
            operator = node.child_by_field_name("operator").type
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if operator in _COMPOUND:
                handle = finder.handle(left) or finder.handle(right)
                if handle:
                    found = (handle, f"operator {operator}")
            elif operator == "=" and right is not None and finder.integer_value(right):
                handle = finder.handle(left)
                if handle:
                    found = (handle, "an integer assigned to it")
        elif kind == "init_declarator":
            value = node.child_by_field_name("value")
            declaration = node.parent
            type_node = declaration.child_by_field_name("type") if declaration is not None else None
            if value is not None and type_node is not None and value.type != "initializer_list" \
                    and finder.integer_value(value):
                declared = _declared(node.child_by_field_name("declarator"))
                type_text = _norm(_text(ctx, type_node))
                if declared is not None and declared[1] == 0 and type_text in handles:
                    found = (type_text, "initialised with an integer")
        elif kind == "cast_expression":
            target = _norm(_text(ctx, node.child_by_field_name("type")))
            handle = finder.handle(node.child_by_field_name("value"))
            if handle and _INTEGER_WORDS.match(target) and not _WIDE.match(target):
                found = (handle, f"cast to {target}")
        elif kind == "call_expression":
            target = finder.cast_type(node)
            function = node.child_by_field_name("function")
            if target is not None and function.child_by_field_name("name").text == b"static_cast":
                arguments = node.child_by_field_name("arguments").named_children
                handle = finder.handle(arguments[0]) if arguments else None
                if handle and _INTEGER_WORDS.match(target):
                    found = (handle, f"static_cast to {target}")
                elif handle is None and target in handles and arguments:
                    found = (target, f"static_cast<{target}> of a value that is not one")
        if found is not None:
            handle, operation = found
            fields = _fields(handles[handle])
            rewritten = _fix(ctx, finder, node, operation, handles[handle]) if fix else None
            if rewritten is None:
                ctx.report("integer-handle", node, name=handle, operation=operation, **fields)
            else:
                ctx.report("integer-handle-fixed", node, name=handle, operation=operation, rewritten=rewritten,
                           cuda_definition=fields["cuda_definition"], hip=fields["hip"],
                           hip_definition=fields["hip_definition"])


def rewrite_handle_reinterpret_casts(ctx: "_FileContext") -> None:
    """Write each ``reinterpret_cast<CUdeviceptr>(x)`` as the C-style cast ``(CUdeviceptr)(x)``.

    In CUDA both take a pointer's address as the integer; HIP's ``hipDeviceptr_t`` is ``void *``,
    and ``reinterpret_cast`` of a ``const`` (or ``volatile``) pointer to it "casts away
    qualifiers" and does not compile (NVIDIA-developer-blog printf-alternative:
    ``cuMemGetAddressRange(&base, &size, reinterpret_cast<CUdeviceptr>(device_string))`` with a
    ``const char *``). A C-style cast converts any object pointer, or an integer, to ``void *``
    with the same bits, and means what the ``reinterpret_cast`` meant in CUDA, so the port
    writes it for every handle HIP defines as ``void *`` (:func:`_void_pointer`). Only the
    ``reinterpret_cast<`` and ``>`` around the type are replaced: the type name itself is
    renamed by the identifier pass.

    Args:
        ctx: the analysis context of one file; edits go to ``ctx.result.edits``.
    """
    source = ctx.source
    if b"reinterpret_cast" not in source:
        return
    handles = {name.encode() for name, mapping in integer_handles(ctx.rules).items() if _void_pointer(mapping)}
    if not handles or not contains_any(source, tuple(handles)):
        return
    at = source.find(b"reinterpret_cast")
    while at != -1:
        node = ctx.node_at(at, at + len(b"reinterpret_cast"))
        function = node.parent
        if node.type == "identifier" and function is not None and function.type == "template_function" \
                and function.parent is not None and function.parent.type == "call_expression":
            types = function.child_by_field_name("arguments")
            named = types.named_children if types is not None else []
            if len(named) == 1 and named[0].type == "type_descriptor" and named[0].text.strip() in handles:
                ctx.result.edits.append(Edit(node.start_byte, named[0].start_byte, b"("))
                ctx.result.edits.append(Edit(named[0].end_byte, types.end_byte, b")"))
        at = source.find(b"reinterpret_cast", at + 1)
