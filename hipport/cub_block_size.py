"""hipCUB block loads and stores that need a block size that is a multiple of the wavefront.

``cub::BlockLoad<T, 32, N, cub::BLOCK_LOAD_WARP_TRANSPOSE>`` compiles with CUDA's CUB (one
32-thread warp per block), but hipCUB maps the warp-transposing algorithms to rocPRIM methods
that ``static_assert`` "BlockSize must be a multiple of hardware warpsize" (64 on gfx90a;
HeCBench blockScan). The algorithms and their facts are rule data,
``rules/toolkit/cub_warp_algorithms.yaml``. Each use of such an enumerator in code is reported
(HP1219 ``cub-warp-block-size``, at the name). The assertion fires where the class is
instantiated, which clang's notes place at the uses of a ``typedef``/``using`` name for it
(``typename Loader::TempStorage``), not at the typedef: when the enumerator lies in such a
declaration, every later use of the declared name in the declaration's scope (its enclosing
block, or the file) is reported as well, naming the declaration's line.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING


from .resources import load_data_yaml

if TYPE_CHECKING:
    import tree_sitter

    from .analyze import _FileContext

_NAMES = frozenset({"identifier", "type_identifier", "namespace_identifier", "field_identifier"})
_SKIP = frozenset({"comment", "string_literal", "string_content", "raw_string_literal", "char_literal",
                   "system_lib_string"})


@lru_cache(maxsize=1)
def warp_algorithms() -> dict[str, dict]:
    """Enumerator (``BLOCK_LOAD_WARP_TRANSPOSE``) -> its entry of ``rules/toolkit/cub_warp_algorithms.yaml``
    (``rocprim``, ``asserted``, ``instead``).

    Raises:
        FileNotFoundError, yaml.YAMLError: the shipped data file is missing or unreadable.
    """
    data = load_data_yaml("toolkit", "cub_warp_algorithms.yaml")
    return {entry["cub"]: entry for entry in data["algorithms"]}


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[bytes]:
    return re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in sorted(warp_algorithms(), key=len, reverse=True)) + rb")\b")


def _alias(node: "tree_sitter.Node") -> tuple["tree_sitter.Node", "tree_sitter.Node"] | None:
    """(declared name, declaration) when ``node`` lies in a typedef or alias declaration."""
    while node is not None and node.type not in ("type_definition", "alias_declaration", "compound_statement",
                                                 "function_definition", "translation_unit"):
        node = node.parent
    if node is None or node.type not in ("type_definition", "alias_declaration"):
        return None
    field = "declarator" if node.type == "type_definition" else "name"
    names = node.children_by_field_name(field)
    return (names[-1], node) if names and names[-1].type == "type_identifier" else None


def analyze_cub_block_sizes(ctx: "_FileContext") -> None:
    """Report the warp-transposing block algorithms of one file and the uses of typedefs naming them.

    Args:
        ctx: the analysis context of the file (:class:`hipport.analyze._FileContext`).
    """
    source = ctx.source
    if b"WARP_TRANSPOSE" not in source:
        return
    algorithms = warp_algorithms()
    for match in _pattern().finditer(source):
        start, end = match.span()
        node = ctx.node_at(start, end)
        if node is None or node.type in _SKIP or node.type not in _NAMES | {"preproc_arg"}:
            continue
        if node.type == "preproc_arg" and not ctx.in_macro_code(node, start):
            continue
        name = match.group().decode("ascii")
        instead = algorithms[name]["instead"]
        row = source.count(b"\n", 0, start)
        ctx.result.uses_cuda = True
        ctx.report("cub-warp-block-size", (row, start - source.rfind(b"\n", 0, start) - 1), name=name, via="",
                   instead=instead)
        alias = _alias(node) if node.type != "preproc_arg" else None
        if alias is None:
            continue
        declared, declaration = alias
        word = source[declared.start_byte:declared.end_byte]
        scope = declaration.parent
        limit = scope.end_byte if scope is not None else len(source)
        via = f" (through {word.decode('ascii')}, declared on line {declared.start_point[0] + 1})"
        for use in re.finditer(rb"\b" + re.escape(word) + rb"\b", source[declaration.end_byte:limit]):
            use_start = declaration.end_byte + use.start()
            use_node = ctx.node_at(use_start, use_start + len(word))
            if use_node is None or use_node.type not in _NAMES:
                continue
            use_row = source.count(b"\n", 0, use_start)
            ctx.report("cub-warp-block-size", (use_row, use_start - source.rfind(b"\n", 0, use_start) - 1),
                       name=name, via=via, instead=instead)
