"""Parse CUDA/C++ source bytes with tree-sitter and the tree-sitter-cuda grammar.

Why this grammar: plain tree-sitter-cpp produces ERROR nodes on ``__global__`` and on
``kernel<<<grid, block>>>(...)``; tree-sitter-cuda extends the C++ grammar with both (launches
appear as ``kernel_call_syntax`` inside a ``call_expression``, inline assembly as
``gnu_asm_expression``). Measured on 2,994 real CUDA/C++ files: about 115,000 lines per
second on one core; 15% of such files hold at least one region the grammar cannot parse
(mostly macros), whose identifiers are still leaf tokens with exact byte ranges.

The grammar does not run the preprocessor: both sides of an ``#if`` are in the tree, and a
macro body is one opaque ``preproc_arg`` token, which :func:`macro_body_code_mask` splits into
code and non-code (comments, string and character literals).
"""

from __future__ import annotations

import functools
import re
from operator import attrgetter
from dataclasses import dataclass

import tree_sitter
import tree_sitter_cuda

LANGUAGE = tree_sitter.Language(tree_sitter_cuda.language())


def new_parser() -> tree_sitter.Parser:
    """Return a parser for the CUDA grammar (one per thread or process; parsers are not shared)."""
    return tree_sitter.Parser(LANGUAGE)


_compiled: dict[str, tree_sitter.Query] = {}


def compiled_query(source: str) -> tree_sitter.Query:
    """The tree-sitter query of the query text ``source`` for the CUDA grammar, compiled once per
    process (compiling takes 11 to 25 ms; running one is C code)."""
    query = _compiled.get(source)
    if query is None:
        query = _compiled[source] = tree_sitter.Query(LANGUAGE, source)
    return query


def _is_compiled(source: str) -> bool:
    return source in _compiled


#: Bytes of source a process walks in Python (:func:`_walk_nodes`) for :func:`nodes_of_kinds`
#: before it compiles the query instead. Compiling a query costs 11 to 25 ms (tree-sitter
#: analyses the whole CUDA grammar for each one, measured on the 2-core machine of issue 12); a
#: Python walk about 0.07 ms per KB and a compiled query's run half of that: a ``hipport check``
#: of one 200-line file walks, a conversion of a tree compiles each query once it has walked this
#: much.
WALK_BUDGET_BYTES = 256 * 1024
_walked = [0]  # bytes walked by this process so far


def _walk_nodes(node: tree_sitter.Node, kinds: frozenset[str]) -> list[tree_sitter.Node]:
    """The named nodes of ``kinds`` in the subtree of ``node`` (``node`` included), in the order
    of a pre-order walk: the nodes a query ``[(kind) ...] @node`` captures there."""
    found = []
    cursor = node.walk()
    while True:
        current = cursor.node
        if current.is_named and current.type in kinds:
            found.append(current)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return found


def nodes_around(root: tree_sitter.Node, offsets, kinds: frozenset[str]):
    """The named nodes of ``kinds`` that hold one of the byte ``offsets`` (a node holds byte ``o``
    when ``start_byte <= o < end_byte``), each once, found by one tree cursor moved through the
    offsets in order instead of a walk up the parents from each.

    A walk up the parents from the node at each offset finds the same nodes, but tree-sitter
    computes a node's parent by a descent from the root, so that walk costs the square of the
    depth, and a long expression (``a + b + c + ...``, nested once per operator) made it cubic
    in the length of the expression. Here the cursor keeps its path: between one offset and the
    next it climbs out of the nodes that end before the next and descends into the children
    that hold it, and each node is met once: the work is linear in the nodes it passes.

    Args:
        root: the node to search (a tree's root node); nodes outside it are not found.
        offsets: byte offsets (any order, repeats allowed).
        kinds: the named node kinds wanted (``frozenset({"declaration"})``).

    Yields:
        The nodes, outer before inner along each path, paths in the order of the offsets.
    """
    inside = sorted({offset for offset in offsets if root.start_byte <= offset < root.end_byte})
    if inside and root.is_named and root.type in kinds:
        yield root
    cursor = root.walk()
    path = [root]  # the cursor's node and those above it
    for offset in inside:
        while len(path) > 1 and path[-1].end_byte <= offset:  # every node on the path starts before it
            cursor.goto_parent()
            path.pop()
        while cursor.goto_first_child_for_byte(offset) is not None:
            child = cursor.node
            if child.start_byte > offset:  # the offset lies between two children
                cursor.goto_parent()
                break
            path.append(child)
            if child.is_named and child.type in kinds:
                yield child


