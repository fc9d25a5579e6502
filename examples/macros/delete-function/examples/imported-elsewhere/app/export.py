from app.textutil import legacy_slug


def export_name(title: str) -> str:
    return legacy_slug(title) + ".csv"
