"""Parsing network addresses."""


def parse_port(text) -> int:
    """The port number in text, e.g. '8080' or ':8080'."""
    port = int(text.lstrip(":"))
    if not 0 < port < 65536:
        raise ValueError(f"not a port: {text}")
    return port


def format_address(host: str, port: int) -> str:
    return f"{host}:{port}"
