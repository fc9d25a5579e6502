from app.canvas import frame


def test_frame():
    assert frame(1, 1).area() == 9
