"""move_module: one test per import form it claims, one per form it refuses."""

from __future__ import annotations

import pytest
from macro_helpers import call, workspace

BASE = {
    "pkg/__init__.py": "",
    "pkg/a.py": '"""Module a."""\nfrom .models import Thing\n\n\ndef helper():\n    return Thing()\n',
    "pkg/models.py": "class Thing:\n    pass\n",
    "pkg/sub/__init__.py": "",
}


def moved(tmp_path, user_code, source="pkg/a.py", destination="pkg/sub/a2.py", **extra):
    files = {**BASE, "pkg/sub/user.py": user_code, **extra}
    ws = workspace(tmp_path, files)
    outcome = call(ws, "move_module", source=source, destination=destination)
    return outcome, ws


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import pkg.a\nx = pkg.a.helper()\n", "import pkg.sub.a2\nx = pkg.sub.a2.helper()\n"),
        ("import pkg.a as m\nx = m.helper()\n", "import pkg.sub.a2 as m\nx = m.helper()\n"),
        ("from pkg.a import helper\n", "from pkg.sub.a2 import helper\n"),
        ("from pkg.a import (\n    helper,\n)\n", "from pkg.sub.a2 import (\n    helper,\n)\n"),
        ("from pkg import a\n", "from pkg.sub import a2 as a\n"),
        ("from pkg import a as alias\n", "from pkg.sub import a2 as alias\n"),
        ("from pkg import models, a\n", "from pkg import models\nfrom pkg.sub import a2 as a\n"),
        ("from .. import a\n", "from pkg.sub import a2 as a\n"),
        ("from ..a import helper\n", "from pkg.sub.a2 import helper\n"),
        ("from ..a import helper as h\n", "from pkg.sub.a2 import helper as h\n"),
        (
            'from unittest import mock\np = mock.patch("pkg.a.helper")\n',
            'from unittest import mock\np = mock.patch("pkg.sub.a2.helper")\n',
        ),
        (
            "import importlib\nm = importlib.import_module('pkg.a')\n",
            "import importlib\nm = importlib.import_module('pkg.sub.a2')\n",
        ),
        ("import pkg\nx = pkg.a.helper()\n", "import pkg\nx = pkg.sub.a2.helper()\n"),
        ("import pkg.models\nx = pkg.a.helper()\n", "import pkg.models\nx = pkg.sub.a2.helper()\n"),
        ("import pkg as p\nx = p.a.helper()\n", "import pkg as p\nx = p.sub.a2.helper()\n"),
        (
            "from unittest import mock\nm = mock.patch('pkg.a')\nn = 'a'\n",
            "from unittest import mock\nm = mock.patch('pkg.sub.a2')\nn = 'a'\n",
        ),
        ("from pkg import *\n", "from pkg import *\n"),
    ],
    ids=[
        "import-attr",
        "import-as",
        "from-import",
        "from-import-multiline",
        "from-parent",
        "from-parent-as",
        "from-parent-split",
        "relative-parent",
        "relative-module",
        "relative-as",
        "mock-patch-string",
        "import-module-string",
        "attribute-through-bare-parent-import",
        "attribute-through-sibling-import",
        "attribute-through-parent-alias",
        "only-dotted-strings",
        "star-import-that-never-reads-the-name",
    ],
)
def test_rewrites_each_import_form(tmp_path, code, expected):
    outcome, ws = moved(tmp_path, code)
    assert outcome.ok, outcome.reason
    assert (ws.root / "pkg/sub/user.py").read_text() == expected
    assert not (ws.root / "pkg/a.py").exists()


def test_the_moved_module_own_relative_imports_become_absolute(tmp_path):
    outcome, ws = moved(tmp_path, "")
    assert outcome.ok
    assert (ws.root / "pkg/sub/a2.py").read_text().startswith('"""Module a."""\nfrom pkg.models import Thing\n')


