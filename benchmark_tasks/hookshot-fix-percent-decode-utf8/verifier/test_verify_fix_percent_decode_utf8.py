import pytest

from hookshot.http import build_request
from hookshot.urls import encode_query, parse_query, percent_decode


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("caf%C3%A9", "café"),
        ("%E2%82%AC5", "€5"),
        ("%F0%9F%8E%89", "\U0001f389"),
        ("%41%42%43", "ABC"),
        ("hello%20world", "hello world"),
        ("100%", "100%"),
        ("100%4", "100%4"),
        ("%zz", "%zz"),
        ("", ""),
    ],
)
def test_percent_decode(raw, expected):
    assert percent_decode(raw) == expected


def test_invalid_utf8_is_replaced():
    assert percent_decode("%FF") == "\ufffd"
    assert percent_decode("a%C3") == "a\ufffd"


def test_literal_non_ascii_text_is_kept():
    assert percent_decode("café+x") == "café+x"
    assert percent_decode("café+x", plus_as_space=True) == "café x"


def test_parse_query_decodes_utf8():
    assert parse_query("name=J%C3%BCrgen+M&mark=%E2%9C%93") == {
        "name": ["Jürgen M"],
        "mark": ["✓"],
    }


def test_encode_then_parse_round_trips():
    params = {"q": "ä/ö?€", "city": "Zürich"}
    assert parse_query(encode_query(params)) == {"q": ["ä/ö?€"], "city": ["Zürich"]}


def test_request_query_property():
    request = build_request("GET", "https://e.com/h", query={"city": "Zürich"})
    assert request.query == {"city": ["Zürich"]}
