"""The deterministic verifier: held tests run on the final workspace, the adversaries it must resist,
and the verifier served to an outside agent.

Stands on ``core`` only.
"""
