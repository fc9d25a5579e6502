"""Macro skills: contracts, the registry, the contract-enforcing runtime and the built-in macros.

Stands on ``core`` only.
"""

from .context import MacroContext, MacroError
from .contract import Macro, load_macro
from .registry import MacroRegistry
from .runtime import MacroOutcome, invoke

__all__ = ["Macro", "MacroContext", "MacroError", "MacroOutcome", "MacroRegistry", "invoke", "load_macro"]
