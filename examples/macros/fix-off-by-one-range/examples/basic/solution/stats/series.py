"""Statistics over a series of readings."""


def deltas(values: list[int]) -> list[int]:
    """Differences between consecutive readings."""
    out = []
    for i in range(len(values) - 1):
        out.append(values[i + 1] - values[i])
    return out


def window_sums(values: list[int], size: int) -> list[int]:
    """Sums over every window of size consecutive readings."""
    return [sum(values[i : i + size]) for i in range(len(values) - size + 1)]
