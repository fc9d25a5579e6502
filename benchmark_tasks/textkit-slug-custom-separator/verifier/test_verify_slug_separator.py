

def test_unique_slug_uses_the_custom_separator():
    from textkit.slugs import unique_slug

    assert unique_slug("My Post", {"my_post"}, separator="_") == "my_post_2"
    assert unique_slug("My Post", {"my_post", "my_post_2"}, separator="_") == "my_post_3"
    assert unique_slug("a b", {"a__b"}, separator="__") == "a__b__2"


def test_unique_slug_default_separator_unchanged():
    from textkit.slugs import unique_slug

    assert unique_slug("My Post", {"my-post", "my-post-2"}) == "my-post-3"
    assert unique_slug("alpha beta", {"alpha-beta"}, max_length=10) == "alpha-2"


def test_truncate_slug_multi_character_separator_at_limit():
    from textkit.slugs import truncate_slug

    assert truncate_slug("ab__cd__ef", 6, separator="__") == "ab__cd"
    assert truncate_slug("ab__cd__ef", 7, separator="__") == "ab__cd"
    assert truncate_slug("ab__cd__ef", 5, separator="__") == "ab"
    assert truncate_slug("one+-two+-three", 8, separator="+-") == "one+-two"


def test_truncate_slug_default_separator_unchanged():
    from textkit.slugs import truncate_slug

    assert truncate_slug("alpha-beta-gamma", 10) == "alpha-beta"
    assert truncate_slug("alpha-beta-gamma", 9) == "alpha"
    assert truncate_slug("supercalifragilistic-word", 5) == "super"


def test_slugify_with_custom_separator_truncates_at_word_boundary():
    from textkit.slugs import slugify

    assert slugify("ab cd ef", separator="__", max_length=6) == "ab__cd"
