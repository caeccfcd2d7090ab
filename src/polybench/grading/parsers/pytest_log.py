"""pytest logs (``-rA`` short summary and/or ``-v`` progress lines).

Id: ``<path>:<Class or None>:<test[param]>`` from the node id ``path::Class::test[param]``
(nested classes are joined with ``.``; the parameter part is kept verbatim, ``::``,
spaces and brackets included).

Reading rules, per pytest session (a log may hold several):

* the ``short test summary info`` section is authoritative. When it lists passing tests
  (``-rA``), only skips are taken from the progress lines (the summary names skipped
  tests by location, not node id), so a test that prints ``foo.py::bar PASSED`` cannot
  create a pass;
* otherwise progress lines ``path::test STATUS`` (and xdist's ``[gw0] [ 5%] STATUS id``)
  are read, and the summary overrides them;
* the ``FAILURES``/``ERRORS``/``PASSES`` sections (tracebacks, captured output) are never
  read.

Statuses: PASSED and XPASS passed, FAILED failed, ERROR errored, SKIPPED skipped, XFAIL
xfail. A teardown ERROR after a PASSED keeps the error.

A node id is one test per session (its progress and summary lines are the same test);
the same node id in another session is another test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import compress, islice, repeat
from operator import add, is_, itemgetter, ne
from typing import cast

from polybench.grading.parsers._text import TwoWayPattern, line_blocks, visible_text
from polybench.grading.parsers.base import FAILING, ParseResult, Tally, TestStatus, register

_STATUSES = "PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS"
_STATUS = {
    "PASSED": TestStatus.PASSED,
    "XPASS": TestStatus.PASSED,
    "FAILED": TestStatus.FAILED,
    "ERROR": TestStatus.ERRORED,
    "SKIPPED": TestStatus.SKIPPED,
    "XFAIL": TestStatus.XFAIL,
}

PYTEST_MARKERS = ("test session starts", "short test summary info")
"""Header titles that identify a pytest log."""

_COUNT = re.compile(
    r"(?P<n>\d+) (?P<kind>failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?"
    r"|rerun)\b"
)
_FINAL = re.compile(r"^=+ (?P<body>(?:\d+ \w+(?:, )?)+.*?) in [\d.]+s(?: \([^)]*\))? =+\s*$")


def summary_tally(title: str) -> Tally | None:
    """The counts of a final ``== 2 failed, 5 passed in 0.1s ==`` line, or None."""
    match = _FINAL.match(title)
    if match is None:
        return None
    counts: dict[str, int] = {}
    for found in _COUNT.finditer(match.group("body")):
        kind = found.group("kind").rstrip("s") if found.group("kind") != "xpassed" else "xpassed"
        counts[kind] = counts.get(kind, 0) + int(found.group("n"))
    if not counts:
        return None
    failed = counts.get("failed", 0) + counts.get("error", 0)
    passed = counts.get("passed", 0) + counts.get("xpassed", 0)
    return Tally(failed=failed, passed=passed)


def official_id(node_id: str) -> str | None:
    """Turn a pytest node id into the official ``path:Class|None:test[param]`` id."""
    first_sep = node_id.find("::")
    if first_sep <= 0:
        return None
    bracket = node_id.find("[", first_sep)
    prefix, params = (node_id, "") if bracket == -1 else (node_id[:bracket], node_id[bracket:])
    parts = prefix.split("::")
    if len(parts) < 2 or not parts[-1]:
        return None
    classes = ".".join(parts[1:-1]) or "None"
    return f"{parts[0]}:{classes}:{parts[-1]}{params}"


# The official pattern's reading of a node id: the path is the longest ``[\w/]+\.py``
# just before the first ``::``, then an optional class and the test.
_LEGACY_ID = re.compile(r"(?:[^:\n]|:(?!:))*?([\w/]+\.py)::(?:(\w+)::)?(\w+(?:\[[\w\-]+\])?)")


# The same for node ids as the pytest patterns read them (no ':' in a segment), one a
# line: the path starts the first segment or follows a character that cannot be in it.
# Every line gives one match, empty where the official pattern reads nothing.
_LEGACY_LINES = TwoWayPattern(
    r"^(?:(?:[^:\n]*?(?<![\w/]))??([\w/]+\.py)::(?:(\w+)::)?(\w+(?:\[[\w\-]+\])?)[^\n]*"
    r"|[^\n]*)$",
    re.MULTILINE,
)


# Node ids the official pattern reads whole (their legacy id is their official id).
# (Each line is taken with the line break before it.)
_PLAIN_LINES = TwoWayPattern(r"\n[\w/]+\.py::(?:\w+::)?\w+(?:\[[\w\-]+\])?$", re.MULTILINE)

# The parts of a node id before its parameters that the official pattern reads whole:
# a path, no class or one, a name (word characters: see ``_plain_prefixes``).
_PLAIN_PATH = re.compile(r"[\w/]+\.py")
_PLAIN_CLASS = re.compile(r"(?:\w+::)?")
# Parameter parts (``[...]`` or nothing), one a line: as far as the official pattern reads
# every one whole, and the part it reads of each (the ``[\w-]`` brackets that start it).
_PLAIN_PARAMS = TwoWayPattern(r"(?:(?:\[[\w\-]+\])?\n)*")
# Parameter parts (one a line): the part of each the official pattern keeps (the
# ``[\w-]`` brackets that start it, if any).
_PARAMS_KEPT = TwoWayPattern(r"^((?:\[[\w\-]+\])?)[^\n]*$", re.MULTILINE)
# A parameter part (each taken with the line break before it) that starts with brackets the
# official pattern keeps.
_KEPT_BRACKETS = TwoWayPattern(r"\n\[[\w\-]+\]")


def _reads_whole(pattern: TwoWayPattern, text: str) -> bool:
    """Whether ``pattern`` matches all of ``text``, from its start (a repeated line
    pattern: matched as far as the lines go, with no backtracking into earlier ones)."""
    match = pattern.of(text).match(text)
    return match is not None and match.end() == len(text)


def _plain_prefixes(found: list[tuple[str, ...]], kinds: set[str]) -> bool:
    """Whether the official pattern reads every node id of ``found`` (with its parts:
    node id, path, classes, name; ``kinds``: the set of their classes parts) whole up
    to its parameters."""
    # ``\w`` is what ``str.isalnum`` accepts, and the underscore (for ASCII text, what
    # ``bytes.isalnum`` accepts, which is faster).
    names = "".join(map(itemgetter(3), found))
    plain_names = (
        names.encode().translate(None, b"_").isalnum()
        if names.isascii()
        else names.replace("_", "").isalnum()
    )
    return (
        (plain_names or not names)
        and all(map(_PLAIN_PATH.fullmatch, set(map(itemgetter(1), found))))
        and all(map(_PLAIN_CLASS.fullmatch, kinds))
    )


def legacy_official_id(node_id: str) -> str | None:
    """The id the official harness's pattern gives for ``node_id``, if any.

    It equals ``official_id`` for ordinary node ids, but the official pattern only
    accepts ``[\\w/]`` path characters, one class, and parameters made of word
    characters and dashes: ``a-b/t.py::A::B::t`` gives ``b/t.py:A:B`` and ``t.py::t[x y]``
    gives ``t.py:None:t``. Official F2P/P2P lists hold these ids for such tests.
    """
    match = _LEGACY_ID.match(node_id)
    if match is None:
        return None
    return f"{match[1]}:{match[2] or 'None'}:{match[3]}"


def _record_legacy(result: ParseResult, variants: dict[str, str]) -> None:
    """Record each test also under its legacy id (``variants``: proper id -> legacy id),
    as an alias when no test has that id."""
    statuses = result.statuses
    found = list(map(statuses.get, variants))
    if None in found:  # a node id read with no result
        present = {proper: legacy for proper, legacy in variants.items() if proper in statuses}
        values = list(map(statuses.__getitem__, present))
    else:
        present, values = variants, cast("list[TestStatus]", found)
    legacies = present.values()
    # Each legacy id is added in one go as an alias, unless one of them is a test's own id
    # or two tests share one: then the results are put back as they were and the legacy
    # ids are merged one by one. (Copying the results costs less than asking first.)
    before = dict(statuses)
    statuses.update(zip(legacies, values, strict=True))
    if len(statuses) - len(before) == len(present):
        result.aliases.update(legacies)
        if result.official_ids:
            result.official_ids.update(present)
        else:
            result.official_ids = present
        return
    statuses.clear()
    statuses.update(before)
    for proper, legacy in present.items():
        if legacy not in statuses:
            result.aliases.add(legacy)
        result.set(legacy, statuses[proper])
        result.official_ids[proper] = legacy


@dataclass
class _Session:
    # The progress lines in log order: their ids and statuses (two lists; a dict of the
    # tests they name is made only when one test may have several lines).
    progress_ids: list[str] = field(default_factory=list)
    progress_statuses: list[TestStatus] = field(default_factory=list)
    # Whether no two progress lines can name the same test: each named a node id new to
    # the log, and node ids and ids correspond one to one (see ``_one_to_one``).
    distinct: bool = True
    # The summary lines in log order: their ids and statuses (two lists: no pair is made
    # for a line until a merge needs it).
    summary_ids: list[str] = field(default_factory=list)
    summary_statuses: list[TestStatus] = field(default_factory=list)
    summary_has_pass: bool = False

    def empty(self) -> bool:
        """Whether the session saw no result at all."""
        return not self.progress_ids and not self.summary_ids

    def add_progress(self, ids: list[str], statuses: list[TestStatus], distinct: bool) -> None:
        """Progress lines in log order; ``distinct`` when none of them can name a test
        named by another progress line of the session."""
        self.progress_ids += ids
        self.progress_statuses += statuses
        self.distinct &= distinct

    def _weighed_progress(self) -> dict[str, TestStatus]:
        """Each test the progress lines name, with its status: a later line of a test
        wins, but never turns a failure into a pass."""
        progress: dict[str, TestStatus] = {}
        for test_id, new in zip(self.progress_ids, self.progress_statuses, strict=True):
            if new is TestStatus.PASSED and progress.get(test_id) in FAILING:
                continue
            progress[test_id] = new
        return progress

    def flush(self, result: ParseResult) -> None:
        """Merge the session into ``result`` (the summary has the last word)."""
        if self.empty():
            return
        result.parsed_anything = True
        # The tests the session ran, once each and in order, with their progress
        # statuses: the lines themselves unless a test may have several. (``distinct``
        # must be exact: a test named twice in ``ran_ids`` would be neither weighed nor
        # counted as a repeat below.)
        ran_ids, ran_statuses = self.progress_ids, self.progress_statuses
        if not self.distinct:
            weighed = self._weighed_progress()
            ran_ids, ran_statuses = list(weighed), list(weighed.values())
        if self.summary_has_pass:  # only skips are taken from the progress lines
            skipped = map(is_, ran_statuses, repeat(TestStatus.SKIPPED))
            final: dict[str, TestStatus] = dict.fromkeys(
                compress(ran_ids, skipped), TestStatus.SKIPPED
            )
        else:
            final = dict(zip(ran_ids, ran_statuses, strict=True))
        entries = len(final) + len(self.summary_ids)
        final.update(zip(self.summary_ids, self.summary_statuses, strict=True))
        statuses = result.statuses
        # (``isdisjoint`` walks its argument, whatever the size of the view: an empty
        # ``statuses`` is asked first.)
        if len(final) == entries and (not statuses or statuses.keys().isdisjoint(final)):
            # No id twice: nothing to weigh (and the first session's results are ``final``).
            if statuses:
                statuses.update(final)
            else:
                result.statuses = final
        else:
            final = self._weigh(statuses, ran_ids, ran_statuses)
        # One occurrence per test, in the order the session ran them (the progress
        # lines), then those only the summary names.
        try:  # (as usual) every test that ran has a status
            ran = list(zip(ran_ids, map(final.__getitem__, ran_ids), strict=True))
        except KeyError:
            ran = [(key, value) for key in ran_ids if (value := final.get(key)) is not None]
        if result.occurrences:
            result.occurrences += ran
        else:
            result.occurrences = ran
        if len(ran) != len(final):
            named = set(ran_ids)
            result.occurrences += [item for item in final.items() if item[0] not in named]

    def _weigh(
        self, statuses: dict[str, TestStatus], ran_ids: list[str], ran_statuses: list[TestStatus]
    ) -> dict[str, TestStatus]:
        """Merge results that name an id twice, as ``result.set`` does for each (and the
        same for the session's own final word): a failure or error is never undone."""
        entries = list(zip(ran_ids, ran_statuses, strict=True))
        if self.summary_has_pass:
            entries = [item for item in entries if item[1] is TestStatus.SKIPPED]
        final: dict[str, TestStatus] = {}
        entries += zip(self.summary_ids, self.summary_statuses, strict=True)
        for test_id, status in entries:
            if status in FAILING:
                statuses[test_id] = final[test_id] = status
                continue
            if statuses.get(test_id) not in FAILING:
                statuses[test_id] = status
            if final.get(test_id) not in FAILING:
                final[test_id] = status
        return final


BLOCK_SIZE = 1 << 20
"""Characters of a region read at a time (at a line break)."""


# The lines each region of a session is read for, found in the whole text at once (so
# that lines of no interest cost no Python). Each pattern starts with the line break
# before its line (the text gets one in front), which the regex engine finds fast, and
# never crosses a line. A node id is read whole and in its parts: path, classes, name,
# parameters.
# A segment, and the classes of a node id, never give back what they matched (possessive):
# the character after a shorter one could not be what follows. Parameters end at a ']' as
# near as the rest of the line allows, taken a bracket at a time.
_SEGMENT = r"[^{S}\[:]++"
_PARAMS = r"\[(?:[^\]\n]*+\])+?"
_NODE = rf"{_SEGMENT}(?:::{_SEGMENT})+(?:{_PARAMS})?"
_NODE_PARTS = rf"(({_SEGMENT})::((?:{_SEGMENT}::)*+)({_SEGMENT})({_PARAMS})?)"
_HEADER_LINE = TwoWayPattern(
    r"\n==(?=[^\n]{0,997}$)=* (?P<title>[^={S}][^\n]*?) =+[{L}]*$", re.MULTILINE
)
_PROGRESS_LINES = TwoWayPattern(
    rf"\n{_NODE_PARTS}(?: <- [^{{S}}]+)? ({_STATUSES})(?= |$)", re.MULTILINE
)
_PROGRESS_OR_XDIST_LINES = TwoWayPattern(
    rf"\n(?:{_NODE_PARTS}(?: <- [^{{S}}]+)? ({_STATUSES})(?= |$)"
    rf"|\[gw\d+\][{{L}}]+(?:\[[{{L}}]*\d+%\][{{L}}]+)?"
    rf"({_STATUSES}) {_NODE_PARTS}[{{L}}]*$)",
    re.MULTILINE,
)
_SUMMARY_LINES = TwoWayPattern(
    rf"\n(?:({_STATUSES}) ({_NODE})(?: - [^\n]*)?[{{L}}]*$|(ERROR [^\n]*))", re.MULTILINE
)
_NODE_ALONE = TwoWayPattern(_NODE_PARTS)
# Every summary line that starts with a status word and a space: the word and the rest.
_SUMMARY_WORDS = TwoWayPattern(rf"\n({_STATUSES}) ([^\n]*)$", re.MULTILINE)


def _flat(kinds: set[str]) -> bool:
    """Whether no node id whose classes part is in ``kinds`` has nested classes."""
    return all(classes.count("::") <= 1 for classes in kinds)


def _one_to_one(kinds: set[str]) -> bool:
    """Whether node ids whose classes parts are ``kinds`` (``""`` or ``Class::``...) give
    one id each that no other node id gives: none has nested classes (``A::B::`` and
    ``A.B::`` give the same) or a class named ``None`` (the id of a node id without one).
    The path, class and name then stand between the first two ':' of the id."""
    return "None::" not in kinds and _flat(kinds)


def _ids(found: list[tuple[str, ...]], kinds: set[str]) -> list[str]:
    """The official id of each node id, as ``official_id`` gives it, from its parts (the
    first five items of each tuple: node id, path, classes, name, parameters) and the
    set of their classes parts (``kinds``)."""
    if _flat(kinds):
        # No nested classes: the first separators (no part before the parameters holds
        # a ':') become ':', with ``None`` for a missing class.
        nodes = map(itemgetter(0), found)
        if "" not in kinds:  # every node id has a class
            return list(map(str.replace, nodes, repeat("::"), repeat(":"), repeat(2)))
        if len(kinds) == 1:  # none has one
            return list(map(str.replace, nodes, repeat("::"), repeat(":None:"), repeat(1)))
        return [
            node.replace("::", ":", 2) if classes else node.replace("::", ":None:", 1)
            for node, _, classes, _, _, _ in found
        ]
    return [
        f"{path}:{classes[:-2].replace('::', '.')}:{name}{params}"
        if classes
        else f"{path}:None:{name}{params}"
        for _, path, classes, name, params, _ in found
    ]


@dataclass
class _Reader:
    """Reads the regions of one log into sessions and ``result``."""

    text: str
    legacy_ids: bool
    result: ParseResult = field(default_factory=ParseResult)
    session: _Session = field(default_factory=_Session)
    collection_errors: int = 0
    # node id -> official id, for every node id of the log in the order first seen.
    known: dict[str, str] = field(default_factory=dict)
    # official id -> legacy id where the two differ (the last node id first seen wins).
    variants: dict[str, str] = field(default_factory=dict)

    def _learn(self, found: list[tuple[str, ...]], ids: list[str], kinds: set[str]) -> bool:
        """Node ids read (in log order, with their parts and the set of their classes
        parts) and their official ids; whether each of them was new to the log (and named
        once in ``found``)."""
        known = self.known
        before = len(known)
        known.update(zip(map(itemgetter(0), found), ids, strict=True))
        fresh = len(known) - before == len(found)
        if not self.legacy_ids or len(known) == before:
            return fresh
        if _plain_prefixes(found, kinds):
            self._learn_parameters(found, ids)
        else:
            self._learn_unusual(before)
        return fresh

    def _learn_parameters(self, found: list[tuple[str, ...]], ids: list[str]) -> None:
        """Legacy ids of node ids whose part before the parameters the official pattern
        reads whole: the official id with only the parameters it reads (the ``[\\w-]``
        brackets that start them, if any)."""
        params = list(map(itemgetter(4), found))
        joined = "\n".join(params)
        if _reads_whole(_PLAIN_PARAMS, joined + "\n"):
            return  # every parameter part read whole: every legacy id is the official id
        # An official id ends with its parameters; its legacy id ends with the part of
        # them the official pattern keeps instead (all of an empty or a whole part: the
        # official id itself).
        if _KEPT_BRACKETS.of(joined).search("\n" + joined) is None:
            # The official pattern keeps no parameters: the legacy id of each test with
            # parameters is its official id without them.
            if not all(params):
                ids, params = list(compress(ids, params)), list(filter(None, params))
            legacies = map(str.removesuffix, ids, params)
        else:
            kept = _PARAMS_KEPT.of(joined).findall(joined)
            differs = list(map(ne, params, kept))
            if not all(differs):
                ids, params, kept = (list(compress(item, differs)) for item in (ids, params, kept))
            legacies = map(add, map(str.removesuffix, ids, params), kept)
        self.variants.update(zip(ids, legacies, strict=True))

    def _learn_unusual(self, before: int) -> None:
        """Legacy ids of the node ids first seen after the first ``before``, each read
        by the official pattern."""
        known = self.known
        # New node ids, first seen first. Those the official pattern reads whole have
        # the same id under it: only the others are read again.
        fresh = "\n" + "\n".join(islice(known, before, None))
        plain = _PLAIN_LINES.of(fresh)
        unusual = [node for node in plain.sub("", fresh).split("\n") if node]
        if not unusual:
            return
        joined = "\n".join(unusual)
        # ``path:class:name`` of every line at once; a line without a class gives
        # ``path::name`` (no part can hold a ':' or a '.' after its ``.py``), a line the
        # official pattern does not read gives ``::``.
        parts = _LEGACY_LINES.of(joined).findall(joined)
        legacies = "\n".join(map(":".join, parts)).replace(".py::", ".py:None:").split("\n")
        propers = list(map(known.__getitem__, unusual))
        variants = dict(compress(zip(propers, legacies, strict=True), map(ne, propers, legacies)))
        if "::" in legacies:
            variants = {proper: legacy for proper, legacy in variants.items() if legacy != "::"}
        self.variants.update(variants)

    def _id(self, node_id: str) -> str:
        test_id = self.known.get(node_id)
        if test_id is None:
            parts = _NODE_ALONE.of(node_id).fullmatch(node_id)
            assert parts is not None  # the line patterns read node ids of this form
            found = [(*parts.groups(""), "")]
            kinds = {found[0][2]}
            test_id = _ids(found, kinds)[0]
            self._learn(found, [test_id], kinds)
        return test_id

    def read(self, region: str, start: int, end: int) -> None:
        """Read the lines of ``region`` between two headers."""
        if start >= end or region == "other":
            return
        # A block of lines at a time: what is made of each line (a tuple of its parts) is
        # dropped before the next block, not held for the whole of a long log.
        read_block = self._read_summary if region == "summary" else self._read_progress
        for block_start, block_end in line_blocks(self.text, start, end, BLOCK_SIZE):
            read_block(block_start, block_end)

    def _read_progress(self, start: int, end: int) -> None:
        text = self.text
        if text.find("\n[gw", start, end) == -1:
            found = _PROGRESS_LINES.of(text).findall(text, start, end)
        else:  # as (node id, path, classes, name, parameters, status)
            found = [
                match[:6] if match[0] else (*match[7:], match[6])
                for match in _PROGRESS_OR_XDIST_LINES.of(text).findall(text, start, end)
            ]
        kinds = set(map(itemgetter(2), found))
        ids = _ids(found, kinds)
        fresh = self._learn(found, ids, kinds)
        statuses = list(map(_STATUS.__getitem__, map(itemgetter(5), found)))
        self.session.add_progress(ids, statuses, fresh and _one_to_one(kinds))

    def _read_summary(self, start: int, end: int) -> None:
        # Most lines name a node id already read (from the progress lines), as
        # ``STATUS <node id>`` or ``STATUS <node id> - <message>``: such a line is what
        # ``_SUMMARY_LINES`` reads it as, looked up without a regex of its own (the text
        # after the status word, up to the first " - "). The others go through
        # ``_SUMMARY_LINES``.
        known = self.known
        text = self.text
        found = _SUMMARY_WORDS.of(text).findall(text, start, end)
        rests = list(map(itemgetter(1), found))
        # (Passes, most of a summary, carry no message: a block of them needs no cut.)
        if text.find(" - ", start, end) == -1:
            looked_up = list(map(known.get, rests))
        else:
            nodes = map(itemgetter(0), map(str.partition, rests, repeat(" - ")))
            looked_up = list(map(known.get, nodes))
        words = list(map(itemgetter(0), found))
        ids = cast("list[str]", looked_up)
        if not all(looked_up):  # (an official id is never empty)
            kept: list[tuple[str, str]] = []
            for test_id, word, rest in zip(looked_up, words, rests, strict=True):
                if test_id is None:
                    line = f"{word} {rest}"
                    match = _SUMMARY_LINES.of(line).match("\n" + line)
                    if match is None:
                        continue
                    if match[3]:
                        self.collection_errors += "::" not in match[3]
                        continue
                    test_id = self._id(match[2])
                kept.append((test_id, word))
            ids = list(map(itemgetter(0), kept))
            words = list(map(itemgetter(1), kept))
        session = self.session
        session.summary_ids += ids
        session.summary_statuses += map(_STATUS.__getitem__, words)
        session.summary_has_pass |= "PASSED" in words

    def header(self, line: str, title: str) -> str:
        """A ``=== title ===`` line: the region that follows it."""
        tally = summary_tally(line)
        if tally is not None:
            self.result.report(tally)
            return "other"
        title = title.lower()
        if "test session starts" in title:
            self.session.flush(self.result)
            self.session = _Session()
            return "progress"
        if "short test summary info" in title:
            return "summary"
        return "other"


def parse_pytest_text(text: str, *, legacy_ids: bool = False) -> ParseResult:
    """Parse a pytest log (see the module docstring).

    With ``legacy_ids`` every test whose official-harness id (``legacy_official_id``)
    differs from its proper id is also recorded under that id, with the same status (a
    failure wins when several tests share it).
    """
    text = visible_text(text)
    reader = _Reader(text, legacy_ids)
    region = "progress"
    pos = 0
    for header in _HEADER_LINE.of(text).finditer(text):
        reader.read(region, pos, header.start())
        pos = header.end()
        region = reader.header(header.group(0)[1:], header.group("title"))
    reader.read(region, pos, len(text))
    result = reader.result
    reader.session.flush(result)
    if reader.variants:
        _record_legacy(result, reader.variants)
    if reader.collection_errors:
        errors = reader.collection_errors
        result.notes.append(f"{errors} collection errors (files that did not import)")
        result.unnamed_failures += errors
    return result


@register("pytest")
def parse_pytest(text: str) -> ParseResult:
    """pytest ``-rA``/``-v`` log: ``path:Class|None:test[param]``."""
    return parse_pytest_text(text)
