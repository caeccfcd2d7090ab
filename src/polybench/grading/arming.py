"""Arming a fail-to-pass test: one of its own assertions turned round, nothing else.

The canary run (see :mod:`polybench.grading.canaries`) runs the repository's tests with
every fail-to-pass (F2P) test *armed*: one assertion statement of the test's own body is
inverted in place (``==`` to ``!=``, ``expect(x).toBe(y)`` to ``expect(x).not.toBe(y)``,
``assertEquals`` to ``assertNotEquals``, ``assertTrue`` to ``assertFalse``...). The test
keeps its name, its file, its position, its line numbers and every call it makes up to
that assertion. A patch that really fixes the test makes every assertion before it pass,
so the inverted one is reached and fails: an armed test that passed can only mean that a
failure was turned into a pass.

Only statements the test always reaches when it passes are armed: direct statements of
the test's body, in a body with nothing that could end it early (``return``, skips,
assumptions, callbacks). Where the test lives and how it is written is read with
tree-sitter; the inversion only rewrites text inside one line, so lines never move.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

from polybench.metrics.languages import language_for, parser_for


@dataclass(frozen=True)
class Edit:
    """Replace ``source[start:end]`` (bytes) with ``text``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Inversion:
    """How one assertion statement is turned round."""

    form: str
    """The inversion template (``python ==``, ``expect .not``, ``assertEquals``...)."""
    line: int
    """1-based line of the statement."""
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class FoundTest:
    """A test in a file: the names around it (outermost first) and its inversions."""

    names: tuple[str, ...]
    inversions: tuple[Inversion, ...]


# Anything in a test body before the armed statement that could end the test without
# reaching it, or make it skip.
_ENDS_EARLY = re.compile(
    r"\b(?:return|yield|skip\w*|importorskip|xfail|assume\w*|Assume\w*|pending|todo|done"
    r"|exit|System\.exit|this\.skip)\b"
)


def _text(node: Node | None) -> str:
    return "" if node is None else (node.text or b"").decode("utf-8", "replace")


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _statements(body: Node | None) -> list[Node]:
    if body is None:
        return []
    return [child for child in body.children if child.is_named and "comment" not in child.type]


def _reachable(source: bytes, body: Node, statements: list[Node]) -> list[Node]:
    """The statements that always run when the test passes: those before the first one
    that could end the body early (a ``return``, a skip)."""
    kept: list[Node] = []
    for statement in statements:
        if _ENDS_EARLY.search(
            source[body.start_byte : statement.end_byte].decode("utf-8", "replace")
        ):
            break
        kept.append(statement)
    return kept


def _inversions(
    source: bytes, body: Node, invert: _Inverter, context: dict[str, str]
) -> tuple[Inversion, ...]:
    found = []
    for statement in _reachable(source, body, _statements(body)):
        inversion = invert(statement, context)
        if inversion is not None:
            found.append(inversion)
    return tuple(found)


class _Inverter:
    """Per-language: an inversion of one statement, or None."""

    def __call__(self, statement: Node, context: dict[str, str]) -> Inversion | None:
        raise NotImplementedError


def _edit(node: Node, text: str) -> Edit:
    return Edit(node.start_byte, node.end_byte, text)


def _insert(position: int, text: str) -> Edit:
    return Edit(position, position, text)


def _line(node: Node) -> int:
    return node.start_point[0] + 1


# ---------------------------------------------------------------- Python

_PY_OPPOSITES = {
    "==": "!=", "!=": "==", "is": "is not", "is not": "is", "in": "not in", "not in": "in",
    "<": ">=", ">=": "<", ">": "<=", "<=": ">",
}  # fmt: skip
_UNITTEST_OPPOSITES = {
    "assertEqual": "assertNotEqual", "assertNotEqual": "assertEqual",
    "assertTrue": "assertFalse", "assertFalse": "assertTrue",
    "assertIs": "assertIsNot", "assertIsNot": "assertIs",
    "assertIsNone": "assertIsNotNone", "assertIsNotNone": "assertIsNone",
    "assertIn": "assertNotIn", "assertNotIn": "assertIn",
    "assertIsInstance": "assertNotIsInstance", "assertNotIsInstance": "assertIsInstance",
    "assertAlmostEqual": "assertNotAlmostEqual", "assertNotAlmostEqual": "assertAlmostEqual",
    "assertRegex": "assertNotRegex", "assertNotRegex": "assertRegex",
    "assertGreater": "assertLessEqual", "assertLessEqual": "assertGreater",
    "assertLess": "assertGreaterEqual", "assertGreaterEqual": "assertLess",
    "assertListEqual": "assertNotEqual", "assertTupleEqual": "assertNotEqual",
    "assertDictEqual": "assertNotEqual", "assertSetEqual": "assertNotEqual",
    "assertSequenceEqual": "assertNotEqual", "assertMultiLineEqual": "assertNotEqual",
}  # fmt: skip
_PY_PRIMARY = ("identifier", "call", "attribute", "subscript", "parenthesized_expression")


