"""The pytest side of the contract checks: one test item per macro and check.

With ``--granularity-contracts`` the session's items are replaced by the checks of every macro
(built-in, from ``--granularity-macros`` or a plugin, and macro folders given as paths), so a
broken contract reads as a normal test failure naming the macro, the check and the evidence.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..process.sandbox import Sandbox
from ..run.contract_checks import (
    CHECKS,
    CheckFailed,
    CheckSkipped,
    Subject,
    contract_folders,
    contract_names,
    macro_folders_to_check,
    run_check,
)


class ContractSession:
    """``--granularity-contracts``: the session's items are the contract checks, one per macro and check."""

    def __init__(self, roots: list[Path], sandbox: Sandbox) -> None:
        self.roots = roots
        self.sandbox = sandbox

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        """Whether the checks ran sandboxed, said once: without a sandbox some writes cannot be seen."""
        if hasattr(config, "workerinput"):
            return
        terminalreporter.section("granularity contracts")
        terminalreporter.write_line(self.sandbox.describe())
        if not self.sandbox.active:
            terminalreporter.write_line(
                "without a sandbox the side-effects check sees writes in and next to the workspace, not elsewhere"
            )

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        self.sandbox.servers.stop()  # the checks' warm servers end with the session

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        paths = [Path(arg.split("::")[0]) for arg in config.args]
        roots = [*self.roots, *(p for p in paths if p.is_dir())]
        folders = macro_folders_to_check(roots)
        names, by_name = contract_names(folders), contract_folders(folders)
        if items:
            config.hook.pytest_deselected(items=list(items))
        items[:] = [
            ContractItem.from_parent(
                session,
                name=f"{folder.name}[{check}]",
                nodeid=f"contracts/{folder.name}::{check}",
                subject=Subject(folder, names, self.sandbox, by_name),
                check=check,
            )
            for folder in folders
            for check in CHECKS
        ]


class ContractItem(pytest.Item):
    def __init__(self, *, subject: Any, check: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.subject = subject
        self.check = check

    def runtest(self) -> None:
        try:
            run_check(self.check, self.subject)
        except CheckSkipped as exc:
            pytest.skip(str(exc))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        if isinstance(excinfo.value, CheckFailed):
            folder = self.subject.folder
            return f"macro {folder.name} ({folder}) fails the '{self.check}' check:\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.subject.folder, None, f"{self.subject.folder.name}[{self.check}]"
