"""Write the output tree safely.

Every file is written atomically: to a temporary file in the destination folder, then renamed
over the destination (``os.replace``), so a crash or Ctrl-C of hipport never leaves a
half-written file (files are not fsync'ed: a power loss can still lose the latest writes). The
input tree is only ever read.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` (bytes) to ``path`` atomically, creating parent folders.

    Args:
        path: destination file.
        data: the complete content.
        mode: permission bits to give the file (e.g. copied from the source); default 0o644.

    Raises:
        OSError: the folder cannot be created or written; no partial file is left behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".hipport-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp_name, 0o644 if mode is None else mode & 0o7777)
        os.replace(tmp_name, path)
    except BaseException:  # also KeyboardInterrupt: remove the temporary file, then re-raise
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
