import app.shapes
from app.shapes import Rectangle, unit_square


def test_renamed():
    assert not hasattr(app.shapes, "Rect")
    assert app.shapes.__all__ == ["Rectangle", "unit_square"]
    assert isinstance(unit_square(), Rectangle)
    assert Rectangle.scaled.__annotations__["return"] == "Rectangle"
    assert Rectangle(2, 3).scaled(2) == Rectangle(4, 6)
