"""Sending a chat-completions request with the official ``openai`` SDK, and naming what went wrong.

The SDK is an optional extra (``model``, installed as ``core.distribution.install_command`` says) that takes about half
a second to import, so it is imported on the first request, never with the plugin. It retries
408/409/429/5xx and connection failures itself, with exponential backoff that honours
``Retry-After``; what is still failing after the retries becomes an :class:`InfrastructureError`
with the transcript kept. A refused key is named by its environment variable, never by its value.
A request too long for the model's context window is :class:`ContextLengthExceeded`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

from . import ContextLengthExceeded, InfrastructureError

PLACEHOLDER_KEY = "not-set"
"""Sent when the key variable is unset: local servers (vLLM, Ollama, llama.cpp) need no key."""

_CONTEXT = re.compile(
    r"context[ _-]?(length|window|size)|maximum context|too many tokens|prompt is too long", re.IGNORECASE
)
_KEYLIKE = re.compile(r"\b(sk|key)-[A-Za-z0-9*_\-]{4,}")
MAX_REPLY_BYTES = 4 * 2**20
"""A chat completion is some hundred kilobytes at most (128k output tokens); a reply past this is refused
before it is parsed, counted (tokenizing it alone takes minutes) or kept in the run record."""


@dataclass(frozen=True)
class Endpoint:
    base_url: str | None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 120.0
    max_retries: int = 2


class OpenAISender:
    """A ``Send`` over one lazily made SDK client (its connection pool is shared by a worker's runs)."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self._client: Any = None

    def __call__(self, body: dict[str, Any], where: str) -> dict[str, Any]:
        import openai

        if self._client is None:
            self._client = openai.OpenAI(
                api_key=os.environ.get(self.endpoint.api_key_env) or PLACEHOLDER_KEY,
                base_url=self.endpoint.base_url,
                timeout=self.endpoint.timeout,
                max_retries=self.endpoint.max_retries,
            )
        url = str(self._client.base_url)
        try:
            response = self._client.chat.completions.with_raw_response.create(**body)
        except openai.APIStatusError as exc:
            raise self._status_error(exc, url, where) from None
        except openai.APITimeoutError:
            raise InfrastructureError(
                f"{where}: no answer from {url} within {self.endpoint.timeout:g}s ({self._retried})"
            ) from None
        except openai.APIConnectionError as exc:
            raise InfrastructureError(
                f"{where}: cannot reach {url} ({self._retried}): {exc.__cause__ or exc}"
            ) from None
        except Exception as exc:  # the SDK lets some transport errors through unwrapped (httpcore's ConnectError)
            raise InfrastructureError(
                f"{where}: cannot reach {url} ({self._retried}): {type(exc).__name__}: {exc}"
            ) from None
        size = len(response.content)
        if size > MAX_REPLY_BYTES:
            raise InfrastructureError(
                f"{where}: {url} answered with {size} bytes, more than the limit of {MAX_REPLY_BYTES}"
            )
        try:
            data = json.loads(response.text)
        except ValueError:
            raise InfrastructureError(
                f"{where}: {url} answered with something that is not JSON: {response.text[:200]!r}"
            ) from None
        if not isinstance(data, dict):
            raise InfrastructureError(f"{where}: {url} answered with a JSON {type(data).__name__}, not an object")
        return data

    @property
    def _retried(self) -> str:
        return f"after {self.endpoint.max_retries} retries"

    def _status_error(self, exc: Any, url: str, where: str) -> Exception:
        status = exc.status_code
        message = self._scrub(_message(exc))
        if status in (401, 403):
            unset = "" if os.environ.get(self.endpoint.api_key_env) else f" ({self.endpoint.api_key_env} is not set)"
            return InfrastructureError(
                f"{where}: {url} refused the key in {self.endpoint.api_key_env}{unset}: HTTP {status}: {message}"
            )
        if status in (400, 413, 422) and (
            getattr(exc, "code", None) == "context_length_exceeded" or _CONTEXT.search(message)
        ):
            return ContextLengthExceeded(f"{where}: the request exceeds the model's context window: {message}")
        retried = f" ({self._retried})" if status == 429 or status >= 500 else ""
        return InfrastructureError(f"{where}: {url} answered HTTP {status}{retried}: {message}")

    def _scrub(self, text: str) -> str:
        key = os.environ.get(self.endpoint.api_key_env)
        if key:
            text = text.replace(key, "<key>")
        return _KEYLIKE.sub("<key>", text)


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:500]
    return str(getattr(exc, "message", exc))[:500]
