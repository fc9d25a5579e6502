"""The domain every group stands on: tasks, the workspace, the tools, the transcript and its tokens,
the run record and the audit log, failure classes, schemas.

Imports nothing of the package outside ``core``: how runs start processes is ``process``, above it.
"""

__version__ = "0.1.0"
