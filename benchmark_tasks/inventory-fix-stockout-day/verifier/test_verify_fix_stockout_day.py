import pytest

from inventory.reorder import days_until_stockout


@pytest.mark.parametrize(
    "on_hand, forecast, expected",
    [
        (9, [3, 3, 3], 3),
        (10, [3, 3, 3, 3, 3], 4),
        (6, [6], 1),
        (5, [2, 0, 3, 1], 3),
        (10, [1, 1], None),
        (3, [], None),
        (0, [1, 2], 0),
        (0, [], 0),
        (-2, [1], 0),
    ],
)
def test_days_until_stockout(on_hand, forecast, expected):
    assert days_until_stockout(on_hand, forecast) == expected
