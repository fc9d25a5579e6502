from datetime import date

import pytest

from ledgerflow.reporting.periods import Month, month_key, month_range, months_between


def test_month_validation_and_str():
    assert str(Month(2024, 3)) == "2024-03"
    with pytest.raises(ValueError, match=r"month must be in 1\.\.12, got 13"):
        Month(2024, 13)


def test_parse_and_from_date():
    assert Month.parse("2023-11") == Month(2023, 11)
    assert Month.from_date(date(2024, 2, 29)) == Month(2024, 2)
    with pytest.raises(ValueError, match="expected YYYY-MM"):
        Month.parse("2023/11")


@pytest.mark.parametrize(
    ("start", "offset", "expected"),
    [
        (Month(2024, 1), 1, Month(2024, 2)),
        (Month(2024, 12), 1, Month(2025, 1)),
        (Month(2024, 1), -1, Month(2023, 12)),
        (Month(2024, 5), 0, Month(2024, 5)),
        (Month(2024, 11), 14, Month(2026, 1)),
    ],
)
def test_shift(start, offset, expected):
    assert start.shift(offset) == expected


def test_first_and_last_day():
    assert Month(2024, 2).first_day == date(2024, 2, 1)
    assert Month(2024, 2).last_day == date(2024, 2, 29)
    assert Month(2023, 2).last_day == date(2023, 2, 28)
    assert Month(2024, 12).last_day == date(2024, 12, 31)


def test_contains():
    assert Month(2024, 1).contains(date(2024, 1, 31))
    assert not Month(2024, 1).contains(date(2023, 1, 15))


def test_month_range_inclusive():
    months = month_range(Month(2023, 11), Month(2024, 2))
    assert [str(m) for m in months] == ["2023-11", "2023-12", "2024-01", "2024-02"]
    assert month_range(Month(2024, 1), Month(2024, 1)) == [Month(2024, 1)]
    assert months_between(Month(2023, 11), Month(2024, 2)) == 3
    with pytest.raises(ValueError, match="before start month"):
        month_range(Month(2024, 2), Month(2024, 1))


def test_month_ordering_and_key():
    assert Month(2023, 12) < Month(2024, 1)
    assert month_key(date(2024, 7, 4)) == "2024-07"
