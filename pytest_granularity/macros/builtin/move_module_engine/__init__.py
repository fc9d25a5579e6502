"""The ``move_module`` macro's engine: plan a move, refuse what cannot be proven safe, rewrite the references.

It lives beside the macro folder (``move-module``) it serves rather than in the framework: the
framework loads and enforces macros, and this is one macro's work. A macro folder's name has a
hyphen, so its runtime cannot import from it as a package; this package is its importable half.

- ``rewrite``: the ``Move`` plan and the rewrite of every reference, with libcst;
- ``blockers``: what a move cannot prove safe, found before anything is written;
- ``scope``: what the names in one file are bound to, as far as a move needs to know;
- ``macro``: the macro's functions, bound by the builtin and by a mined module move.
"""
