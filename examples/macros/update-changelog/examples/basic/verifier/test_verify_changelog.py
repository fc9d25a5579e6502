from pathlib import Path

CHANGELOG = Path(__file__).resolve().parent.parent / "CHANGELOG.md"
ENTRY = "- Fix the retry delay when the server sends Retry-After."


def test_entry_under_top_version_fixed():
    text = CHANGELOG.read_text()
    top, older = text.split("## 1.2.0", 1)
    fixed = top.split("### Fixed", 1)[1]
    assert ENTRY in fixed and ENTRY not in older
    assert text.count(ENTRY) == 1
