"""A tokenizer for CMake's command-invocation syntax (the ``cmake-language(7)`` grammar).

A CMake file is a sequence of command invocations ``name(arguments)`` separated by newlines,
with line comments (``# ...``), bracket comments (``#[[ ... ]]``, ``#[==[ ... ]==]``) and
blanks in between. Arguments are bracket arguments (``[[...]]``, ``[=[...]=]``), quoted
arguments (``"..."`` with ``\\`` escapes and ``\\``-newline continuations) or unquoted
arguments (including CMake's legacy forms ``-DX="a b"`` and ``$(VAR)``); parentheses inside
the argument list nest (``if((A OR B) AND C)``).

:func:`parse_cmake` returns the commands with the exact offsets of their names and arguments,
so a migration can rewrite single arguments and keep every other character (comments,
indentation, line endings) as it was. Standard library only.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACKET_OPEN = re.compile(r"\[(=*)\[")
_MAKEVAR = re.compile(r"\$\([A-Za-z0-9_]*\)")


class CMakeSyntaxError(ValueError):
    """The text is not valid CMake; ``line`` and ``column`` (1-based) locate the problem."""

    def __init__(self, line: int, column: int, message: str):
        self.line, self.column, self.message = line, column, message
        super().__init__(f"line {line}, column {column}: {message}")


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of a command invocation.

    Attributes:
        kind: ``unquoted``, ``quoted`` or ``bracket``.
        text: the argument as written (quotes and brackets included).
        start, end: its offsets in the file's text (``text == source[start:end]``).
        depth: parenthesis nesting inside the argument list (0: top level).
    """

    kind: str
    text: str
    start: int
    end: int
    depth: int = 0

    @property
    def content(self) -> str:
        """The text without its quotes or brackets (escape sequences left as written)."""
        if self.kind == "quoted":
            return self.text[1:-1]
        if self.kind == "bracket":
            equals = len(self.text) - len(self.text.lstrip("[").lstrip("=")) - 1
            return self.text[equals + 2:-(equals + 2)]
        return self.text

    @property
    def content_start(self) -> int:
        """Offset in the file's text where :attr:`content` starts."""
        return self.start + (1 if self.kind == "quoted" else (self.text.index("[", 1) + 1 if self.kind == "bracket" else 0))

    @property
    def value(self) -> str:
        """The argument's value as CMake sees it before expanding variables: quotes and
        brackets removed, ``\\"``, ``\\\\``, ``\\;``-free escapes of quoted and unquoted
        arguments resolved (``\\n``, ``\\t``, ``\\r`` become the characters; a
        backslash-newline in a quoted argument disappears)."""
        if self.kind == "bracket":
            return self.content
        return _unescape(self.content, quoted=self.kind == "quoted")


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def _unescape(text: str, quoted: bool) -> str:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if quoted and nxt == "\n":
                i += 2
                continue
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
            elif nxt == ";":
                out.append("\\;")  # stays an escaped list separator
            else:
                out.append(nxt)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Command:
    """One command invocation.

    Attributes:
        name: the command name as written (CMake compares names case-insensitively).
        start: offset of the name; ``end``: offset just after the closing parenthesis.
        open: offset of the opening parenthesis.
        args: the arguments in order (parentheses of nested groups are not arguments).
        line, column: 1-based position of the name.
        indent: the blanks before the name when it starts its line, else "".
    """

    name: str
    start: int
    end: int
    open: int
    args: tuple[Argument, ...]
    line: int
    column: int
    indent: str

    @property
    def lower(self) -> str:
        return self.name.lower()


class LineIndex:
    """Maps offsets of a text to 1-based (line, column)."""

    def __init__(self, text: str):
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1


def _skip_bracket(text: str, i: int, where: str, lines: LineIndex) -> int:
    """``text[i:]`` starts a bracket (``[==[``); return the offset after its closing ``]==]``."""
    match = _BRACKET_OPEN.match(text, i)
    assert match is not None
    close = "]" + match.group(1) + "]"
    end = text.find(close, match.end())
    if end < 0:
        raise CMakeSyntaxError(*lines.position(i), f"unterminated bracket {where} (no {close!r})")
    return end + len(close)


