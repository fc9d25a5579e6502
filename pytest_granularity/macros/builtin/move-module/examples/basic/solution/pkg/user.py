from pkg.sub import helpers
from pkg.sub.helpers import double


def quadruple(x: int) -> int:
    return helpers.double(double(x))
