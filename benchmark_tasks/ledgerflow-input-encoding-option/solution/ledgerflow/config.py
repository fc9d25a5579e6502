"""Loading pipeline settings from a JSON configuration file.

Example ``ledgerflow.json``::

    {
      "ledgerflow": {"base_currency": "EUR", "dedupe_window_days": 3},
      "rates": {"USD": "0.92"},
      "categories": [{"pattern": "rewe", "category": "groceries"}]
    }

``rates`` gives the units of the base currency per one unit of each listed
currency.  Rates and amounts may be written as strings or numbers; numbers are
parsed as :class:`~decimal.Decimal` so no binary rounding creeps in.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from .dedupe import DEFAULT_WINDOW_DAYS
from .errors import ConfigError, ExchangeRateError
from .io.csv_reader import DEFAULT_DELIMITER, DEFAULT_ENCODING
from .records import DEFAULT_CURRENCY
from .transforms import CategoryRule, RateTable

DEFAULT_CONFIG_NAME = "ledgerflow.json"
KNOWN_SECTIONS = frozenset({"ledgerflow", "rates", "categories"})
KNOWN_SETTINGS = frozenset(
    {
        "base_currency",
        "delimiter",
        "dedupe_window_days",
        "business_days",
        "max_amount",
        "encoding",
    }
)


@dataclass(frozen=True)
class LedgerConfig:
    """Settings that drive :func:`ledgerflow.pipeline.build_default_pipeline`."""

    base_currency: str = DEFAULT_CURRENCY
    rates: RateTable = field(default_factory=RateTable)
    category_rules: tuple[CategoryRule, ...] = ()
    delimiter: str = DEFAULT_DELIMITER
    dedupe_window_days: int = DEFAULT_WINDOW_DAYS
    business_days: bool = False
    max_amount: Decimal | None = None
    encoding: str = DEFAULT_ENCODING

    @property
    def currencies(self) -> list[str]:
        """Currencies the pipeline accepts (those the rate table can convert)."""
        return self.rates.known()


def _to_decimal(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        raise ConfigError(f"{where} must be a number or numeric string, got {value!r}")
    try:
        # str() first so that floats such as 0.92 keep their written form.
        return Decimal(str(value).strip())
    except InvalidOperation:
        raise ConfigError(f"{where} is not a valid number: {value!r}") from None


def check_encoding(value: Any, where: str) -> str:
    """Return ``value`` if it names a text encoding Python knows, else raise :class:`ConfigError`."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where} must be the name of a text encoding, got {value!r}")
    name = value.strip()
    try:
        codecs.lookup(name)
    except LookupError:
        raise ConfigError(f"{where}: unknown encoding {value!r}") from None
    return name


def _section(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    section = data.get(name, {})
    if not isinstance(section, Mapping):
        raise ConfigError(f"{name!r} must be an object")
    return section


def _parse_rules(data: Mapping[str, Any]) -> tuple[CategoryRule, ...]:
    entries = data.get("categories", [])
    if not isinstance(entries, list):
        raise ConfigError("'categories' must be a list of objects")
    rules: list[CategoryRule] = []
    for position, entry in enumerate(entries, start=1):
        if not isinstance(entry, Mapping) or "pattern" not in entry or "category" not in entry:
            raise ConfigError(f"category rule #{position} needs both 'pattern' and 'category'")
        try:
            rules.append(CategoryRule(str(entry["pattern"]), str(entry["category"]).strip().lower()))
        except ValueError as exc:
            raise ConfigError(f"category rule #{position}: {exc}") from None
    return tuple(rules)


def parse_config(data: Mapping[str, Any], source: str = "<config>") -> LedgerConfig:
    """Build a :class:`LedgerConfig` from an already-parsed JSON document."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: top level must be an object, got {type(data).__name__}")
    unknown_sections = sorted(set(data) - KNOWN_SECTIONS)
    if unknown_sections:
        raise ConfigError(f"{source}: unknown section(s): {', '.join(unknown_sections)}")

    settings = _section(data, "ledgerflow")
    unknown = sorted(set(settings) - KNOWN_SETTINGS)
    if unknown:
        raise ConfigError(f"{source}: unknown setting(s) in 'ledgerflow': {', '.join(unknown)}")

    base = str(settings.get("base_currency", DEFAULT_CURRENCY)).strip().upper()
    if len(base) != 3 or not base.isalpha():
        raise ConfigError(f"{source}: base_currency must be a three-letter code, got {base!r}")

    rates: dict[str, Decimal] = {}
    for code, value in _section(data, "rates").items():
        code = code.strip().upper()
        rates[code] = _to_decimal(value, f"{source}: rate for {code}")
    if base in rates and rates.pop(base) != 1:
        raise ConfigError(f"{source}: the rate for the base currency {base} must be 1")
    try:
        table = RateTable(base=base, rates=rates)
    except ExchangeRateError as exc:
        raise ConfigError(f"{source}: {exc}") from None

    delimiter = settings.get("delimiter", DEFAULT_DELIMITER)
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise ConfigError(f"{source}: delimiter must be a single character, got {delimiter!r}")

    window = settings.get("dedupe_window_days", DEFAULT_WINDOW_DAYS)
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise ConfigError(f"{source}: dedupe_window_days must be a non-negative integer, got {window!r}")

    business_days = settings.get("business_days", False)
    if not isinstance(business_days, bool):
        raise ConfigError(f"{source}: business_days must be true or false, got {business_days!r}")

    max_amount = None
    if "max_amount" in settings:
        max_amount = _to_decimal(settings["max_amount"], f"{source}: max_amount")
        if max_amount <= 0:
            raise ConfigError(f"{source}: max_amount must be positive, got {max_amount}")

    encoding = check_encoding(settings.get("encoding", DEFAULT_ENCODING), f"{source}: encoding")

    return LedgerConfig(
        base_currency=base,
        rates=table,
        category_rules=_parse_rules(data),
        delimiter=delimiter,
        dedupe_window_days=window,
        business_days=business_days,
        max_amount=max_amount,
        encoding=encoding,
    )


def load_config(path: str | Path) -> LedgerConfig:
    """Read and validate a JSON configuration file."""
    source = Path(path)
    try:
        with source.open(encoding="utf-8") as handle:
            data = json.load(handle, parse_float=Decimal)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {source}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"invalid JSON in {source}: {exc}") from exc
    return parse_config(data, source=str(source))
