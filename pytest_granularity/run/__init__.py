"""One run end to end: the policies, the executor (the recovery machine), the runner; and the checks
that drive runs (``granularity tasks check``, the contract checks).

Stands on ``core``, ``macros``, ``agents`` and ``verifier``.
"""
