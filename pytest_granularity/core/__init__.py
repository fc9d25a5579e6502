"""The domain every group stands on: tasks, the workspace, the tools, the transcript and its tokens,
the run record and the audit log, failure classes, schemas.

Imports nothing of the package outside ``core``: how runs start processes is ``process``, above it.
"""

from importlib import metadata

try:
    __version__ = metadata.version("pytest-granularity")
except metadata.PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
"""The installed distribution's version: pyproject.toml's ``version``, the one place it is written."""
