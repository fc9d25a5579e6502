"""Macros that evolve: edit shapes mined from successful runs and reference solutions, written as macros.

An edit that recurs across different tasks (the same kind of statement rewritten the same way, or the
same kind of item added beside a sibling) is generalized by anti-unification on the syntax tree: what
differs between its instances becomes a parameter, what they share the pattern. A shape becomes a macro
in the registry's own format, and is kept only when the contract checks pass on it and it reproduces
every task it was mined from.
"""
