"""ledgerflow: a small, dependency-free pipeline for cleaning and summarising transaction CSVs.

The most common entry points are re-exported here::

    from ledgerflow import load_config, run_file

    result = run_file("data/transactions.csv", load_config("ledgerflow.json"))
"""

from ledgerflow.config import LedgerConfig, load_config
from ledgerflow.errors import LedgerError
from ledgerflow.pipeline import Pipeline, PipelineResult, build_default_pipeline, run_file
from ledgerflow.core.records import DEFAULT_CURRENCY, Transaction

__version__ = "0.4.1"

__all__ = [
    "DEFAULT_CURRENCY",
    "LedgerConfig",
    "LedgerError",
    "Pipeline",
    "PipelineResult",
    "Transaction",
    "build_default_pipeline",
    "load_config",
    "run_file",
    "__version__",
]
