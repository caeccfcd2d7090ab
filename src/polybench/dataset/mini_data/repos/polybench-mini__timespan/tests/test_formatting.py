import pytest

from timespan import UNITS, ZERO, Duration, format_duration, humanize


@pytest.mark.parametrize(
    "seconds, expected",
    [
        (5400, "1h30m"),
        (187500, "2d4h5m"),
        (1.5, "1.5s"),
        (0.25, "0.25s"),
        (-2700, "-45m"),
        (0, "0s"),
    ],
)
def test_compact(seconds, expected):
    assert format_duration(Duration(seconds)) == expected


class TestVerbose:
    def test_two_parts(self):
        assert format_duration(Duration(5400), "verbose") == "1 hour and 30 minutes"

    def test_many_parts(self):
        text = format_duration(Duration(days=2, hours=4, minutes=1), "verbose")
        assert text == "2 days, 4 hours and 1 minute"

    def test_negative_and_zero(self):
        assert format_duration(Duration(-5), "verbose") == "minus 5 seconds"
        assert format_duration(ZERO, "verbose") == "0 seconds"

    def test_fractional_seconds(self):
        assert format_duration(Duration(61.5), "verbose") == "1 minute and 1.5 seconds"


@pytest.mark.parametrize(
    "seconds, expected",
    [
        pytest.param(5400, "01:30:00", id="hours"),
        pytest.param(93600, "26:00:00", id="over-a-day"),
        pytest.param(-1.5, "-00:00:01.5", id="negative-fraction"),
        pytest.param(0, "00:00:00", id="zero"),
    ],
)
def test_clock(seconds, expected):
    assert format_duration(Duration(seconds), "clock") == expected


def test_weeks_are_opt_in():
    two_weeks = Duration(weeks=2, days=1)
    assert format_duration(two_weeks) == "15d"
    assert format_duration(two_weeks, units=UNITS) == "2w1d"


def test_max_units_truncates():
    value = Duration(days=1, hours=2, minutes=3, seconds=4)
    assert format_duration(value, max_units=2) == "1d2h"
    with pytest.raises(ValueError):
        format_duration(value, max_units=0)


def test_unknown_style():
    with pytest.raises(ValueError, match="unknown style"):
        format_duration(Duration(1), "iso")


def test_str_and_format_use_formatter():
    value = Duration(minutes=90)
    assert str(value) == "1h30m"
    assert f"{value:clock}" == "01:30:00"


@pytest.mark.parametrize(
    "seconds, expected",
    [
        pytest.param(95 * 60, "2 hours", id="rounds-up"),
        pytest.param(59, "59 seconds", id="seconds"),
        pytest.param(0.2, "a moment", id="sub-second"),
        pytest.param(-3600, "minus 1 hour", id="negative"),
    ],
)
def test_humanize(seconds, expected):
    assert humanize(Duration(seconds)) == expected
