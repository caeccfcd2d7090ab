import datetime
import unittest

from logline import Level, Record, format_pairs, format_record, level_label, parse_line, quote


class QuoteTests(unittest.TestCase):
    def test_plain_values_are_not_quoted(self):
        self.assertEqual(quote("api"), "api")
        self.assertEqual(quote("/var/log/app.log"), "/var/log/app.log")

    def test_values_with_spaces_or_equals_are_quoted(self):
        self.assertEqual(quote("hello world"), '"hello world"')
        self.assertEqual(quote("a=b"), '"a=b"')
        self.assertEqual(quote(""), '""')

    def test_quotes_and_control_characters_are_escaped(self):
        self.assertEqual(quote('say "hi"'), '"say \\"hi\\""')
        self.assertEqual(quote("two\nlines"), '"two\\nlines"')
        self.assertEqual(quote("tab\there"), '"tab\\there"')


class LevelLabelTests(unittest.TestCase):
    def test_known_levels(self):
        self.assertEqual(level_label(Level.INFO), "info")
        self.assertEqual(level_label(Level.WARNING), "warning")
        self.assertEqual(level_label(5), "trace")

    def test_custom_and_notset_levels(self):
        self.assertEqual(level_label(25), "level25")
        self.assertEqual(level_label(Level.NOTSET), "notset")


class FormatRecordTests(unittest.TestCase):
    def test_order_is_time_level_msg_fields(self):
        record = Record(
            message="request done",
            level=Level.INFO,
            time=datetime.datetime(2024, 3, 1, 12, 0, tzinfo=datetime.timezone.utc),
            fields={"status": "200", "path": "/health"},
        )
        self.assertEqual(
            format_record(record),
            'time=2024-03-01T12:00:00Z level=info msg="request done" status=200 path=/health',
        )

    def test_field_selection(self):
        record = Record(message="x", fields={"a": "1", "b": "2", "c": "3"})
        self.assertEqual(format_record(record, fields=["c", "a", "zz"]), "level=info msg=x c=3 a=1")

    def test_round_trip(self):
        line = 'time=2024-03-01T12:00:00.500000Z level=error msg="db \\"main\\" down" retries=3'
        self.assertEqual(format_record(parse_line(line)), line)

    def test_invalid_keys(self):
        with self.assertRaises(ValueError):
            format_pairs([("bad key", "x")])
        with self.assertRaises(ValueError):
            format_pairs([("", "x")])


if __name__ == "__main__":
    unittest.main()
