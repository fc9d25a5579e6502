import inspect

import app.pricing
from app.pricing import gross


def test_constant_extracted():
    assert app.pricing.VAT_FACTOR == 1.2
    source = inspect.getsource(gross)
    assert "1.2" not in source and "VAT_FACTOR" in source
    assert gross(10) == 12.0
