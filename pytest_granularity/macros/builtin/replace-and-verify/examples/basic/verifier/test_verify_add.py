from calc.ops import add


def test_add_is_a_plain_sum():
    assert add(20, 22) == 42
