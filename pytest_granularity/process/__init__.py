"""The processes a run starts and how they end: the sandbox, pytest runs (cold, or forked by a warm server,
isolated for the verifier) and their output's wording, the assertion-rewrite cache, and the interrupt
registry that kills and removes what a run left.

Stands on ``core`` (the domain), which never imports it.
"""
