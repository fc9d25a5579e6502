from calc.ops import add, total
from calc.report import describe


def test_add():
    assert add(2, 3) == 5


def test_total():
    assert total([1, 2, 3]) == 6


def test_describe():
    assert describe([1, 1]) == "total=2"
