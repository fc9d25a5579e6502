from svc.config import load


def test_port_changed():
    settings = load()
    assert settings["server"] == {"host": "127.0.0.1", "port": 9090, "workers": 4}
    assert settings["features"] == {"beta": False, "regions": ["eu", "us"]}
