import ast
import importlib.util
from pathlib import Path

TEST_FILE = Path("tests/test_ops.py")


def test_new_case_present_and_passing():
    tree = ast.parse(TEST_FILE.read_text())
    names = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert names == ["test_clamp_inside", "test_clamp_rejects_empty_range", "test_clamp_below_low"]
    spec = importlib.util.spec_from_file_location("added_tests", TEST_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.test_clamp_below_low()
    assert "clamp(-3, 0, 10)" in ast.get_source_segment(TEST_FILE.read_text(), tree.body[-1])
