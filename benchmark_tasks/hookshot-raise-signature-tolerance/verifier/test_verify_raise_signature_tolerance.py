
import pytest

from hookshot.config import Settings, load_config, loads_config
from hookshot.http import build_request
from hookshot.signing import (
    DEFAULT_TOLERANCE_SECONDS,
    SIGNATURE_HEADER,
    SignatureError,
    sign_payload,
    verify_request,
    verify_signature,
)

SECRET = "whsec_test"
BODY = b'{"event":"ping"}'
TS = 1_700_000_000


def test_default_tolerance_is_ten_minutes():
    assert DEFAULT_TOLERANCE_SECONDS == 600


def test_signatures_up_to_600_seconds_off_are_accepted():
    header = sign_payload(SECRET, BODY, timestamp=TS)[SIGNATURE_HEADER]
    verify_signature(SECRET, BODY, header, TS, now=TS + 600)
    verify_signature(SECRET, BODY, header, TS, now=TS - 600)


def test_older_signatures_are_rejected():
    header = sign_payload(SECRET, BODY, timestamp=TS)[SIGNATURE_HEADER]
    with pytest.raises(SignatureError, match="601 seconds old"):
        verify_signature(SECRET, BODY, header, TS, now=TS + 601)


def test_verify_request_uses_the_new_default():
    headers = sign_payload(SECRET, BODY, timestamp=TS)
    request = build_request("POST", "https://e.com/hook", headers=headers, body=BODY)
    verify_request(request, SECRET, now=TS + 450)


def test_config_defaults_and_example():
    assert Settings().tolerance == 600
    assert loads_config("", environ={}).tolerance == 600
    assert load_config("hookshot.ini", environ={}).tolerance == 600
