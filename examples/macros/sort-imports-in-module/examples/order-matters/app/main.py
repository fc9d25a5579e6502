"""Entry point: the environment must be set up before the settings are read."""

import sys
import app.setup_env
from app.settings import MODE


def main(argv: list[str] | None = None) -> int:
    sys.stdout.write(f"running in {MODE} mode\n")
    return 0
