from text.slug import slug_words


def heading_id(title: str) -> str:
    return "h-" + "_".join(slug_words(title))
