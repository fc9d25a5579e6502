import pytest

from app.orders import OrderError, check_quantity


def test_new_message():
    with pytest.raises(OrderError) as info:
        check_quantity(-1)
    assert str(info.value) == "quantity must be a positive number"
    with pytest.raises(OrderError, match="too many items"):
        check_quantity(101)
