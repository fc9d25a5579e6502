import text.slug


def test_renamed():
    assert text.slug.split_words("Big Cats") == ["big", "cats"]
    assert not hasattr(text.slug, "slug_words")
    assert text.slug.__all__ == ["make_slug", "split_words"]
    assert text.slug.make_slug("Big Cats") == "big-cats"
