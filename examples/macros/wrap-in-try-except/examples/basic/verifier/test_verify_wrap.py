import pytest

from app.config import ConfigError, get_setting


def test_missing_setting_is_a_config_error():
    with pytest.raises(ConfigError) as info:
        get_setting({}, "port")
    assert isinstance(info.value.__cause__, KeyError)
    assert get_setting({"port": "80 "}, "port") == "80"
