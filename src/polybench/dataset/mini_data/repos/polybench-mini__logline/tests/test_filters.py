import unittest

from logline import FilterError, compile_filter, parse_line

RECORDS = [
    parse_line('level=debug msg="cache hit" service=api latency_ms=3'),
    parse_line('level=info msg="request done" service=api status=200 latency_ms=41'),
    parse_line('level=warn msg="slow query" service=db latency_ms=950'),
    parse_line('level=error msg="upstream timeout" service=api status=504 user=ann'),
]


def matching(expression):
    keep = compile_filter(expression)
    return [record.message for record in RECORDS if keep(record)]


class LevelFilterTests(unittest.TestCase):
    def test_minimum_level(self):
        self.assertEqual(matching("level>=warning"), ["slow query", "upstream timeout"])

    def test_level_aliases_and_numbers(self):
        self.assertEqual(matching("level>=warn"), matching("level>=30"))
        self.assertEqual(matching("lvl<info"), ["cache hit"])

    def test_unknown_level_is_an_error(self):
        with self.assertRaises(FilterError):
            compile_filter("level>=loud")


class FieldFilterTests(unittest.TestCase):
    def test_equality_and_conjunction(self):
        self.assertEqual(matching("service=api status=200"), ["request done"])
        self.assertEqual(matching("service=api and level=error"), ["upstream timeout"])

    def test_numeric_comparison(self):
        self.assertEqual(matching("latency_ms>100"), ["slow query"])
        self.assertEqual(matching("latency_ms<=41"), ["cache hit", "request done"])

    def test_not_equal_includes_missing(self):
        self.assertEqual(matching("status!=200"), ["cache hit", "slow query", "upstream timeout"])

    def test_substring(self):
        self.assertEqual(matching("msg~TIME"), ["upstream timeout"])
        self.assertEqual(matching('msg~"query"'), ["slow query"])

    def test_presence(self):
        self.assertEqual(matching("user"), ["upstream timeout"])

    def test_empty_expression_matches_everything(self):
        self.assertEqual(len(matching("")), len(RECORDS))

    def test_unreadable_expression(self):
        with self.assertRaises(FilterError):
            compile_filter('service="api')


if __name__ == "__main__":
    unittest.main()
