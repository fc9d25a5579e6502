"""What the bundled model's server is started with: its command line and its fingerprint.

Shared by both sides of the process boundary: :mod:`.local_model` writes the command line and
:mod:`.llama_server` reads it back into the same settings. Apart from the server so that the
client side, which every pytest run imports through the plugin's options, never loads the
HTTP server's modules.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

CHAT_FORMAT = "chatml-function-calling"
"""llama-cpp-python's chat handler for ChatML models with OpenAI-style tools."""
RENDERING = "render=tool-results,descriptions,bounded-arguments,json-strings"
"""How the server adapts a request to that handler: its template drops ``tool`` messages and tool
descriptions (see :func:`.llama_server.rendered`), and a call's strings are bounded so that it closes
within the reply's cap (:func:`.llama_server.bounded`) and holds no raw control character
(:func:`.llama_server.schema_grammar`); named in the fingerprint."""
ARGUMENT_GRAMMARS = ("schema", "json")


@dataclass(frozen=True)
class ServerSettings:
    """What the server is started with: its command line, and what its ``system_fingerprint`` repeats."""

    model: Path
    alias: str
    n_ctx: int = 8192
    threads: int = 1
    max_tokens: int = 256
    timeout: float = 120.0
    """Per request: the generation stops when it passes."""
    arguments_grammar: str = "schema"
    """What a tool call's arguments are generated under: the grammar of the tool's JSON schema
    (``schema``), or of any JSON value (``json``, for measuring what the schema's grammar buys)."""

    def fingerprint(self, digest: str) -> str:
        return (
            f"{self.alias} sha256:{digest[:16]} {CHAT_FORMAT} n_ctx={self.n_ctx} threads={self.threads} "
            f"cap={self.max_tokens} grammar={self.arguments_grammar} {RENDERING}"
        )

    def argv(self) -> list[str]:
        """The options :func:`.llama_server.main` reads back into the same settings."""
        return [f"--{f.name.replace('_', '-')}={getattr(self, f.name)}" for f in fields(ServerSettings)]
