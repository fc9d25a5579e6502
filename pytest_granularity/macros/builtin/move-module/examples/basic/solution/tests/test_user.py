from unittest import mock

from pkg.user import quadruple


def test_quadruple():
    assert quadruple(3) == 12


def test_patch_by_dotted_name():
    with mock.patch("pkg.sub.helpers.double", return_value=1):
        from pkg.sub import helpers

        assert helpers.double(5) == 1
