"""pytest-granularity: skill granularity as a runtime decision, benchmarked and gated in pytest."""

__version__ = "0.1.0"
