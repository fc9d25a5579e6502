import typing

from app.net import parse_port


def test_return_annotated():
    assert typing.get_type_hints(parse_port) == {"return": int}
    assert parse_port("443") == 443
