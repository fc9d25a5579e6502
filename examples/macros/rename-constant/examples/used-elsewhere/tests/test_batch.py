from app.batch import batches


def test_batches():
    assert batches(120) == 3
