from text.headings import heading_id


def test_heading_id():
    assert heading_id("Getting Started") == "h-getting_started"
