"""logline: read, filter and write logfmt structured logs.

>>> from logline import parse_line, format_record
>>> record = parse_line('level=warn msg="disk almost full" free=2%')
>>> record.level_name, record.message, record.fields
('WARNING', 'disk almost full', {'free': '2%'})
>>> format_record(record)
'level=warning msg="disk almost full" free=2%'
"""

from .filters import FilterError, compile_filter
from .formatter import format_pairs, format_record, level_label, quote
from .levels import Level, UnknownLevelError, coerce_level, level_from_name, level_name
from .parser import LogfmtError, parse_line, parse_lines, tokenize
from .record import Record, format_timestamp, parse_timestamp

__version__ = "1.3.0"

__all__ = [
    "FilterError",
    "Level",
    "LogfmtError",
    "Record",
    "UnknownLevelError",
    "coerce_level",
    "compile_filter",
    "format_pairs",
    "format_record",
    "format_timestamp",
    "level_from_name",
    "level_label",
    "level_name",
    "parse_line",
    "parse_lines",
    "parse_timestamp",
    "quote",
    "tokenize",
]