class _PythonInverter(_Inverter):
    def __call__(self, statement: Node, context: dict[str, str]) -> Inversion | None:
        if statement.type == "assert_statement":
            return self._assert(statement)
        if statement.type == "expression_statement" and statement.named_children:
            call = statement.named_children[0]
            if call.type == "call":
                return self._unittest(statement, call)
        return None

    def _assert(self, statement: Node) -> Inversion | None:
        condition = statement.named_children[0] if statement.named_children else None
        if condition is None:
            return None
        line = _line(statement)
        if condition.type == "comparison_operator":
            operators = [c for c in condition.children if not c.is_named]
            if len(condition.named_children) != 2 or not operators:
                return None
            start, end = operators[0].start_byte, operators[-1].end_byte
            operator = " ".join(_text(o) for o in operators)
            opposite = _PY_OPPOSITES.get(operator)
            if opposite is None:
                return None
            return Inversion(f"python {operator}", line, (Edit(start, end, opposite),))
        if condition.type == "not_operator":
            argument = condition.child_by_field_name("argument")
            if argument is None or argument.type not in _PY_PRIMARY:
                return None
            return Inversion(
                "python not", line, (Edit(condition.start_byte, argument.start_byte, ""),)
            )
        if condition.type in _PY_PRIMARY:
            return Inversion("python truth", line, (_insert(condition.start_byte, "not "),))
        return None

    def _unittest(self, statement: Node, call: Node) -> Inversion | None:
        function = call.child_by_field_name("function")
        if function is None or function.type != "attribute":
            return None
        owner = function.child_by_field_name("object")
        name = function.child_by_field_name("attribute")
        method = _text(name)
        opposite = _UNITTEST_OPPOSITES.get(method)
        if owner is None or _text(owner) != "self" or name is None or opposite is None:
            return None
        arguments = call.child_by_field_name("arguments")
        if arguments is None or any(c.type == "keyword_argument" for c in arguments.named_children):
            return None
        if (
            opposite == "assertNotEqual"
            and method != "assertEqual"
            and len(arguments.named_children) > 3
        ):
            return None
        return Inversion(method, _line(statement), (_edit(name, opposite),))


def _python_tests(source: bytes, root: Node) -> list[tuple[tuple[str, ...], Node]]:
    tests: list[tuple[tuple[str, ...], Node]] = []
    for node in _walk(root):
        if node.type != "function_definition":
            continue
        name = _text(node.child_by_field_name("name"))
        if not name.startswith("test"):
            continue
        outer = (
            node.parent
            if node.parent is not None and node.parent.type == "decorated_definition"
            else node
        )
        names = [name]
        container = outer.parent
        while container is not None and container.type == "block":
            owner = container.parent
            if owner is None or owner.type != "class_definition":
                break  # a function nested in a function: not a test
            names.insert(0, _text(owner.child_by_field_name("name")))
            holder = owner.parent
            if holder is not None and holder.type == "decorated_definition":
                holder = holder.parent
            container = holder
        if container is None or container.type != "module":
            continue
        body = node.child_by_field_name("body")
        if body is not None:
            tests.append((tuple(names), body))
    return tests


# ---------------------------------------------------------------- JavaScript / TypeScript

