import pytest

from app.orders import OrderError, check_quantity


def test_message_for_zero():
    with pytest.raises(OrderError, match="^bad qty$"):
        check_quantity(0)
