"""timespan: parse, format and do arithmetic on human-readable durations.

>>> from timespan import parse, format_duration
>>> format_duration(parse("90 minutes"))
'1h30m'
"""

from .duration import ZERO, Duration
from .errors import ParseError, TimespanError, UnknownUnitError
from .formatting import STYLES, format_duration, humanize
from .parser import parse, try_parse
from .units import DAY, HOUR, MICROSECOND, MILLISECOND, MINUTE, SECOND, UNITS, WEEK, Unit, lookup

__version__ = "0.4.1"

__all__ = [
    "DAY",
    "Duration",
    "HOUR",
    "MICROSECOND",
    "MILLISECOND",
    "MINUTE",
    "ParseError",
    "SECOND",
    "STYLES",
    "TimespanError",
    "UNITS",
    "Unit",
    "UnknownUnitError",
    "WEEK",
    "ZERO",
    "format_duration",
    "humanize",
    "lookup",
    "parse",
    "try_parse",
]