_JS_TEST_CALLEES = frozenset({"it", "test", "specify"})
_JS_GROUP_CALLEES = frozenset({"describe", "context", "suite"})
_NODE_ASSERT_OPPOSITES = {
    "strictEqual": "notStrictEqual", "notStrictEqual": "strictEqual",
    "equal": "notEqual", "notEqual": "equal",
    "deepStrictEqual": "notDeepStrictEqual", "notDeepStrictEqual": "deepStrictEqual",
    "deepEqual": "notDeepEqual", "notDeepEqual": "deepEqual",
    "throws": "doesNotThrow", "doesNotThrow": "throws",
    "rejects": "doesNotReject", "doesNotReject": "rejects",
    "match": "doesNotMatch", "doesNotMatch": "match",
}  # fmt: skip
_CHAI_ASSERT_OPPOSITES = {
    "strictEqual": "notStrictEqual", "notStrictEqual": "strictEqual",
    "equal": "notEqual", "notEqual": "equal",
    "deepEqual": "notDeepEqual", "notDeepEqual": "deepEqual",
    "isTrue": "isFalse", "isFalse": "isTrue", "isOk": "isNotOk", "isNotOk": "isOk",
    "isNull": "isNotNull", "isNotNull": "isNull",
    "isUndefined": "isDefined", "isDefined": "isUndefined",
    "include": "notInclude", "notInclude": "include",
    "match": "notMatch", "notMatch": "match",
    "throws": "doesNotThrow", "doesNotThrow": "throws",
    "instanceOf": "notInstanceOf", "notInstanceOf": "instanceOf",
    "sameMembers": "notSameMembers", "notSameMembers": "sameMembers",
}  # fmt: skip
_NODE_ASSERT_MODULE = r"""['"](?:node:)?assert(?:/strict)?['"]"""
_NODE_ASSERT_NAMES = (
    re.compile(rf"(?:const|let|var)\s+(\w+)\s*=\s*require\(\s*{_NODE_ASSERT_MODULE}\s*\)"),
    re.compile(rf"import\s+(?:\*\s+as\s+)?(\w+)\s+from\s+{_NODE_ASSERT_MODULE}"),
    re.compile(rf"import\s*\{{\s*strict\s+as\s+(\w+)\s*\}}\s*from\s+{_NODE_ASSERT_MODULE}"),
    re.compile(
        rf"(?:const|let|var)\s*\{{\s*strict\s*:\s*(\w+)\s*\}}\s*=\s*require\(\s*{_NODE_ASSERT_MODULE}"
    ),
)
_CHAI_ASSERT = re.compile(
    r"""(?:\{[^}]*\bassert\b[^}]*\}\s*=\s*require\(\s*['"]chai['"]|import\s*\{[^}]*\bassert\b[^}]*\}\s*from\s*['"]chai['"])"""
)
_SNAPSHOT = re.compile(r"Snapshot|\.soft\b|\.poll\b")
_JS_PRIMARY = ("identifier", "call_expression", "member_expression", "parenthesized_expression")


def _assert_names(text: str) -> dict[str, str]:
    """Identifiers bound to an assertion module in ``text``: name -> ``node`` or ``chai``."""
    names = {
        match.group(1): "node" for pattern in _NODE_ASSERT_NAMES for match in pattern.finditer(text)
    }
    if _CHAI_ASSERT.search(text):
        names["assert"] = "chai"
    return names


def _unwrap_await(node: Node) -> Node:
    while node.type in ("await_expression", "parenthesized_expression") and node.named_children:
        node = node.named_children[0]
    return node


class _JavaScriptInverter(_Inverter):
    def __call__(self, statement: Node, context: dict[str, str]) -> Inversion | None:
        if statement.type != "expression_statement" or not statement.named_children:
            return None
        expression = _unwrap_await(statement.named_children[0])
        line = _line(statement)
        chain = self._expect_chain(expression)
        if chain is not None:
            return self._expect(chain, line)
        if expression.type != "call_expression":
            return None
        function = expression.child_by_field_name("function")
        arguments = expression.child_by_field_name("arguments")
        if function is None or arguments is None:
            return None
        if function.type == "identifier" and context.get(_text(function)) == "node":
            return self._negate_first(arguments, line, "assert(value)")
        if function.type != "member_expression":
            return None
        owner = function.child_by_field_name("object")
        method = function.child_by_field_name("property")
        library = context.get(_text(owner))
        if owner is None or method is None or library is None:
            return None
        name = _text(method)
        if name == "ok":
            return self._negate_first(arguments, line, "assert.ok")
        opposites = _NODE_ASSERT_OPPOSITES if library == "node" else _CHAI_ASSERT_OPPOSITES
        opposite = opposites.get(name)
        if opposite is None:
            return None
        return Inversion(f"{library} assert.{name}", line, (_edit(method, opposite),))

    @staticmethod
    def _expect_chain(expression: Node) -> list[Node] | None:
        """The member and call nodes from ``expect(...)`` outwards, or None."""
        chain: list[Node] = []
        node: Node | None = expression
        while node is not None:
            chain.append(node)
            if node.type == "call_expression":
                function = node.child_by_field_name("function")
                if function is not None and function.type == "identifier":
                    return chain[::-1] if _text(function) == "expect" and len(chain) > 1 else None
                node = function
            elif node.type == "member_expression":
                node = node.child_by_field_name("object")
            else:
                return None
        return None

    @staticmethod
    def _expect(chain: list[Node], line: int) -> Inversion | None:
        if _SNAPSHOT.search(_text(chain[-1])):
            return None
        for member in chain[1:]:
            if (
                member.type == "member_expression"
                and _text(member.child_by_field_name("property")) == "not"
            ):
                owner = member.child_by_field_name("object")
                assert owner is not None
                return Inversion(
                    "expect remove .not", line, (Edit(owner.end_byte, member.end_byte, ""),)
                )
        anchor = chain[0]
        for member in chain[1:]:
            property_name = _text(member.child_by_field_name("property"))
            if member.type == "member_expression" and property_name in ("resolves", "rejects"):
                anchor = member
            else:
                break
        return Inversion("expect .not", line, (_insert(anchor.end_byte, ".not"),))

    @staticmethod
    def _negate_first(arguments: Node, line: int, form: str) -> Inversion | None:
        values = arguments.named_children
        if not values:
            return None
        first = values[0]
        if (
            first.type == "unary_expression"
            and _text(first).startswith("!")
            and first.named_children
        ):
            inner = first.named_children[0]
            return Inversion(
                f"{form} remove !", line, (Edit(first.start_byte, inner.start_byte, ""),)
            )
        if first.type not in _JS_PRIMARY:
            return None
        return Inversion(form, line, (_insert(first.start_byte, "!"),))


