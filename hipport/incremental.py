"""Incremental conversion: ``convert SRC -o OUT`` into an OUT that an earlier conversion wrote
re-ports only what changed since.

The earlier conversion left, under ``incremental`` in ``OUT/hipport-manifest.json``
(:mod:`hipport.manifest`), a record of

* the *run key* (:func:`run_key`): hipport's version and the SHA-256 of its code, the parser
  (py-tree-sitter's version, the SHA-256 of the compiled CUDA grammar), the SHA-256 of every
  shipped rule and template file and of each ``--rules`` file, and the options that change what
  a file's port is
  (``--launch-syntax``, ``--fix``, ``--target-libs``, the ``.cu`` rename). A record with another
  key is not used at all: every file is ported again (and the terminal summary says which part
  of the key changed);
* per file of SRC: the SHA-256 of its bytes, its output path, the SHA-256 of its output, what
  its port found (the report's figures and findings before the tree-wide steps: unknown CUDA
  names, hand-edit findings, ``--rules`` suppressions, which every run does again), and the
  cross-file facts its port used (below);
* per tree-wide step, the SHA-256 of everything that step read and of what it wrote.

A file's recorded port is used instead of parsing and analysing it again when its bytes, its
output path and every cross-file fact it used are the same, and its output in OUT is what the
record says (:meth:`hipport.manifest.OutputGuard.write_known`: an output that is missing or
older is ported again; one edited by hand is kept and reported as on a full run). The
cross-file facts of the pipeline (``hipport/convert.py``), and the rule for each:

* **Quoted includes resolved against the tree** (``#include "x.cu"`` follows the rename to
  ``x.hip``, a quoted CUDA header name of a project file is not mapped, HP1215 looks through a
  project ``.cu`` file): each file's record lists every include name its port looked up and the
  tree file it resolved to (or none); the file is ported again when any of them now resolves
  differently (a header added, deleted or renamed, ``--exclude`` changed).
* **``--fix``'s tree prepass** (:func:`hipport.warp.warp_tree`: a warp-size constant or device
  function of a header is rewritten in every file using it, or in none): it reads every
  C/C++/CUDA file, so its inputs are hashed as one (each file's path and bytes); when they
  changed it runs again, and when its decisions (:func:`warp_digest`) differ from the recorded
  ones every file is ported again.
* **Build files** (CMake files and Makefiles, migrated together: one file's facts shape another's,
  and C++ units that use CUDA become GPU sources): migrated again, all of them, when any build
  file, the set of GPU C++ units, ``--offload-arch`` or ``--target-libs`` changed.
* **Generated files** (``CMakeLists.txt`` when SRC has none, ``cmake/HipportPlatform.cmake``): their
  text depends on every unit, what each includes through the tree's headers (read from the outputs
  in OUT), the Makefile's facts and the units using textures (HP1210): made again when any of these
  changed (the key hashes every output's bytes as they are in OUT).
* **Unknown CUDA names** (HP2008: a name one file declares is not reported in the others) and
  ``--rules`` suppressions: recorded per file as found, reported over the whole tree on every run.
* **The Markdown report** is a function of the JSON report without its seconds (and of the
  templates and hipport, which the run key covers): not rendered again when that content and
  OUT's copy are as recorded (:func:`hipport.convert.finish_conversion`).

Every other pass of :func:`hipport.analyze.analyze_file` (collisions, overloads, cutil, device
context, signatures, group members, launch spacing, inline and macro asm, register, interop
includes; vector macros beyond its include lookups, which are recorded) reads only the file's
own bytes and the rules: none of them opens a file or keeps facts from one file for another.

Not incremental: ``--precise`` (the libclang pass reads headers outside SRC: every file is ported,
and no record is written), ``--compat``, ``--diff`` and ``--in-place``.

A record that cannot be read (not an object, a malformed entry) is not used: the files it
concerns are ported again; it never stops a conversion.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path

from . import __version__
from .findings import AsmBlock, Finding
from .report import FileSummary
from .resources import data_dir
from .unknown_names import FileNames, unknown_use

#: Version of the record's layout (part of the run key: another layout is never read).
RECORD_VERSION = 2

#: What changed, by run-key part, for the terminal summary.
_KEY_PARTS = {"record": "hipport", "hipport": "hipport", "code": "hipport", "grammar": "the parser",
              "rules": "the rules (shipped rules and templates, or --rules files)"}
_OPTION_NAMES = {"launch_syntax": "--launch-syntax", "fix": "--fix", "target_libs": "--target-libs",
                 "rename_cu": "the .cu rename"}


def digest_json(value) -> str:
    """SHA-256 (hex) of ``value`` written as canonical JSON (sorted keys, no blanks)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def canonical(value):
    """``value`` as plain JSON data that does not depend on set order or hash seeds: dataclasses
    become lists of their fields, sets sorted lists (by their JSON text), tuples lists."""
    if is_dataclass(value) and not isinstance(value, type):
        return [canonical(getattr(value, f.name)) for f in fields(value)]
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in value.items()}
    return value


