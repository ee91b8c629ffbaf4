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


def test_word_matches_finds_what_a_leading_look_behind_finds():
    """word_matches(pattern) yields the matches of (?<![...])pattern: the same spans, on text
    where the words also occur inside longer names, after $, at the start and at the end."""
    import re

    from hipport.alternation import WORD_BYTES, WORD_OR_DOLLAR_BYTES, trie_alternation, word_matches

    words = [b"cudaMalloc", b"cudaMallocHost", b"asm", b"__asm", b"__asm__", b"main"]
    text = (b"cudaMalloc(x); xcudaMalloc(y); $cudaMalloc; _cudaMallocHost cudaMallocHostx __asm__ __asm"
            b" asm(; main main2 amain 9main cudaMalloc")
    body = trie_alternation(words) + rb"[A-Za-z0-9_]*"
    for word_bytes, look_behind in ((WORD_BYTES, rb"(?<![A-Za-z0-9_])"), (WORD_OR_DOLLAR_BYTES, rb"(?<![A-Za-z0-9_$])")):
        expected = [m.span() for m in re.compile(look_behind + body).finditer(text)]
        assert [m.span() for m in word_matches(re.compile(body), text, word_bytes)] == expected
    assert [m.group() for m in word_matches(re.compile(body), text)] == [
        b"cudaMalloc", b"$cudaMalloc"[1:], b"cudaMallocHostx", b"__asm__", b"__asm", b"asm", b"main", b"main2", b"cudaMalloc"]


def test_look_behinds_moved_after_their_words_match_the_same_spans():
    """The scans whose look-behind follows the word (so that the regex engine skips to the word's
    first byte) match what the leading look-behind forms matched."""
    import re

    from hipport.analyze import _MAIN
    from hipport.launch_spacing import LAUNCH_OPEN
    from hipport.warp import _LANE_LITERALS, _MASK_CONSTANT

    text = (b"int main(){ k<<<1, 2>>>(); k<< <1,2>>>(); a << b; operator<<<T>(x); operator <<<T>(x); operator<<(s);\n"
            b"xmain(); main (); _main(); t % 32; t & 31; x.32f; a32; 0x1F; 0x1f5; 5; (5); t>>5; 1.5; x5;\n"
            b"static constexpr unsigned FULL_MASK = 0xffffffff; const unsigned int m_mask = ~0u; xconst unsigned "
            b"kMask = 1; static  const __device__ uint32_t WARP_MASK = 0xFFFFFFFFu; constexpr unsigned mask=3;")
    leading = {
        _MAIN: rb"(?<![A-Za-z0-9_])main[ \t\r\n]*\(",
        LAUNCH_OPEN: rb"(?<!operator)(?<!operator )<<[ \t\r\n]*<",
        _LANE_LITERALS: rb"(?<![A-Za-z0-9_.])(32|31|0[xX]1[fF]|5)(?![A-Za-z0-9_.])",
        _MASK_CONSTANT: rb"(?<![\w])(?:static\s+)?(?:constexpr|const)\s+(?:static\s+)?(?:__device__\s+)?"
                        rb"(unsigned\s+int|unsigned|uint32_t|std::uint32_t)\s+(\w*(?:[Mm]ask|MASK)\w*)\s*=\s*"
                        rb"([0-9A-Za-z~]+)\s*;",
    }
    for pattern, original in leading.items():
        expected = [(m.span(), m.groups()) for m in re.finditer(original, text)]
        assert expected, original
        assert [(m.span(), m.groups()) for m in pattern.finditer(text)] == expected, original


