from calc.ops import add, total


def test_add_is_plain_sum():
    assert add(20, 22) == 42


def test_total():
    assert total([5, 6, 7]) == 18
