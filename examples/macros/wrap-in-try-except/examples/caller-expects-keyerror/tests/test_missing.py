import pytest

from app.config import get_setting


def test_missing_key_raises_keyerror():
    with pytest.raises(KeyError):
        get_setting({}, "port")
