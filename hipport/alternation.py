"""One regex alternation of many literal words, written as a trie.

Python's regex engine tries the branches of ``(?:w1|w2|...)`` one after another at every
position where the first character can match, so a scan with hundreds of branches costs
hundreds of comparisons per position. Written as a trie (``C(?:U(?:DA|BL)|IG_)|...``) each
position costs one comparison per character of the longest common prefix: the rule-name scan of
:attr:`hipport.rules.RuleSet.candidate_pattern` took 1.35 CPU s on cuda-samples' 9.6 MB of
sources as a flat alternation and 0.15 s as a trie, with the same matches.

The trie matches exactly the same set of strings as the flat alternation. Where one word is a
prefix of another, the trie prefers the longer one (an optional group is greedy), as does a flat
alternation sorted longest first; a pattern that continues with ``[A-Za-z0-9_]*`` after words
made of word characters matches the same spans either way.

The module also holds the two scans that keep a pattern's first element a literal, so the
engine can skip ahead to it: :func:`word_matches` (whole words without a leading look-behind)
and :func:`directive_matches` (directive lines without a leading ``^``); and
:func:`literal_matches`, for a pattern whose every match holds one of a few literals at a fixed
place, and :func:`contains_any`, the prefilter test of a few literals. Each gives exactly the answer of the
slower form; ``tests/test_alternation.py`` checks them against it.
"""

from __future__ import annotations

import re
from typing import Iterable


def trie_alternation(words: Iterable[bytes]) -> bytes:
    """A regex (bytes, a non-capturing group) matching exactly the literal ``words``.

    Args:
        words: the words (bytes, any characters: each is escaped); duplicates are ignored.

    Returns:
        ``(?:...)``, or ``(?!)`` (matches nothing) when ``words`` is empty. The empty word, if
        given, makes the whole group optional.

    Where one word is a prefix of another, the longer one is tried first.
    """
    trie: dict = {}
    for word in words:
        node = trie
        for byte in word:
            node = node.setdefault(byte, {})
        node[None] = True
    if not trie:
        return rb"(?!)"
    return b"(?:" + _group(trie) + b")"


def _group(node: dict) -> bytes:
    """The regex of the words below ``node`` (a trie level: byte -> level, None -> a word ends here)."""
    branches = [re.escape(bytes([byte])) + _group(child)
                for byte, child in sorted((k, v) for k, v in node.items() if k is not None)]
    if not branches:
        return b""
    body = branches[0] if len(branches) == 1 else b"(?:" + b"|".join(branches) + b")"
    return b"(?:" + body + b")?" if None in node else body


#: ``[A-Za-z0-9_]`` (``\\w`` of a bytes pattern) and ``[A-Za-z0-9_$]`` as sets of byte values.
WORD_BYTES = frozenset(b"_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
WORD_OR_DOLLAR_BYTES = WORD_BYTES | {ord("$")}


def word_matches(pattern: re.Pattern[bytes], source: bytes, word_bytes: frozenset[int] = WORD_BYTES):
    """The matches of ``pattern`` in ``source`` that no byte of ``word_bytes`` precedes: what
    ``(?<![...])`` + ``pattern`` finds (a set of such bytes in the look-behind), several times
    faster.

    Python's regex engine skips ahead to the possible first characters of a pattern only when it
    starts with them; a leading look-behind makes it try every position (``(?<![A-Za-z0-9_])
    warpSize`` scans cuda-samples' 8.4 MB in 0.12 s, ``warpSize`` in 0.003 s). The same
    matches, provided every match of ``pattern`` consists of ``word_bytes`` only (words made
    of identifier characters): a rejected match then spans word bytes after a word byte, so no
    position inside it can start a match of the look-behind form either, and scanning on from
    its end misses nothing.

    Args:
        pattern: a compiled bytes pattern whose matches are made of ``word_bytes``.
        source: the text scanned.
        word_bytes: the byte values a match may not follow.

    Yields:
        The accepted :class:`re.Match` objects, in order.
    """
    for match in pattern.finditer(source):
        start = match.start()
        if start and source[start - 1] in word_bytes:
            continue
        yield match


def directive_matches(pattern: re.Pattern[bytes], source: bytes):
    """What ``pattern.finditer(source)`` yields, for a MULTILINE pattern that starts with
    ``^[ \\t]*#`` (a preprocessor directive line), several times faster.

    A pattern that starts with ``^`` is tried at every byte of the text; here each ``#`` is found
    with :meth:`bytes.find` and the pattern is tried only at the start of its line (where ``^``
    can match, so no match is skipped) and only once per line: the same matches, scanned on from
    the end of each as :meth:`re.Pattern.finditer` does (cuda-samples' 9 MB: 0.06 s for
    ``^[ \\t]*#[ \\t]*include\\b`` with ``finditer``, under 0.01 s here).

    Args:
        pattern: a compiled bytes pattern with :data:`re.MULTILINE` whose matches all begin at a
            line start with blanks and ``#`` (its first elements are ``^[ \\t]*#``).
        source: the text scanned.

    Yields:
        The :class:`re.Match` objects, in order.
    """
    find, rfind = source.find, source.rfind
    position = 0
    while True:
        hash_at = find(b"#", position)
        if hash_at < 0:
            return
        line_start = rfind(b"\n", 0, hash_at) + 1
        if line_start >= position:  # a line start the scan has not passed
            match = pattern.match(source, line_start)
            if match is not None:
                yield match
                position = max(match.end(), hash_at + 1)
                continue
        line_end = find(b"\n", hash_at)
        if line_end < 0:
            return
        position = line_end + 1


def contains_any(source: bytes, literals: tuple[bytes, ...]) -> bool:
    """True when ``source`` holds one of ``literals``: whether ``re.search`` of their alternation
    finds a match, with one :meth:`bytes.find`-style search per literal instead. An alternation
    of literals with different first bytes is tried at every position that holds one of them
    (``CUdeviceptr|TextureObject_t|...``: 0.09 CPU s over cuda-samples' 8.4 MB); the
    substring search skips ahead by the literal's length.

    Args:
        source: the text searched.
        literals: the words (non-empty bytes).
    """
    return any(literal in source for literal in literals)


def literal_matches(pattern: re.Pattern[bytes], source: bytes, literals: tuple[bytes, ...], offset: int = 0):
    """What ``pattern.finditer(source)`` yields, for a pattern every match of which holds one of
    ``literals`` ``offset`` bytes after its start: the pattern is tried only there, at the places
    :meth:`bytes.find` gives, in order, skipping those inside the previous match, as finditer
    scans on from a match's end. For patterns the engine tries at every byte (an alternation or
    a group first: ``<<[ \\t]+<|>>[ \\t]+>``, ``(?:WARP|[Ww]arp)_?...``), several times faster
    where the literals are rare.

    Args:
        pattern: a compiled bytes pattern whose matches are never empty.
        source: the text scanned.
        literals: non-empty bytes; each match holds one of them at ``offset``.
        offset: where in a match the literal starts (bytes, 0 or more).

    Yields:
        The :class:`re.Match` objects, in order.
    """
    starts = set()
    for literal in literals:
        at = source.find(literal, offset)
        while at != -1:
            starts.add(at - offset)
            at = source.find(literal, at + 1)
    reached = 0
    for start in sorted(starts):
        if start < reached:
            continue
        match = pattern.match(source, start)
        if match is not None:
            reached = match.end()
            yield match
