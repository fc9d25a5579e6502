"""Deliver events to webhook endpoints with signing, retries and logging."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

import hookshot.signing
from hookshot.delivery_log import DeliveryLog, DeliveryStatus

from hookshot.events import Event
from hookshot.http import DEFAULT_USER_AGENT, Request, Response, build_request
from hookshot.retry import RetryPolicy, parse_retry_after
from hookshot.router import match_pattern
from hookshot.transport.base import DEFAULT_TIMEOUT, Transport, TransportError

if TYPE_CHECKING:
    from hookshot.config import Settings

EVENT_HEADER = "X-Hookshot-Event"
DELIVERY_HEADER = "X-Hookshot-Delivery"
ATTEMPT_HEADER = "X-Hookshot-Attempt"


@dataclass
class DeliveryOutcome:
    """The final result of delivering one event to one URL."""

    event: Event
    url: str
    attempts: int = 0
    response: Response | None = None
    error: str | None = None
    delays: list[float] = field(default_factory=list)

    @property
    def succeeded(self) -> bool:
        """True if the last attempt got a 2xx response."""
        return self.response is not None and self.response.ok

    @property
    def status_code(self) -> int | None:
        """Status of the last response, or None if no response was received."""
        return self.response.status if self.response is not None else None


class Deliverer:
    """Sends events as signed JSON ``POST`` requests through a transport.

    Failed attempts are retried according to *policy*; the wait between
    attempts honours a ``Retry-After`` header when present and goes through
    the injectable *sleep* function (``time.sleep`` by default). Every
    attempt is recorded in *log*.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        secrets: hookshot.signing.Secrets | None = None,
        policy: RetryPolicy | None = None,
        log: DeliveryLog | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        user_agent: str = DEFAULT_USER_AGENT,
        sleep: Callable[[float], Any] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        self.transport = transport
        self.secrets = secrets
        self.policy = policy if policy is not None else RetryPolicy()
        self.log = log if log is not None else DeliveryLog()
        self.timeout = timeout
        self.user_agent = user_agent
        self._sleep = sleep
        self._rng = rng

    @classmethod
    def from_settings(cls, transport: Transport, settings: Settings, **kwargs: Any) -> Deliverer:
        """Create a deliverer configured from loaded :class:`~hookshot.config.Settings`."""
        options: dict[str, Any] = {
            "secrets": list(settings.signing_secrets) or None,
            "policy": settings.retry_policy,
            "timeout": settings.timeout,
            "user_agent": settings.user_agent,
        }
        options.update(kwargs)
        return cls(transport, **options)

    def _pause(self, delay: float) -> None:
        # Resolved at call time so that patching time.sleep works as expected.
        (self._sleep if self._sleep is not None else time.sleep)(delay)

    def build_request(self, event: Event, url: str, attempt: int = 1) -> Request:
        """Build the signed request for one delivery attempt."""
        body = event.to_bytes()
        headers = {
            "Content-Type": "application/json",
            "User-Agent": self.user_agent,
            EVENT_HEADER: event.name,
            DELIVERY_HEADER: event.event_id,
            ATTEMPT_HEADER: str(attempt),
        }
        if self.secrets:
            headers.update(hookshot.signing.sign_payload(self.secrets, body))
        return build_request("POST", url, headers=headers, body=body)

    def _should_retry(
        self, attempt: int, response: Response | None, error: TransportError | None
    ) -> bool:
        if error is not None:
            return error.retryable and self.policy.should_retry(attempt, error=error)
        assert response is not None
        return self.policy.should_retry(attempt, status=response.status)

    def _retry_delay(self, attempt: int, response: Response | None) -> float:
        if response is not None:
            retry_after = parse_retry_after(
                response.headers.get("Retry-After"), max_delay=self.policy.max_delay
            )
            if retry_after is not None:
                return retry_after
        return self.policy.delay_for(attempt, self._rng)

    def deliver(self, event: Event, url: str) -> DeliveryOutcome:
        """Deliver *event* to *url*, retrying as the policy allows."""
        outcome = DeliveryOutcome(event, url)
        for attempt in range(1, self.policy.max_attempts + 1):
            outcome.attempts = attempt
            request = self.build_request(event, url, attempt)
            response: Response | None = None
            error: TransportError | None = None
            try:
                response = self.transport(request, self.timeout)
            except TransportError as exc:
                error = exc
            outcome.response = response
            if response is not None and response.ok:
                outcome.error = None
                self.log.record(
                    event, url, attempt, DeliveryStatus.SUCCEEDED, status_code=response.status
                )
                return outcome

            if error is not None:
                outcome.error = str(error)
            else:
                assert response is not None
                outcome.error = (
                    f"endpoint responded with HTTP {response.status} {response.reason}".rstrip()
                )
            status_code = outcome.status_code
            if not self._should_retry(attempt, response, error):
                self.log.record(
                    event,
                    url,
                    attempt,
                    DeliveryStatus.FAILED,
                    status_code=status_code,
                    error=outcome.error,
                )
                return outcome
            self.log.record(
                event,
                url,
                attempt,
                DeliveryStatus.RETRYING,
                status_code=status_code,
                error=outcome.error,
            )
            delay = self._retry_delay(attempt, response)
            outcome.delays.append(delay)
            self._pause(delay)
        return outcome

    def deliver_to_matching(self, event: Event, endpoints: Mapping[str, str]) -> list[DeliveryOutcome]:
        """Deliver *event* to every endpoint whose pattern matches its name.

        Each distinct URL receives the event once, in configuration order.
        """
        urls = [url for pattern, url in endpoints.items() if match_pattern(pattern, event.name)]
        return [self.deliver(event, url) for url in dict.fromkeys(urls)]
