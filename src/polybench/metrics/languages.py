"""Which files have a syntax tree, and which tree-sitter node types are classes and functions.

One :class:`LanguageSpec` per grammar. Node types are tree-sitter's own names, so the
node ids match the official ``modified_nodes`` form
(``path->module->class_definition:Foo->function_definition:bar``).

What counts as a node (classes and functions; everything else is "module level"):

- Python: ``class_definition``, ``function_definition`` (methods, nested and ``async``
  functions too); a decorator belongs to the definition it decorates.
- Java: ``class_declaration``, ``interface_declaration``, ``enum_declaration``,
  ``record_declaration``, ``annotation_type_declaration`` are classes;
  ``method_declaration``, ``constructor_declaration``, ``compact_constructor_declaration``
  are functions. Lambdas are not nodes.
- JavaScript / TypeScript: ``class_declaration``, ``abstract_class_declaration`` and
  ``class`` (class expressions) are classes; ``function_declaration``,
  ``generator_function_declaration`` and ``method_definition`` are functions, and so are
  ``arrow_function``, ``function_expression`` and ``generator_function`` when they are
  bound to a name: a variable (``const f = () => {}`` gives ``arrow_function:f``), an
  object key (``{f: () => {}}``), a class field (``f = () => {}``) or an assignment
  target (``exports.f = function () {}`` gives ``function_expression:f``). Anonymous
  callbacks are part of the function around them. ``export`` statements are skipped.
  TypeScript ``interface``, ``type``, ``enum`` and ``namespace`` declarations are not
  nodes: they are type-level declarations (the SWE-PolyBench dataset does not list them,
  and neither does the ``mini`` dataset), so a change to them is a module-level change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath

from tree_sitter import Language, Parser, Query

CLASS = "class"
FUNCTION = "function"

_PY_CLASSES = ("class_definition",)
_PY_FUNCTIONS = ("function_definition",)
_JAVA_CLASSES = (
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
)
_JAVA_FUNCTIONS = (
    "method_declaration",
    "constructor_declaration",
    "compact_constructor_declaration",
)
_JS_CLASSES = ("class_declaration", "class")
_TS_CLASSES = ("class_declaration", "abstract_class_declaration", "class")
_JS_FUNCTIONS = ("function_declaration", "generator_function_declaration", "method_definition")
_JS_BOUND_FUNCTIONS = ("arrow_function", "function_expression", "generator_function")

NODE_KINDS: dict[str, str] = {
    **dict.fromkeys(_PY_CLASSES + _JAVA_CLASSES + _TS_CLASSES, CLASS),
    **dict.fromkeys(
        _PY_FUNCTIONS + _JAVA_FUNCTIONS + _JS_FUNCTIONS + _JS_BOUND_FUNCTIONS, FUNCTION
    ),
}
"""Every node type that can appear in a node id, and whether it is a class or a function."""


@dataclass(frozen=True)
class LanguageSpec:
    """A grammar and the node types that are classes and functions in it."""

    name: str
    root: str
    classes: tuple[str, ...]
    functions: tuple[str, ...]
    bound_functions: tuple[str, ...] = ()
    """Function types that are nodes only when bound to a name (JS/TS arrow functions...)."""
    decorators_as_siblings: bool = False
    """JS/TS: decorators are siblings before the class member or class they decorate."""

    @property
    def kinds(self) -> dict[str, str]:
        """Node type -> ``class`` or ``function``, for this language."""
        return {
            **dict.fromkeys(self.classes, CLASS),
            **dict.fromkeys(self.functions + self.bound_functions, FUNCTION),
        }


def _load_python() -> object:
    import tree_sitter_python

    return tree_sitter_python.language()


def _load_java() -> object:
    import tree_sitter_java

    return tree_sitter_java.language()


def _load_javascript() -> object:
    import tree_sitter_javascript

    return tree_sitter_javascript.language()


def _load_typescript() -> object:
    import tree_sitter_typescript

    return tree_sitter_typescript.language_typescript()


def _load_tsx() -> object:
    import tree_sitter_typescript

    return tree_sitter_typescript.language_tsx()


PYTHON = LanguageSpec("python", "module", _PY_CLASSES, _PY_FUNCTIONS)
JAVA = LanguageSpec("java", "program", _JAVA_CLASSES, _JAVA_FUNCTIONS)
JAVASCRIPT = LanguageSpec(
    "javascript", "program", _JS_CLASSES, _JS_FUNCTIONS, _JS_BOUND_FUNCTIONS, True
)
TYPESCRIPT = LanguageSpec(
    "typescript", "program", _TS_CLASSES, _JS_FUNCTIONS, _JS_BOUND_FUNCTIONS, True
)
TSX = LanguageSpec("tsx", "program", _TS_CLASSES, _JS_FUNCTIONS, _JS_BOUND_FUNCTIONS, True)

_LOADERS: dict[str, Callable[[], object]] = {
    PYTHON.name: _load_python,
    JAVA.name: _load_java,
    JAVASCRIPT.name: _load_javascript,
    TYPESCRIPT.name: _load_typescript,
    TSX.name: _load_tsx,
}

EXTENSIONS: dict[str, LanguageSpec] = {
    ".py": PYTHON,
    ".pyi": PYTHON,
    ".java": JAVA,
    ".js": JAVASCRIPT,
    ".jsx": JAVASCRIPT,
    ".mjs": JAVASCRIPT,
    ".cjs": JAVASCRIPT,
    ".ts": TYPESCRIPT,
    ".mts": TYPESCRIPT,
    ".cts": TYPESCRIPT,
    ".tsx": TSX,
}
"""File extension (lower case) -> grammar. Other files have no syntax tree."""


def language_for(path: str) -> LanguageSpec | None:
    """The grammar for a file path, or None for a file that is not code we parse."""
    return EXTENSIONS.get(PurePosixPath(path).suffix.lower())


@cache
def grammar(spec: LanguageSpec) -> Language:
    """The tree-sitter language of ``spec`` (loaded once)."""
    return Language(_LOADERS[spec.name]())


@cache
def node_query(spec: LanguageSpec) -> Query:
    """A query capturing every candidate class/function node as ``@n``."""
    types = [*spec.classes, *spec.functions, *spec.bound_functions]
    patterns = " ".join(f"({node_type})" for node_type in types)
    query: Query = Query(grammar(spec), f"[{patterns}] @n")
    return query


_local = threading.local()


def parser_for(spec: LanguageSpec) -> Parser:
    """A parser for ``spec`` owned by the calling thread (parsers are not shared)."""
    parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = {}
        _local.parsers = parsers
    parser = parsers.get(spec.name)
    if parser is None:
        parser = Parser(grammar(spec))
        parsers[spec.name] = parser
    return parser
