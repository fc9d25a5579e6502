"""The CI gate: metrics over run records, significance, the epoch gate and the committed baseline.

Stands on ``core`` only: it reads run records, it never starts a run.
"""
