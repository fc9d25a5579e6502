"""How a project runs its tests, as data: written into a task once, read by every pytest run of that task.

A task mined from a real repository cannot run its tests the project's way by reading the workspace's config:
the agent can edit it, it names coverage and report writers a verifier must not inherit, and it leans on
plugins and on an install (an editable checkout, a ``src`` folder on the path) that the workspace is not. So
mining derives the spec once from the commit's tree and the developer's environment (``mining.test_spec``),
and each run of the task (the hidden tests, the project's suite, the agent's ``run_tests``) is started with
the config file rendered here in place of the workspace's (``pytest_process``): its options, its plugins by
name (autoload stays off) and the import roots that make the project's own modules come from the workspace.
"""

from __future__ import annotations

import importlib.util
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

IMPORT_ROOTS_PLUGIN = "pytest_granularity.process.import_roots"
IMPORT_ROOTS_INI = "granularity_import_roots"
"""The ini key the plugin reads: ``name=folder`` words, each folder relative to the run's root."""


@dataclass(frozen=True)
class Plugin:
    """A pytest plugin the project's tests need: the module ``-p`` loads and the distribution that installs it."""

    module: str
    distribution: str


@dataclass(frozen=True)
class PytestSpec:
    import_roots: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The project's top-level modules and packages, each with the folders (relative to the root, ``.`` for the
    root itself) it is imported from in the workspace, in the order tried, whatever the environment has
    installed: two where a change moves it (into ``src/``, say), the commit's first, as a plain checkout of
    either side would import it."""
    options: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)
    """The project's pytest ini options (markers, filterwarnings, python_files, ...), a list as a tuple."""
    addopts: tuple[str, ...] = ()
    """The project's ``addopts`` less what a verifier must not inherit (``dropped``)."""
    plugins: tuple[Plugin, ...] = ()
    dropped: tuple[str, ...] = ()
    """What was left out of ``addopts``: coverage and report writers, xdist, options of plugins not loaded."""

    def config(self) -> str:
        """The ini file a run of the task is started with (``-c``), in place of the workspace's config."""
        loads = [word for plugin in self.plugins for word in ("-p", plugin.module)]
        addopts = ["-p", IMPORT_ROOTS_PLUGIN, *loads, *self.addopts]
        roots = " ".join(f"{name}={','.join(folders)}" for name, folders in sorted(self.import_roots.items()))
        lines = ["[pytest]", f"addopts = {shlex.join(addopts)}", f"{IMPORT_ROOTS_INI} = {roots}"]
        for name, value in self.options.items():
            if isinstance(value, tuple):
                lines += [f"{name} =", *(f"    {item}" for item in value)]
            else:
                lines.append(f"{name} = {value}")
        return "\n".join(lines) + "\n"

    def missing_plugins(self) -> list[Plugin]:
        """The plugins this Python cannot import: a run here would error on every test that needs them."""
        return [plugin for plugin in self.plugins if importlib.util.find_spec(plugin.module.split(".")[0]) is None]

    def to_data(self) -> dict[str, Any]:
        """The task file's ``pytest:`` mapping (empty parts left out)."""
        roots = {name: list(f) if len(f) > 1 else f[0] for name, f in sorted(self.import_roots.items())}
        data: dict[str, Any] = {"import_roots": roots}
        if self.options:
            data["options"] = {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()}
        if self.addopts:
            data["addopts"] = list(self.addopts)
        if self.plugins:
            data["plugins"] = [{"module": p.module, "distribution": p.distribution} for p in self.plugins]
        if self.dropped:
            data["dropped"] = list(self.dropped)
        return data

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> PytestSpec:
        """The spec from a task file's ``pytest:`` mapping, already checked against the task schema."""
        options = {k: tuple(map(str, v)) if isinstance(v, list) else str(v) for k, v in data.get("options", {}).items()}
        return cls(
            import_roots={k: (v,) if isinstance(v, str) else tuple(v) for k, v in data.get("import_roots", {}).items()},
            options=options,
            addopts=tuple(data.get("addopts", ())),
            plugins=tuple(Plugin(p["module"], p["distribution"]) for p in data.get("plugins", ())),
            dropped=tuple(data.get("dropped", ())),
        )


def install_line(plugins: list[Plugin]) -> str:
    return "pip install " + " ".join(sorted({p.distribution for p in plugins}))
