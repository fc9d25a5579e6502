from pkg.plugins import load


def test_load_helpers():
    assert load("helpers").double(2) == 4
