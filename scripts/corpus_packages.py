"""The macro corpus: real pure-Python packages, pinned, fetched as source distributions.

Chosen for different import styles (relative and absolute imports, star re-exports, ``__all__``,
lazy imports inside functions, tests inside and outside the package, src layouts) and for test
suites that pass on Python 3.11 with pytest alone and run in seconds, since every derived
macro call reruns the suite. Sources are downloaded at benchmark time with pip and cached,
never committed.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    style: str
    pytest_args: tuple[str, ...] = ()

    @property
    def folder(self) -> str:
        return f"{self.name}-{self.version}"


COMMON_ARGS = ("-o", "addopts=", "-p", "no:doctest")
"""Every suite runs without its own ``addopts`` (coverage options need plugins not loaded here)."""

CORPUS = (
    Package("boltons", "26.2.0", "absolute imports, lazy imports inside functions, tests outside"),
    Package("cachetools", "8.0.2", "src layout, relative imports, __all__", ("-o", "pythonpath=src")),
    Package(
        "idna",
        "3.20",
        "relative imports, re-exports listed in __all__, tests outside",
        (
            "--ignore=tests/test_idna_properties.py",
            "--ignore=tests/test_idna_concurrency.py",
            "--ignore=tests/test_idna_uts46.py",
            "--ignore=tests/test_idna_fuzz_targets.py",
        ),
    ),
    Package(
        "markupsafe", "3.0.4", "src layout, a pure-Python fallback imported in try/except", ("-o", "pythonpath=src")
    ),
    Package("pyflakes", "4.1.0", "absolute imports, tests inside the package"),
    Package("termcolor", "3.3.0", "src layout, __all__, absolute imports", ("-o", "pythonpath=src")),
    Package("toolz", "1.2.0", "star re-exports, __all__, a curried sub-package, tests inside the package"),
    Package("webencodings", "0.6.1", "relative imports, tests outside"),
    # Held out: move_module was not tuned on these two (docs/macros-on-real-code.md).
    Package(
        "click",
        "8.5.1",
        "src layout, relative imports, Markdown docs with MyST directives, tests outside",
        # 30,000 generated stream cases and 1,000 generated pager cases: minutes per rerun
        (
            "-o",
            "pythonpath=src",
            "--ignore=tests/test_stream_lifecycle.py",
            "--ignore=tests/test_utils/test_echo_via_pager.py",
        ),
    ),
    Package("more-itertools", "11.2.1", "two big modules re-exported by star imports, MANIFEST.in, tests outside"),
)


def fetch(package: Package, cache: Path) -> Path:
    """The unpacked source distribution of ``package`` under ``cache`` (downloaded once)."""
    tree = cache / "src" / package.folder
    if tree.is_dir():
        return tree
    sdists = cache / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    archive = _archive(package, sdists)
    if archive is None:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--no-binary",
                package.name,
                f"{package.name}=={package.version}",
                "-d",
                str(sdists),
            ],
            check=True,
        )
        archive = _archive(package, sdists)
    if archive is None:
        raise SystemExit(f"pip downloaded no source distribution of {package.name}=={package.version}")
    staging = cache / "src" / (package.folder + ".partial")
    with tarfile.open(archive) as tar:
        tar.extractall(staging, filter="data")
    (unpacked,) = staging.iterdir()
    unpacked.rename(tree)
    staging.rmdir()
    return tree


def _archive(package: Package, sdists: Path) -> Path | None:
    wanted = f"{re.sub(r'[-_.]+', '_', package.name)}-{package.version}.tar.gz".lower()
    return next((p for p in sdists.glob("*.tar.gz") if re.sub(r"[-.]+(?=.*-)", "_", p.name.lower()) == wanted), None)
