import datetime
import io
import unittest

from logline import Level, LogfmtError, UnknownLevelError, parse_line, parse_lines, tokenize


class TokenizeTests(unittest.TestCase):
    def test_bare_values(self):
        self.assertEqual(
            list(tokenize("a=1 b=two c=3.5")), [("a", "1"), ("b", "two"), ("c", "3.5")]
        )

    def test_quoted_values(self):
        pairs = list(tokenize('msg="hello world" empty="" path=/tmp'))
        self.assertEqual(pairs, [("msg", "hello world"), ("empty", ""), ("path", "/tmp")])

    def test_escapes_inside_quotes(self):
        pairs = list(tokenize(r'a="say \"hi\"" b="x\ny" c="back\\slash" d="\q"'))
        self.assertEqual(
            pairs,
            [("a", 'say "hi"'), ("b", "x\ny"), ("c", "back\\slash"), ("d", "\\q")],
        )

    def test_flags_and_empty_values(self):
        self.assertEqual(list(tokenize("debug x= y")), [("debug", "true"), ("x", ""), ("y", "true")])

    def test_extra_whitespace_and_newline(self):
        self.assertEqual(list(tokenize("  a=1 \t b=2  \n")), [("a", "1"), ("b", "2")])

    def test_errors(self):
        for line in ['a="open', 'a=x"y', '"quoted"=1', 'k"v"']:
            with self.subTest(line=line):
                with self.assertRaises(LogfmtError):
                    list(tokenize(line))


class ParseLineTests(unittest.TestCase):
    def test_special_keys(self):
        record = parse_line(
            'time=2024-03-01T12:00:00Z level=warn msg="disk almost full" free=2% host=db1'
        )
        self.assertEqual(
            record.time, datetime.datetime(2024, 3, 1, 12, 0, tzinfo=datetime.timezone.utc)
        )
        self.assertEqual(record.level, Level.WARNING)
        self.assertEqual(record.message, "disk almost full")
        self.assertEqual(record.fields, {"free": "2%", "host": "db1"})

    def test_alternative_key_names(self):
        record = parse_line("ts=2024-03-01T12:00:00.250+02:00 lvl=ERR message=boom")
        self.assertEqual(record.level, Level.ERROR)
        self.assertEqual(record.message, "boom")
        self.assertEqual(record.time.microsecond, 250000)
        self.assertEqual(record.time.utcoffset(), datetime.timedelta(hours=2))

    def test_defaults(self):
        record = parse_line("user=ann")
        self.assertEqual(record.level, Level.INFO)
        self.assertEqual(record.message, "")
        self.assertIsNone(record.time)

    def test_unreadable_level_is_kept_as_field(self):
        record = parse_line("level=loud msg=x")
        self.assertEqual(record.level, Level.INFO)
        self.assertEqual(record.fields, {"level": "loud"})

    def test_strict_mode(self):
        with self.assertRaises(UnknownLevelError):
            parse_line("level=loud msg=x", strict=True)
        with self.assertRaises(ValueError):
            parse_line("time=yesterday msg=x", strict=True)

    def test_parse_lines_skips_blank_lines(self):
        stream = io.StringIO("level=info msg=a\n\n   \nlevel=error msg=b\n")
        self.assertEqual([r.message for r in parse_lines(stream)], ["a", "b"])


if __name__ == "__main__":
    unittest.main()