def test_moving_into_a_new_folder_creates_the_package(tmp_path):
    outcome, ws = moved(tmp_path, "from pkg.a import helper\n", destination="pkg/new/deep/a.py")
    assert outcome.ok
    assert (ws.root / "pkg/new/__init__.py").exists() and (ws.root / "pkg/new/deep/__init__.py").exists()
    assert outcome.changes.created == ("pkg/new/__init__.py", "pkg/new/deep/__init__.py", "pkg/new/deep/a.py")
    assert not outcome.violations


def test_moving_a_package(tmp_path):
    files = {
        "pkg/inner/__init__.py": "from .core import run\n",
        "pkg/inner/core.py": "from ..models import Thing\nrun = Thing\n",
    }
    outcome, ws = moved(
        tmp_path,
        "from pkg.inner.core import run\nimport pkg.inner\n",
        source="pkg/inner",
        destination="pkg/sub/inner",
        **files,
    )
    assert outcome.ok, outcome.reason
    assert (ws.root / "pkg/sub/user.py").read_text() == "from pkg.sub.inner.core import run\nimport pkg.sub.inner\n"
    assert (ws.root / "pkg/sub/inner/core.py").read_text() == "from pkg.models import Thing\nrun = Thing\n"


def test_validation_runs_the_tests_and_catches_a_dynamic_import(tmp_path):
    code = "import importlib\n\ndef load(name):\n    return importlib.import_module('pkg.' + name)\n"
    test = "from pkg.sub.user import load\n\ndef test_load():\n    assert load('a').helper()\n"
    outcome, ws = moved(tmp_path, code, **{"tests/test_user.py": test})
    assert outcome.failure_class == "validation_failure"
    assert "tests failed" in outcome.reason and (ws.root / "pkg/sub/a2.py").exists()


def test_a_passing_suite_validates(tmp_path):
    test = "from pkg.sub.user import h\n\ndef test_h():\n    assert h() is not None\n"
    outcome, _ = moved(tmp_path, "from ..a import helper as h\n", **{"tests/test_user.py": test})
    assert outcome.ok, outcome.reason


@pytest.mark.parametrize(
    ("code", "extra", "words"),
    [
        ("", {"README.md": "See pkg.a for helpers.\n"}, "README.md (not Python) refers to pkg.a"),
        (
            "",
            {"config.json": '{"module": "pkg/a.py"}'},
            "config.json:1 names pkg.a in a file move_module does not rewrite",
        ),
        (
            "import pkg\npkg = None\nx = pkg.a.helper()\n",
            {},
            "through the name pkg, which is bound to more than a module",
        ),
        ("from pkg import *\nx = a.helper()\n", {}, "may bind a (no literal __all__), and this file reads that name"),
        ("from pkg import *\n", {"pkg/__init__.py": "__all__ = ['a']\n"}, "binds a through pkg.__all__"),
        ("from pkg import *\n", {"pkg/other.py": "from pkg.sub.user import *\n"}, "this file is star-imported further"),
        (
            "",
            {"pkg/__init__.py": "def help():\n    return a.helper()\n\n\nfrom .a import *\n"},
            "bound only as a side effect of importing the submodule",
        ),
        (
            "",
            {"pkg/hook.py": "import sys\nsys.meta_path.append(object())\nBASE = 'pkg'\n"},
            "installs an import hook (sys.meta_path)",
        ),
        ('name = "a"\nx = f"pkg.a.{name}"\n', {}, "f-string"),
        (
            "import re\np = re.compile(r'<pkg\\.a\\.Thing object')\n",
            {},
            "spells pkg.a escaped for a regular expression",
        ),
        ("", {"pkg/sub/a2.py": "exists = True\n"}, "already exists"),
    ],
    ids=[
        "readme-reference",
        "json-path-reference",
        "shadowed-parent-name",
        "star-import-whose-name-is-read",
        "star-import-through-all",
        "star-import-chained",
        "parent-reads-side-effect-name",
        "import-hook",
        "f-string",
        "regular-expression",
        "target-exists",
    ],
)
def test_refuses_what_it_cannot_rewrite_before_any_write(tmp_path, code, extra, words):
    files = {**BASE, "pkg/sub/user.py": code, **extra}
    ws = workspace(tmp_path, files)
    before = ws.files()
    outcome = call(ws, "move_module", source="pkg/a.py", destination="pkg/sub/a2.py")
    assert outcome.failure_class == "precondition_mismatch"
    assert words in outcome.reason
    assert ws.files() == before


