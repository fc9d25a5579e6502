import pytest

import hookshot.util.urls
from hookshot.util.urls import (
    UrlError,
    encode_query,
    join_path,
    parse_query,
    percent_decode,
    split_url,
    with_query,
)


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("hello%20world", "hello world"),
        ("%41%42%43", "ABC"),
        ("caf%C3%A9", "café"),
        ("100%", "100%"),
        ("100%4", "100%4"),
        ("%zz", "%zz"),
        ("50%25", "50%"),
        ("", ""),
    ],
)
def test_percent_decode(raw, expected):
    assert percent_decode(raw) == expected


def test_percent_decode_plus_handling():
    assert percent_decode("a+b") == "a+b"
    assert percent_decode("a+b", plus_as_space=True) == "a b"


def test_parse_query_collects_repeated_values():
    assert parse_query("?tag=a&tag=b&empty=&flag&name=J%C3%BCrgen+M") == {
        "tag": ["a", "b"],
        "empty": [""],
        "flag": [""],
        "name": ["Jürgen M"],
    }


def test_parse_query_ignores_empty_pairs():
    assert parse_query("a=1&&b=2&") == {"a": ["1"], "b": ["2"]}


def test_encode_query_handles_lists_bools_and_none():
    encoded = encode_query({"tag": ["a b", "c&d"], "live": True, "skip": None, "n": 3})
    assert encoded == "tag=a%20b&tag=c%26d&live=true&n=3"


def test_encode_then_parse_round_trips():
    params = {"q": "ä/ö?", "page": "2"}
    assert parse_query(encode_query(params)) == {"q": ["ä/ö?"], "page": ["2"]}


def test_split_url_fills_in_default_port():
    parts = split_url("https://Hooks.Example.com/orders?x=1#frag")
    assert (parts.scheme, parts.host, parts.port) == ("https", "hooks.example.com", 443)
    assert parts.target == "/orders?x=1"
    assert parts.host_header == "hooks.example.com"
    assert parts.geturl() == "https://hooks.example.com/orders?x=1#frag"


def test_split_url_keeps_explicit_port_in_host_header():
    parts = split_url("http://localhost:8080")
    assert parts.port == 8080
    assert parts.path == "/"
    assert parts.host_header == "localhost:8080"


@pytest.mark.parametrize(
    "url, message",
    [
        ("ftp://example.com/", "unsupported URL scheme 'ftp'"),
        ("https:///path", "has no host"),
        ("http://example.com:99999/", "invalid port"),
    ],
)
def test_split_url_errors(url, message):
    with pytest.raises(UrlError, match=message):
        split_url(url)


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://e.com/h", "https://e.com/h?a=1"),
        ("https://e.com/h?x=2", "https://e.com/h?x=2&a=1"),
        ("https://e.com/h?", "https://e.com/h?a=1"),
        ("https://e.com/h#top", "https://e.com/h?a=1#top"),
    ],
)
def test_with_query(url, expected):
    assert with_query(url, {"a": 1}) == expected


def test_with_query_without_params_returns_url_unchanged():
    assert hookshot.util.urls.with_query("https://e.com/h", {}) == "https://e.com/h"


def test_join_path_encodes_segments():
    assert join_path("/hooks/", "orders", "A 1") == "/hooks/orders/A%201"
    assert join_path("/", "") == "/"
