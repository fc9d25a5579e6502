import pytest

from hookshot.http import HttpParseError, parse_request, parse_response


def test_missing_colon_on_first_header_line():
    with pytest.raises(HttpParseError, match=r"header line 1 has no ':'"):
        parse_request(b"GET / HTTP/1.1\r\nNoColon\r\n\r\n")


def test_missing_colon_on_later_header_line():
    raw = b"GET / HTTP/1.1\r\nHost: e.com\r\nBroken\r\n\r\n"
    with pytest.raises(HttpParseError, match=r"header line 2 has no ':'"):
        parse_request(raw)


def test_leading_continuation_line():
    with pytest.raises(HttpParseError, match=r"header line 1 is a continuation"):
        parse_request(b"GET / HTTP/1.1\r\n continued\r\n\r\n")


def test_response_headers_use_the_same_numbering():
    raw = b"HTTP/1.1 200 OK\r\nA: b\r\nC: d\r\nbad\r\n\r\n"
    with pytest.raises(HttpParseError, match=r"header line 3 has no ':'"):
        parse_response(raw)


def test_valid_messages_still_parse():
    request = parse_request(b"GET / HTTP/1.1\r\nX-Long: a\r\n b\r\n\r\n")
    assert request.headers.get("X-Long") == "a b"
