from app.limits import MAX_ITEMS


def batches(total: int) -> int:
    return -(-total // MAX_ITEMS)
