"""Granularity control for an outside agent over MCP: the tool session, the tools' export, the stdio server.

Stands on every group below the faces; never on ``plugin`` (a served session needs no pytest session).
"""
