"""Choosing micro, macro or hybrid before a run: features, macro applicability, the routers (written
and learned), router files' checks, training and ``explain``.

Stands on ``core``, ``macros``, ``run`` (the policies), ``gate`` and ``report`` (training reads and renders reports).
"""
