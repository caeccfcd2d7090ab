import unittest

import pytest

from sizes import known_units, parse_size, unit_of


@pytest.mark.units
def test_bytes():
    assert parse_size("12 B") == 12


def test_bare_numbers_have_no_unit():
    assert unit_of("12") is None


class UnitNames(unittest.TestCase):
    def test_decimal_units_are_known(self):
        self.assertIn("KB", known_units())
