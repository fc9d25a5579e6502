

def test_new_name_is_exported():
    import textkit.analysis
    import textkit.analysis.keywords as keywords

    assert keywords.DEFAULT_KEYWORD_COUNT == 10
    assert textkit.analysis.DEFAULT_KEYWORD_COUNT == 10
    assert "DEFAULT_KEYWORD_COUNT" in textkit.analysis.__all__


def test_old_name_is_gone():
    import textkit.analysis
    import textkit.analysis.keywords as keywords
    import textkit.config as config

    assert not hasattr(keywords, "DEFAULT_TOP_N")
    assert not hasattr(textkit.analysis, "DEFAULT_TOP_N")
    assert "DEFAULT_TOP_N" not in textkit.analysis.__all__
    assert not hasattr(config, "DEFAULT_TOP_N")


def test_defaults_still_use_the_constant():
    from textkit.analysis import extract_keywords
    from textkit.config import TextkitConfig, default_config

    assert TextkitConfig().top_keywords == 10 == default_config().top_keywords
    text = " ".join(f"word{chr(ord('a') + i)}" for i in range(15))
    assert len(extract_keywords(text)) == 10
