"""Class and function nodes of a file's syntax tree, and the deepest ones a change touches.

A file is parsed once with tree-sitter; :func:`parse_nodes` keeps only its class and
function nodes (see :mod:`polybench.metrics.languages`) with their line spans and their
nesting. For a change span, :func:`deepest_nodes` follows the paper (appendix D): the
affected nodes are those whose lines overlap the change, and the deepest are the affected
ones with no affected node inside them. A change that touches no class or function is a
module-level change and yields no node. Code that does not parse still yields the nodes
tree-sitter recovered around the error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tree_sitter import Node, QueryCursor

from polybench.metrics.hunks import Span
from polybench.metrics.languages import LanguageSpec, node_query, parser_for

_BINDING_PARENTS = ("variable_declarator", "pair", "field_definition", "public_field_definition")


@dataclass(frozen=True)
class CodeNode:
    """A class or function: its id below the root, kind, lines, and enclosing node."""

    label: str
    """``class_definition:Foo->function_definition:bar`` (the part after the root)."""
    kind: str
    start: int
    """First line (1-based), decorators included."""
    end: int
    parent: int
    """Index of the enclosing class/function in :attr:`FileNodes.nodes`, -1 when none."""


@dataclass(frozen=True)
class FileNodes:
    """The class and function nodes of one file."""

    root: str
    nodes: tuple[CodeNode, ...]
    has_errors: bool = False

    def node_id(self, path: str, node: CodeNode) -> str:
        """The official node id: ``path->root->type:name->...``."""
        return f"{path}->{self.root}->{node.label}"


def _text(node: Node | None) -> str | None:
    if node is None or node.text is None:
        return None
    return node.text.decode("utf-8", "replace")


def _key_name(node: Node | None) -> str | None:
    """The name of a property key, method name or declarator: quotes of string keys removed."""
    text = _text(node)
    if node is None or text is None:
        return None
    if node.type == "string" and len(text) >= 2:
        return text[1:-1]
    if node.type in ("identifier", "property_identifier", "private_property_identifier"):
        return text
    if node.type in ("type_identifier", "computed_property_name", "number"):
        return text
    return None


def _binding_name(node: Node) -> str | None:
    """The name a JS/TS function or class expression is bound to, if any."""
    child, parent = node, node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        child, parent = parent, parent.parent
    if parent is None:
        return None
    if parent.type in _BINDING_PARENTS:
        value = parent.child_by_field_name("value")
        if value is None or value != child:
            return None
        key_field = {"variable_declarator": "name", "pair": "key"}.get(parent.type)
        if key_field is None:  # class fields: "property" (JavaScript) or "name" (TypeScript)
            key = parent.child_by_field_name("property") or parent.child_by_field_name("name")
        else:
            key = parent.child_by_field_name(key_field)
        return _key_name(key)
    if parent.type in ("assignment_expression", "augmented_assignment_expression"):
        if parent.child_by_field_name("right") != child:
            return None
        target = parent.child_by_field_name("left")
        if target is not None and target.type == "member_expression":
            target = target.child_by_field_name("property")
        return _key_name(target)
    if parent.type == "export_statement":
        return "default"
    return None


def _name(node: Node, spec: LanguageSpec) -> str | None:
    if node.type in spec.bound_functions or node.type == "class":
        return _binding_name(node) or _key_name(node.child_by_field_name("name"))
    name = _key_name(node.child_by_field_name("name"))
    if name is None and node.parent is not None and node.parent.type == "export_statement":
        return "default"
    return name


def _first_line(node: Node, spec: LanguageSpec) -> int:
    """The node's first row, moved up to its decorators."""
    row = node.start_point.row
    parent = node.parent
    if parent is not None and parent.type == "decorated_definition":
        return parent.start_point.row
    if spec.decorators_as_siblings:
        sibling = node.prev_named_sibling
        while sibling is not None and sibling.type == "decorator":
            row = sibling.start_point.row
            sibling = sibling.prev_named_sibling
    return row


def _last_line(node: Node) -> int:
    row, column = node.end_point.row, node.end_point.column
    if column == 0 and row > node.start_point.row:
        row -= 1
    return row


def parse_nodes(text: str, spec: LanguageSpec) -> FileNodes:
    """Parse ``text`` and return its class and function nodes, in document order."""
    tree = parser_for(spec).parse(text.encode("utf-8", "surrogateescape"))
    captured = QueryCursor(node_query(spec)).captures(tree.root_node).get("n", [])
    kinds = spec.kinds
    found: list[tuple[int, int, str, str, int, int]] = []
    for node in captured:
        kind = kinds.get(node.type)
        if kind is None or node.start_byte == node.end_byte:
            continue
        name = _name(node, spec)
        if name is None:
            continue
        first, last = _first_line(node, spec) + 1, _last_line(node) + 1
        found.append((node.start_byte, node.end_byte, f"{node.type}:{name}", kind, first, last))
    found.sort(key=lambda item: (item[0], -item[1]))
    nodes: list[CodeNode] = []
    stack: list[tuple[int, int]] = []  # (end byte, index) of the open enclosing nodes
    for _, end_byte, segment, kind, first, last in found:
        while stack and stack[-1][0] < end_byte:
            stack.pop()
        parent = stack[-1][1] if stack else -1
        label = f"{nodes[parent].label}->{segment}" if parent >= 0 else segment
        nodes.append(CodeNode(label, kind, first, last, parent))
        stack.append((end_byte, len(nodes) - 1))
    return FileNodes(spec.root, tuple(nodes), tree.root_node.has_error)


def deepest_nodes(file_nodes: FileNodes, span: Span) -> list[CodeNode]:
    """The deepest class/function nodes whose lines overlap ``span`` (none: module level)."""
    first, last = span
    nodes = file_nodes.nodes
    affected = [i for i, node in enumerate(nodes) if node.start <= last and first <= node.end]
    enclosing: set[int] = set()
    for index in affected:
        parent = nodes[index].parent
        while parent >= 0 and parent not in enclosing:
            enclosing.add(parent)
            parent = nodes[parent].parent
    return [nodes[i] for i in affected if i not in enclosing]


def changed_node_ids(path: str, file_nodes: FileNodes, spans: Iterable[Span]) -> set[str]:
    """Ids of the deepest nodes touched by each span of one side of a file's change."""
    return {
        file_nodes.node_id(path, node) for span in spans for node in deepest_nodes(file_nodes, span)
    }
