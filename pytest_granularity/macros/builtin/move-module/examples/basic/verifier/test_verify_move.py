import importlib.util


def test_new_location_works_and_old_is_gone():
    from pkg.sub.helpers import double

    assert double(4) == 8
    assert importlib.util.find_spec("pkg.helpers") is None
