import inspect

from app.greeting import greet


def test_greet_signature_is_frozen_until_2_0():
    assert list(inspect.signature(greet).parameters) == ["name"]