def _js_title(call: Node) -> str | None:
    arguments = call.child_by_field_name("arguments")
    first = (
        arguments.named_children[0] if arguments is not None and arguments.named_children else None
    )
    if first is None or first.type not in ("string", "template_string"):
        return None
    if (
        first.type == "template_string"
        and first.named_children
        and any(c.type == "template_substitution" for c in first.named_children)
    ):
        return None
    title = _text(first)[1:-1]
    return None if "\\" in title else title


def _js_tests(source: bytes, root: Node) -> list[tuple[tuple[str, ...], Node]]:
    tests: list[tuple[tuple[str, ...], Node]] = []
    for node in _walk(root):
        if node.type != "call_expression":
            continue
        callee = node.child_by_field_name("function")
        if callee is None or callee.type != "identifier" or _text(callee) not in _JS_TEST_CALLEES:
            continue
        title = _js_title(node)
        arguments = node.child_by_field_name("arguments")
        values = arguments.named_children if arguments is not None else []
        if title is None or len(values) != 2:
            continue
        function = values[1]
        parameters = function.child_by_field_name("parameters")
        body = function.child_by_field_name("body")
        if function.type not in ("arrow_function", "function_expression", "function"):
            continue
        if (
            parameters is None
            or parameters.named_children
            or body is None
            or body.type != "statement_block"
        ):
            continue  # a test that takes a callback may end before its last statement
        names = [title]
        parent = node.parent
        while parent is not None:
            if parent.type == "call_expression":
                group = parent.child_by_field_name("function")
                if (
                    group is not None
                    and group.type == "identifier"
                    and _text(group) in _JS_GROUP_CALLEES
                ):
                    group_title = _js_title(parent)
                    if group_title is None:
                        break
                    names.insert(0, group_title)
            parent = parent.parent
        else:
            tests.append((tuple(names), body))
    return tests


# ---------------------------------------------------------------- Java

_JUNIT_OPPOSITES = {
    "assertEquals": "assertNotEquals", "assertNotEquals": "assertEquals",
    "assertTrue": "assertFalse", "assertFalse": "assertTrue",
    "assertNull": "assertNotNull", "assertNotNull": "assertNull",
    "assertSame": "assertNotSame", "assertNotSame": "assertSame",
}  # fmt: skip
_FLUENT_OPPOSITES = {
    "isEqualTo": "isNotEqualTo", "isNotEqualTo": "isEqualTo",
    "isTrue": "isFalse", "isFalse": "isTrue",
    "isNull": "isNotNull", "isNotNull": "isNull",
    "isSameAs": "isNotSameAs", "isNotSameAs": "isSameAs",
    "isInstanceOf": "isNotInstanceOf", "isNotInstanceOf": "isInstanceOf",
    "isEmpty": "isNotEmpty", "isNotEmpty": "isEmpty",
    "contains": "doesNotContain", "doesNotContain": "contains",
    "containsKey": "doesNotContainKey", "doesNotContainKey": "containsKey",
}  # fmt: skip
_ASSERTION_CLASSES = frozenset(
    {"org.junit.Assert", "org.junit.jupiter.api.Assertions", "org.testng.Assert",
     "junit.framework.Assert", "junit.framework.TestCase"}
)  # fmt: skip
_JAVA_TEST_ANNOTATIONS = frozenset({"Test", "ParameterizedTest", "RepeatedTest"})
_STATIC_IMPORT = re.compile(r"import\s+static\s+([\w.]+)\.(\w+|\*)\s*;")


