from orders.pricing import gross_price, net_price


def test_gross_price_rounds():
    assert gross_price(999, 0.2) == 1199
    assert gross_price(1000, 0.25) == 1250


def test_net_price_still_truncates():
    assert net_price(999, 0.2) == 799
