"""Synchronise local records with the server."""

import logging

logger = logging.getLogger(__name__)


def merge(local: dict, remote: dict) -> dict:
    """Remote values win over local ones."""
    logger.debug("merging local and remote records")
    merged = dict(local)
    merged.update(remote)
    if len(merged) > len(local):
        logger.info("merged %d new record(s)", len(merged) - len(local))
    return merged
