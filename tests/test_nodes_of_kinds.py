"""hipport.parse.nodes_of_kinds: the first bytes of a process are walked in Python (compiling a
tree-sitter query costs 11 to 25 ms), the rest found by a compiled query; both give the same
nodes in the same order."""

from __future__ import annotations

import pytest
import tree_sitter

from hipport import parse

SOURCE = b"""#define SCALE 2
enum Mode { kFast, kSlow = 3 };
struct Pair { int first; float second; };
template <typename T> __device__ T twice(T v) { return v * SCALE; }
__global__ void kernel(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = i + 1;
  switch (n) { case 0: out[i] = twice(out[j]); break; default: break; }
  auto add = [](int a, int b) { return a + b; };
  if (i < n) out[i] += add(i, j);
}
int main() { float* out; cudaMalloc(&out, 4); kernel<<<1, 1>>>(out, 1); broken( ; }
"""
#: Kinds the passes ask for (an ERROR node can hold another of the same range, whose order among
#: the two a query does not define: no pass asks for ERROR nodes).
KINDS = [parse.FILE_NODE_KINDS, ("preproc_def",), ("call_expression",), ("identifier",), ("type_identifier",),
         ("declaration", "parameter_declaration", "field_declaration"), ("function_definition", "lambda_expression")]


@pytest.fixture
def tree():
    return parse.new_parser().parse(SOURCE)


def _by_query(node, kinds):
    query = tree_sitter.Query(parse.LANGUAGE, "[" + " ".join(f"({k})" for k in kinds) + "] @node")
    found = [n for nodes in tree_sitter.QueryCursor(query).captures(node).values() for n in nodes]
    return sorted(found, key=lambda n: (n.start_byte, -n.end_byte))


@pytest.mark.parametrize("kinds", KINDS, ids="-".join)
def test_a_small_tree_is_walked_without_compiling_a_query(tree, kinds, monkeypatch):
    def shape(nodes):
        return [(n.type, n.start_byte, n.end_byte) for n in nodes]

    expected = shape(_by_query(tree.root_node, kinds))
    kernel = _by_query(tree.root_node, ("function_definition",))[1]  # a subtree
    expected_in_kernel = shape(_by_query(kernel, kinds))
    assert expected
    monkeypatch.setattr(parse, "_walked", [0])
    monkeypatch.setattr(parse, "_compiled", {})

    def no_query(*args):
        raise AssertionError("a query was compiled")

    monkeypatch.setattr(parse.tree_sitter, "Query", no_query)
    assert shape(parse.nodes_of_kinds(tree.root_node, kinds)) == expected
    assert shape(parse.nodes_of_kinds(kernel, kinds)) == expected_in_kernel
    assert parse._walked == [len(SOURCE) + kernel.end_byte - kernel.start_byte]


def test_past_the_budget_the_query_is_compiled_and_used(tree, monkeypatch):
    monkeypatch.setattr(parse, "_walked", [parse.WALK_BUDGET_BYTES])
    monkeypatch.setattr(parse, "_compiled", {})
    found = parse.nodes_of_kinds(tree.root_node, parse.FILE_NODE_KINDS)
    assert list(parse._compiled) == ["[(function_definition) (init_declarator) (case_statement) (enumerator) (call_expression)] @node"]
    assert [n.id for n in found] == [n.id for n in _by_query(tree.root_node, parse.FILE_NODE_KINDS)]
    monkeypatch.setattr(parse, "_walked", [0])  # a compiled query is used even within the budget
    parse.nodes_of_kinds(tree.root_node, parse.FILE_NODE_KINDS)
    assert parse._walked == [0]


def test_nodes_around_finds_the_nodes_a_walk_up_the_parents_finds():
    """parse.nodes_around (one cursor through the offsets) yields, each once, the nodes of the
    kinds asked for that hold one of the offsets: those a walk up the parents from the node at
    each offset meets, on the corpus's files with offsets drawn (fixed seed) in sets of 1 to 400,
    repeated and unsorted, and offsets past the end."""
    import random

    from helpers import CORPUS

    kinds = frozenset({"declaration", "parameter_declaration", "field_declaration", "binary_expression",
                       "call_expression", "init_declarator", "identifier", "compound_statement"})
    draw = random.Random(20261206)
    parser = parse.new_parser()
    checked = 0
    for path in sorted(CORPUS.rglob("*.cu"))[:40]:
        source = path.read_bytes()
        root = parser.parse(source).root_node
        for size in (1, 5, 50, 400):
            offsets = [draw.randrange(len(source) + 3) for _ in range(size)]
            expected = {}
            for offset in offsets:
                node = root.descendant_for_byte_range(offset, offset + 1) if offset < len(source) else None
                while node is not None:
                    if node.is_named and node.type in kinds and node.start_byte <= offset < node.end_byte:
                        expected[node.id] = node
                    node = node.parent
            found = [node.id for node in parse.nodes_around(root, offsets, kinds)]
            assert sorted(found) == sorted(expected) and len(found) == len(set(found)), (path, size)
            checked += len(found)
    assert checked > 5000
