import pytest

from hookshot.http import MAX_HEADER_COUNT, HttpParseError, parse_request, parse_response


def header_block(count):
    return b"".join(b"X-H%d: v\r\n" % i for i in range(count))


def test_limit_is_one_hundred():
    assert MAX_HEADER_COUNT == 100


def test_request_with_exactly_max_headers_is_accepted():
    raw = b"GET / HTTP/1.1\r\n" + header_block(MAX_HEADER_COUNT) + b"\r\n"
    assert len(parse_request(raw).headers) == MAX_HEADER_COUNT


def test_response_with_exactly_max_headers_is_accepted():
    raw = b"HTTP/1.1 200 OK\r\n" + header_block(MAX_HEADER_COUNT) + b"\r\n"
    assert len(parse_response(raw).headers) == MAX_HEADER_COUNT


def test_one_more_header_is_rejected():
    raw = b"GET / HTTP/1.1\r\n" + header_block(MAX_HEADER_COUNT + 1) + b"\r\n"
    with pytest.raises(HttpParseError, match="too many headers: 101"):
        parse_request(raw)


def test_folded_lines_do_not_count_as_extra_headers():
    lines = header_block(MAX_HEADER_COUNT - 1) + b"X-Long: a\r\n  b\r\n"
    request = parse_request(b"GET / HTTP/1.1\r\n" + lines + b"\r\n")
    assert len(request.headers) == MAX_HEADER_COUNT
    assert request.headers.get("X-Long") == "a b"
