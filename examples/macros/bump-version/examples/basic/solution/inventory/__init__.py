"""Stock keeping for small shops."""

__version__ = "1.5.0"
