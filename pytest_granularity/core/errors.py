"""The one base of every error the package raises on purpose.

``except GranularityError`` tells the harness's own refusals (bad input, a run that ended, a sandbox that is not
there) from bugs, and the ``granularity`` command prints each as one line, ``granularity COMMAND: message``, the
message naming the file and field (``cli.main``). Errors that were a ``ValueError`` or ``RuntimeError`` before
keep that base too, so code that catches those still does.
"""

from __future__ import annotations


class GranularityError(Exception):
    """An error of pytest-granularity's own: its message is what the user reads, naming what to fix."""


class InputError(GranularityError, ValueError):
    """Input that cannot be used: an option's value or a file's field, named in the message."""
