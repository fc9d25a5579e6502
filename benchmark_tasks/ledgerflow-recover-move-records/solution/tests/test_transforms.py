from datetime import date
from decimal import Decimal

import pytest

from ledgerflow.errors import ExchangeRateError
from ledgerflow.core.records import UNCATEGORISED
from ledgerflow.transforms import (
    DECIMAL_PLACES,
    CategoryRule,
    RateTable,
    categorise,
    categorise_all,
    clean_descriptions,
    convert_all,
    convert_currency,
    next_business_day,
    normalise_booking_date,
    normalise_description,
    round_money,
)

RATES = RateTable("EUR", {"USD": Decimal("0.92"), "GBP": Decimal("1.17")})


def test_round_money_half_up():
    assert DECIMAL_PLACES == 2
    assert round_money(Decimal("1.005")) == Decimal("1.01")
    assert round_money(Decimal("-1.005")) == Decimal("-1.01")
    assert round_money(Decimal("2.5"), places=0) == Decimal("3")


def test_rate_table_rates():
    assert RATES.rate("EUR", "EUR") == 1
    assert RATES.rate("USD", "EUR") == Decimal("0.92")
    assert RATES.convert(Decimal("100"), "GBP", "USD") == Decimal("127.17")
    assert RATES.known() == ["EUR", "GBP", "USD"]


def test_rate_table_unknown_currency():
    with pytest.raises(ExchangeRateError, match="no exchange rate for 'JPY'; known currencies: EUR, GBP, USD"):
        RATES.to_base("JPY")


def test_rate_table_rejects_non_positive_rates():
    with pytest.raises(ExchangeRateError, match="must be positive"):
        RateTable("EUR", {"USD": Decimal("0")})


def test_convert_currency(make_txn):
    txn = make_txn(amount="-89.90", currency="USD")
    converted = convert_currency(txn, RATES, "EUR")
    assert converted.amount == Decimal("-82.71")
    assert converted.currency == "EUR"
    same = make_txn(currency="EUR")
    assert convert_currency(same, RATES, "EUR") is same
    assert [t.currency for t in convert_all([txn, same], RATES)] == ["EUR", "EUR"]


def test_business_days():
    assert next_business_day(date(2024, 1, 6)) == date(2024, 1, 8)  # Saturday
    assert next_business_day(date(2024, 1, 7)) == date(2024, 1, 8)  # Sunday
    assert next_business_day(date(2024, 1, 8)) == date(2024, 1, 8)


def test_normalise_booking_date(make_txn):
    weekday = make_txn(booked_on="2024-01-05")
    assert normalise_booking_date(weekday) is weekday
    assert normalise_booking_date(make_txn(booked_on="2024-03-09")).booked_on == date(2024, 3, 11)


def test_descriptions(make_txn):
    assert normalise_description("  REWE \t Markt\n 123 ") == "REWE Markt 123"
    tidy = make_txn(description="ok")
    messy = make_txn(description="a  b")
    cleaned = clean_descriptions([tidy, messy])
    assert cleaned[0] is tidy
    assert cleaned[1].description == "a b"


def test_category_rule_validation():
    assert CategoryRule("rewe", "groceries").matches("REWE Markt")
    with pytest.raises(ValueError, match="pattern must not be empty"):
        CategoryRule(" ", "x")
    with pytest.raises(ValueError, match="category for pattern 'x' must not be empty"):
        CategoryRule("x", "")


def test_categorise_first_match_wins(make_txn):
    rules = [CategoryRule("refund", "refunds"), CategoryRule("tax", "taxes")]
    assert categorise(make_txn(description="Tax refund"), rules).category == "refunds"
    assert categorise(make_txn(description="Coffee"), rules).category == UNCATEGORISED
    assert categorise(make_txn(description="Coffee"), rules, default="misc").category == "misc"


def test_categorise_respects_existing_category(make_txn):
    rules = [CategoryRule("rent", "housing")]
    txn = make_txn(description="Rent", category="flat")
    assert categorise(txn, rules) is txn
    assert categorise(txn, rules, overwrite=True).category == "housing"
    assert [t.category for t in categorise_all([txn], rules, overwrite=True)] == ["housing"]
