import pytest

from calc.ops import clamp


def test_clamp_inside():
    assert clamp(5, 0, 10) == 5


def test_clamp_rejects_empty_range():
    with pytest.raises(ValueError):
        clamp(1, 5, 0)


def test_clamp_below_low():
    assert clamp(-3, 0, 10) == 0
