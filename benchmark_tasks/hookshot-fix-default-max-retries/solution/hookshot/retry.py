"""Retry and exponential backoff policy for webhook deliveries.

The delay before retry *n* (1-based) is
``min(backoff_base * backoff_factor ** (n - 1), max_delay)``, optionally
reduced by a random jitter fraction to avoid thundering herds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import AbstractSet

DEFAULT_MAX_RETRIES = 5
DEFAULT_BACKOFF_BASE = 0.5
DEFAULT_BACKOFF_FACTOR = 2.0
DEFAULT_MAX_DELAY = 60.0
RETRYABLE_STATUS_CODES: frozenset[int] = frozenset({408, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before re-attempting a delivery.

    ``max_retries`` counts retries, not attempts: a policy with
    ``max_retries=3`` makes at most four attempts in total.
    """

    max_retries: int = DEFAULT_MAX_RETRIES
    backoff_base: float = DEFAULT_BACKOFF_BASE
    backoff_factor: float = DEFAULT_BACKOFF_FACTOR
    max_delay: float = DEFAULT_MAX_DELAY
    jitter: float = 0.0
    retry_on_status: AbstractSet[int] = RETRYABLE_STATUS_CODES

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.backoff_base < 0:
            raise ValueError(f"backoff_base must be >= 0, got {self.backoff_base}")
        if self.backoff_factor < 1:
            raise ValueError(f"backoff_factor must be >= 1, got {self.backoff_factor}")
        if self.max_delay < self.backoff_base:
            raise ValueError(
                f"max_delay ({self.max_delay}) must not be smaller than "
                f"backoff_base ({self.backoff_base})"
            )
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError(f"jitter must be between 0 and 1, got {self.jitter}")
        object.__setattr__(self, "retry_on_status", frozenset(self.retry_on_status))

    @property
    def max_attempts(self) -> int:
        """Total number of attempts: the first one plus every retry."""
        return self.max_retries + 1

    def delay_for(self, retry_number: int, rng: random.Random | None = None) -> float:
        """Return the delay in seconds before retry *retry_number* (1 = first retry)."""
        if retry_number < 1:
            raise ValueError(f"retry_number starts at 1, got {retry_number}")
        exponent = retry_number - 1
        delay = self.max_delay
        # Avoid float overflow for very large retry numbers.
        if exponent < 1024:
            delay = min(self.backoff_base * self.backoff_factor**exponent, self.max_delay)
        if self.jitter:
            source = rng if rng is not None else random
            delay -= delay * self.jitter * source.random()
        return delay

    def schedule(self, rng: random.Random | None = None) -> list[float]:
        """Return the delays before each retry, in order."""
        return [self.delay_for(number, rng) for number in range(1, self.max_retries + 1)]

    def should_retry(
        self,
        attempt: int,
        *,
        status: int | None = None,
        error: BaseException | None = None,
    ) -> bool:
        """Decide whether to retry after *attempt* attempts (1-based) have failed.

        Transport errors are always retryable; HTTP responses only when their
        status is in :attr:`retry_on_status`.
        """
        if attempt >= self.max_attempts:
            return False
        if error is not None:
            return True
        return status is not None and status in self.retry_on_status


NO_RETRY = RetryPolicy(max_retries=0)


def parse_retry_after(value: str | None, *, max_delay: float | None = None) -> float | None:
    """Parse a ``Retry-After`` header given in delta-seconds.

    Returns ``None`` when the header is absent or uses the HTTP-date form,
    which hookshot does not honour. The result is capped at *max_delay*.
    """
    if value is None:
        return None
    text = value.strip()
    if not text.isdigit():
        return None
    delay = float(int(text))
    if max_delay is not None:
        delay = min(delay, max_delay)
    return delay
