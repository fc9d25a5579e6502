from pathlib import Path


def test_summary_names_every_public_entry():
    text = Path("docs/geometry.md").read_text()
    for needle in ("area", "width", "height", "Area of a rectangle", "Circle", "radius", "A circle"):
        assert needle in text