def _skip_comment(text: str, i: int, lines: LineIndex) -> int:
    """``text[i]`` is ``#``: return the offset after the comment (before the newline)."""
    if _BRACKET_OPEN.match(text, i + 1):
        return _skip_bracket(text, i + 1, "comment", lines)
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def _quoted_end(text: str, i: int, lines: LineIndex) -> int:
    """``text[i]`` is ``"``: return the offset after the closing quote."""
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == '"':
            return j + 1
        j += 1
    raise CMakeSyntaxError(*lines.position(i), "unterminated quoted argument")


def _unquoted_end(text: str, i: int, lines: LineIndex) -> int:
    j = i
    while j < len(text):
        c = text[j]
        if c in " \t\r\n()#":
            if c == "(" and j > i and text[j - 1] == "$":  # legacy $(MAKEVAR)
                match = _MAKEVAR.match(text, j - 1)
                if match:
                    j = match.end()
                    continue
            break
        if c == "\\":
            j += 2
            continue
        if c == '"':  # legacy: -DX="a b" is one unquoted argument
            j = _quoted_end(text, j, lines)
            continue
        j += 1
    return min(j, len(text))


def parse_cmake(text: str) -> list[Command]:
    """Split ``text`` (a whole CMake file) into its command invocations.

    A tree's CMake files are each parsed three times in a conversion (finding the project roots,
    :func:`hipport.buildfiles.cmakefile.scan_cmake`, then the migration): the commands of the
    last :data:`_PARSED_KEPT` texts are kept (:class:`Command` and :class:`Argument` are frozen;
    each call returns a new list).

    Returns:
        The commands in file order.

    Raises:
        CMakeSyntaxError: something other than a command, blank or comment at the top level, a
            command name without ``(``, an unterminated argument, comment or argument list; the
            error's line and column point at the start of the offending construct.
    """
    return list(_parsed(text))


#: How many texts' commands :func:`parse_cmake` keeps (a tree's CMake files, a few hundred).
_PARSED_KEPT = 1024


@functools.lru_cache(maxsize=_PARSED_KEPT)
def _parsed(text: str) -> tuple[Command, ...]:
    return tuple(_parse_cmake(text))


def _parse_cmake(text: str) -> list[Command]:
    """:func:`parse_cmake`, parsing."""
    lines = LineIndex(text)
    commands: list[Command] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c == "#":
            i = _skip_comment(text, i, lines)
            continue
        match = _IDENTIFIER.match(text, i)
        if not match:
            raise CMakeSyntaxError(*lines.position(i), f"expected a command name, found {c!r}")
        name_start, j = i, match.end()
        while j < n and text[j] in " \t":
            j += 1
        if j >= n or text[j] != "(":
            raise CMakeSyntaxError(*lines.position(name_start), f"command {match.group()!r} is not followed by '('")
        open_paren, j = j, j + 1
        args: list[Argument] = []
        depth = 0
        while True:
            if j >= n:
                line, column = lines.position(name_start)
                raise CMakeSyntaxError(line, column, f"command {match.group()!r} has no closing ')'")
            c = text[j]
            if c in " \t\r\n":
                j += 1
            elif c == "#":
                j = _skip_comment(text, j, lines)
            elif c == "(":
                depth += 1
                j += 1
            elif c == ")":
                if depth == 0:
                    j += 1
                    break
                depth -= 1
                j += 1
            elif c == '"':
                end = _quoted_end(text, j, lines)
                args.append(Argument("quoted", text[j:end], j, end, depth))
                j = end
            elif c == "[" and _BRACKET_OPEN.match(text, j):
                end = _skip_bracket(text, j, "argument", lines)
                args.append(Argument("bracket", text[j:end], j, end, depth))
                j = end
            else:
                end = _unquoted_end(text, j, lines)
                args.append(Argument("unquoted", text[j:end], j, end, depth))
                j = end
        line, column = lines.position(name_start)
        line_start = text.rfind("\n", 0, name_start) + 1
        before = text[line_start:name_start]
        commands.append(Command(match.group(), name_start, j, open_paren, tuple(args), line, column,
                                before if before.strip(" \t") == "" else ""))
        i = j
        # After a command only blanks and a comment may follow on its line.
        while i < n and text[i] in " \t\r":
            i += 1
        if i < n and text[i] not in "\n#":
            raise CMakeSyntaxError(*lines.position(i), "expected a newline after the command")
    return commands
