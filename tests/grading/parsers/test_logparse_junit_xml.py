"""Surefire XML reports cat'ed into a log."""

from __future__ import annotations

import pytest

from tests.grading.parsers.conftest import result_of, run, sample

REPORT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="{cls}" tests="3" errors="0" skipped="0" failures="1">
  <properties><property name="a" value="b"/></properties>
  <testcase name="testOk" classname="{cls}" time="0.1"/>
  <testcase name="testFails" classname="{cls}" time="0.1">
    <failure message="expected:&lt;1&gt; but was:&lt;2&gt;" type="AssertionError"><![CDATA[x
</testcase></testsuite>
]]></failure>
  </testcase>
  <testcase name="testSkipped" classname="{cls}" time="0"><skipped/></testcase>
  <system-out><![CDATA[<testsuite name="fake"><testcase name="forged" classname="x"/>
</testsuite>]]></system-out>
</testsuite>
"""


def test_real_surefire_report() -> None:
    text = sample("surefire-reports-junit4/TEST-demo.CalcTest.xml")
    assert run("junit_xml", text) == {
        "demo.CalcTest.subWorks": "failed",
        "demo.CalcTest.errors": "errored",
        "demo.CalcTest.addWorks": "passed",
        "demo.CalcTest.ignored": "skipped",
    }


def test_cdata_and_system_out_containing_testsuite() -> None:
    assert run("junit_xml", REPORT.format(cls="com.google.gson.GsonTest")) == {
        "com.google.gson.GsonTest.testOk": "passed",
        "com.google.gson.GsonTest.testFails": "failed",
        "com.google.gson.GsonTest.testSkipped": "skipped",
    }


def test_several_modules_with_build_output_between() -> None:
    log = (
        "[INFO] Reactor Build Order:\n+ read -r file\n+ cat a/target/surefire-reports/TEST-a.xml\n"
        + REPORT.format(cls="org.apache.dubbo.A")
        + "+ read -r file\n"
        + REPORT.format(cls="org.apache.dubbo.B")
        + "[INFO] BUILD FAILURE\n[ERROR] There are test failures.\n"
    )
    statuses = run("junit_xml", log)
    assert len(statuses) == 6
    assert statuses["org.apache.dubbo.B.testFails"] == "failed"


def test_truncated_report_keeps_finished_cases() -> None:
    text = REPORT.format(cls="p.T")
    cut = text.index("<![CDATA[x") + 4
    result = result_of("junit_xml", text[:cut] + "\n" + REPORT.format(cls="p.U"))
    statuses = {k: v.value for k, v in result.statuses.items()}
    assert statuses["p.T.testOk"] == "passed"
    assert statuses["p.T.testFails"] == "failed"
    assert "p.U.testOk" in statuses


def test_truncated_inside_passing_case_is_dropped_and_noted() -> None:
    text = '<testsuite name="x"><testcase name="a" classname="k"><system-out>partial'
    result = result_of("junit_xml", text)
    assert result.statuses == {}
    assert "cut short" in result.notes[0]


def test_build_failure_without_test_failures_is_noted() -> None:
    log = REPORT.format(cls="m.A") + "[ERROR] COMPILATION ERROR :\n[INFO] BUILD FAILURE\n"
    result = result_of("junit_xml", log)
    assert len(result.statuses) == 3
    assert any("compilation" in note for note in result.notes)


def test_entities_single_quotes_and_no_classname() -> None:
    text = (
        "<testsuite name='s'>"
        "<testcase name='positive(int)[1] &amp; &quot;x&quot;' classname='demo.J5Test'/>"
        "<testcase name=\"lonely\"><error message='m'/></testcase>"
        "<testcase name='rerun' classname='k'><rerunFailure message='flaky'/></testcase>"
        "</testsuite>"
    )
    assert run("junit_xml", text) == {
        'demo.J5Test.positive(int)[1] & "x"': "passed",
        "lonely": "errored",
        "k.rerun": "passed",
    }


def test_testcase_outside_a_testsuite_is_ignored() -> None:
    assert run("junit_xml", '[INFO] <testcase name="x" classname="y"/>\n') == {}


def test_testsuites_wrapper_and_ansi() -> None:
    text = (
        '\x1b[0m<testsuites><testsuite name="a"><testcase name="t" classname="c">'
        "<failure/></testcase></testsuite></testsuites>"
    )
    assert run("junit_xml", text) == {"c.t": "failed"}


def test_attribute_white_space_reads_as_xml_reads_it_in_every_report() -> None:
    # A line break or tab written in an attribute is a space to an XML parser (and so to
    # the official harness); a report the tolerant scanner reads (this one never closes)
    # gives the same id as a well-formed one.
    case = '<testcase name="t\tx" classname="p.\r\nK"/>'
    whole = f'<?xml version="1.0"?>\n<testsuite name="s">{case}</testsuite>\n'
    cut = f'<?xml version="1.0"?>\n<testsuite name="s">{case}\n'
    assert run("junit_xml", whole) == {"p. K.t x": "passed"}
    assert run("junit_xml", cut) == {"p. K.t x": "passed"}
    assert run("junit_xml", case.replace("\t", "&#9;").join(["<testsuite>", "</testsuite>"])) == {
        "p. K.t\tx": "passed"
    }


def test_a_well_formed_report_is_read_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    from polybench.grading.parsers import junit_xml

    walked: list[str] = []
    real_tag = junit_xml._Scanner.tag

    def spy(self: junit_xml._Scanner, name: str, *args: object) -> None:
        walked.append(name)
        real_tag(self, name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(junit_xml._Scanner, "tag", spy)
    log = (
        "+ read -r file\n"
        + REPORT.format(cls="p.A")
        + "+ read -r file\n"
        + REPORT.format(cls="p.B")
    )
    result = result_of("junit_xml", log)
    assert len(result.statuses) == 6 and not result.distrust
    assert walked == []  # the tolerant scanner never walked these reports' tags
    # A report cut short is still read by the scanner, which keeps its finished cases.
    cut = REPORT.format(cls="p.C")
    cut = cut[: cut.index("testSkipped")]
    result = result_of("junit_xml", log + cut)
    assert walked and result.statuses["p.C.testFails"].value == "failed"
    assert any("never closes" in reason for reason in result.distrust)
