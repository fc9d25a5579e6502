"""Errors raised by the store."""


class StoreError(Exception):
    """Base class of every store error."""


class NotFoundError(StoreError):
    """Raised when a key is missing."""


class ReadOnlyError(StoreError):
    """Raised on a write to a read-only store."""
