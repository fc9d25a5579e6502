from pathlib import Path

README = Path("README.md").read_text()


def test_usage_section_rewritten():
    usage = README.split("## Usage\n", 1)[1].split("\n## ", 1)[0]
    assert 'slugify("Hello World", sep="_") == "hello_world"' in usage
    assert "### Notes" not in README
    assert README.startswith("# slugkit\n\nTurn titles into URL slugs.\n\n## Installation\n\n    pip install slugkit\n\n## Usage\n")
    assert README.endswith("\n## License\n\nMIT\n")