def _files_digest(paths) -> str:
    """SHA-256 over the names (as given) and bytes of ``paths`` (an iterable of (name, Path))."""
    digest = hashlib.sha256()
    for name, path in paths:
        data = path.read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode("utf-8", "surrogateescape"))
        digest.update(data)
    return digest.hexdigest()


def _tree_digest(root: Path, suffixes: tuple[str, ...] | None = None) -> str:
    """SHA-256 over every file under ``root`` (relative names and bytes; ``__pycache__`` and,
    when given, names not ending in ``suffixes`` left out)."""
    paths = sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                   and (suffixes is None or p.name.endswith(suffixes)))
    return _files_digest((p.relative_to(root).as_posix(), p) for p in paths)


def _parser_identity() -> list[str]:
    """py-tree-sitter's version and the SHA-256 of the compiled CUDA grammar (a wheel of the
    grammar may keep its version number across rebuilds; importlib.metadata costs 0.1 s)."""
    import tree_sitter
    import tree_sitter_cuda._binding as grammar

    return [tree_sitter.__version__, _files_digest([("grammar", Path(grammar.__file__))])]


def run_key(options, rules) -> dict:
    """The run key of a conversion (see the module docstring): a record made under another key
    is not used.

    Args:
        options: the :class:`hipport.convert.ConvertOptions`.
        rules: the loaded :class:`hipport.rules.RuleSet` (its ``user_files`` are hashed too).

    Returns:
        part name -> a JSON value (digests as hex, option values).

    Raises:
        OSError: a rule, template or code file cannot be read.
    """
    package = Path(__file__).resolve().parent
    return {
        "record": RECORD_VERSION,
        "hipport": __version__,
        "code": _tree_digest(package, (".py", ".json")),
        "grammar": _parser_identity(),
        "rules": [_tree_digest(data_dir("rules")), _tree_digest(data_dir("templates")),
                  _files_digest((str(Path(p).resolve()), Path(p)) for p in rules.user_files)],
        "options": {"launch_syntax": options.launch_syntax, "fix": options.fix, "target_libs": options.target_libs,
                    "rename_cu": options.rename_cu},
    }


def changed_part(old_key, new_key: dict) -> str:
    """Why a record made under ``old_key`` is not used under ``new_key``: a phrase for the
    terminal summary (``"--fix changed since the last conversion into OUT"``)."""
    if not isinstance(old_key, dict):
        return "the manifest's record of the files' ports is unreadable"
    for part, new in new_key.items():
        old = old_key.get(part)
        if old == new:
            continue
        if part == "options" and isinstance(old, dict):
            what = ", ".join(_OPTION_NAMES[k] for k in new if old.get(k) != new[k])
        else:
            what = _KEY_PARTS[part]
        return f"{what} changed since the last conversion into OUT"
    return "the manifest's record of the files' ports is unreadable"


