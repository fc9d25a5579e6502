"""Recording model responses, and replaying them with no network: a real model gated for free.

Each response is a readable JSON file ``<key>.json`` holding the request and the response, where
the key is the SHA-256 of the canonical request (model, messages, tools and sampling settings:
never the key, the URL or the timeouts). The same request always finds the same file, so the
recordings of different shards merge by copying the folders together.

Modes:

- ``replay``: only the recordings; a miss is an infrastructure error naming the task and call,
  the nearest recording and the fields that differ from it (``replay_miss``), and no network is
  touched (no key, no SDK needed).
- ``auto``: a recording when there is one, else the model, and the answer is recorded.
- ``record``: the model for every request, except one already recorded in this same session.
- ``off``: the model only.

Within one session a request is answered once: when two runs (two workers, or two policies whose
first requests are identical) ask the same thing, the first answer recorded is the one every
run uses, checked and written under a lock, atomically. That is what makes a replayed session
reproduce the recorded one byte for byte even when the model is not deterministic.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..core.input_files import read_bounded
from . import InfrastructureError, replay_miss
from .chat import Send

MODES = ("record", "replay", "auto", "off")


def request_key(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ModelCache:
    """A ``Send`` that consults the recordings in ``folder`` before (or instead of) ``live``."""

    def __init__(self, folder: Path, mode: str, session: str, live: Send | None) -> None:
        self.folder = folder
        self.mode = mode
        self.session = session
        self.live = live

    def __call__(self, body: dict[str, Any], where: str) -> dict[str, Any]:
        key = request_key(body)
        path = self.folder / f"{key}.json"
        recorded = _read(path)
        if recorded is not None and (self.mode in ("replay", "auto") or recorded.get("session") == self.session):
            replayed: dict[str, Any] = recorded["response"]
            return replayed
        if self.mode == "replay" or self.live is None:
            raise InfrastructureError(
                f"{where}: no recording of this request in {self.folder} (replay mode; key {key})"
                f"{replay_miss.explain(self.folder, body)}"
            )
        response = self.live(body, where)
        return self._publish(path, {"key": key, "session": self.session, "request": body, "response": response})

    def _publish(self, path: Path, entry: dict[str, Any]) -> dict[str, Any]:
        """Store ``entry`` unless this session stored one for the request meanwhile; the response that stands."""
        with _locked(self.folder):
            current = _read(path)
            if current is not None and (self.mode == "auto" or current.get("session") == self.session):
                standing: dict[str, Any] = current["response"]
                return standing
            _write_atomically(path, json.dumps(entry, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
        stored: dict[str, Any] = entry["response"]
        return stored


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(read_bounded(path).decode("utf-8"))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InfrastructureError(f"{path}: unreadable recording ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise InfrastructureError(f"{path}: unreadable recording ({exc})") from None
    except RecursionError:
        raise InfrastructureError(f"{path}: unreadable recording (nested too deeply to read)") from None
    if not isinstance(data, dict) or not isinstance(data.get("response"), dict):
        raise InfrastructureError(f"{path}: field 'response': missing or not an object")
    return data


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".recording-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on ``folder`` itself, so no lock file lands in it (it is meant to be
    committed) or anywhere else; closing the descriptor releases it."""
    folder.mkdir(parents=True, exist_ok=True)
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)
