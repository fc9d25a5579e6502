"""Command-line entry point."""

from __future__ import annotations

from app.report import render
import argparse
import json
from pathlib import Path
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("file", type=Path)
    args = parser.parse_args(argv)
    counts = json.loads(render(args.file.read_text().split()))
    sys.stdout.write(f"{len(counts)} distinct words\n")
    return 0