def warp_digest(tree) -> str:
    """SHA-256 of the decisions of --fix's tree prepass (a :class:`hipport.warp.WarpTree`, or
    None when the tree shares no warp-size name)."""
    if tree is None:
        return digest_json(None)
    blocked = sorted([list(key), reason] for key, reason in (tree.blocked or {}).items())
    logical_blocked = sorted([list(key), reason] for key, reason in tree.logical_blocked.items())
    return digest_json([canonical(tree.constants), canonical(tree.functions),
                        canonical({path: sorted(homes) for path, homes in tree.compiled_with.items()}), blocked,
                        sorted(list(key) for key in tree.logical), logical_blocked, canonical(tree.host_reads),
                        canonical(tree.foreign_helpers),
                        sorted([name, home, kind] for (name, home), kind in tree.collectives.items()),
                        canonical({path: sorted(map(list, found)) for path, found in tree.two_dimensional_launches.items()})])


#: The types of :func:`finding_row`'s fields, and of an unknown-name use's (:meth:`Record.store`).
_ROW_TYPES = (str, int, int, str, str, str, str, str, str, str)
_USE_TYPES = (int, int, str, str)


class RecordError(ValueError):
    """A recorded entry is malformed (the file it describes is ported again)."""


def finding_row(finding: Finding) -> list:
    """A finding as a JSON list (every field, in order)."""
    return [finding.path, finding.line, finding.column, finding.rule_id, finding.rule_name, finding.severity,
            finding.message, finding.fix, finding.name, finding.fingerprint]


def finding_of(row) -> Finding:
    """The finding of :func:`finding_row`'s list.

    Raises:
        RecordError: ``row`` is not such a list.
    """
    if type(row) is not list or tuple(map(type, row)) != _ROW_TYPES:
        raise RecordError(f"malformed finding {row!r:.80}")
    return Finding(*row)


def summary_record(summary: FileSummary) -> dict:
    """A :class:`hipport.report.FileSummary` as JSON data (its inline-assembly blocks too)."""
    return {"converted": summary.converted, "lines": summary.lines,
            "references_rewritten": summary.references_rewritten, "kernel_launches": summary.kernel_launches,
            "parse_error_regions": summary.parse_error_regions, "uses_cuda": summary.uses_cuda,
            "findings": [finding_row(f) for f in summary.findings],
            "inline_asm": [[b.line, b.column, b.statement, [list(i) for i in b.instructions], list(b.constraints)]
                           for b in summary.inline_asm]}


def summary_of(record, path: str, output: str) -> FileSummary:
    """The :class:`hipport.report.FileSummary` of :func:`summary_record`'s data.

    Raises:
        RecordError: ``record`` is malformed.
    """
    try:
        ints = [record[k] for k in ("lines", "references_rewritten", "kernel_launches", "parse_error_regions")]
        flags = [record["converted"], record["uses_cuda"]]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in ints) or not all(
                isinstance(v, bool) for v in flags):
            raise RecordError("malformed figures")
        blocks = [AsmBlock(int(line), int(column), str(statement), [(str(o), str(a)) for o, a in instructions],
                           [str(c) for c in constraints])
                  for line, column, statement, instructions, constraints in record["inline_asm"]]
        return FileSummary(path=path, output=output, converted=flags[0], lines=ints[0], references_rewritten=ints[1],
                           kernel_launches=ints[2], parse_error_regions=ints[3],
                           findings=[finding_of(row) for row in record["findings"]], inline_asm=blocks,
                           uses_cuda=flags[1])
    except (KeyError, TypeError, ValueError) as error:
        raise RecordError(f"malformed summary ({error})") from None


@dataclass
class Restored:
    """A file's port as recorded: its summary (as the port made it), whether it defines ``main``
    and uses HIP, its unknown-CUDA-name facts (:class:`hipport.unknown_names.FileNames` or
    None) and the SHA-256 of its output."""

    summary: FileSummary
    defines_main: bool
    uses_hip: bool
    cuda_names: object
    output: str


