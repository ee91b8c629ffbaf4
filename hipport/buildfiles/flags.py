"""nvcc options mapped to clang's HIP options, over a sequence of words of a build file.

The words come from wherever a build file hands options to nvcc: the arguments or the
blank-separated words of a quoted argument in CMake, a Makefile variable's value or an nvcc
command line. :func:`map_nvcc_flags` looks each word up in ``rules/build/nvcc_flags.yaml``
(see :mod:`hipport.buildfiles.data`) and returns byte-exact edits of the text plus notes that
the callers turn into findings. Nothing is removed without a note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .data import BuildRules, FlagRule

#: Characters that separate words in the contexts handled here (blanks, CMake list separators,
#: the newlines between CMake arguments); a gap holding anything else (a comment) is never removed.
_SEPARATORS = frozenset(" \t;\r\n")
_HOST_SPLIT = re.compile(r"[,\s]+")
_COMPUTED_ARCHS = re.compile(r"(?:-gencode|--generate-code|-arch[= ]|--gpu-architecture)")
_NVIDIA_ARCH = re.compile(r"\b(?:sm|compute|lto)_[0-9]")


@dataclass(frozen=True, slots=True)
class Word:
    """A word of the text: ``text == source[start:end]``."""

    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``source[start:end]`` (a str) with ``text``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Note:
    """Something to report: the check's name, where (offset in the text) and its template fields."""

    check: str
    offset: int
    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class FlagResult:
    """What :func:`map_nvcc_flags` decided: edits of the text and notes to report."""

    edits: list[TextEdit] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)


def _is_flag(text: str) -> bool:
    return text.startswith("-") and len(text) > 1


def _match(rules: BuildRules, words: list[Word], i: int) -> tuple[FlagRule | None, str | None, int]:
    """(rule, value or None, words consumed) for the option starting at ``words[i]``."""
    text = words[i].text
    rule = rules.flags.get(text)
    if rule is not None:
        if not rule.takes_value:
            return rule, None, 1
        if i + 1 < len(words):
            return rule, words[i + 1].text, 2
        return rule, None, 1  # the value is missing: reported by the caller
    if "=" in text:
        spelling, value = text.split("=", 1)
        rule = rules.flags.get(spelling)
        if rule is not None and rule.takes_value:
            return rule, value, 1
    return None, None, 1


def is_kept_flag(rules: BuildRules, text: str) -> bool:
    """True when clang takes the option ``text`` as nvcc does (``-O3``, ``-Idir``, ``--compile``)."""
    return (text in rules.keep_flags or text.split("=", 1)[0] in rules.keep_flags
            or any(text.startswith(p) for p in rules.keep_prefixes))


def offload_arch_flags(archs: tuple[str, ...] | list[str]) -> list[str]:
    """``--offload-arch=`` options for the AMD architectures ``archs`` (``gfx90a``...)."""
    return [f"--offload-arch={a}" for a in archs]


