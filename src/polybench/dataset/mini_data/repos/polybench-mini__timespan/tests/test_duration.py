import datetime
import pickle
from fractions import Fraction

import pytest

from timespan import HOUR, MINUTE, SECOND, ZERO, Duration


class TestConstruction:
    def test_keywords_add_up(self):
        assert Duration(hours=1, minutes=30).micros == 5_400_000_000

    def test_seconds_is_positional(self):
        assert Duration(90) == Duration(minutes=1.5)

    def test_float_is_rounded_to_microseconds(self):
        assert Duration(0.0000015).micros == 2

    def test_rejects_non_numbers(self):
        with pytest.raises(TypeError):
            Duration("5")
        with pytest.raises(TypeError):
            Duration(True)

    @pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
    def test_rejects_non_finite(self, value):
        with pytest.raises(ValueError):
            Duration(value)

    def test_timedelta_round_trip(self):
        delta = datetime.timedelta(days=-1, seconds=5, microseconds=7)
        assert Duration.from_timedelta(delta).to_timedelta() == delta


class TestArithmetic:
    def test_add_and_subtract(self):
        assert Duration(hours=1) + Duration(minutes=30) == Duration(5400)
        assert Duration(hours=1) - Duration(minutes=90) == Duration(-1800)

    def test_mixes_with_timedelta(self):
        assert Duration(60) + datetime.timedelta(seconds=30) == Duration(90)
        assert datetime.timedelta(minutes=2) - Duration(60) == Duration(60)

    def test_sum_starts_from_zero(self):
        assert sum([Duration(1), Duration(2)], ZERO) == Duration(3)

    def test_scale(self):
        assert Duration(90) * 2 == Duration(180)
        assert 0.5 * Duration(90) == Duration(45)
        assert Duration(90) / 4 == Duration(22.5)

    def test_ratio_and_modulo(self):
        assert Duration(hours=1) / Duration(minutes=20) == 3.0
        assert Duration(100) // Duration(30) == 3
        assert Duration(100) % Duration(30) == Duration(10)

    def test_sign(self):
        assert -Duration(5) == Duration(-5)
        assert abs(Duration(-5)) == Duration(5)
        assert not ZERO
        assert Duration(0.000001)


class TestComparison:
    def test_ordering(self):
        assert Duration(59) < Duration(minutes=1) <= Duration(60) < Duration(61)
        assert max(Duration(1), Duration(3), Duration(2)) == Duration(3)

    def test_hash_matches_equality(self):
        assert len({Duration(60), Duration(minutes=1), Duration(61)}) == 2

    def test_not_equal_to_numbers(self):
        assert Duration(5) != 5


def test_in_units_is_exact():
    assert Duration(90).in_units(MINUTE) == Fraction(3, 2)


def test_split():
    assert Duration(3661).split() == [(HOUR, 1), (MINUTE, 1), (SECOND, 1)]
    assert Duration(-3600).split() == [(HOUR, 1)]
    assert ZERO.split() == []


@pytest.mark.parametrize(
    "seconds, unit, expected",
    [(89, MINUTE, 60), (90, MINUTE, 120), (-90, MINUTE, -120), (1.4, SECOND, 1)],
)
def test_round(seconds, unit, expected):
    assert Duration(seconds).round(unit) == Duration(expected)


def test_repr():
    assert repr(Duration(5400)) == "Duration(seconds=5400)"
    assert repr(Duration(0.25)) == "Duration(seconds=0.25)"


def test_pickle_round_trip():
    value = Duration(hours=3, microseconds=5)
    assert pickle.loads(pickle.dumps(value)) == value
