import pytest

from hookshot.events import MAX_EVENT_NAME_LENGTH, Event, EventError, validate_event_name
from hookshot.router import EventRouter


def test_limit_is_128():
    assert MAX_EVENT_NAME_LENGTH == 128


@pytest.mark.parametrize("length", [65, 100, 128])
def test_names_up_to_128_characters_are_valid(length):
    name = "a" * length
    assert validate_event_name(name) == name
    assert Event(name).name == name


def test_longer_names_are_rejected():
    with pytest.raises(EventError, match="129 characters long; the maximum is 128"):
        Event("a" * 129)


def test_long_dotted_names_route():
    name = "order." + "x" * 100
    router = EventRouter()
    router.register("order.*", lambda event: event.name)
    assert router.dispatch(Event(name)).results == [name]
