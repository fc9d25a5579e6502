"""The primitives every group stands on: tasks, the workspace, the tools, the transcript and its tokens,
the run record and the audit log, failure classes, interrupts, the sandbox, pytest subprocesses, schemas.

Imports nothing of the package outside ``core``.
"""

__version__ = "0.1.0"