@pytest.mark.parametrize(
    ("args", "failure"),
    [
        ({"source": "pkg/missing.py", "destination": "pkg/b.py"}, "precondition_mismatch"),
        ({"source": "pkg/a.py", "destination": "pkg/b"}, "precondition_mismatch"),
        ({"source": "pkg/a.py", "destination": "../outside.py"}, "precondition_mismatch"),
        ({"source": "pkg/a.py"}, "protocol_failure"),
        ({"source": "pkg/a.py", "destination": 3}, "protocol_failure"),
    ],
)
def test_bad_calls_are_classified(tmp_path, args, failure):
    ws = workspace(tmp_path, BASE)
    assert call(ws, "move_module", **args).failure_class == failure
    assert not ws.changes()


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        ({"pkg/__init__.py": "__all__ = ['models']\n"}, "from pkg import *\nx = a\n"),
        ({"pkg/__init__.py": "from . import a\n__all__ = ['a']\n"}, "from pkg import *\nx = a.helper()\n"),
    ],
    ids=["all-without-the-module", "all-with-the-module-bound-by-the-parent"],
)
def test_a_star_import_proven_harmless_by_all_applies(tmp_path, extra, code):
    outcome, ws = moved(tmp_path, code, **extra)
    assert outcome.ok, outcome.reason
    assert (ws.root / "pkg/sub/user.py").read_text() == code


def test_all_entries_keep_naming_a_renamed_module(tmp_path):
    init = "from . import a\n__all__ = ['a']\n"
    outcome, ws = moved(tmp_path, "", destination="pkg/a_renamed.py", **{"pkg/__init__.py": init})
    assert outcome.ok, outcome.reason
    assert (ws.root / "pkg/__init__.py").read_text() == "from pkg import a_renamed as a\n__all__ = ['a']\n"


def test_changelogs_and_packaging_metadata_do_not_block(tmp_path):
    extra = {
        "CHANGELOG.md": "- pkg.a gained helper\n",
        "pkg.egg-info/SOURCES.txt": "pkg/a.py\n",
        "README.md": "pkg.ab is unrelated\n",
    }
    outcome, _ = moved(tmp_path, "from pkg.a import helper\n", **extra)
    assert outcome.ok, outcome.reason


def test_a_src_layout_names_modules_from_the_import_root(tmp_path):
    files = {
        "src/lib/__init__.py": "from lib.core import run\n",
        "src/lib/core.py": "def run():\n    return 1\n",
        "tests/test_core.py": "import lib.core\nfrom unittest import mock\n\ndef test_run():\n    with mock.patch('lib.core.run', return_value=2):\n        assert lib.core.run() == 2\n",
        "pyproject.toml": "[tool.pytest.ini_options]\npythonpath = ['src']\n",
    }
    ws = workspace(tmp_path, files)
    outcome = call(ws, "move_module", source="src/lib/core.py", destination="src/lib/engine/core.py")
    assert outcome.ok, outcome.reason
    assert (ws.root / "src/lib/__init__.py").read_text() == "from lib.engine.core import run\n"
    assert "mock.patch('lib.engine.core.run'" in (ws.root / "tests/test_core.py").read_text()
    assert "lib.engine.core.run() == 2" in (ws.root / "tests/test_core.py").read_text()


def test_refuses_a_use_through_an_alias_of_the_package_it_leaves(tmp_path):
    files = {**BASE, "pkg/sub/deep.py": "X = 1\n", "pkg/user.py": "import pkg.sub as s\nx = s.deep.X\n"}
    ws = workspace(tmp_path, files)
    outcome = call(ws, "move_module", source="pkg/sub/deep.py", destination="pkg/deep.py")
    assert outcome.failure_class == "precondition_mismatch"
    assert (
        "reaches pkg.sub.deep through s (module pkg.sub), and its new place pkg.deep is not inside that module"
        in outcome.reason
    )
    assert not ws.changes()