def test_directive_matches_is_finditer_of_a_line_start_pattern():
    """directive_matches(p, text) yields p.finditer(text)'s matches for the directive patterns the
    passes scan with: '#' inside a line, in a continued line, blank-indented, at the text's start
    and end, CRLF line ends."""
    import re

    from hipport import analyze, project_macros, thrust_includes, warp
    from hipport.alternation import directive_matches

    text = (b"#include <a.h>\n  #  include \"b.h\"\r\nint x = 1; # include <not.h>\n#define A(x) \\\n#define B 2\n"
            b"#define FULL_MASK 0xffffffff\nchar *s = \"#define C 3\"; \\\n#define D 4\n#include <thrust/sort.h> // c\n"
            b"#\n#pragma once\n#define WARP_SIZE 32\n#include")
    for pattern in (analyze._INCLUDE, analyze._INCLUDE_NAME, project_macros._DIRECTIVE_LINE, thrust_includes._INCLUDE,
                    warp._MASK_DEFINE, warp._WARP_DEFINE, warp._OBJECT_MACRO):
        expected = [(m.span(), m.groups()) for m in pattern.finditer(text)]
        assert expected, pattern.pattern
        assert [(m.span(), m.groups()) for m in directive_matches(pattern, text)] == expected, pattern.pattern
    assert [m.group(1) for m in directive_matches(project_macros._DIRECTIVE_LINE, text)] == [
        b"include", b"include", b"define", b"define", b"define", b"include", b"pragma", b"define", b"include"]
    assert list(directive_matches(re.compile(rb"^[ \t]*#[ \t]*undef", re.M), text)) == []


def test_warp_constants_found_from_their_assignment_match_the_look_behind_scan():
    """warp._warp_constant_matches yields _WARP_CONSTANT.finditer's matches: names before '= 32;'
    with blanks and newlines between, not after a digit-led run, not for '=='."""
    from hipport.warp import _WARP_CONSTANT, _warp_constant_matches

    text = (b"int kWarp = 32; x1=32u;\n1abc = 32; a == 32; b =32 ; c\n=\n32\n;static const int WARP_SIZE=32;"
            b" y = 320; z = 32 ; = 32; w\t= 32U;")
    expected = [(m.span(), m.groups()) for m in _WARP_CONSTANT.finditer(text)]
    assert [g for _, g in expected] == [(b"kWarp",), (b"x1",), (b"b",), (b"c",), (b"WARP_SIZE",), (b"z",), (b"w",)]
    assert [(m.span(), m.groups()) for m in _warp_constant_matches(text)] == expected


def test_prefilters_and_word_scans_answer_as_their_regex_forms():
    """contains_any answers what re.search of the literals' alternation answers; the register
    and cutil scans through word_matches yield what their leading look-behind / \\b forms did,
    on text with the words inside longer names, after $ and digits, at both ends."""
    import re

    from hipport import cutil, group_members, handle_types, register_keyword
    from hipport.alternation import WORD_OR_DOLLAR_BYTES, contains_any, word_matches

    texts = [b"", b"CUdeviceptr", b"x cudaTextureObject_t y", b"thread_blocks", b"coalesce", b"CUtexObjec",
             b"tiled_partition(", b"CUsurfObject\n", b"cluster_grou"]
    for literals in (handle_types._PREFILTER, group_members._PREFILTER):
        flat = re.compile(b"|".join(literals))
        answers = [contains_any(text, literals) for text in texts]
        assert answers == [flat.search(text) is not None for text in texts]
        assert True in answers and False in answers
    text = (b"register int a; xregister b; $register c; register$ d; _register; 9register register_x\n"
            b"cutilSafeCall(x); xcutilSafeCall(); CUT_SAFE_CALL(y) CUT_SAFE_CALLS CUTTrue 1CUTFalse _cutStartTimer "
            b"cutStartTimer cutLoadPGMf(a) register")
    expected = [m.span() for m in re.finditer(rb"(?<![A-Za-z0-9_$])register(?![A-Za-z0-9_$])", text)]
    assert [m.span() for m in word_matches(register_keyword._REGISTER, text, WORD_OR_DOLLAR_BYTES)] == expected
    assert len(expected) == 2  # the first and the last; register$ is a longer name
    expected = [m.span() for m in re.finditer(rb"\b" + cutil._NAME.pattern, text)]
    assert [m.span() for m in word_matches(cutil._NAME, text)] == expected
    assert [text[a:b] for a, b in expected] == [b"cutilSafeCall", b"CUT_SAFE_CALL", b"CUTTrue", b"cutStartTimer",
                                                b"cutLoadPGMf"]


def test_warp_size_cores_are_the_finditer_matches():
    """warp._warp_size_cores yields _WARP_SIZE_CORE.finditer's matches, found from the 'arp' and
    'ARP' they hold: at the text's start and end, inside longer names, with and without '_', in
    mixed case that the pattern rejects."""
    from hipport.warp import _WARP_SIZE_CORE, _warp_size_cores

    for text in (b"WARP_SIZE warpSize Warp_Size xwarpSizey WARPSIZE wARP_SIZE warp_size WarpSIZE arp ARP WARP_",
                 b"arpSize warpSize", b"ARPSIZE", b"", b"kWarpSize=32;int WARP_SIZE", b"warpsize Warpsize warp_Size"):
        expected = [m.span() for m in _WARP_SIZE_CORE.finditer(text)]
        assert [m.span() for m in _warp_size_cores(text)] == expected, text
    assert len(list(_warp_size_cores(b"WARP_SIZE warpSize Warp_Size xwarpSizey WARPSIZE wARP_SIZE warp_size"))) == 6


