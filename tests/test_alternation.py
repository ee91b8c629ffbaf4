"""hipport.alternation: a trie regex matches exactly what the flat alternation of the same words matches."""

import re

from hipport.alternation import trie_alternation


def test_trie_pattern_text():
    assert trie_alternation([b"cuda", b"cuDe", b"CUDA", b"cub"]) == rb"(?:(?:CUDA|cu(?:De|b|da)))"
    assert trie_alternation([]) == rb"(?!)"
    assert trie_alternation([b"a.b"]) == rb"(?:a\.b)"


def test_longer_word_preferred_where_one_is_a_prefix_of_another():
    pattern = re.compile(trie_alternation([b"tex", b"tex2D", b"tex2DLod"]))
    assert [m.group() for m in pattern.finditer(b"tex2DLod tex2D tex texture")] == [b"tex2DLod", b"tex2D", b"tex", b"tex"]


def test_same_spans_as_a_flat_alternation():
    words = [b"cudaMalloc", b"cuda", b"cudaFree", b"CUDA_", b"__shfl", b"__shfl_sync", b"tex1D", b"tex1Dfetch", b"cu"]
    text = (b"cudaMallocManaged(&p, n); xcudaFree(p); CUDA_SUCCESS __shfl_sync(m, v, 0) __shfl(v, 0)\n"
            b"tex1Dfetch(t, i) + tex1D(t, f) cuRand cu ccuda")
    flat = sorted(words, key=lambda w: (-len(w), w))
    for tail in (rb"[A-Za-z0-9_]*", rb"(?=\s*\()", rb"(?![A-Za-z0-9_])"):
        expected = [m.span() for m in re.finditer(rb"(?:" + b"|".join(map(re.escape, flat)) + rb")" + tail, text)]
        found = [m.span() for m in re.finditer(trie_alternation(words) + tail, text)]
        assert found == expected
        assert found  # the text holds matches of every form
