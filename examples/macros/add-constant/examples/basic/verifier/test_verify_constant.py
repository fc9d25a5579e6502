import app.client


def test_default_timeout():
    assert app.client.DEFAULT_TIMEOUT == 30
    assert app.client.USER_AGENT == "status-client/1.0"
