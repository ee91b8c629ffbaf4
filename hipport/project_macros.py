"""The macros a file sees from itself and from the tree's own headers, in include order.

hipport does not run the preprocessor (files are ported one by one, with no include paths and
no ``-D`` flags), but two kinds of checks depend on macros that may come from a header the file
includes:

* HP1215 (:mod:`hipport.vector_macros`): ``#define uint4 uint32_t`` in a project header, or in
  the file itself, before an include that brings HIP's headers, possibly through another project
  header (Rodinia's mummergpu: ``mummergpu_main.cpp`` defines the macros, then includes
  ``mummergpu.h``, which includes ``common.cu``, whose port includes ``<hip/hip_runtime.h>``);
* device code (:func:`hipport.device_context.function_kind`, used by the HP1211/HP1212 checks and
  the wavefront analysis): functions declared with a macro that expands to CUDA's execution-space
  specifiers, ``#define HOST_DEVICE __host__ __device__``, ``#define KERNEL __global__``,
  ``#define FORCEINLINE __forceinline__ __device__``, often in a shared header.

:func:`walk` lists a file's directives and, at each ``#include "name"`` that names a file of the
tree (resolved as :func:`resolve_include` says), the directives of that file, depth first, each
file once (as include guards would make it). Comments are skipped; string literals are not
scanned for directives.

Conditionals are not skipped, but each directive carries whether a CUDA compile reads it
(:data:`CUDA_PASSES`: nvcc defines ``__CUDACC__`` and ``__NVCC__`` in both of its passes and
``__CUDA_ARCH__`` in the device pass only; no ``__HIP*`` macro; anything else, a project macro or
a ``-D`` flag, may be either): per pass True, False or None (either). :func:`specifier_macros`
uses it to choose between the definitions of ``#ifdef __CUDACC__ / #define HD __host__
__device__ / #else / #define HD / #endif``.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping

from .alternation import directive_matches

#: Byte-order mark of UTF-8 (some editors start every file with it).
_UTF8_BOM = b"\xef\xbb\xbf"
#: Byte-order marks of UTF-16/32: such a file's directives are not ASCII bytes; not read.
_WIDE_BOMS = (b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00", b"\xfe\xff", b"\xff\xfe")


def resolve_include(tree_files: frozenset[str], including: str, name: str) -> str | None:
    """The tree file a quoted ``#include "name"`` in ``including`` names, or None.

    Args:
        tree_files: every file of the tree, paths relative to its root with ``/`` separators.
        including: the including file, relative to the root.
        name: the include's operand without its quotes (``../common/util.h``).

    As the preprocessor searches a quoted include: first the including file's folder, then (as
    the ``-I`` of the tree's root that most builds pass) the root.
    """
    folder = posixpath.dirname(including)
    for base in (folder, ""):
        candidate = posixpath.normpath(posixpath.join(base, name))
        if candidate in tree_files:
            return candidate
    return None


# --------------------------------------------------------------------------- directives
#: One pass of a CUDA compile: the device pass (``__CUDA_ARCH__`` defined) and the host pass.
CUDA_PASSES = ("device", "host")
#: Tri-state per pass: True (read), False (skipped), None (depends on a macro hipport cannot know).
State = tuple["bool | None", "bool | None"]
ALWAYS: State = (True, True)


@dataclass(frozen=True, slots=True)
class Directive:
    """One ``#define``, ``#undef`` or ``#include`` of a file.

    Attributes:
        kind: ``"define"``, ``"undef"`` or ``"include"``.
        line: 1-based line of the ``#``.
        offset: byte offset (in the file) of the operand: the macro name, or the include's
            ``"name"`` / ``<name>`` with its delimiters.
        operand: the macro name, or the include operand with its delimiters (``"common.cu"``).
        body: a define's replacement text (continuations joined, comments removed, stripped);
            empty for the others.
        function_like: a define with parameters (``#define MAX(a, b) ...``).
        seen: whether each CUDA pass (:data:`CUDA_PASSES`) reads the directive, by the
            conditionals of its own file.
    """

    kind: str
    line: int
    offset: int
    operand: str
    body: str = ""
    function_like: bool = False
    seen: State = ALWAYS


_COMMENT_OR_LITERAL = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_DIRECTIVE_LINE = re.compile(rb"^[ \t]*#[ \t]*([A-Za-z_]+)((?:[^\n\\]|\\\r?\n|\\[^\n])*)", re.M)
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NAME_BYTES = re.compile(rb"[ \t]*([A-Za-z_$][A-Za-z0-9_$]*)")
_INCLUDE_OPERAND = re.compile(rb'[ \t]*("[^"\n]*"|<[^>\n]*>)')
_CONTINUATION = re.compile(r"\\\r?\n")


#: bytes.translate table: every byte but the newline becomes a blank.
_BLANKS = bytes(b"\n"[0] if byte == b"\n"[0] else b" "[0] for byte in range(256))


def _without_comments(source: bytes) -> bytes:
    """``source`` with each comment replaced by blanks of its length (newlines kept)."""
    def blank(match: re.Match) -> bytes:
        text = match.group()
        return text if text[:1] in (b'"', b"'") else text.translate(_BLANKS)
    return _COMMENT_OR_LITERAL.sub(blank, source) if b"/" in source else source


def directives(source: bytes) -> list[Directive]:
    """The ``#define``/``#undef``/``#include`` directives of ``source`` in order, each with the
    CUDA passes that read it (see the module docstring); a malformed one is left out."""
    clean = _without_comments(source)
    found: list[Directive] = []
    conditions = _Conditions()
    line, counted = 1, 0  # the line of byte ``counted``
    for match in directive_matches(_DIRECTIVE_LINE, clean):
        word = match.group(1).decode("ascii")
        raw = match.group(2)
        if conditions.directive(word, _CONTINUATION.sub(" ", raw.decode("utf-8", "replace"))):
            continue
        if word not in ("define", "undef", "include"):
            continue
        line += clean.count(b"\n", counted, match.start())
        counted = match.start()
        operand = (_INCLUDE_OPERAND if word == "include" else _NAME_BYTES).match(raw)
        if operand is None:
            continue
        offset = match.start(2) + operand.start(1)
        name = operand.group(1).decode("utf-8", "replace")
        if word == "include":
            found.append(Directive("include", line, offset, name, seen=conditions.seen()))
            continue
        after = raw[operand.end(1):]
        function_like = word == "define" and after.startswith(b"(")
        if function_like:
            after = after.split(b")", 1)[1] if b")" in after else b""
        body = " ".join(_CONTINUATION.sub(" ", after.decode("utf-8", "replace")).split()) if word == "define" else ""
        found.append(Directive(word, line, offset, name, body, function_like, conditions.seen()))
    return found


# --------------------------------------------------------------------------- conditionals
#: What a CUDA compile defines, per pass: name -> (defined, value); value None: unknown.
#: nvcc 12.4 defines __CUDACC__ and __NVCC__ in both passes, __CUDA_ARCH__ (the SM version)
#: in the device pass only; it compiles C++ (__cplusplus). HIP's macros are not defined.
_PREDEFINED = (
    {"__CUDACC__": (True, 1), "__NVCC__": (True, 1), "__CUDA_ARCH__": (True, None), "__cplusplus": (True, None)},
    {"__CUDACC__": (True, 1), "__NVCC__": (True, 1), "__CUDA_ARCH__": (False, 0), "__cplusplus": (True, None)},
)


def _known(name: str, index: int) -> tuple["bool | None", "int | None"]:
    if name in _PREDEFINED[index]:
        return _PREDEFINED[index][name]
    if name.startswith("__HIP"):
        return False, 0
    return None, None


def _and(a, b):
    if a is False or b is False:
        return False
    return True if a is True and b is True else None


def _not(a):
    return None if a is None else not a


def _or(a, b):
    if a is True or b is True:
        return True
    return False if a is False and b is False else None


@dataclass(slots=True)
class _Frame:
    parent: list  # per pass: is the enclosing region read
    taken: list   # per pass: was an earlier branch of this conditional taken
    condition: list  # per pass: the current branch's condition


@dataclass(slots=True)
class _Conditions:
    """The ``#if`` nesting of one file, evaluated for each CUDA pass."""

    stack: list[_Frame] = field(default_factory=list)

    def seen(self) -> State:
        if not self.stack:
            return ALWAYS
        top = self.stack[-1]
        return tuple(_and(top.parent[i], _and(_not(top.taken[i]), top.condition[i])) for i in range(2))

    def directive(self, word: str, rest: str) -> bool:
        """Follow one directive; True when it was a conditional."""
        if word in ("if", "ifdef", "ifndef"):
            parent = list(self.seen())
            self.stack.append(_Frame(parent, [False, False], [_condition(word, rest, i) for i in range(2)]))
        elif word in ("elif", "elifdef", "elifndef", "else"):
            if not self.stack:
                return True
            top = self.stack[-1]
            top.taken = [_or(top.taken[i], top.condition[i]) for i in range(2)]
            kind = {"elif": "if", "elifdef": "ifdef", "elifndef": "ifndef"}.get(word)
            top.condition = [True, True] if kind is None else [_condition(kind, rest, i) for i in range(2)]
        elif word == "endif":
            if self.stack:
                self.stack.pop()
        else:
            return False
        return True


def _condition(kind: str, text: str, index: int):
    if kind in ("ifdef", "ifndef"):
        name = _NAME.match(text.strip())
        defined = _known(name.group(), index)[0] if name else None
        return defined if kind == "ifdef" else _not(defined)
    return condition_value(text, lambda name: _known(name, index))


def condition_value(text: str, known: "Callable[[str], tuple[bool | None, int | None]]") -> "bool | None":
    """The truth of the ``#if``/``#elif`` expression ``text`` (comments already removed), or None
    where it depends on a macro ``known`` does not fix, or is not an expression this evaluator
    reads (C's preprocessor arithmetic, ``defined``, ``?:``; a function-like macro is unknown).

    Args:
        text: the expression after ``#if``.
        known: macro name -> (is it defined: True/False/None for unknown, its value as an int or
            None); an undefined macro should give ``(False, 0)``, as the preprocessor reads it.
    """
    try:
        value = _Expression(text, known).parse()
    except (IndexError, ValueError):
        return None
    return None if value is None else value != 0


_TOKEN = re.compile(r"\s*(?:(0[xX][0-9A-Fa-f]+|\d+)[uUlL]*|([A-Za-z_$][A-Za-z0-9_$]*)|"
                    r"(\|\||&&|==|!=|<=|>=|<<|>>|[!~+\-*/%<>&|^()?:,]))")


class _Expression:
    """A ``#if`` expression, evaluated to an int, or None where it depends on an unknown macro.

    Raises:
        ValueError, IndexError: the expression is not one this evaluator reads.
    """

    def __init__(self, text: str, known: "Callable[[str], tuple[bool | None, int | None]]"):
        self.tokens: list[tuple[str, str]] = []
        position = 0
        text = text.strip()
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None or match.end() == position:
                raise ValueError(text)
            number, name, operator = match.groups()
            self.tokens.append(("n", number) if number else ("i", name) if name else ("o", operator))
            position = match.end()
        self.known = known
        self.at = 0

    def parse(self):
        value = self._ternary()
        if self.at != len(self.tokens):
            raise ValueError("trailing tokens")
        return value

    def _peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def _take(self) -> tuple[str, str]:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def _ternary(self):
        condition = self._binary(0)
        if self._peek() != "?":
            return condition
        self._take()
        yes = self._ternary()
        if self._take()[1] != ":":
            raise ValueError("?:")
        no = self._ternary()
        if condition is None:
            return yes if yes == no else None
        return yes if condition else no

    _LEVELS = (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"),
               ("+", "-"), ("*", "/", "%"))

    def _binary(self, level: int):
        if level == len(self._LEVELS):
            return self._unary()
        left = self._binary(level + 1)
        while self._peek() in self._LEVELS[level]:
            operator = self._take()[1]
            right = self._binary(level + 1)
            left = _apply(operator, left, right)
        return left

    def _unary(self):
        token = self._peek()
        if token in ("!", "~", "-", "+"):
            self._take()
            value = self._unary()
            if value is None:
                return None
            return {"!": int(not value), "~": ~value, "-": -value, "+": value}[token]
        return self._primary()

    def _primary(self):
        kind, text = self._take()
        if kind == "n":
            if text[:2] in ("0x", "0X"):
                return int(text, 16)
            return int(text, 8) if text.startswith("0") and len(text) > 1 else int(text)
        if kind == "o" and text == "(":
            value = self._ternary()
            if self._take()[1] != ")":
                raise ValueError(")")
            return value
        if kind == "i" and text == "defined":
            parenthesized = self._peek() == "("
            if parenthesized:
                self._take()
            name_kind, name = self._take()
            if name_kind != "i":
                raise ValueError("defined")
            if parenthesized and self._take()[1] != ")":
                raise ValueError(")")
            defined = self.known(name)[0]
            return None if defined is None else int(defined)
        if kind == "i":
            if self._peek() == "(":  # a function-like macro: its value is unknown
                depth = 0
                while True:
                    token = self._take()[1]
                    depth += token == "("
                    depth -= token == ")"
                    if depth == 0:
                        return None
            if text in ("true", "false"):
                return int(text == "true")
            return self.known(text)[1]
        raise ValueError(text)


def _apply(operator: str, left, right):
    if operator == "||":
        if (left is not None and left != 0) or (right is not None and right != 0):
            return 1
        return 0 if left == 0 and right == 0 else None
    if operator == "&&":
        if left == 0 or right == 0:
            return 0
        return 1 if left is not None and right is not None else None
    if left is None or right is None:
        return None
    if operator in ("/", "%") and right == 0:
        return None
    return {
        "|": lambda: left | right, "^": lambda: left ^ right, "&": lambda: left & right,
        "==": lambda: int(left == right), "!=": lambda: int(left != right), "<": lambda: int(left < right),
        ">": lambda: int(left > right), "<=": lambda: int(left <= right), ">=": lambda: int(left >= right),
        "<<": lambda: left << right if 0 <= right < 64 else None, ">>": lambda: left >> right if 0 <= right < 64 else None,
        "+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
        "/": lambda: int(left / right), "%": lambda: left % right,
    }[operator]()


# --------------------------------------------------------------------------- the tree's files
class TreeSources:
    """The tree's files, for following includes: their names, and their text read on first use.

    Args:
        files: path relative to the tree root (``/`` separators) -> the file on disk (a
            :class:`pathlib.Path`) or its content (bytes).

    A file that cannot be read, or is UTF-16/32, has no directives (its own port reports it).
    Picklable (for the conversion's worker processes); what was read is not sent along.
    """

    def __init__(self, files: Mapping[str, "Path | bytes"]):
        self._files = dict(files)
        self.files: frozenset[str] = frozenset(self._files)
        self._directives: dict[str, list[Directive]] = {}
        self._digests: dict[str, str] = {}
        self._bytes_digests: dict[str, str] = {}
        self._given: dict[str, tuple[bytes, list[Directive]]] = {}
        self._suffixes: frozenset[str] | None = None
        self._log: dict | None = None

    def __getstate__(self):
        return {"_files": self._files, "files": self.files}

    def __setstate__(self, state):
        self.__init__(state["_files"])

    def start_log(self) -> None:
        """Start recording what is asked of the tree (:meth:`stop_log` returns it): the tree
        files read through :meth:`directives` and the include lookups of :meth:`resolve`, the
        cross-file facts one file's port used (:mod:`hipport.incremental` checks them)."""
        self._log = {"read": {}, "resolve": set()}

    def stop_log(self) -> dict:
        """What was asked since :meth:`start_log`: ``{"read": {tree file: [SHA-256 (hex) of
        its bytes as read (empty when unreadable), its :meth:`directives_digest`]}, "resolve":
        [[including, name, answer], ...]}`` (sorted); logging stops. An empty record when no log
        was started."""
        log, self._log = self._log, None
        if log is None:
            return {"read": {}, "resolve": []}
        return {"read": dict(sorted(log["read"].items())), "resolve": sorted([list(r) for r in log["resolve"]],
                                                                              key=lambda r: (r[0], r[1]))}

    def ends_with(self, name: str) -> bool:
        """True when a tree file's path ends with ``/name`` (``name`` normalised): an include
        ``<name>`` can find it through an ``-I`` of the build. The index of every path suffix is
        built on first use."""
        if self._suffixes is None:
            suffixes = set()
            for rel in self.files:
                parts = rel.split("/")
                suffixes.update("/".join(parts[i:]) for i in range(1, len(parts)))
            self._suffixes = frozenset(suffixes)
        return posixpath.normpath(name) in self._suffixes

    def directives_of(self, rel: str, source: bytes) -> list[Directive]:
        """The directives of ``source``, the text of ``rel`` as the caller has it (the file being
        ported, already read), scanned once for the checks that walk it one after another."""
        given = self._given.get(rel)
        if given is None or given[0] != source:
            given = (source, directives(source) if b"#" in source else [])
            self._given = {rel: given}  # only the file being ported is kept
        return given[1]

    def resolve(self, including: str, name: str) -> str | None:
        """See :func:`resolve_include`."""
        answer = resolve_include(self.files, including, name)
        if self._log is not None:
            self._log["resolve"].add((including, name, answer))
        return answer

    def directives(self, rel: str) -> list[Directive]:
        """The directives of the tree file ``rel`` (:func:`directives`), read once."""
        cached = self._directives.get(rel)
        if cached is None:
            entry = self._files.get(rel)
            data = b""
            if isinstance(entry, bytes):
                data = entry
            elif entry is not None:
                try:
                    data = Path(entry).read_bytes()
                except OSError:
                    data = b""
            self._bytes_digests[rel] = hashlib.sha256(data).hexdigest()
            if data.startswith(_UTF8_BOM):
                data = data[len(_UTF8_BOM):]
            elif data.startswith(_WIDE_BOMS):
                data = b""
            cached = self._directives[rel] = directives(data) if b"#" in data else []
        if self._log is not None:
            self._log["read"][rel] = [self._bytes_digests[rel], self.directives_digest(rel)]
        return cached

    def content(self, rel: str) -> bytes:
        """The bytes of the tree file ``rel`` (empty when unreadable), read for a fact of the
        port being logged: the read is recorded as :meth:`directives` records it, so an
        incremental conversion ports the file again when ``rel`` changes."""
        self.directives(rel)
        entry = self._files.get(rel)
        if isinstance(entry, bytes):
            return entry
        try:
            return Path(entry).read_bytes() if entry is not None else b""
        except OSError:
            return b""

    def directives_digest(self, rel: str) -> str:
        """SHA-256 (hex) of the directives of the tree file ``rel`` (:meth:`directives`: kinds,
        lines, offsets, operands, bodies, conditionals): what another file's port reads of it."""
        found = self._digests.get(rel)
        if found is None:
            log, self._log = self._log, None  # reading it here is no fact of a port
            try:
                found = self._digests[rel] = hashlib.sha256(repr(self.directives(rel)).encode()).hexdigest()
            finally:
                self._log = log
        return found


@dataclass(frozen=True, slots=True)
class Step:
    """One directive met by :func:`walk`.

    Attributes:
        path: the tree file holding it.
        directive: the directive.
        chain: the ``#include`` steps that led into ``path``, from the file walked (empty for
            that file's own directives).
        seen: whether each CUDA pass reads it, given its own file's conditionals and those of
            the includes on its chain.
        target: for an include of a tree file, the file (relative to the root), else None.
    """

    path: str
    directive: Directive
    chain: tuple["Step", ...]
    seen: State
    target: str | None = None


def walk(path: str, source: bytes, tree: TreeSources | None) -> Iterator[Step]:
    """The directives of ``source`` (the file ``path`` of the tree) and of the tree files it
    includes, in the order the preprocessor reads them: each ``#include "name"`` of a tree file
    (:meth:`TreeSources.resolve`) is followed by that file's directives, once per walk. Angle
    includes and files outside the tree are not followed. Lazy: a caller may stop early.

    Args:
        path: the file's path relative to the tree root.
        source: its content (without a byte-order mark).
        tree: the tree's files; None: only ``source`` is read.
    """
    visited = {path}

    def follow(rel: str, found: list[Directive], chain: tuple[Step, ...], outer: State) -> Iterator[Step]:
        for directive in found:
            seen = (_and(outer[0], directive.seen[0]), _and(outer[1], directive.seen[1]))
            target = None
            if directive.kind == "include" and tree is not None and directive.operand.startswith('"'):
                target = tree.resolve(rel, directive.operand[1:-1])
            step = Step(rel, directive, chain, seen, target)
            yield step
            if target is not None and target not in visited:
                visited.add(target)
                yield from follow(target, tree.directives(target), chain + (step,), seen)

    top = tree.directives_of(path, source) if tree is not None else directives(source) if b"#" in source else []
    yield from follow(path, top, (), ALWAYS)


# --------------------------------------------------------------------------- specifier macros
#: The words of a function's head that decide where it runs and whether clang defers its
#: diagnostics (:mod:`hipport.device_context`): CUDA's execution spaces and the inline/linkage
#: words. A macro whose expansion holds one of them is a specifier macro.
SPECIFIER_WORDS = frozenset({"__device__", "__global__", "__host__", "__forceinline__", "__noinline__", "inline",
                             "static", "constexpr", "consteval"})
_DEVICE_WORDS = frozenset({"__device__", "__global__"})
_WORD = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
_MAX_DEPTH = 16


@dataclass(frozen=True, slots=True)
class SpecifierMacros:
    """Object-like macros of one file (its own and those of the tree headers it includes) that
    expand, directly or through other macros, to CUDA execution-space specifiers or to the
    words that make a function inline (:data:`SPECIFIER_WORDS`).

    Attributes:
        expansions: macro name -> its expansion, macros expanded (``b"__host__ __device__"``).
        defined_at: macro name -> ``"PATH:LINE"`` of its definition (the first one read).
    """

    expansions: dict[bytes, bytes] = field(default_factory=dict)
    defined_at: dict[bytes, str] = field(default_factory=dict)

    @property
    def device_names(self) -> frozenset[bytes]:
        """The macros whose expansion holds ``__device__`` or ``__global__``."""
        return frozenset(name for name, text in self.expansions.items()
                         if any(word.decode() in _DEVICE_WORDS for word in _WORD.findall(text)))

    def expand(self, head: bytes) -> bytes:
        """``head`` (the text of a function's specifiers) with each specifier macro replaced by
        its expansion; unchanged when there is none."""
        if not self.expansions:
            return head
        return _WORD.sub(lambda m: self.expansions.get(m.group(), m.group()), head)


def specifier_macros(path: str, source: bytes, tree: TreeSources | None) -> SpecifierMacros:
    """The specifier macros ``source`` sees (:class:`SpecifierMacros`), from its own
    ``#define``s and those of the tree files it includes (:func:`walk`), wherever they are in
    the file.

    Several definitions of one name (under ``#if`` branches): those that no CUDA pass reads
    (``#ifndef __CUDACC__``, ``#if defined(__HIPCC__)``) are left out; if more than one is left
    (``#ifdef __CUDA_ARCH__ ... #else ...``, or a branch on a project macro), their expansions
    are all kept, joined by a space, so a head expands to every specifier some CUDA pass sees
    (``__device__`` in the device pass and ``__host__ __device__`` in the host pass make a
    ``__host__ __device__`` function). Function-like macros and ``#undef`` are not followed.
    """
    bodies: dict[str, list[str]] = {}
    where: dict[str, str] = {}
    for step in walk(path, source, tree):
        directive = step.directive
        if directive.kind != "define" or directive.function_like or step.seen == (False, False):
            continue
        texts = bodies.setdefault(directive.operand, [])
        if directive.body not in texts:
            texts.append(directive.body)
        where.setdefault(directive.operand, f"{step.path}:{directive.line}")
    if not bodies:
        return SpecifierMacros()
    # CUDA's own words are never taken as macros (a header's ``#define __device__`` for g++)
    joined = {name: " ".join(t for t in texts if t) for name, texts in bodies.items() if name not in SPECIFIER_WORDS}

    def expand(name: str, depth: int, active: frozenset[str]) -> str:
        text = joined[name]
        if depth >= _MAX_DEPTH:
            return text
        inner = active | {name}
        return _NAME.sub(lambda m: expand(m.group(), depth + 1, inner)
                         if m.group() in joined and m.group() not in inner else m.group(), text)

    expansions: dict[bytes, bytes] = {}
    defined_at: dict[bytes, str] = {}
    for name, text in joined.items():
        if not text or not _NAME.search(text):
            continue
        full = expand(name, 0, frozenset())
        if SPECIFIER_WORDS.intersection(_NAME.findall(full)):
            expansions[name.encode()] = full.encode()
            defined_at[name.encode()] = where[name]
    return SpecifierMacros(expansions, defined_at)
