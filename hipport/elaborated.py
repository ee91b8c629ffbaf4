"""``struct cudaX`` / ``union cudaX`` / ``enum cudaX`` / ``class cudaX`` where HIP's name is a
typedef (HP2017).

CUDA declares many of its types as tags (``struct cudaGraphicsResource;``), and programs name
them with the keyword: ``struct cudaGraphicsResource *r;``. A plain rename gives
``struct hipGraphicsResource *r;``, which clang rejects when HIP declares the name as a typedef
(``typedef struct _hipGraphicsResource hipGraphicsResource;``): "typedef 'hipGraphicsResource'
cannot be referenced with the 'struct' specifier". What each HIP/ROCm name is comes from the
headers, through ``rules/hip_headers/type_tags.yaml`` (written by ``tools/hip_type_tags.py``
from HIP 6.4.3's and the ROCm 6.4 libraries' headers; see its docstring for the fields).

For a keyword written before a CUDA type or enum name whose replacement the data lists:

- a tag of a kind the keyword may name (``struct`` and ``class`` name each other's tags; a
  typedef of that same tag as well, as ``typedef enum hipMemcpyKind {...} hipMemcpyKind``):
  nothing to do, the rename is right;
- a typedef of a tag of such a kind at global scope: the name becomes that tag
  (``struct _hipGraphicsResource *r``), right in every form, forward declarations too;
- otherwise (a typedef of an unnamed tag, of a tag of another kind or inside a namespace, of a
  pointer or other type; or a tag of another kind), where the keyword only names the type (a
  declaration's type, a parameter, a cast, ``sizeof``, a template argument, ``friend``): the
  keyword and the blanks after it are deleted (``hipFoo x;``), legal C and C++ for a typedef.
  A forward declaration (``struct cudaX;``) or a definition (``struct cudaX {...}`` or with a
  base clause) keeps the rename and is reported: neither has a form without the keyword.

A definition of a type with a CUDA name whose HIP name is a typedef is reported in every case
(HIP declares the type already, so the program's own definition would define HIP's tag again).
Keywords in macro bodies (``#define RES struct cudaGraphicsResource``) are found in the text: a
keyword, then blanks, then the name. Nothing else changes: names the data does not list (HIP
lacks them, or a user's own rule maps them) are renamed as before.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import tree_sitter

from .edits import Edit
from .resources import data_dir, load_yaml_file
from .rules import Mapping, RuleError

if TYPE_CHECKING:
    from .analyze import _FileContext

#: The tag keywords, and the tag kinds (data ``kind``) each may name.
KEYWORDS: dict[bytes, frozenset[str]] = {
    b"struct": frozenset({"struct", "class"}),
    b"class": frozenset({"struct", "class"}),
    b"union": frozenset({"union"}),
    b"enum": frozenset({"enum"}),
}
_SPECIFIERS = frozenset({"struct_specifier", "class_specifier", "union_specifier", "enum_specifier"})
_KEYWORD_BEFORE = re.compile(rb"(?<![A-Za-z0-9_$])(struct|class|union|enum)((?:[ \t]|\\\r?\n)+)$")
_KINDS = frozenset({"struct", "class", "union", "enum", "none"})
TYPE_TAGS_FILE = Path("hip_headers") / "type_tags.yaml"


@lru_cache(maxsize=1)
def type_tags() -> dict[str, dict[str, str]]:
    """HIP/ROCm name -> its facts (``is``, ``kind``, and ``tag``, ``type``, ``via``, ``at`` where
    given) from ``rules/hip_headers/type_tags.yaml``, kept between processes in the rule-table
    cache (:mod:`hipport.rulecache`, keyed by the file's bytes).

    Raises:
        RuleError: the file is not the mapping its generator writes (an entry without ``is:
            tag`` or ``is: typedef``, or with an unknown ``kind``).
    """
    from .rulecache import cached_table

    path = data_dir("rules") / TYPE_TAGS_FILE
    return cached_table("type-tags", [path], lambda: _load_type_tags(path), dict)


def _load_type_tags(path: Path) -> dict[str, dict[str, str]]:
    """The checked ``type_tags:`` table of ``path`` (see :func:`type_tags`); raises as it."""
    data = load_yaml_file(path)
    table = data.get("type_tags") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise RuleError(path, 1, "expected a 'type_tags:' mapping (tools/hip_type_tags.py writes this file)")
    for name, entry in table.items():
        if not (isinstance(entry, dict) and entry.get("is") in ("tag", "typedef") and entry.get("kind") in _KINDS):
            raise RuleError(path, None, f"{name}: an entry needs 'is: tag|typedef' and a kind of {sorted(_KINDS)}")
    return table


def _form(node: tree_sitter.Node, specifier: tree_sitter.Node | None) -> str:
    """``definition``, ``declaration`` (a forward declaration: ``struct X;``) or ``use``."""
    if specifier is None:
        return "use"
    if specifier.child_by_field_name("body") is not None or any(
            c.type == "base_class_clause" for c in specifier.children) or specifier.child_by_field_name("base"):
        return "definition"
    following = specifier.next_sibling
    if following is not None and following.type == ";" and (specifier.parent is None
                                                             or specifier.parent.type != "friend_declaration"):
        return "declaration"
    return "use"


def _text_form(source: bytes, end: int) -> str:
    """The form of a keyword-and-name in macro code or an unparsed region, from the text after it."""
    rest = source[end:end + 80].lstrip(b" \t")
    if rest.startswith(b"{") or (rest.startswith(b":") and not rest.startswith(b"::")):
        return "definition"
    return "declaration" if rest.startswith(b";") else "use"


def _what(facts: dict[str, str]) -> str:
    """What HIP declares a name as, in words (``a typedef of struct _hipGraphicsResource``)."""
    if facts["is"] == "tag":
        return f"{'an' if facts['kind'][0] in 'aeiou' else 'a'} {facts['kind']} tag"
    if "tag" in facts:
        return f"a typedef of {facts['kind']} {facts['tag']}"
    if facts["kind"] != "none" and "type" not in facts:
        return f"a typedef of an unnamed {facts['kind']}"
    return f"a typedef of {facts.get('type', facts['kind'])}"


def describe_tag(name: str) -> str | None:
    """What the HIP/ROCm headers declare ``name`` as, for ``hipport explain``
    (``hipGraphicsResource is a typedef of struct _hipGraphicsResource (hip/...h:1337)``); None
    when the data does not list it."""
    facts = type_tags().get(name)
    if facts is None:
        return None
    via = f" (through #define {name} {facts['via']})" if "via" in facts else ""
    return f"{name} is {_what(facts)}{via} ({facts['at']})"


def _compat_note(ctx: "_FileContext", mapping: Mapping, written: str, port: str, form: str, row: int,
                 column: int) -> None:
    """Record, for ``--compat`` (HP1401), a keyword-and-name the port writes otherwise: the
    compat header's ``#define cudaX hipX`` makes ``struct cudaX`` the uncompilable
    ``struct hipX``. In C++ a CUDA tag name may be written without its keyword, which both CUDA
    and (through the macro) HIP take; a forward declaration needs a CUDA-only branch."""
    fix = (f"keep this forward declaration for CUDA only (#if !defined(__HIP__)): HIP's headers declare the type"
           if form == "declaration" else f"write {mapping.cuda} without the keyword, which CUDA and HIP both take")
    ctx.result.type_rewrites.append(
        (mapping.cuda, f"the port writes {port} for {written}, as HIP's name is a typedef", fix, row + 1, column + 1))


def elaborated_name(ctx: "_FileContext", node: tree_sitter.Node, start: int, end: int, mapping: Mapping,
                    hip: bytes | None) -> bytes | None:
    """The text that replaces the CUDA name at ``source[start:end]`` (``hip``, or the tag HIP's
    typedef names) when a tag keyword precedes it; deletes the keyword (an edit) or reports
    HP2017 as the module docstring says. Returns ``hip`` unchanged when no keyword precedes the
    name or the data does not list the replacement.

    Args:
        ctx: the file's analysis context; node: the name's token (``type_identifier`` in code,
            ``preproc_arg`` or ``ERROR`` in macro code or an unparsed region); start, end: the
            name's byte range; mapping: its rule entry; hip: the replacement name (bytes), or
            None when the name is not renamed.
    """
    if hip is None or mapping.kind not in ("type", "enum"):
        return hip
    facts = type_tags().get(hip.decode("ascii"))
    if facts is None:
        return hip
    source = ctx.source
    specifier = None
    keyword_start = keyword_end = None
    parent = node.parent
    if node.type == "type_identifier" and parent is not None and parent.type in _SPECIFIERS \
            and parent.child_by_field_name("name") == node:
        first = parent.children[0]
        between = parent.children[1:parent.children.index(node)] if node in parent.children else [None]
        if first.type.encode() not in KEYWORDS or any(c is None or c.type != "comment" for c in between):
            return hip  # enum class X, an attribute between keyword and name
        specifier, keyword_start, keyword_end = parent, first.start_byte, first.end_byte
        keyword = first.type.encode()
    elif node.type == "type_identifier" and parent is not None and parent.type == "friend_declaration":
        previous = node.prev_sibling
        if previous is None or previous.type.encode() not in KEYWORDS:
            return hip
        keyword, keyword_start, keyword_end = previous.type.encode(), previous.start_byte, previous.end_byte
    elif node.type in ("preproc_arg", "ERROR"):
        match = _KEYWORD_BEFORE.search(source, max(node.start_byte, start - 120), start)
        if match is None:
            return hip
        keyword, keyword_start, keyword_end = match.group(1), match.start(1), match.end(1)
    else:
        return hip
    allowed = KEYWORDS[keyword]
    form = _form(node, specifier) if specifier is not None or node.type == "type_identifier" \
        else _text_form(source, end)
    if facts["is"] == "tag" and facts["kind"] in allowed:
        return hip  # struct hipPitchedPtr, enum hipMemcpyKind: HIP's own tag
    # the keyword's 0-based row and byte column (it may stand on a line before the name)
    row, column = source.count(b"\n", 0, keyword_start), keyword_start - (source.rfind(b"\n", 0, keyword_start) + 1)
    written = f"{keyword.decode()} {mapping.cuda}"
    if form != "definition" and facts["is"] == "typedef" and facts["kind"] in allowed and "tag" in facts:
        _compat_note(ctx, mapping, written, f"{keyword.decode()} {facts['tag']}", form, row, column)
        return facts["tag"].encode("ascii")
    if form == "use":
        stop = keyword_end
        while source[stop:stop + 1] in (b" ", b"\t", b"\\", b"\r", b"\n") and stop < start:
            stop += 1
        ctx.result.edits.append(Edit(keyword_start, stop, b""))
        _compat_note(ctx, mapping, written, hip.decode("ascii"), form, row, column)
        return hip
    name = hip.decode("ascii")
    if form == "definition":
        advice = (f"The HIP/ROCm headers declare {name} already ({facts.get('at', '?')}): use it, and keep this "
                  f"definition for CUDA only (#if !defined(__HIP_PLATFORM_AMD__))")
    else:
        advice = (f"Delete this forward declaration: the HIP/ROCm headers declare {name} ({facts.get('at', '?')}); "
                  f"include that header where the type is used")
    ctx.report("elaborated-typedef", (row, column), name=mapping.cuda,
               keyword=keyword.decode(), hip=name, what=_what(facts), advice=advice,
               form="forward declaration" if form == "declaration" else form)
    return hip
