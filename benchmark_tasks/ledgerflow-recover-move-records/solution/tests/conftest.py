"""Shared fixtures for the ledgerflow test suite."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from ledgerflow.core.records import Transaction

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def sample_csv() -> Path:
    """The sample bank export shipped in data/."""
    return PROJECT_ROOT / "data" / "transactions.csv"


@pytest.fixture
def config_path() -> Path:
    """The example configuration file at the project root."""
    return PROJECT_ROOT / "ledgerflow.json"


@pytest.fixture
def make_txn():
    """Factory for transactions with sensible defaults."""

    def factory(
        txn_id: str = "T1",
        booked_on: date | str = "2024-01-15",
        amount: str | Decimal = "-10.00",
        **fields,
    ) -> Transaction:
        if isinstance(booked_on, str):
            booked_on = date.fromisoformat(booked_on)
        return Transaction(txn_id=txn_id, booked_on=booked_on, amount=Decimal(amount), **fields)

    return factory
