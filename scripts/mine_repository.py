"""Mine one of the real repositories docs/mining.md publishes, and keep its result in the repository.

Each repository is pinned: its address, the commit mined from and the range. Clone it (the machine
running this needs no network beyond that clone), then:

    git clone https://github.com/mahmoud/boltons /tmp/boltons
    python scripts/mine_repository.py boltons /tmp/boltons

It checks the clone's HEAD is the pinned commit, runs ``granularity tasks mine`` on the range into a
folder outside this repository (``--output``, default a temporary folder that is kept), and writes
``.granularity/mining/NAME.json``: every candidate's decision, the counts and the wall time, which
``scripts/generate_docs.py`` turns into docs/mining.md's tables. Run it from the project's development
environment, set up as its contributing guide says (the project installed editable with its test
dependencies, and pytest-granularity beside it), as a team would.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / ".granularity" / "mining"


@dataclass(frozen=True)
class Pinned:
    url: str
    head: str
    revisions: str
    limit: int | None = None
    environment: str = "a plain virtual environment, the project not installed (round 5)"
    """How the Python that mined it was set up."""


DEV = "its development environment, as its contributing guide says"


PINNED = {
    "boltons": Pinned(
        "https://github.com/mahmoud/boltons", "967864f89791509f9eb36b22b4579d36b72a6df2", "HEAD~120..HEAD"
    ),
    "tabulate": Pinned(
        "https://github.com/astanin/python-tabulate", "268615a5c27dc40e5c22454c07b44d5c50410da0", "HEAD"
    ),
    "toolz": Pinned("https://github.com/pytoolz/toolz", "568c2b8393973cd172a466546c9d95779c452438", "HEAD"),
    "parse": Pinned("https://github.com/r1chardj0n3s/parse", "738447715c76f8ebc460b33320307faccafbc599", "HEAD"),
    "arrow": Pinned("https://github.com/arrow-py/arrow", "b247ad073d4c350270528edb5afff8e7f4f7d9e4", "HEAD", 25, DEV),
    "click": Pinned("https://github.com/pallets/click", "2c8cd3ac958a7eb316d67f2d316c27086c4c0369", "HEAD", 25, DEV),
    "pluggy": Pinned(
        "https://github.com/pytest-dev/pluggy", "e382e72789f8d791991c489d4322aa04e660b952", "HEAD", 25, DEV
    ),
    "itsdangerous": Pinned(
        "https://github.com/pallets/itsdangerous", "672971d66a2ef9f85151e53283113f33d642dabd", "HEAD", 25, DEV
    ),
    "humanize": Pinned(
        "https://github.com/python-humanize/humanize", "c3a124cdeb272d7f63bc0aa66f79c6fbafd2fc6d", "HEAD", 25, DEV
    ),
    "structlog": Pinned(
        "https://github.com/hynek/structlog", "025edaf799c6d6d511ab672d14c2ba8e885c4c36", "HEAD", 25, DEV
    ),
    "markupsafe": Pinned(
        "https://github.com/pallets/markupsafe", "1251593f6b0e3b45f2cc8aba662622bc22d6a5e2", "HEAD", 25, DEV
    ),
    "boltons-dev": Pinned(
        "https://github.com/mahmoud/boltons", "967864f89791509f9eb36b22b4579d36b72a6df2", "HEAD", 25, DEV
    ),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", choices=sorted(PINNED))
    parser.add_argument("clone", type=Path, help="a clone of the repository at its pinned commit")
    parser.add_argument("-o", "--output", type=Path, help="where the tasks go (default: a new temporary folder)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--collect", type=float, metavar="SECONDS", help="only write the result of a finished run in --output, timed"
    )
    args = parser.parse_args(argv)
    pinned = PINNED[args.name]
    head = _git(args.clone, "rev-parse", "HEAD")
    if pinned.head and head != pinned.head:
        print(f"{args.clone} is at {head}, not the pinned {pinned.head}: git -C {args.clone} checkout {pinned.head}")
        return 2
    output = args.output or Path(tempfile.mkdtemp(prefix=f"mined-{args.name}-"))
    if args.collect is not None:
        write_result(args.name, pinned, head, output, args.collect, args.jobs)
        return 0
    started = time.monotonic()
    command = ["granularity", "tasks", "mine", str(args.clone), "-o", str(output), "--revisions", pinned.revisions]
    command += ["--limit", str(pinned.limit)] if pinned.limit else []
    code = subprocess.call([*command, "--jobs", str(args.jobs)])
    if code != 0:
        return code
    write_result(args.name, pinned, head, output, time.monotonic() - started, args.jobs)
    print(f"tasks in {output}; result in {RESULTS / (args.name + '.json')}")
    return 0


def write_result(name: str, pinned: Pinned, head: str, output: Path, seconds: float, jobs: int) -> Path:
    """The ledger of a mining run, with what it ran on, as the committed result."""
    ledger = json.loads((output / "mined.json").read_text(encoding="utf-8"))
    document = {
        "name": name,
        "url": pinned.url,
        "head": head,
        "revisions": pinned.revisions,
        "limit": pinned.limit,
        "environment": pinned.environment,
        "commits_read": len(_git(Path(ledger["repository"]), "rev-list", "--first-parent", pinned.revisions).split()),
        "runs": ledger.get("runs", []),
        "python": platform.python_version(),
        "jobs": jobs,
        "seconds": round(seconds, 1),
        "commits": ledger["commits"],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
