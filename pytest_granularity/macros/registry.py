"""The macro registry: built-in macros, a user's folder, and macros other plugins register.

Names are unique across all sources; a clash is an error naming both folders, never a silent
override.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from ..schemas import DefinitionError
from .contract import CONTRACT_FILE, Macro, load_macro

BUILTIN_FOLDER = Path(__file__).parent / "builtin"


def macro_folders(root: Path) -> list[Path]:
    """Every folder directly under ``root`` (or ``root`` itself) that holds a contract."""
    root = Path(root)
    if (root / CONTRACT_FILE).is_file():
        return [root]
    return sorted(p for p in root.iterdir() if (p / CONTRACT_FILE).is_file()) if root.is_dir() else []


class MacroRegistry:
    def __init__(self, macros: Iterable[Macro]) -> None:
        self._macros: dict[str, Macro] = {}
        for macro in macros:
            other = self._macros.get(macro.name)
            if other is not None:
                raise DefinitionError(macro.folder / CONTRACT_FILE, "name", f"'{macro.name}' is already defined by {other.folder}")
            self._macros[macro.name] = macro

    @classmethod
    def load(cls, roots: Iterable[Path] = (), builtin: bool = True) -> "MacroRegistry":
        folders = macro_folders(BUILTIN_FOLDER) if builtin else []
        for root in roots:
            if not Path(root).is_dir():
                raise DefinitionError(Path(root), "<folder>", "macro folder does not exist")
            folders.extend(macro_folders(root))
        return cls(load_macro(f) for f in folders)

    def __contains__(self, name: object) -> bool:
        return name in self._macros

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._macros.values())

    def __len__(self) -> int:
        return len(self._macros)

    def get(self, name: str) -> Macro | None:
        return self._macros.get(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._macros)

    def tool_schemas(self) -> list[dict[str, Any]]:
        return [m.tool_schema() for m in self._macros.values()]
