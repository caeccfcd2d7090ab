import pytest

from timespan import Duration, ParseError, UnknownUnitError, parse, try_parse


@pytest.mark.parametrize(
    "text, seconds",
    [
        pytest.param("90s", 90, id="seconds"),
        pytest.param("1h30m", 5400, id="compact"),
        pytest.param("1h 30m", 5400, id="spaced"),
        pytest.param("1.5 hours", 5400, id="decimal"),
        pytest.param(".5m", 30, id="leading-dot"),
        pytest.param("2 days, 4 hours and 5 minutes", 187500, id="verbose"),
        pytest.param("1w", 604800, id="weeks"),
        pytest.param("250ms", 0.25, id="milliseconds"),
        pytest.param("  3 min  ", 180, id="padded"),
    ],
)
def test_parse_compact_and_verbose(text, seconds):
    assert parse(text) == Duration(seconds)


def test_parse_single_negative_component():
    assert parse("-45m") == Duration(minutes=-45)


class TestClock:
    @pytest.mark.parametrize(
        "text, seconds",
        [
            pytest.param("1:30:00", 5400, id="hms"),
            pytest.param("05:30", 330, id="ms"),
            pytest.param("26:00:00", 93600, id="over-a-day"),
            pytest.param("0:00:01.5", 1.5, id="fraction"),
        ],
    )
    def test_clock_values(self, text, seconds):
        assert parse(text) == Duration(seconds)

    def test_negative_clock(self):
        assert parse("-1:30:00") == Duration(-5400)

    def test_clock_fields_must_be_in_range(self):
        with pytest.raises(ParseError):
            parse("1:75:00")
        with pytest.raises(ParseError):
            parse("00:99")


def test_bare_number_needs_default_unit():
    with pytest.raises(ParseError):
        parse("90")
    assert parse("90", default_unit="s") == Duration(90)
    assert parse("1.5", default_unit="h") == Duration(5400)


def test_unknown_unit_reports_position():
    with pytest.raises(UnknownUnitError) as info:
        parse("1h 20 fortnights")
    assert info.value.unit == "fortnights"
    assert info.value.position == 6


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("   ", id="blank"),
        pytest.param("h", id="unit-only"),
        pytest.param("1h30", id="trailing-number"),
        pytest.param("one hour", id="words"),
        pytest.param("1h 1h", id="repeated-unit"),
    ],
)
def test_invalid_input(text):
    with pytest.raises(ParseError):
        parse(text)


def test_parse_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse("soon")


def test_try_parse():
    assert try_parse("2m") == Duration(120)
    assert try_parse("later") is None
