"""Plane shapes."""

from dataclasses import dataclass

__all__ = ["Rectangle", "unit_square"]


@dataclass
class Rectangle:
    """An axis-aligned rectangle."""

    width: float
    height: float

    def area(self) -> float:
        return self.width * self.height

    def scaled(self, factor: float) -> "Rectangle":
        return Rectangle(self.width * factor, self.height * factor)


def unit_square() -> Rectangle:
    return Rectangle(1.0, 1.0)


def is_shape(value: object) -> bool:
    return isinstance(value, Rectangle)