def _static_imports(text: str) -> dict[str, str]:
    """Statically imported names -> their class; ``*`` entries keyed ``*<class>``."""
    found: dict[str, str] = {}
    for owner, name in _STATIC_IMPORT.findall(text):
        found[f"*{owner}" if name == "*" else name] = owner
    return found


class _JavaInverter(_Inverter):
    def __call__(self, statement: Node, context: dict[str, str]) -> Inversion | None:
        if statement.type != "expression_statement" or not statement.named_children:
            return None
        call = statement.named_children[0]
        if call.type != "method_invocation":
            return None
        name_node = call.child_by_field_name("name")
        owner = call.child_by_field_name("object")
        name = _text(name_node)
        line = _line(statement)
        if name_node is None:
            return None
        if name in _JUNIT_OPPOSITES:
            opposite = _JUNIT_OPPOSITES[name]
            if owner is not None:
                return Inversion(f"{name} (qualified)", line, (_edit(name_node, opposite),))
            stars = [key[1:] for key in context if key[1:] in _ASSERTION_CLASSES]
            owner_class = context.get(name) or (stars[0] if stars else None)
            if owner_class is None:
                return None  # a method of the class itself, or inherited
            if opposite in context or f"*{owner_class}" in context:
                return Inversion(f"{name} (imported)", line, (_edit(name_node, opposite),))
            return Inversion(f"{name} (imported, opposite qualified)", line,
                             (_edit(name_node, f"{owner_class}.{opposite}"),))  # fmt: skip
        if name in _FLUENT_OPPOSITES and self._fluent(owner):
            return Inversion(
                f"assertThat().{name}", line, (_edit(name_node, _FLUENT_OPPOSITES[name]),)
            )
        return None

    @staticmethod
    def _fluent(owner: Node | None) -> bool:
        """True when the call chain starts at ``assertThat(...)`` (AssertJ, Truth)."""
        while owner is not None and owner.type == "method_invocation":
            if _text(owner.child_by_field_name("name")) == "assertThat":
                return True
            owner = owner.child_by_field_name("object")
        return False


def _java_tests(source: bytes, root: Node) -> list[tuple[tuple[str, ...], Node]]:
    tests: list[tuple[tuple[str, ...], Node]] = []
    for node in _walk(root):
        if node.type != "method_declaration":
            continue
        modifiers = next((c for c in node.children if c.type == "modifiers"), None)
        annotations = [
            c for c in (modifiers.children if modifiers else []) if "annotation" in c.type
        ]
        names_of = {_text(a.child_by_field_name("name")).rsplit(".", 1)[-1] for a in annotations}
        if not names_of & _JAVA_TEST_ANNOTATIONS:
            continue
        names = [_text(node.child_by_field_name("name"))]
        parent = node.parent
        while parent is not None:
            if parent.type in ("class_declaration", "record_declaration", "enum_declaration"):
                names.insert(0, _text(parent.child_by_field_name("name")))
            parent = parent.parent
        body = node.child_by_field_name("body")
        if body is not None:
            tests.append((tuple(names), body))
    return tests


# ---------------------------------------------------------------- entry point


def find_tests(path: str, text: str) -> list[FoundTest]:
    """Every test of ``text`` (the file at ``path``) with the inversions it allows."""
    spec = language_for(path)
    if spec is None:
        return []
    source = text.encode("utf-8")
    tree = parser_for(spec).parse(source)
    if tree.root_node.has_error:
        return []
    inverter: _Inverter
    if spec.name == "python":
        tests, inverter, context = _python_tests(source, tree.root_node), _PythonInverter(), {}
    elif spec.name == "java":
        tests, inverter = _java_tests(source, tree.root_node), _JavaInverter()
        context = _static_imports(text)
    else:
        tests, inverter = _js_tests(source, tree.root_node), _JavaScriptInverter()
        context = _assert_names(text)
    return [FoundTest(names, _inversions(source, body, inverter, context)) for names, body in tests]


def apply_inversions(text: str, inversions: list[Inversion]) -> str:
    """``text`` with every inversion applied (their edits never overlap)."""
    out = bytearray(text.encode("utf-8"))
    edits = sorted((e for i in inversions for e in i.edits), key=lambda e: e.start, reverse=True)
    for edit in edits:
        out[edit.start : edit.end] = edit.text.encode("utf-8")
    return out.decode("utf-8")


def choose(test: FoundTest, rng: random.Random) -> Inversion | None:
    """One of the test's inversions, at random (None when it has none)."""
    return rng.choice(test.inversions) if test.inversions else None
