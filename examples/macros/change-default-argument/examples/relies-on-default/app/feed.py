from app.paging import paginate


def first_page(entries: list[str]) -> list[str]:
    """The feed shows ten entries per page."""
    pages = paginate(entries)
    return pages[0] if pages else []
