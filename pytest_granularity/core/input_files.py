"""Reading an input file (a report, a baseline, a recording, a task's definition) with a bound on what it costs.

A path can name what is not a file: ``/dev/full`` or ``/dev/zero`` never end (a baseline read
from one grew to 24 GB), and a FIFO blocks until something writes to it. Such paths are refused
by what they are, and a regular file past ``MAX_INPUT_BYTES`` by its size, before it is held.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MAX_INPUT_BYTES = 256 * 2**20
"""Far above any real input: a report of the whole benchmark's 560 runs with transcripts is about 10 MB."""

KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def special_kind(mode: int) -> str | None:
    """What a file of ``mode`` is when it is neither a regular file nor a folder, else None."""
    return next((kind for test, kind in KINDS if test(mode)), None)


def read_bounded(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file at ``path``; ``OSError`` (its ``strerror`` says why) for a folder, a device,
    a FIFO or a socket, or a file of more than ``limit`` bytes."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # so that opening a FIFO does not wait for a writer
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        kind = special_kind(mode)
        if kind:
            raise OSError(errno.EINVAL, f"it is {kind}, not a regular file", str(path))
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"it is larger than the {limit} bytes an input file may have", str(path))
    return data
