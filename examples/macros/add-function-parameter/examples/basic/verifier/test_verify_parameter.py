import inspect

from app.greeting import greet


def test_loud_parameter():
    parameter = inspect.signature(greet).parameters["loud"]
    assert parameter.default is False
    assert parameter.annotation in (bool, "bool")
    assert greet("Bo") == "Hello, Bo!"
    assert greet("Bo", loud=False) == "Hello, Bo!"
