"""Command-line interface: ``textkit COMMAND [options] [TEXT]``.

Commands:

``wrap``      re-flow paragraphs to the configured width
``slug``      print a URL slug for the text
``keywords``  list the most significant terms
``stats``     print descriptive statistics

When TEXT is omitted the input is read from standard input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Sequence, TextIO, TypeVar

import textkit.slugs as slugs
import textkit.wrap
from textkit.analysis import extract_keywords, text_stats
from textkit.config import ConfigError, TextkitConfig, load_config
from textkit.analysis.stopwords import load_stopwords_file

PROG = "textkit"
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2

T = TypeVar("T")
Handler = Callable[[argparse.Namespace, str, TextkitConfig], str]


def build_parser() -> argparse.ArgumentParser:
    """Create the argument parser for :func:`main`."""
    parser = argparse.ArgumentParser(prog=PROG, description="Small text processing utilities.")
    parser.add_argument("--config", metavar="PATH", help="JSON configuration file")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    wrap_parser = commands.add_parser("wrap", help="re-flow paragraphs to a fixed width")
    wrap_parser.add_argument("--width", type=int, help="line width (default from config)")
    wrap_parser.add_argument("--justify", action="store_true", help="justify full lines")

    slug_parser = commands.add_parser("slug", help="print a URL slug")
    slug_parser.add_argument("--max-length", type=int, help="maximum slug length")
    slug_parser.add_argument("--separator", help="word separator")

    keywords_parser = commands.add_parser("keywords", help="list the most significant terms")
    keywords_parser.add_argument("--top", type=int, help="number of keywords to print")
    keywords_parser.add_argument("--stopwords", metavar="PATH", help="extra stopword file")
    keywords_parser.add_argument("--json", action="store_true", help="print JSON")

    stats_parser = commands.add_parser("stats", help="print descriptive statistics")
    stats_parser.add_argument("--json", action="store_true", help="print JSON")

    for subparser in (wrap_parser, slug_parser, keywords_parser, stats_parser):
        subparser.add_argument("text", nargs="?", help="input text (default: standard input)")
    return parser


def _pick(value: T | None, fallback: T) -> T:
    """Return *value* unless it is None (an option that was not given)."""
    return fallback if value is None else value


def _run_wrap(args: argparse.Namespace, text: str, config: TextkitConfig) -> str:
    width = _pick(args.width, config.width)
    if args.justify:
        return textkit.wrap.justify_text(text, width)
    return textkit.wrap.fill_paragraphs(text, width)


def _run_slug(args: argparse.Namespace, text: str, config: TextkitConfig) -> str:
    return slugs.slugify(
        text,
        separator=_pick(args.separator, config.slug_separator),
        max_length=_pick(args.max_length, config.max_slug_length),
        lowercase=config.lowercase,
    )


def _run_keywords(args: argparse.Namespace, text: str, config: TextkitConfig) -> str:
    extra = set(config.extra_stopwords)
    if args.stopwords:
        extra |= load_stopwords_file(args.stopwords)
    keywords = extract_keywords(
        text, top_n=_pick(args.top, config.top_keywords), extra_stopwords=extra
    )
    if args.json:
        return json.dumps([{"term": kw.term, "count": kw.count} for kw in keywords], indent=2)
    return "\n".join(f"{kw.term}\t{kw.count}" for kw in keywords)


def _run_stats(args: argparse.Namespace, text: str, config: TextkitConfig) -> str:
    stats = text_stats(text).as_dict()
    if args.json:
        return json.dumps(stats, indent=2, sort_keys=True)
    width = max(len(name) for name in stats)
    return "\n".join(f"{name.ljust(width)}  {value}" for name, value in stats.items())


HANDLERS: dict[str, Handler] = {
    "wrap": _run_wrap,
    "slug": _run_slug,
    "keywords": _run_keywords,
    "stats": _run_stats,
}


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the CLI and return its exit status.

    The streams default to the ``sys`` ones; tests pass :class:`io.StringIO`.
    """
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr

    args = build_parser().parse_args(argv)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"{PROG}: error: {exc}", file=stderr)
        return EXIT_USAGE

    text = args.text if args.text is not None else stdin.read()
    try:
        output = HANDLERS[args.command](args, text, config)
    except (ValueError, OSError) as exc:
        print(f"{PROG}: error: {exc}", file=stderr)
        return EXIT_FAILURE
    if output:
        print(output, file=stdout)
    return EXIT_OK
