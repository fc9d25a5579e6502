import importlib.util
import re
from pathlib import Path


def test_ngrams_live_in_analysis():
    from textkit.analysis.ngrams import char_ngrams, jaccard_similarity, most_common_ngrams, word_ngrams

    assert word_ngrams("to be or not to be", 2)[:2] == [("to", "be"), ("be", "or")]
    assert char_ngrams("abcd", 2) == ["ab", "bc", "cd"]
    assert most_common_ngrams("to be or not to be", 2, k=1) == [(("to", "be"), 2)]
    assert jaccard_similarity("night", "NIGHT") == 1.0


def test_old_module_is_gone():
    assert importlib.util.find_spec("textkit.ngrams") is None


def test_readme_points_to_the_new_module():
    readme = Path("README.md").read_text(encoding="utf-8")
    assert not re.search(r"textkit\.ngrams\b", readme)
    assert "textkit/ngrams.py" not in readme
    assert "textkit.analysis.ngrams" in readme
