import logging
import unittest

from logline.levels import (
    Level,
    UnknownLevelError,
    coerce_level,
    level_from_name,
    level_name,
)


class LevelValueTests(unittest.TestCase):
    def test_values_match_stdlib_logging(self):
        self.assertEqual(Level.DEBUG, logging.DEBUG)
        self.assertEqual(Level.INFO, logging.INFO)
        self.assertEqual(Level.WARNING, logging.WARNING)
        self.assertEqual(Level.ERROR, logging.ERROR)
        self.assertEqual(Level.CRITICAL, logging.CRITICAL)

    def test_levels_are_ordered(self):
        self.assertLess(Level.TRACE, Level.DEBUG)
        self.assertLess(Level.INFO, Level.WARNING)
        self.assertGreater(Level.CRITICAL, Level.ERROR)


class LevelNameTests(unittest.TestCase):
    def test_canonical_names(self):
        self.assertEqual(level_name(Level.WARNING), "WARNING")
        self.assertEqual(level_name(5), "TRACE")
        self.assertEqual(level_name(0), "NOTSET")

    def test_custom_level_name(self):
        self.assertEqual(level_name(25), "LEVEL25")


class LevelFromNameTests(unittest.TestCase):
    def test_canonical_names_any_case(self):
        self.assertEqual(level_from_name("warning"), Level.WARNING)
        self.assertEqual(level_from_name("ERROR"), Level.ERROR)
        self.assertEqual(level_from_name("  Info "), Level.INFO)

    def test_aliases(self):
        for alias, expected in [
            ("warn", Level.WARNING),
            ("err", Level.ERROR),
            ("fatal", Level.CRITICAL),
            ("panic", Level.CRITICAL),
            ("dbg", Level.DEBUG),
        ]:
            with self.subTest(alias=alias):
                self.assertEqual(level_from_name(alias), expected)

    def test_numbers(self):
        self.assertEqual(level_from_name("25"), 25)
        self.assertEqual(level_from_name("LEVEL25"), 25)
        self.assertEqual(level_from_name(level_name(35)), 35)

    def test_unknown(self):
        with self.assertRaises(UnknownLevelError) as caught:
            level_from_name("loud")
        self.assertEqual(caught.exception.text, "loud")
        self.assertIsInstance(caught.exception, ValueError)


class CoerceLevelTests(unittest.TestCase):
    def test_accepts_ints_and_names(self):
        self.assertEqual(coerce_level(30), Level.WARNING)
        self.assertEqual(coerce_level("warn"), Level.WARNING)

    def test_rejects_other_types(self):
        with self.assertRaises(TypeError):
            coerce_level(True)
        with self.assertRaises(TypeError):
            coerce_level(3.5)


if __name__ == "__main__":
    unittest.main()
