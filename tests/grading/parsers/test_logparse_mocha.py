"""mocha --reporter json parsers (fullTitle, and file->fullTitle for material-ui)."""

from __future__ import annotations

import json
from typing import Any

from tests.grading.parsers.conftest import result_of, run


def _test(full: str, file: str = "/testbed/test/a.spec.js", **extra: Any) -> dict[str, Any]:
    return {
        "title": full.split(" ")[-1],
        "fullTitle": full,
        "file": file,
        "currentRetry": 0,
        **extra,
    }


PASS = _test("Service #load() should work", duration=3, err={})
FAIL = _test("Variables with ~ ", duration=1, err={"message": "boom", "stack": "x"})
SKIP = _test("calc skipped one", err={})
MULTI = _test("Service stage is absent and \n            stage is fine", duration=0, err={})


def mocha_report(**overrides: Any) -> str:
    report = {
        "stats": {"suites": 2, "tests": 4, "passes": 2, "pending": 1, "failures": 1},
        "tests": [PASS, FAIL, SKIP, MULTI],
        "pending": [SKIP],
        "failures": [FAIL],
        "passes": [PASS, MULTI],
    }
    report.update(overrides)
    return json.dumps(report, indent=2)


EXPECTED = {
    "Service #load() should work": "passed",
    "Variables with ~ ": "failed",
    "calc skipped one": "skipped",
    "Service stage is absent and \n            stage is fine": "passed",
}


def test_full_title_ids_verbatim() -> None:
    assert (
        run("mocha_json", "> mocha --reporter json\n\nok 7 - fake\n" + mocha_report()) == EXPECTED
    )


def test_report_found_by_keys_not_first_brace() -> None:
    log = '{"stats": {"modules": 12}, "assets": []}\n{"level":"info"}\n' + mocha_report()
    assert run("mocha_json", log) == EXPECTED


def test_truncated_report_uses_tests_entries() -> None:
    text = mocha_report()
    result = result_of("mocha_json", text[: text.index('"pending": [')])
    assert {k: v.value for k, v in result.statuses.items()} == EXPECTED
    assert "truncated" in result.distrust[0]  # a half-read report never resolves


def test_hook_failures_are_failed_ids() -> None:
    hook = _test('hooks "before all" hook for "never runs"', err={"message": "x"})
    statuses = run("mocha_json", mocha_report(failures=[FAIL, hook]))
    assert statuses['hooks "before all" hook for "never runs"'] == "failed"


def test_file_flavour_with_custom_status_field() -> None:
    custom = {
        "stats": {"tests": 3},
        "tests": [
            {
                "file": "packages/mui-joy/src/Select/Select.test.tsx",
                "fullTitle": "Joy <Select /> prop: defaultOpen should be open on mount",
                "status": "passed",
            },
            {
                "file": "packages/material-ui/src/Chip/Chip.test.js",
                "fullTitle": "<Chip /> text only should render a div",
                "status": "failed",
            },
            {
                "file": "packages/material-ui/src/Chip/Chip.test.js",
                "fullTitle": "<Chip /> skipped",
                "status": "pending",
            },
        ],
    }
    assert run("mocha_json_file", json.dumps(custom)) == {
        "packages/mui-joy/src/Select/Select.test.tsx->Joy <Select /> prop: defaultOpen should "
        "be open on mount": "passed",
        "packages/material-ui/src/Chip/Chip.test.js-><Chip /> text only should render a div": (
            "failed"
        ),
        "packages/material-ui/src/Chip/Chip.test.js-><Chip /> skipped": "skipped",
    }


def test_file_flavour_on_standard_mocha_json() -> None:
    statuses = run("mocha_json_file", mocha_report())
    assert statuses["/testbed/test/a.spec.js->Service #load() should work"] == "passed"


def test_several_reports_merged() -> None:
    other = mocha_report(tests=[], pending=[], failures=[], passes=[_test("B ok", duration=1)])
    result = result_of("mocha_json", mocha_report() + "\n" + other)
    assert result.statuses["B ok"] == "passed" and len(result.statuses) == 5


def test_mentions_that_do_not_pair_up_one_to_one_are_read_one_by_one() -> None:
    def occurrences(**lists: Any) -> list[tuple[str, str]]:
        result = result_of("mocha_json", mocha_report(**lists))
        return [(test_id, status.value) for test_id, status in result.occurrences]

    tests = list(EXPECTED.items())
    # Named twice by one list: the second mention has no test left, so it is one more.
    assert occurrences(passes=[PASS, PASS, MULTI]) == [*tests, (PASS["fullTitle"], "passed")]
    # Named by two lists: the same.
    assert occurrences(failures=[FAIL, PASS]) == [*tests, (PASS["fullTitle"], "failed")]
    # A failing test that ``passes`` names as well: one of its two mentions is one more
    # test, and the failure sticks.
    assert occurrences(passes=[PASS, MULTI, FAIL]) == [*tests, (FAIL["fullTitle"], "failed")]
    # A test that ``tests[]`` shows passing and ``failures`` names (once): it failed.
    assert occurrences(passes=[MULTI], failures=[FAIL, PASS])[0] == (PASS["fullTitle"], "failed")
