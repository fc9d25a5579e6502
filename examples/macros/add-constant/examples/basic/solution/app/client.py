"""Building requests for the status API."""

from urllib.parse import urlencode

DEFAULT_TIMEOUT = 30
USER_AGENT = "status-client/1.0"


def build_url(host: str, path: str, **query: str) -> str:
    """The full URL for a request."""
    url = f"https://{host}/{path.lstrip('/')}"
    return f"{url}?{urlencode(query)}" if query else url
