"""Every block of code the port inserts into a user's file (logical-warp helpers, __syncwarp,
the wavefront-size macros, __grid_constant__, group shuffles, the half/bfloat16 conversion,
the device functions of rules/definitions/device_functions.yaml) names only words no user
macro can take: C++ keywords, names reserved to the implementation (``__x``, ``_X``), names
of the HIP, CUDA and C++ library APIs the block calls, members (after ``.``, ``->``, ``::``),
the parameters of its own macros, and hipport's own ``hipport_`` / ``HIPPORT_`` names.

A block's parameter called ``mask`` or ``T`` broke the AMD build of a file that included a
header defining such a macro (the port sees the file's own macros and shields the block from
them, hipport.port_definitions.shield_from_macros, but not a header's)."""

from __future__ import annotations

import re

import pytest

from hipport import grid_constant, group_shuffles, half_bfloat16, syncwarp, warp, warp32
from hipport.port_definitions import port_definitions

KEYWORDS = frozenset(
    "auto bool char const constexpr define defined double elif else endif extern false float for if ifdef ifndef "
    "include inline int long return short signed sizeof static static_assert struct template true typename undef "
    "unsigned void volatile while".split())
#: HIP / CUDA / C++ library names the blocks use (each an API the block calls or names).
API = frozenset(
    "HIP_vector_type static_cast std remove_cv remove_reference type_traits atomicAdd char4 uchar4 short2 ushort2 "
    "shfl shfl_up shfl_down shfl_xor".split())

_COMMENT_OR_STRING = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:[^"\\\n]|\\.)*"', re.S)
_MACRO_PARAMETERS = re.compile(r"#[ \t]*define[ \t]+\w+\(([^)]*)\)")
#: a word not after a member access or scope, and not a number's suffix (0xffffu, 3ull)
_WORD = re.compile(r"(?<![\w.])(?<!->)(?<!::)([A-Za-z_]\w*)")


def blocks() -> dict[str, str]:
    """Every inserted block, as the port writes it with "\\n" line endings."""
    found = {
        "warp32 helpers": warp32.helpers_block(set(warp32.RENAMES.values())).decode(),
        "wavefront macros": warp._WAVEFRONT_BLOCK.decode().replace("{nl}", "\n"),
        "syncwarp": syncwarp.SYNCWARP_BLOCK.decode().replace("{nl}", "\n"),
        "grid_constant": grid_constant.DEFINITION_BLOCK.format(macro="HIPPORT_GRID_CONSTANT", nl="\n"),
        "group shuffles": group_shuffles.SHUFFLE_BLOCK.replace("{nl}", "\n"),
        "half/bfloat16 conversion": half_bfloat16.CONVERT_BLOCK.replace("{nl}", "\n"),
    }
    for entry in port_definitions():
        found[entry.guard] = entry.block("\n")
    return found


def user_words(block: str) -> list[str]:
    """The words of ``block``'s code that a user's macro could replace (see the module docstring)."""
    code = _COMMENT_OR_STRING.sub(" ", block)
    code = re.sub(r"#[ \t]*include[ \t]*<[^>]*>", " ", code)
    parameters = {p.strip().rstrip(".") for m in _MACRO_PARAMETERS.finditer(code) for p in m.group(1).split(",")}
    words = []
    for match in _WORD.finditer(code):
        word = match.group(1)
        if match.start() > 0 and code[match.start() - 1].isdigit():
            continue  # 0xffffu, 3ull
        if (word in KEYWORDS or word in API or word in parameters or word.startswith("__")
                or re.match(r"_[A-Z]", word) or word.lower().startswith("hipport_") or word.startswith("HIPPORT_")):
            continue
        words.append(word)
    return sorted(set(words))


@pytest.mark.parametrize("name", sorted(blocks()))
def test_inserted_block_names_no_word_a_user_macro_could_take(name):
    assert user_words(blocks()[name]) == []


def test_the_check_sees_a_parameter_named_like_a_user_macro():
    """The check itself: a block with ordinary parameter names is caught, word by word."""
    block = ("template <typename MaskT, typename T>\n"
             "__device__ inline T f(MaskT mask, T var) { return __shfl(var, 0, 32) + v.x + 0xffu + hipport_g(); }\n"
             "#define HIPPORT_M(op, x) op(x)\n")
    assert user_words(block) == ["MaskT", "T", "f", "mask", "v", "var"]
