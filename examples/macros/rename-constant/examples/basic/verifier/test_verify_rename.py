import app.limits


def test_renamed():
    assert app.limits.ITEM_LIMIT == 50
    assert not hasattr(app.limits, "MAX_ITEMS")
    assert app.limits.clamp(99) == 50