def map_nvcc_flags(source: str, words: list[Word], rules: BuildRules, archs: tuple[str, ...], *,
                   certain: bool, arch_mode: str, joiner: str = " ", target_libs: str = "hip",
                   arch_done: list[bool] | None = None) -> FlagResult:
    """Map the nvcc options among ``words`` (consecutive words of ``source``) to clang's.

    Args:
        source: the text the words come from (the gaps between words are read from it).
        words: the words, in order; words that are not options (values, ``${VAR}``) are left
            alone unless an option consumes them as its value.
        rules: the build rules.
        archs: the configured AMD architectures (``gfx90a``...).
        certain: True where the options surely go to nvcc (CMAKE_CUDA_FLAGS, a CUDA generator
            expression, an nvcc command line): options host compilers know too are mapped and
            options hipport does not know are reported. False elsewhere
            (``target_compile_options`` without a language condition): only nvcc-only
            spellings are mapped.
        arch_mode: ``remove`` (CMake: the architectures come from CMAKE_HIP_ARCHITECTURES) or
            ``flags`` (Makefiles: the first architecture option becomes ``--offload-arch=``
            options for every configured architecture, the others are removed).
        joiner: what separates words written in place of one (`` `` or ``;``).
        target_libs: ``hip`` or ``roc``, for ``-l<cuda library>``.
        arch_done: a one-element list shared by the calls of one command line, so that only the
            first architecture option there is replaced (``arch_mode == "flags"``).

    Returns:
        Edits (never overlapping) and notes (checks ``nvcc-flag-kept``, an error: an option
        hipport does not know, or without its value, stays as written; ``nvcc-flag-removed``
        and ``nvcc-flag-dropped``: an nvcc-only option left out, meaningless to clang or with
        an effect clang cannot give; no note for an option whose clang options all stand among
        ``words`` already, kept as written or mapped from an earlier option (``-g -G`` becomes
        ``-g``, not ``-g -g``), which is left out; ``cuda-arch-replaced``, ``cuda-library-unavailable``). An
        nvcc-only option hipport knows never stays: it is mapped or left out.
    """
    result = FlagResult()
    replaced: dict[int, str] = {}  # word index -> new text
    removed: set[int] = set()
    arch_done = arch_done if arch_done is not None else [False]
    # options that stay as written (-g), and the clang options written for earlier nvcc options
    kept = {k: w.text for k, w in enumerate(words) if _is_flag(w.text) and
            (is_kept_flag(rules, w.text) or getattr(rules.flags.get(w.text), "action", None) == "keep")}
    produced: set[str] = set()
    i = 0
    while i < len(words):
        word = words[i]
        if certain and _COMPUTED_ARCHS.search(word.text) and word.text.startswith("$("):
            # a Makefile function computing architecture options: $(foreach sm,$(SMS),-gencode ...)
            result.notes.append(Note("cuda-arch-replaced", word.start, {"construct": word.text, "archs": ";".join(archs)}))
            if arch_mode == "flags" and not arch_done[0]:
                replaced[i] = joiner.join(offload_arch_flags(archs))
                arch_done[0] = True
            else:
                removed.add(i)
            i += 1
            continue
        if not _is_flag(word.text):
            i += 1
            continue
        if word.text.startswith("-l") and len(word.text) > 2:
            library = rules.library_for_lib(word.text[2:])
            if library is not None:
                target = library.replacement(target_libs)
                if target is not None and target.lib:
                    replaced[i] = f"-l{target.lib}"
                else:
                    result.notes.append(Note("cuda-library-unavailable", word.start, {
                        "construct": word.text, "library": library.name,
                        "note": library.note or f"no HIP library replaces {library.name}"}))
                i += 1
                continue
        rule, value, consumed = _match(rules, words, i)
        if rule is not None and rule.action == "arch" and not certain and not _NVIDIA_ARCH.search(value or ""):
            rule = None  # -arch x86_64 is a host compiler's option: only sm_XX/compute_XX values are nvcc's
        if rule is None or (rule.ambiguous and not certain) or rule.action == "keep":
            if certain and rule is None and not is_kept_flag(rules, word.text):
                result.notes.append(Note("nvcc-flag-kept", word.start, {
                    "construct": word.text, "note": "hipport does not know this nvcc option, and clang will "
                                                    "most likely reject it",
                    "advice": "Check clang's HIP options for an equivalent, or remove it"}))
            i += 1
            continue
        span = list(range(i, i + consumed))
        written = " ".join(words[k].text for k in span)
        if rule.takes_value and value is None:
            result.notes.append(Note("nvcc-flag-kept", word.start, {
                "construct": written, "note": "the option's value is missing",
                "advice": "Give the option its value, or remove it"}))
            i += consumed
            continue
        new: list[str] | None = None
        if rule.action == "map":
            if rule.values:
                mapped = _lookup_values(rule, value or "")
                if mapped == []:
                    result.notes.append(Note("nvcc-flag-removed", word.start, {"construct": written, "note": rule.note}))
                if mapped is None:
                    unknown = f"hipport knows no clang equivalent of the value {value!r}" + (
                        f"; {rule.note}" if rule.note else "")
                    if rule.ambiguous:  # clang has the spelling too: it stays (clang may take it)
                        result.notes.append(Note("nvcc-flag-kept", word.start, {
                            "construct": written, "note": unknown,
                            "advice": "Check clang's HIP options for an equivalent, or remove it"}))
                    else:  # nvcc-only: clang would reject it
                        result.notes.append(Note("nvcc-flag-dropped", word.start, {"construct": written,
                                                                                  "note": unknown}))
                        removed.update(span)
                    i += consumed
                    continue
                new = list(mapped)
            else:
                new = [h.replace("{value}", value or "") for h in rule.hip]
            if new and all(option in produced or any(t == option for k, t in kept.items() if k not in span)
                           for option in new):
                # its clang form is already there (-g -G: -G is -g): left out, not written twice
                removed.update(span)
                i += consumed
                continue
            produced.update(new)
        elif rule.action == "host":
            new = [part for part in _HOST_SPLIT.split((value or "").strip("'\"")) if part]
        elif rule.action == "remove":
            result.notes.append(Note("nvcc-flag-removed", word.start, {"construct": written, "note": rule.note}))
            removed.update(span)
        elif rule.action == "drop":
            result.notes.append(Note("nvcc-flag-dropped", word.start, {"construct": written,
                                                                      "note": rule.note or "no clang equivalent"}))
            removed.update(span)
        elif rule.action == "arch":
            result.notes.append(Note("cuda-arch-replaced", word.start, {"construct": written, "archs": ";".join(archs)}))
            if arch_mode == "flags" and not arch_done[0]:
                new = offload_arch_flags(archs)
                arch_done[0] = True
            else:
                removed.update(span)
        if new is not None:
            if not new:
                removed.update(span)
            else:
                replaced[i] = joiner.join(new)
                removed.update(span[1:])
        i += consumed
    result.edits = _edits(source, words, replaced, removed)
    return result


