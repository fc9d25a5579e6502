import pytest

from inventory.errors import ValidationError
from inventory.reorder import average_daily_demand, moving_average


@pytest.mark.parametrize("window", [0, -3])
def test_moving_average_message(window):
    with pytest.raises(ValidationError) as info:
        moving_average([1, 2, 3], window)
    message = str(info.value)
    assert "non-negative" not in message
    assert "positive" in message and "window" in message
    assert f"got {window}" in message


@pytest.mark.parametrize("window", [0, -1])
def test_average_daily_demand_message(window):
    with pytest.raises(ValidationError) as info:
        average_daily_demand([4, 5], window=window)
    message = str(info.value)
    assert "non-negative" not in message
    assert "positive" in message and "window" in message
    assert f"got {window}" in message


def test_valid_windows_still_work():
    assert moving_average([1, 2, 3], 2) == [1.5, 2.5]
    assert average_daily_demand([2, 4], window=1) == 4.0
