from app.settings import load


def test_timeout_set():
    settings = load()
    assert settings.timeout == 45
    assert (settings.host, settings.port, settings.max_items) == ("127.0.0.1", 8000, 50)
