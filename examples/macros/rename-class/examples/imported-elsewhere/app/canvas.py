from app.shapes import Rect


def frame(width: float, height: float) -> Rect:
    return Rect(width + 2, height + 2)