@dataclass
class Record:
    """The incremental record of the previous conversion into OUT (what may be reused) and the one
    this conversion writes.

    Attributes:
        key: this conversion's run key (:func:`run_key`).
        rules: the :class:`hipport.rules.RuleSet` of this conversion (not recorded).
        previous: the previous record when its run key equals ``key`` (else None).
        reason: why the previous record is not used, for the terminal summary (``""``: it is,
            or there was none because OUT had no manifest).
        sources: this conversion's per-file entries (path relative to SRC -> entry).
        groups: this conversion's tree-wide entries (``warp``, ``build``, ``generated``).
    """

    key: dict
    rules: object = None
    previous: dict | None = None
    reason: str = ""
    sources: dict[str, dict] = field(default_factory=dict)
    groups: dict[str, dict] = field(default_factory=dict)
    _uses: dict[str, Finding] = field(default_factory=dict, repr=False)

    @classmethod
    def start(cls, key: dict, rules, previous, had_manifest: bool) -> "Record":
        """The record for a conversion under ``key`` with ``rules`` (the
        :class:`hipport.rules.RuleSet`, which ``key`` covers), given the ``incremental`` data of
        the previous manifest (None: none; ``had_manifest``: OUT had a manifest at all)."""
        record = cls(key, rules)
        if previous is None:
            record.reason = ("the manifest has no record of the files' ports (written by an older hipport, "
                             "by --compat or with --precise)") if had_manifest else ""
        elif previous.get("key") != key:
            record.reason = changed_part(previous.get("key"), key)
        elif not isinstance(previous.get("sources"), dict) or not isinstance(previous.get("groups"), dict):
            record.reason = "the manifest's record of the files' ports is unreadable"
        else:
            record.previous = previous
        return record

    def entry(self, rel: str) -> dict | None:
        """The previous entry of the file ``rel`` (a dict), or None."""
        if self.previous is None:
            return None
        entry = self.previous["sources"].get(rel)
        return entry if isinstance(entry, dict) else None

    def refresh_reads(self, rel: str, digests: dict) -> None:
        """Record in the previous entry of ``rel`` (which :meth:`matches`) the bytes its headers
        have now (``digests``: path -> SHA-256), as a port would: a header may have changed
        outside its directives. Paths not in ``digests`` keep their recorded value."""
        entry = self.entry(rel)
        reads = entry["deps"].get("read", {}) if entry is not None else {}
        if any(path in digests and digests[path] != raw for path, (raw, _) in reads.items()):
            fresh = {path: [digests.get(path, raw), directives] for path, (raw, directives) in reads.items()}
            self.previous["sources"][rel] = {**entry, "deps": {**entry["deps"], "read": fresh}}

    def group(self, name: str) -> dict | None:
        """The previous tree-wide entry ``name`` (a dict), or None."""
        if self.previous is None:
            return None
        entry = self.previous["groups"].get(name)
        return entry if isinstance(entry, dict) else None

    @staticmethod
    def matches(entry: dict, file, source_digest: str, resolver, sources, digests: dict) -> bool:
        """True when ``entry`` describes ``file`` (a :class:`hipport.discover.TreeFile`) as it is
        now: same bytes (``source_digest``), output path and kind, and every cross-file fact its
        port used is as recorded (``entry["deps"]``, see :func:`hipport.convert._dependencies`):
        each quoted include resolves as it did (``resolver(name)``), each include name can or
        cannot name a tree file as before (``resolver.in_tree(name)``), each lookup of the
        tree's include walk answers the same (``sources.resolve(including, name)``, a
        :class:`hipport.project_macros.TreeSources`) and each tree file whose directives it read
        has the same bytes (``digests``: path -> SHA-256 of its bytes now, for the files read) or
        else the same directives (``sources.directives_digest(path)``)."""
        deps = entry.get("deps")
        if (entry.get("sha") != source_digest or entry.get("out") != file.out_rel
                or entry.get("convert") is not file.convert or not isinstance(deps, dict)):
            return False
        try:
            return (all(resolver(name) == answer for name, answer in deps.get("include", {}).items())
                    and all(resolver.in_tree(name) == answer for name, answer in deps.get("in_tree", {}).items())
                    and all(sources.resolve(including, name) == answer
                            for including, name, answer in deps.get("resolve", []))
                    and all(digests.get(path) == raw or sources.directives_digest(path) == directives
                            for path, (raw, directives) in deps.get("read", {}).items()))
        except (AttributeError, TypeError, ValueError):
            return False

    def restore(self, entry: dict, file) -> Restored:
        """The recorded port of ``file`` (``entry`` must :meth:`match` it).

        Raises:
            RecordError: the entry is malformed.
        """
        summary = summary_of(entry.get("summary"), file.rel, file.out_rel)
        names = entry.get("names")
        cuda_names = None
        if names is not None:
            try:
                uses = []
                for row in names["uses"]:
                    if type(row) is list and tuple(map(type, row)) == _USE_TYPES:
                        uses.append(self._use(file.rel, *row))
                    else:
                        uses.append(finding_of(row))
                cuda_names = FileNames(uses, frozenset(str(n) for n in names["defined"]))
            except (KeyError, TypeError) as error:
                raise RecordError(f"malformed names ({error})") from None
        output, main, hip = entry.get("output"), entry.get("main"), entry.get("hip")
        if not isinstance(output, str) or not isinstance(main, bool) or not isinstance(hip, bool):
            raise RecordError("malformed entry")
        return Restored(summary, main, hip, cuda_names, output)

    def store(self, file, source_digest: str, deps: dict, summary: FileSummary, defines_main: bool, uses_hip: bool,
              cuda_names, output_digest: str) -> None:
        """Record the port of ``file`` made from bytes of SHA-256 ``source_digest``: the
        cross-file facts it used (``deps``, see :meth:`matches`), its summary as the port made it,
        its ``main``/HIP facts, its :class:`hipport.unknown_names.FileNames` (or None) and the
        SHA-256 of its output."""
        self.sources[file.rel] = {
            "sha": source_digest, "out": file.out_rel, "convert": file.convert, "deps": deps,
            "output": output_digest, "main": defines_main, "hip": uses_hip, "summary": summary_record(summary),
            "names": None if cuda_names is None else {"uses": [self._use_row(f, file.rel) for f in cuda_names.uses],
                                                      "defined": sorted(cuda_names.defined)},
        }

    def _use_row(self, finding: Finding, rel: str) -> list:
        """An unknown-name use as ``[line, column, name, fingerprint]`` when the rest follows from
        the rules (:func:`hipport.unknown_names.unknown_use`; most of a record's size otherwise),
        else as a whole :func:`finding_row`."""
        row = [finding.line, finding.column, finding.name, finding.fingerprint]
        return row if self._use(rel, *row) == finding else finding_row(finding)

    def _use(self, path: str, line: int, column: int, name: str, fingerprint: str) -> Finding:
        """:func:`hipport.unknown_names.unknown_use`, its text made once per name."""
        model = self._uses.get(name)
        if model is None:
            model = self._uses[name] = unknown_use(self.rules, "", 0, 0, name)
        return Finding(path, line, column, model.rule_id, model.rule_name, model.severity, model.message, model.fix,
                       name, fingerprint)

    def keep(self, rel: str, entry: dict) -> None:
        """Carry the previous entry of ``rel`` over unchanged (its port was reused)."""
        self.sources[rel] = entry

    def document(self) -> dict:
        """The record to save under ``incremental`` in the manifest."""
        return {"key": self.key, "sources": dict(sorted(self.sources.items())), "groups": self.groups}


@dataclass
class Reuse:
    """What an incremental conversion did, for the terminal summary and for callers.

    Attributes:
        ported: paths (relative to SRC, sorted) of the files this conversion read and ported,
            copied or (build files) migrated, as a full conversion does.
        reused: paths (sorted) of the files whose recorded port was used instead (not parsed, not analysed,
            their outputs in OUT checked and left as they are).
        rerun: OUT held a manifest (an earlier conversion wrote it).
        reason: why no file's record could be used (``""``: records were used where they matched).
    """

    ported: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    rerun: bool = False
    reason: str = ""

    def summary_line(self) -> str:
        """One line for the terminal summary (``""`` for a first conversion into OUT)::

            incremental: 1 file ported again, 1,041 unchanged since the last conversion into OUT
            incremental: every file ported again: --fix changed since the last conversion into OUT
        """
        from .report import plural

        if not self.rerun:
            return ""
        if self.reason:
            return f"incremental: every file ported again: {self.reason}"
        return (f"incremental: {plural(len(self.ported), 'file')} ported again, {len(self.reused):,} unchanged "
                "since the last conversion into OUT")
