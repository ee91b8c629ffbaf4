"""Write the output tree safely.

Every file is written atomically: to a temporary file in the destination folder, then renamed
over the destination (``os.replace``), so a crash or Ctrl-C of hipport never leaves a
half-written file (files are not fsync'ed: a power loss can still lose the latest writes). The
input tree is only ever read.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path


_counter = itertools.count()


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` (bytes) to ``path`` atomically, creating parent folders.

    The temporary file has a short name (``.hipport-<pid>-<n>.tmp``) in the destination
    folder, so long file names still fit, and it is removed on any failure or interrupt.

    Args:
        path: destination file.
        data: the complete content.
        mode: permission bits to copy (e.g. the source file's ``st_mode``); only the
            ``rwx`` bits are kept and the owner can always read and write. Default 0o644.

    Raises:
        OSError: the folder cannot be created or written; ``filename`` is ``path`` (never the
            temporary name) and no partial file is left behind.
    """
    tmp_name = path.parent / f".hipport-{os.getpid()}-{next(_counter)}.tmp"
    try:
        try:
            fd = os.open(tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileNotFoundError:  # the folder first: one failed open per new folder, no mkdir per file
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp_name, 0o644 if mode is None else (mode & 0o777) | 0o600)
        os.replace(tmp_name, path)
    except BaseException as error:  # also KeyboardInterrupt: remove the temporary file, then re-raise
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        if isinstance(error, OSError) and error.filename != str(path):
            raise OSError(error.errno, error.strerror, str(path)) from None
        raise
