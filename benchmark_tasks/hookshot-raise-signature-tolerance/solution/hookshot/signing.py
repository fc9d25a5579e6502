"""HMAC-SHA256 signing and verification of webhook payloads.

The signed message is ``"{timestamp}.{body}"``. The timestamp travels in
:data:`TIMESTAMP_HEADER` and the signature header carries one or more
``v1=<hexdigest>`` entries, so a sender can sign with both the old and the new
secret while secrets are being rotated.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Iterable, Sequence, Union

from hookshot.http import Request

SIGNATURE_HEADER = "X-Hookshot-Signature"
TIMESTAMP_HEADER = "X-Hookshot-Timestamp"
SIGNATURE_VERSION = "v1"
DEFAULT_TOLERANCE_SECONDS = 600

Secret = Union[str, bytes]
Secrets = Union[Secret, Sequence[Secret]]


class SignatureError(Exception):
    """Raised when a signature is missing, malformed, stale or does not match."""


def current_timestamp() -> int:
    """Return the current Unix time in whole seconds."""
    return int(time.time())


def _secret_bytes(secret: Secret) -> bytes:
    data = secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)
    if not data:
        raise ValueError("signing secret must not be empty")
    return data


def _as_secret_list(secrets: Secrets) -> list[Secret]:
    if isinstance(secrets, (str, bytes)):
        return [secrets]
    result = list(secrets)
    if not result:
        raise ValueError("at least one signing secret is required")
    return result


def compute_signature(secret: Secret, payload: bytes, timestamp: int) -> str:
    """Return the hex HMAC-SHA256 of ``"{timestamp}.{payload}"`` under *secret*."""
    message = f"{timestamp}.".encode("ascii") + payload
    return hmac.new(_secret_bytes(secret), message, hashlib.sha256).hexdigest()


def format_signature_header(signatures: Iterable[str]) -> str:
    """Format hex digests as ``v1=<sig>,v1=<sig>``."""
    return ",".join(f"{SIGNATURE_VERSION}={signature}" for signature in signatures)


def parse_signature_header(value: str) -> list[str]:
    """Return the ``v1`` digests contained in a signature header value.

    Entries using other versions are ignored so that newer schemes can be
    introduced without breaking older receivers.
    """
    signatures: list[str] = []
    entries = value.split(",")
    for index in range(len(entries)):
        entry = entries[index].strip()
        if not entry:
            continue
        version, separator, digest = entry.partition("=")
        if not separator or not digest:
            raise SignatureError(f"malformed signature entry #{index + 1}: {entry!r}")
        if version == SIGNATURE_VERSION:
            signatures.append(digest)
    if not signatures:
        raise SignatureError(f"no {SIGNATURE_VERSION} signatures found in header {value!r}")
    return signatures


def sign_payload(secrets: Secrets, payload: bytes, timestamp: int | None = None) -> dict[str, str]:
    """Sign *payload* and return the headers to attach to the request.

    *secrets* may be one secret or several (during rotation); one signature
    is produced per secret.
    """
    ts = current_timestamp() if timestamp is None else int(timestamp)
    signatures = [compute_signature(secret, payload, ts) for secret in _as_secret_list(secrets)]
    return {TIMESTAMP_HEADER: str(ts), SIGNATURE_HEADER: format_signature_header(signatures)}


def verify_signature(
    secrets: Secrets,
    payload: bytes,
    signature_header: str,
    timestamp: int | str,
    *,
    tolerance: int | None = DEFAULT_TOLERANCE_SECONDS,
    now: int | None = None,
) -> None:
    """Verify a signature header for *payload*, raising :class:`SignatureError`.

    The timestamp must lie within *tolerance* seconds of *now* (defaults to
    :func:`current_timestamp`); pass ``tolerance=None`` to skip that check.
    The check succeeds if any provided digest matches any of *secrets*.
    """
    try:
        ts = int(timestamp)
    except (TypeError, ValueError):
        raise SignatureError(f"invalid signature timestamp {timestamp!r}") from None
    if tolerance is not None:
        reference = current_timestamp() if now is None else now
        age = reference - ts
        if abs(age) > tolerance:
            direction = "old" if age > 0 else "in the future"
            raise SignatureError(
                f"signature timestamp is {abs(age)} seconds {direction}; "
                f"tolerance is {tolerance} seconds"
            )
    provided = parse_signature_header(signature_header)
    for secret in _as_secret_list(secrets):
        expected = compute_signature(secret, payload, ts)
        if any(hmac.compare_digest(expected, candidate) for candidate in provided):
            return
    raise SignatureError("no signature matched any of the configured secrets")


def is_valid_signature(
    secrets: Secrets,
    payload: bytes,
    signature_header: str,
    timestamp: int | str,
    **kwargs: int | None,
) -> bool:
    """Boolean convenience wrapper around :func:`verify_signature`."""
    try:
        verify_signature(secrets, payload, signature_header, timestamp, **kwargs)
    except SignatureError:
        return False
    return True


def verify_request(
    request: Request,
    secrets: Secrets,
    *,
    tolerance: int | None = DEFAULT_TOLERANCE_SECONDS,
    now: int | None = None,
) -> None:
    """Verify the signature headers of an incoming webhook :class:`Request`."""
    header = request.headers.get(SIGNATURE_HEADER)
    if header is None:
        raise SignatureError(f"request is missing the {SIGNATURE_HEADER} header")
    timestamp = request.headers.get(TIMESTAMP_HEADER)
    if timestamp is None:
        raise SignatureError(f"request is missing the {TIMESTAMP_HEADER} header")
    verify_signature(secrets, request.body, header, timestamp, tolerance=tolerance, now=now)
