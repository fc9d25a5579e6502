"""Reading a number from an option with its ini key as the default.

Shared by the session settings and the extension resolution, so ``--granularity-breaker`` and
``--granularity-epochs`` reject a bad value with the same message.
"""

from __future__ import annotations

import pytest


def int_setting(config: pytest.Config, option: str, ini: str, default: int) -> int:
    """``option`` if given, else the ini key ``ini``, else ``default``; never negative."""
    value = config.getoption(option)
    if value is None:
        raw = config.getini(ini)
        try:
            value = int(raw) if raw else default
        except ValueError:
            raise pytest.UsageError(f"{ini}: '{raw}' is not a whole number") from None
    if value < 0:
        raise pytest.UsageError(f"{option}: {value} must not be negative")
    return int(value)