#: Sort keys of tree nodes: their first byte and the byte after them (C functions, cheaper than lambdas).
START_BYTE, END_BYTE = attrgetter("start_byte"), attrgetter("end_byte")


def nodes_of_kinds(node: tree_sitter.Node, kinds: tuple[str, ...]) -> list[tree_sitter.Node]:
    """The named nodes of the given kinds (``("declaration", "field_declaration")``) in the subtree
    of ``node``, ``node`` included, in source order (outer before inner at the same start).

    Found by one query, so the walk over the tree runs in tree-sitter's C code and Python sees only
    the matches: on a 126,000-line file this is several times faster than a Python walk over
    every node. A query not compiled yet costs more than walking a small tree, so the first
    :data:`WALK_BUDGET_BYTES` of a process are walked in Python instead (the same nodes)."""
    source = "[" + " ".join(f"({kind})" for kind in kinds) + "] @node"
    size = node.end_byte - node.start_byte
    if _is_compiled(source) or _walked[0] + size > WALK_BUDGET_BYTES:
        query = compiled_query(source)
        found = [n for nodes in tree_sitter.QueryCursor(query).captures(node).values() for n in nodes]
    else:
        _walked[0] += size
        found = _walk_nodes(node, frozenset(kinds))
    # by (start, -end), as two stable sorts with C key functions (2.5 times faster than one
    # sort with a tuple-building lambda on 150,000 nodes); equal ranges keep the capture order
    found.sort(key=END_BYTE, reverse=True)
    found.sort(key=START_BYTE)
    return found


#: The node kinds :func:`file_nodes` finds with one query over a file, for the passes that each
#: need one of them over the whole file (function definitions, initialised declarators, case
#: labels, enumerators, calls): one walk in tree-sitter's C code instead of one per pass (a
#: walk of a 50 MB file's tree costs 1.5 CPU s, whatever it captures).
FILE_NODE_KINDS = ("function_definition", "init_declarator", "case_statement", "enumerator", "call_expression")


def file_nodes(ctx, kind: str) -> list[tree_sitter.Node]:
    """``nodes_of_kinds(ctx.root, (kind,))``: the nodes of ``kind`` in the whole file, in source
    order, outer before inner.

    For a kind of :data:`FILE_NODE_KINDS`, one query finds the nodes of all of them on the first
    call and splits them by kind (filtering a list keeps its order, and the query returns each
    node once, in the same order as a query for its kind alone); the split is kept in
    ``ctx.cache`` (a dict) where the context has one. Other kinds, or a context without a
    cache, are queried on their own. The list returned may be shared: do not modify it.

    Args:
        ctx: an analysis context with ``root`` (the tree's root node) and, optionally,
            ``cache`` (:class:`hipport.analyze._FileContext`).
        kind: a named node kind of the grammar (``"function_definition"``).
    """
    cache = getattr(ctx, "cache", None)
    if cache is None or kind not in FILE_NODE_KINDS:
        return nodes_of_kinds(ctx.root, (kind,))
    index = cache.get("file_nodes")
    if index is None:
        index = {name: [] for name in FILE_NODE_KINDS}
        for node in nodes_of_kinds(ctx.root, FILE_NODE_KINDS):
            index[node.type].append(node)
        cache["file_nodes"] = index
    return index[kind]


