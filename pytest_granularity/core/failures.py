"""The five failure classes of a macro call, exactly one per failure, and the faults injected to cause them.

The classes are the ones docs/architecture.md names.

- ``precondition_mismatch``: the macro does not fit the workspace (text not found, target
  exists, unsupported form); nothing was written.
- ``partial_side_effect``: the macro gave up after it had changed the workspace.
- ``validation_failure``: its own validation (syntax check, tests) rejected the result.
- ``protocol_failure``: malformed arguments or result (schema violation, bad JSON).
- ``executor_exception``: the runtime itself raised, timed out, or a fault was injected.
"""

from __future__ import annotations

PRECONDITION_MISMATCH = "precondition_mismatch"
PARTIAL_SIDE_EFFECT = "partial_side_effect"
VALIDATION_FAILURE = "validation_failure"
PROTOCOL_FAILURE = "protocol_failure"
EXECUTOR_EXCEPTION = "executor_exception"

FAILURE_CLASSES = (PRECONDITION_MISMATCH, PARTIAL_SIDE_EFFECT, VALIDATION_FAILURE, PROTOCOL_FAILURE, EXECUTOR_EXCEPTION)

NO_FAULT = "none"
"""The fault of a run with nothing injected: the name every run record, summary and router key uses."""
FAULTS = ("early", "late")
"""The points a fault can be injected at: before a macro's first write, and after its work."""


class InjectedFault(RuntimeError):
    """Raised by a fault hook at a macro's early or late point (see ``hookspecs``)."""