@pytest.mark.parametrize(
    ("rel", "text", "expected"),
    [
        ("README.md", "```python\nfrom pkg.a import helper\n```\n", "```python\nfrom pkg.sub.a2 import helper\n```\n"),
        (
            "README.rst",
            "Use it::\n\n    >>> import pkg.a\n\nDone.\n",
            "Use it::\n\n    >>> import pkg.sub.a2\n\nDone.\n",
        ),
        (
            "docs/api.rst",
            ".. automodule:: pkg.a\n   :members:\n\nSee :func:`~pkg.a.helper`, not pkg.ab.\n",
            ".. automodule:: pkg.sub.a2\n   :members:\n\nSee :func:`~pkg.sub.a2.helper`, not pkg.ab.\n",
        ),
        (
            "docs/api.md",
            "```{eval-rst}\n.. autofunction:: pkg.a.helper\n```\n\n{func}`pkg.a.helper` helps.\n",
            "```{eval-rst}\n.. autofunction:: pkg.sub.a2.helper\n```\n\n{func}`pkg.sub.a2.helper` helps.\n",
        ),
        (
            "README.md",
            "[helper]: https://example.org/a.html#pkg.a.helper\n",
            "[helper]: https://example.org/a.html#pkg.sub.a2.helper\n",
        ),
        ("MANIFEST.in", "include pkg/a.py\ninclude pkg/ab.py\n", "include pkg/sub/a2.py\ninclude pkg/ab.py\n"),
        (
            "pyproject.toml",
            '[project.scripts]\ntool = "pkg.a:helper"\n',
            '[project.scripts]\ntool = "pkg.sub.a2:helper"\n',
        ),
        (
            "setup.py",
            "from setuptools import setup\nsetup(entry_points={'console_scripts': ['tool = pkg.a:helper']})\n",
            "from setuptools import setup\nsetup(entry_points={'console_scripts': ['tool = pkg.sub.a2:helper']})\n",
        ),
    ],
    ids=[
        "markdown-code",
        "rst-doctest",
        "sphinx-directive-and-role",
        "myst-directive-and-role",
        "link-anchor",
        "manifest",
        "entry-point",
        "setup-py-entry-point",
    ],
)
def test_rewrites_structured_references_outside_code_as_whole_names(tmp_path, rel, text, expected):
    outcome, ws = moved(tmp_path, "", **{rel: text})
    assert outcome.ok, outcome.reason
    assert (ws.root / rel).read_text() == expected
    if not rel.endswith(".py"):
        assert f"non-Python reference(s): {rel}:" in outcome.reason
    assert not outcome.violations


def test_an_explicit_package_list_gets_the_packages_the_move_creates(tmp_path):
    toml = '[tool.setuptools]\npackages = [\n  "pkg",\n  "pkg.sub",\n]\n'
    outcome, ws = moved(tmp_path, "", destination="pkg/new/a.py", **{"pyproject.toml": toml})
    assert outcome.ok, outcome.reason
    assert (
        ws.root / "pyproject.toml"
    ).read_text() == '[tool.setuptools]\npackages = [\n  "pkg",\n  "pkg.new",\n  "pkg.sub",\n]\n'
    assert "pyproject.toml:3 pkg.new added after it" in outcome.reason


@pytest.mark.parametrize(
    ("rel", "text", "words"),
    [
        (
            "docs/guide.rst",
            "The helpers live in ``pkg.a``.\n\n.. automodule:: pkg.a\n",
            "docs/guide.rst (not Python) refers to pkg.a",
        ),
        ("deploy.yaml", "module: pkg.a\n", "deploy.yaml:1 names pkg.a in a file move_module does not rewrite"),
    ],
    ids=["running-prose", "configuration-file"],
)
def test_refuses_a_reference_it_cannot_place(tmp_path, rel, text, words):
    ws = workspace(tmp_path, {**BASE, rel: text})
    before = ws.files()
    outcome = call(ws, "move_module", source="pkg/a.py", destination="pkg/new/a.py")
    assert outcome.failure_class == "precondition_mismatch"
    assert words in outcome.reason
    assert ws.files() == before


