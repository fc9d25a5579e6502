import dataclasses

from app.models import User


def test_active_field():
    names = [f.name for f in dataclasses.fields(User)]
    assert names == ["name", "email", "active"]
    assert User("ada").active is True
    assert User("bob", "b@example.org", False).active is False
