import re
from pathlib import Path

import pytest

import hookshot
import hookshot.signing as signing
from hookshot.http import build_request

SECRET = "whsec_test"
BODY = b'{"event":"ping"}'
TS = 1_700_000_000


def signed_request():
    headers = signing.sign_payload(SECRET, BODY, timestamp=TS)
    return build_request("POST", "https://e.com/hook", headers=headers, body=BODY)


def test_new_name_verifies_requests():
    signing.verify_webhook_request(signed_request(), SECRET, now=TS)
    signing.verify_webhook_request(signed_request(), SECRET, now=TS + 10, tolerance=60)
    with pytest.raises(signing.SignatureError, match="no signature matched"):
        signing.verify_webhook_request(signed_request(), "other", now=TS)


def test_old_name_is_gone():
    assert not hasattr(signing, "verify_request")
    assert not hasattr(hookshot, "verify_request")
    assert "verify_request" not in hookshot.__all__


def test_package_exports_the_new_name():
    assert hookshot.verify_webhook_request is signing.verify_webhook_request
    assert "verify_webhook_request" in hookshot.__all__


def test_readme_uses_the_new_name():
    readme = Path("README.md").read_text(encoding="utf-8")
    assert not re.search(r"\bverify_request\b", readme)
    assert "verify_webhook_request" in readme
