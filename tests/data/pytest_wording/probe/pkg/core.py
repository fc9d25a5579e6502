from dataclasses import dataclass


class ParseError(ValueError):
    pass


class Outer:
    class InnerError(Exception):
        pass


def _decode(text):
    if not text.startswith("{"):
        raise LookupError(f"no object in {text!r}")
    return {}


def parse(text):
    try:
        return _decode(text)
    except LookupError as exc:
        raise ParseError(f"bad input: {exc}") from exc


def deep(n):
    if n == 0:
        raise ParseError("deep failure here")
    return deep(n - 1)


def handled():
    try:
        {}["missing"]
    except KeyError:
        raise ParseError("while handling a key error")


@dataclass
class Point:
    x: int
    y: int