def architecture_options(words: list[Word], rules: BuildRules, *, certain: bool) -> list[range]:
    """The architecture options among ``words`` (``-arch=sm_80``, ``-gencode arch=...,code=...``,
    ``--gpu-code ...``), as ranges of word indexes (an option and its separate value).

    A migrated CMake file keeps nvcc options in their CUDA forms for NVIDIA builds, but without
    these: the architectures of both platforms come from ``HIPPORT_OFFLOAD_ARCHS``. ``certain``
    as for :func:`map_nvcc_flags` (elsewhere only ``sm_XX``/``compute_XX`` values count).
    """
    spans = []
    i = 0
    while i < len(words):
        if not _is_flag(words[i].text):
            i += 1
            continue
        rule, value, consumed = _match(rules, words, i)
        if (rule is not None and rule.action == "arch" and value is not None
                and (certain or _NVIDIA_ARCH.search(value))):
            spans.append(range(i, i + consumed))
        i += consumed
    return spans


def remove_words(source: str, words: list[Word], spans: list[range]) -> list[TextEdit]:
    """Edits that remove the words of ``spans`` (index ranges of ``words``) from ``source``,
    each with a neighbouring gap of blanks or ``;`` (never a comment or a newline)."""
    return _edits(source, words, {}, {k for span in spans for k in span})


_CONTINUED_GAP = re.compile(r"[ \t;]*(?:\\\r?\n[ \t]*)*")


def _lookup_values(rule: FlagRule, value: str) -> list[str] | None:
    """The clang options for ``value`` of an option with ``values``: the entry for the whole
    value, else the entries of its comma-separated parts joined (duplicates once); None when a
    part is not listed."""
    if value in rule.values:
        return list(rule.values[value])
    parts = [p for p in value.strip("'\"").split(",") if p]
    if len(parts) < 2 or any(p not in rule.values for p in parts):
        return None
    return list(dict.fromkeys(option for p in parts for option in rule.values[p]))


def _separator_only(text: str) -> bool:
    """True for a gap of blanks and ``;`` (and backslash-newline continuations of Makefiles),
    never one holding a comment or a plain newline."""
    return all(c in _SEPARATORS for c in text) or _CONTINUED_GAP.fullmatch(text) is not None


def _edits(source: str, words: list[Word], replaced: dict[int, str], removed: set[int]) -> list[TextEdit]:
    """Turn word replacements and removals into edits; a removed word takes a neighbouring gap
    with it when that gap holds only blanks or ``;`` (never a comment or a newline)."""
    edits: list[TextEdit] = []
    for i, text in replaced.items():
        if i not in removed and text != words[i].text:
            edits.append(TextEdit(words[i].start, words[i].end, text))
    run_start = None
    for i in range(len(words) + 1):
        if i < len(words) and i in removed and i not in replaced:
            if run_start is None:
                run_start = i
            continue
        if run_start is not None:
            run = range(run_start, i)
            kept_before = any(k not in removed or k in replaced for k in range(run_start))
            for k in run:
                start, end = words[k].start, words[k].end
                if kept_before or run_start > 0:
                    gap = source[words[k - 1].end:start] if k > 0 else ""
                    if k > 0 and _separator_only(gap):
                        start = words[k - 1].end
                elif k + 1 < len(words):
                    gap = source[end:words[k + 1].start]
                    if _separator_only(gap):
                        end = words[k + 1].start
                edits.append(TextEdit(start, end, ""))
            run_start = None
    return sorted(edits, key=lambda e: (e.start, e.end))


def split_words(text: str, offset: int = 0, separators: str = " \t") -> list[Word]:
    """Split ``text`` into words at ``separators``, keeping ``${...}``, ``$(...)`` and
    generator expressions ``$<...>`` whole and quoted parts ('...', "...") inside a word.

    Args:
        text: the text to split.
        offset: added to every offset (the text's position in a larger text).
        separators: the characters that separate words.
    """
    words: list[Word] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in separators or text[i] in "\r\n":
            i += 1
            continue
        start = i
        depth = 0
        while i < n:
            c = text[i]
            if c == "\\" and i + 1 < n:
                i += 2
                continue
            if c == "$" and i + 1 < n and text[i + 1] in "{(<":
                depth += 1
                i += 2
                continue
            if depth and c in "})>":
                depth -= 1
                i += 1
                continue
            if c in "'\"" and not depth:
                close = text.find(c, i + 1)
                i = n if close < 0 else close + 1
                continue
            if not depth and (c in separators or c in "\r\n"):
                break
            i += 1
        words.append(Word(text[start:i], start + offset, i + offset))
    return words