def test_literal_matches_is_finditer_of_a_pattern_holding_a_literal():
    """literal_matches yields pattern.finditer's matches when each match holds one of the
    literals at the offset given: spaced launch chevrons next to shifts and launches (a '<<'
    inside a previous match is skipped, as finditer does), at both ends of the text."""
    import re

    from hipport.alternation import literal_matches
    from hipport.launch_spacing import _SPACED

    texts = [b"k<< <1, 2>> >(); a << b; k<<<1,2>>>(); x <<  <<  < y >>\t> z >>\n>",
             b"<< <", b"<<< << <<<", b">> >> > >>>", b"", b"<<", b"a<<\r\n<b"]
    for text in texts:
        expected = [m.span() for m in _SPACED.finditer(text)]
        assert [m.span() for m in literal_matches(_SPACED, text, (b"<<", b">>"))] == expected, text
    # "<<< << <<<": the match starts at the second '<'; the '<<' it ends with is not tried again
    assert [m.span() for m in literal_matches(_SPACED, texts[2], (b"<<", b">>"))] == [(1, 5)]
    # a literal after the match's first byte: offset
    assert [m.span() for m in literal_matches(re.compile(rb"xWORD[0-9]"), b"xWORD1 WORD2 xWORD3", (b"WORD",), 1)] \
        == [(0, 6), (13, 19)]


def test_port_definition_word_pattern_matches_the_flat_alternation():
    """port_definitions._word_pattern, a trie, matches what the flat longest-first alternation it
    replaced matched: names that are prefixes of others, followed by name bytes, '$' and ends."""
    import re

    from hipport.port_definitions import _word_pattern

    names = ["ab", "abc", "abcd", "b", "b2", "x_y", "x"]
    text = b"ab abc abcd abce abcd$ b b2 b3 x_y x_ x xy ab_ $ab 1ab ab"
    for leading in (True, False):
        flat = (rb"(?<![A-Za-z0-9_$])" if leading else b"") + rb"(?:" + b"|".join(
            re.escape(n.encode()) for n in sorted(names, key=len, reverse=True)) + rb")(?![A-Za-z0-9_$])"
        expected = [m.span() for m in re.finditer(flat, text)]
        assert [m.span() for m in _word_pattern(names, leading).finditer(text)] == expected
    assert [text[a:b] for a, b in (m.span() for m in _word_pattern(names).finditer(text))] == [
        b"ab", b"abc", b"abcd", b"b", b"b2", b"x_y", b"x", b"ab"]


def test_macro_body_non_code_is_finditer_of_its_pattern():
    """parse.macro_body_non_code finds the key byte of each comment or literal and tries the
    pattern at the few starts before it; its ranges equal _MACRO_NON_CODE.finditer's on the
    corpus and on 20,000 short texts drawn (fixed seed) from the pattern's pieces: quotes,
    escapes, prefixes (u8, u, U, L, R), raw-string delimiters, comment marks and newlines."""
    import random

    from helpers import CORPUS
    from hipport.parse import _MACRO_NON_CODE, macro_body_non_code

    texts = [path.read_bytes() for path in sorted(CORPUS.rglob("*.cu*"))]
    pieces = [b"/", b"*", b'"', b"'", b"\\", b"\n", b"u8", b"u", b"U", b"L", b"R", b"(", b")", b"x", b"1", b" ", b"_"]
    draw = random.Random(20261206)
    texts += [b"".join(draw.choice(pieces) for _ in range(draw.randint(0, 30))) for _ in range(20_000)]
    for text in texts:
        assert macro_body_non_code(text) == [m.span() for m in _MACRO_NON_CODE.finditer(text)], text
    assert macro_body_non_code(b'a / b; // c\nu8R"x(q)x" \'"\' "s\\"t" /* d') == [(7, 11), (12, 22), (23, 26), (27, 33), (34, 38)]
