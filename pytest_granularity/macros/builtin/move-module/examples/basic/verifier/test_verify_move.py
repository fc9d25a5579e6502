import importlib.util
import subprocess
import sys


def test_new_location_works_and_old_is_gone():
    from pkg.sub.helpers import double

    assert double(4) == 8
    assert importlib.util.find_spec("pkg.helpers") is None


def test_project_suite_passes():
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout[-2000:]
