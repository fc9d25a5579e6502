from shop import prices


def test_documented():
    assert prices.parse_price.__doc__ == "Parse a decimal price string into cents."
    assert prices.format_price.__doc__ == "Format cents as a decimal string."
    assert prices.parse_price("12.5") == 1250
