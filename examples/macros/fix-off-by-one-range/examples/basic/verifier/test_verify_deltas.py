from stats.series import deltas, window_sums


def test_every_delta():
    assert deltas([1, 4, 9, 16]) == [3, 5, 7]
    assert deltas([2, 2]) == [0]
    assert window_sums([1, 2, 3], 3) == [6]
