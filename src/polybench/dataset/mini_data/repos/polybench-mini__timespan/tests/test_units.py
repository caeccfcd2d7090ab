import pytest

from timespan import DAY, HOUR, MINUTE, SECOND, UNITS, WEEK, UnknownUnitError, lookup
from timespan.units import MICROSECOND, MILLISECOND, spellings


@pytest.mark.parametrize(
    "spelling, expected",
    [
        ("s", SECOND),
        ("sec", SECOND),
        ("Seconds", SECOND),
        ("m", MINUTE),
        ("mins", MINUTE),
        ("h", HOUR),
        ("HR", HOUR),
        ("d", DAY),
        ("weeks", WEEK),
        ("ms", MILLISECOND),
        ("µs", MICROSECOND),
    ],
)
def test_lookup_spellings(spelling, expected):
    assert lookup(spelling) is expected


def test_lookup_unknown_unit():
    with pytest.raises(UnknownUnitError) as info:
        lookup("fortnight")
    assert info.value.unit == "fortnight"


def test_units_are_ordered_largest_first():
    sizes = [unit.micros for unit in UNITS]
    assert sizes == sorted(sizes, reverse=True)


def test_unit_sizes():
    assert MINUTE.seconds == 60
    assert HOUR.seconds == 3600
    assert DAY.seconds == 86400
    assert WEEK.micros == 7 * DAY.micros


def test_labels():
    assert HOUR.label(1) == "hour"
    assert HOUR.label(2) == "hours"
    assert HOUR.label(0) == "hours"


def test_every_spelling_is_unique():
    seen = {}
    for unit in UNITS:
        for spelling in spellings(unit):
            assert spelling not in seen, (spelling, unit, seen.get(spelling))
            seen[spelling] = unit
