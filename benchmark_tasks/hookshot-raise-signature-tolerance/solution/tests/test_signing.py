import hashlib
import hmac
from unittest.mock import patch

import pytest

from hookshot.http import build_request
from hookshot.signing import (
    DEFAULT_TOLERANCE_SECONDS,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    SignatureError,
    compute_signature,
    is_valid_signature,
    parse_signature_header,
    sign_payload,
    verify_request,
    verify_signature,
)

SECRET = "whsec_test"
BODY = b'{"event":"order.created"}'
TS = 1_700_000_000


def test_compute_signature_matches_reference_hmac():
    expected = hmac.new(b"whsec_test", b"1700000000." + BODY, hashlib.sha256).hexdigest()
    assert compute_signature(SECRET, BODY, TS) == expected
    assert compute_signature(SECRET.encode(), BODY, TS) == expected


def test_empty_secret_is_rejected():
    with pytest.raises(ValueError, match="must not be empty"):
        compute_signature("", BODY, TS)
    with pytest.raises(ValueError, match="at least one signing secret"):
        sign_payload([], BODY, TS)


def test_sign_and_verify_round_trip():
    headers = sign_payload(SECRET, BODY, timestamp=TS)
    assert headers[TIMESTAMP_HEADER] == str(TS)
    assert headers[SIGNATURE_HEADER].startswith("v1=")
    verify_signature(SECRET, BODY, headers[SIGNATURE_HEADER], headers[TIMESTAMP_HEADER], now=TS + 10)


def test_sign_payload_uses_current_timestamp_by_default():
    with patch("hookshot.signing.current_timestamp", return_value=TS) as fake_now:
        headers = sign_payload(SECRET, BODY)
    fake_now.assert_called_once_with()
    assert headers[TIMESTAMP_HEADER] == str(TS)


def test_wrong_secret_or_tampered_body_fails():
    headers = sign_payload(SECRET, BODY, timestamp=TS)
    with pytest.raises(SignatureError, match="no signature matched"):
        verify_signature("other", BODY, headers[SIGNATURE_HEADER], TS, now=TS)
    assert not is_valid_signature(SECRET, BODY + b" ", headers[SIGNATURE_HEADER], TS, now=TS)


@pytest.mark.parametrize(
    "offset, message",
    [
        (DEFAULT_TOLERANCE_SECONDS + 1, f"{DEFAULT_TOLERANCE_SECONDS + 1} seconds old"),
        (-(DEFAULT_TOLERANCE_SECONDS + 1), f"{DEFAULT_TOLERANCE_SECONDS + 1} seconds in the future"),
    ],
)
def test_timestamp_outside_tolerance_is_rejected(offset, message):
    headers = sign_payload(SECRET, BODY, timestamp=TS)
    with patch("hookshot.signing.current_timestamp", return_value=TS + offset):
        with pytest.raises(SignatureError, match=message):
            verify_signature(SECRET, BODY, headers[SIGNATURE_HEADER], TS)


def test_timestamp_exactly_at_tolerance_is_accepted():
    header = sign_payload(SECRET, BODY, timestamp=TS)[SIGNATURE_HEADER]
    assert is_valid_signature(SECRET, BODY, header, TS, now=TS + DEFAULT_TOLERANCE_SECONDS)
    assert is_valid_signature(SECRET, BODY, header, TS, now=TS + 10_000, tolerance=None)


def test_secret_rotation_signs_with_every_secret():
    header = sign_payload(["new", "old"], BODY, timestamp=TS)[SIGNATURE_HEADER]
    assert len(parse_signature_header(header)) == 2
    assert is_valid_signature("old", BODY, header, TS, now=TS)
    assert is_valid_signature(["retired", "new"], BODY, header, TS, now=TS)


def test_parse_signature_header_ignores_other_versions():
    assert parse_signature_header("v0=abc, v1=def ,,v2=ghi") == ["def"]


@pytest.mark.parametrize(
    "value, message",
    [
        ("v1=abc,garbage", "malformed signature entry #2"),
        ("v1=", "malformed signature entry #1"),
        ("v0=abc", "no v1 signatures found"),
        ("", "no v1 signatures found"),
    ],
)
def test_parse_signature_header_errors(value, message):
    with pytest.raises(SignatureError, match=message):
        parse_signature_header(value)


def test_invalid_timestamp_is_rejected():
    with pytest.raises(SignatureError, match="invalid signature timestamp 'soon'"):
        verify_signature(SECRET, BODY, "v1=abc", "soon")


def test_verify_request_reads_headers():
    headers = sign_payload(SECRET, BODY, timestamp=TS)
    request = build_request("POST", "https://e.com/hook", headers=headers, body=BODY)
    verify_request(request, SECRET, now=TS)

    request.headers.remove(TIMESTAMP_HEADER)
    with pytest.raises(SignatureError, match=f"missing the {TIMESTAMP_HEADER} header"):
        verify_request(request, SECRET, now=TS)
    request.headers.remove(SIGNATURE_HEADER)
    with pytest.raises(SignatureError, match=f"missing the {SIGNATURE_HEADER} header"):
        verify_request(request, SECRET, now=TS)
