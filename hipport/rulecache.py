"""A per-user cache of compiled rule tables (issue 12, point 2: the fixed cost of ``hipport check``).

Loading the build rules (``rules/build/*.yaml``: YAML with line numbers, JSON Schema validation,
index building) costs about 0.2 CPU s per process, more than checking a 200-line file; the
finished :class:`hipport.buildfiles.data.BuildRules` object is stored here and read back in a few
milliseconds.

Where: ``$HIPPORT_CACHE_DIR``, else ``$XDG_CACHE_HOME/hipport``, else ``~/.cache/hipport``
(the same folder as the per-file rule cache of :func:`hipport.rules.load_rule_file`); nothing is
cached when ``HIPPORT_NO_CACHE`` is set.

Key: SHA-256 of hipport's version, the table's name, and the resolved path and bytes of every
source file (rule files and JSON schemas), so an edited, added or moved file gives a new key and
the table is built again. Format: :mod:`pickle`. Pickle runs code named in the file when loaded,
so only files this module wrote itself are read: a file under the user's own cache folder, named
by that key, that starts with this module's header line; anyone able to write there could already
change the user's installed hipport. A file that is missing, truncated, corrupt, of another
pickle version or unreadable is ignored and replaced (written atomically: a temporary file
renamed over it); a cache that cannot be written is ignored. The cache never changes a result:
a table read back is the one the same sources built.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import Callable, Iterable, TypeVar

from . import __version__

T = TypeVar("T")

#: The first line of every cache file this module writes (format version 1).
HEADER = b"hipport-rule-table-cache 1\n"


def cache_dir() -> Path | None:
    """The cache folder (see the module docstring), or None when ``HIPPORT_NO_CACHE`` is set."""
    if os.environ.get("HIPPORT_NO_CACHE"):
        return None
    if os.environ.get("HIPPORT_CACHE_DIR"):
        return Path(os.environ["HIPPORT_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hipport"


def table_key(name: str, sources: Iterable[Path]) -> str:
    """The SHA-256 (hex) of hipport's version, ``name`` and each source's resolved path and bytes.

    Raises:
        OSError: a source cannot be read (the caller builds the table, which reports it).
    """
    digest = hashlib.sha256(f"{__version__}\0{name}\0".encode())
    for path in sources:
        raw = Path(path).read_bytes()
        digest.update(f"{Path(path).resolve()}\0{len(raw)}\0".encode())
        digest.update(raw)
    return digest.hexdigest()


def cached_table(name: str, sources: Iterable[Path], build: Callable[[], T], kind: type) -> T:
    """The table ``build()`` makes from ``sources``, read from the cache when a file for the
    same key exists and holds a ``kind`` object, else built and stored.

    Args:
        name: the table's name (``build-rules``), part of the key and of the file name.
        sources: every file the table is built from, in a fixed order.
        build: makes the table; its exceptions (``RuleError``, ``OSError``) propagate and
            nothing is stored.
        kind: the class the table is an instance of; a cached object of another class is
            ignored.
    """
    folder = cache_dir()
    if folder is None:
        return build()
    sources = list(sources)
    try:
        path = folder / f"{name}-{table_key(name, sources)}.pickle"
    except OSError:
        return build()
    try:
        raw = path.read_bytes()
        if raw.startswith(HEADER):
            table = pickle.loads(raw[len(HEADER):])
            if isinstance(table, kind):
                return table
    except Exception:  # noqa: BLE001  a missing, truncated or corrupt file: build it again
        pass
    table = build()
    try:
        from .emit import atomic_write

        atomic_write(path, HEADER + pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL))
    except (OSError, pickle.PicklingError):
        pass
    return table
