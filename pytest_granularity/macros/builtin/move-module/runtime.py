"""move_module: move a module or package and rewrite every import of it (see ``move_module_engine``)."""

from pytest_granularity.macros.builtin.move_module_engine.macro import derive_arguments, preconditions, run, validate

__all__ = ["derive_arguments", "preconditions", "run", "validate"]