@dataclass(frozen=True, slots=True)
class ErrorRegion:
    """A region the grammar could not parse: 0-based row/column of its start, and its kind
    (``ERROR`` for unparsable text, ``MISSING`` for a token the parser had to assume)."""

    row: int
    column: int
    kind: str


def error_regions(tree: tree_sitter.Tree) -> list[ErrorRegion]:
    """List the outermost ERROR and MISSING nodes of ``tree`` in source order.

    Only subtrees flagged ``has_error`` are visited, so a clean tree costs one check.
    """
    regions: list[ErrorRegion] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            regions.append(ErrorRegion(node.start_point[0], node.start_point[1],
                                       "MISSING" if node.is_missing else "ERROR"))
            continue
        stack.extend(child for child in reversed(node.children) if child.has_error)
    return regions


# Comments, raw string literals, string literals and character literals inside a macro body.
# A quote right after a digit or letter is a digit separator (1'000) or part of a name, not a
# character literal.
_MACRO_NON_CODE = re.compile(
    rb"""//[^\n]*(?:\\\n[^\n]*)*                          # line comment (with backslash continuations)
       | /\*.*?(?:\*/|\Z)                                 # block comment
       | (?<![A-Za-z0-9_])(?:u8|u|U|L)?R"([^()\\ ]{0,16})\(.*?(?:\)\1"|\Z)   # raw string literal
       | (?<![A-Za-z0-9_])(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*(?:"|$)    # string literal
       | (?<![A-Za-z0-9_])(?:u8|u|U|L)?'(?:\\.|[^'\\\n])*(?:'|$)    # character literal
    """,
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)


#: The bytes one of which every match of _MACRO_NON_CODE holds, at most 3 bytes after its start.
_KEY_BYTE = re.compile(rb"[/\"']")


def macro_body_non_code(body: bytes) -> list[tuple[int, int]]:
    """Return the (start, end) byte ranges of comments and literals in a macro body.

    Args:
        body: the bytes of a ``preproc_arg`` node (the replacement list of a ``#define``).

    Returns:
        Sorted, non-overlapping half-open ranges, offsets relative to ``body``.

    The ranges are those of ``_MACRO_NON_CODE.finditer(body)``, found faster: a pattern whose
    branches start with a look-behind is tried at every byte (0.66 CPU s over HeCBench's 8.9 MB
    of ``.cu`` files, 0.10 s here). Every match holds a key byte (``/``, ``"`` or ``'``) at most
    3 bytes after its start (``u8R"``), and no key byte before it, so the next match is found by
    a search for the next key byte from the end of the previous match and a try at each of the
    at most 4 starts before it (each start tried once), which yields the leftmost match as
    finditer does.
    """
    found = []
    reached = tried = 0
    search, match_at = _KEY_BYTE.search, _MACRO_NON_CODE.match
    while (key := search(body, reached)) is not None:
        at = key.start()
        for start in range(max(reached, tried, at - 3), at + 1):
            match = match_at(body, start)
            if match is not None:
                found.append(match.span())
                reached = match.end()  # never empty: every branch holds its key byte
                break
        else:
            reached = at + 1
        tried = at + 1
    return found


def code_only(text: bytes) -> bytes:
    """``text`` (C or C++) with its comments and literals blanked (same length, newlines kept),
    so that words found in it are code: never expanded or used otherwise
    (:func:`macro_body_non_code` finds them)."""
    pieces, at = [], 0
    for start, end in macro_body_non_code(text):
        pieces.append(text[at:start])
        pieces.append(text[start:end].translate(_BLANKED))
        at = end
    pieces.append(text[at:])
    return b"".join(pieces)


#: bytes.translate table of :func:`code_only`: every byte but the newline becomes a blank.
_BLANKED = bytes(10 if byte == 10 else 32 for byte in range(256))
