"""Application settings."""


class ConfigError(Exception):
    """A setting is missing or invalid."""


def get_setting(settings: dict[str, str], key: str) -> str:
    """Return one setting, stripped."""
    # settings come from the environment: values may carry whitespace
    try:
        value = settings[key]
        return value.strip()
    except KeyError as exc:
        raise ConfigError(str(exc)) from exc
