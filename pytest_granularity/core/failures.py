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

from enum import StrEnum

from .errors import GranularityError


class FailureClass(StrEnum):
    """A ``StrEnum`` so records, reports and ``router.json`` keep the plain names while the code spells each once."""

    PRECONDITION_MISMATCH = "precondition_mismatch"
    PARTIAL_SIDE_EFFECT = "partial_side_effect"
    VALIDATION_FAILURE = "validation_failure"
    PROTOCOL_FAILURE = "protocol_failure"
    EXECUTOR_EXCEPTION = "executor_exception"


FAILURE_CLASSES: tuple[FailureClass, ...] = tuple(FailureClass)
"""In the order the docs list them: the recovery tree's one-hot features follow it."""


class Fault(StrEnum):
    """A run's injected fault: ``none`` is the name every run record, summary and router key uses for no fault."""

    NONE = "none"
    EARLY = "early"
    LATE = "late"


FAULTS = (Fault.EARLY, Fault.LATE)
"""The points a fault can be injected at: before a macro's first write, and after its work."""


class InjectedFault(GranularityError, RuntimeError):
    """Raised by a fault hook at a macro's early or late point (see ``hookspecs``)."""