def test_the_parent_keeps_the_name_its_import_bound_as_a_side_effect(tmp_path):
    init = "from .a import *\nhelp = a.helper\n"
    outcome, ws = moved(tmp_path, "", **{"pkg/__init__.py": init})
    assert outcome.ok, outcome.reason
    assert (ws.root / "pkg/__init__.py").read_text() == (
        "from pkg.sub.a2 import *\nfrom pkg.sub import a2 as a\nhelp = a.helper\n"
    )


def test_relative_imports_inside_a_moved_package_stay_relative(tmp_path):
    files = {"pkg/inner/__init__.py": "from .core import run\n", "pkg/inner/core.py": "run = 1\n"}
    outcome, ws = moved(tmp_path, "", source="pkg/inner", destination="pkg/sub/inner", **files)
    assert outcome.ok, outcome.reason
    assert (ws.root / "pkg/sub/inner/__init__.py").read_text() == "from .core import run\n"


MIRROR_HOOK = (
    "import sys\nfrom importlib import import_module\n\n\nclass Finder:\n"
    "    def find_spec(self, fullname, path, target=None):\n"
    "        package, dot, rest = fullname.partition('.')\n"
    "        if package == 'mirror':\n"
    "            return import_module(''.join(['pkg', dot, rest])).__spec__\n\n\n"
    "sys.meta_path.append(Finder())\n"
)
"""An import hook serving ``mirror.X`` as ``pkg.X``, built the way toolz builds ``tlz``."""


def test_a_hook_that_mirrors_the_package_name_for_name_moves_the_mirror_too(tmp_path):
    extra = {
        "mirror/__init__.py": "from . import hook\n",
        "mirror/hook.py": MIRROR_HOOK,
        "README.md": ">>> import mirror.a\n",
    }
    outcome, ws = moved(tmp_path, "import mirror.a\nx = mirror.a.helper\n", **extra)
    assert outcome.ok, outcome.reason
    assert (ws.root / "pkg/sub/user.py").read_text() == "import mirror.sub.a2\nx = mirror.sub.a2.helper\n"
    assert (ws.root / "README.md").read_text() == ">>> import mirror.sub.a2\n"


def test_refuses_a_mirror_name_reached_as_an_attribute_the_hook_does_not_fill(tmp_path):
    files = {**BASE, "mirror/__init__.py": "from . import hook\n", "mirror/hook.py": MIRROR_HOOK}
    ws = workspace(tmp_path, {**files, "pkg/sub/user.py": "import mirror\nx = mirror.a.helper\n"})
    outcome = call(ws, "move_module", source="pkg/a.py", destination="pkg/sub/a2.py")
    assert outcome.failure_class == "precondition_mismatch"
    assert "reaches mirror.a as an attribute of mirror, which the import hook fills in only" in outcome.reason
    assert not ws.changes()


def test_the_parent_keeps_a_name_it_deletes_after_importing_the_submodule(tmp_path):
    init = "from .a import helper\ndel a\n"
    outcome, ws = moved(tmp_path, "", **{"pkg/__init__.py": init})
    assert outcome.ok, outcome.reason
    assert (ws.root / "pkg/__init__.py").read_text() == (
        "from pkg.sub.a2 import helper\nfrom pkg.sub import a2 as a\ndel a\n"
    )


def test_refuses_a_read_of_the_package_the_move_changes(tmp_path):
    ws = workspace(tmp_path, {**BASE, "tests/test_a.py": "import pkg.a\nassert pkg.a.__package__ == 'pkg'\n"})
    outcome = call(ws, "move_module", source="pkg/a.py", destination="pkg/sub/a2.py")
    assert outcome.failure_class == "precondition_mismatch"
    assert "line 2 reads the package of pkg.a (__package__), which the move changes" in outcome.reason
    assert not ws.changes()
