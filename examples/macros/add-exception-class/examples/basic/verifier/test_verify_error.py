from app import errors


def test_read_only_error():
    assert issubclass(errors.ReadOnlyError, errors.StoreError)
    assert errors.ReadOnlyError.__doc__
