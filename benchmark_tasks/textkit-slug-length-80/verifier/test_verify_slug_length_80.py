import io


def test_module_default_is_80():
    from textkit.slugs import MAX_SLUG_LENGTH, slugify, unique_slug

    assert MAX_SLUG_LENGTH == 80
    slug = slugify("word " * 40)
    assert 64 < len(slug) <= 80
    assert not slug.endswith("-")
    assert len(unique_slug("word " * 40, {slug})) <= 80


def test_packaged_config_default_is_80():
    from textkit.config import TextkitConfig, default_config, load_config

    assert default_config().max_slug_length == 80
    assert TextkitConfig().max_slug_length == 80
    assert load_config(environ={}).max_slug_length == 80


def test_cli_slug_uses_80_characters():
    from textkit.cli import main

    out = io.StringIO()
    code = main(["slug", "word " * 40], stdin=io.StringIO(), stdout=out, stderr=io.StringIO())
    assert code == 0
    assert 64 < len(out.getvalue().strip()) <= 80
