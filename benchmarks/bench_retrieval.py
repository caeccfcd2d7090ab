"""Throughput of file + CST-node retrieval metrics on prediction/gold pairs.

Pairs cycle through the ``mini`` instances with five kinds of prediction: the gold patch,
an empty patch, a partial one (the gold patch's first file only), a mismatched one (the
gold patch of another instance) and a stale one (a removed line altered, so it does not
apply). Measured in the same run:

* polybench: ``RetrievalScorer.score`` (file contents from one ``git cat-file --batch``
  per repository, patches applied in memory), with its caches, and again with the base
  file caches off (``cache_size=0``; the gold nodes are still computed once per instance);
* checkout baseline: what a checkout-based scorer does for each pair: a fresh worktree at
  the base commit, ``git apply`` (then ``patch --fuzz=5``, as the evaluation does) of the
  gold patch and of the prediction (with a reset between), every touched file read from
  disk before and after and parsed with polybench's own tree-sitter code, then the
  worktree removed.

The checkout baseline is written here, on polybench's node code: it is not the official
harness's retrieval code, which needs the tree-sitter release it pins and a grammar
library it compiles, and whose node ids differ on purpose (README, "How it differs").
Both scorers must produce the same node sets. Prints pairs per second and the ratios.

    python benchmarks/bench_retrieval.py                  # 1000 pairs
    python benchmarks/bench_retrieval.py --pairs 200 --output benchmarks/results/retrieval.md
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from unidiff.patch import PatchSet

from polybench.dataset.builtin import load_builtin, materialise_builtin_repos
from polybench.dataset.models import Instance
from polybench.environments.repos import RepoStore
from polybench.metrics.cst import changed_node_ids, parse_nodes
from polybench.metrics.files import file_retrieval, patch_files
from polybench.metrics.hunks import Span
from polybench.metrics.languages import language_for
from polybench.metrics.prf import set_prf
from polybench.metrics.retrieval import RetrievalScorer

BASELINE = "checkout baseline (polybench's node code, not the official harness)"
KINDS = ("gold", "empty", "partial", "mismatched", "stale")
Pair = tuple[Instance, str, str]


def _partial(patch: str) -> str:
    parts = patch.split("diff --git ")
    return "diff --git " + parts[1] if len(parts) > 1 else patch


def _stale(patch: str) -> str:
    for line in patch.splitlines():
        if line.startswith("-") and not line.startswith("---"):
            return patch.replace(line, line + " /* changed */", 1)
    return patch.replace("\n@@ ", "\n@@ ", 1).replace("\n ", "\n  ", 1)


def make_pairs(instances: list[Instance], count: int) -> list[Pair]:
    """``count`` (instance, kind, prediction) triples cycling instances and kinds."""
    pairs = []
    for n in range(count):
        instance = instances[n % len(instances)]
        kind = KINDS[(n // len(instances)) % len(KINDS)]
        other = next(
            (i for i in instances if i.repo == instance.repo and i is not instance), instance
        )
        prediction = {
            "gold": instance.patch,
            "empty": "",
            "partial": _partial(instance.patch),
            "mismatched": other.patch,
            "stale": _stale(instance.patch),
        }[kind]
        pairs.append((instance, kind, prediction))
    return pairs


def fast(pairs: list[Pair], store: RepoStore, cache_size: int) -> tuple[float, list[list[str]]]:
    """Seconds to score every pair with ``RetrievalScorer``, and the predicted nodes."""
    nodes = []
    started = time.perf_counter()
    with RetrievalScorer(store, cache_size=cache_size) as scorer:
        for instance, _, prediction in pairs:
            nodes.append(scorer.score(instance, prediction).predicted_nodes)
    return time.perf_counter() - started, nodes


def _git(cwd: Path, *args: str, stdin: str | None = None) -> int:
    return subprocess.run(
        ["git", "-C", str(cwd), *args], input=stdin, text=True, capture_output=True
    ).returncode


def _spans(patch: str) -> dict[tuple[str, bool], list[Span]]:
    """``(path, old side?) -> spans`` from the diff's own line numbers."""
    spans: dict[tuple[str, bool], list[Span]] = {}
    for patched in PatchSet(patch):
        old = patched.source_file[2:] if patched.source_file.startswith("a/") else None
        new = patched.target_file[2:] if patched.target_file.startswith("b/") else None
        for hunk in patched:
            previous = None
            for line in hunk:
                kind = line.line_type
                if kind in "-+" and kind:
                    path, is_old = (old, True) if kind == "-" else (new, False)
                    number = line.source_line_no if kind == "-" else line.target_line_no
                    if path is None:
                        continue
                    runs = spans.setdefault((path, is_old), [])
                    if previous == kind and runs:
                        runs[-1] = (runs[-1][0], number)
                    else:
                        runs.append((number, number))
                previous = kind
    return spans


def _disk_nodes(checkout: Path, patch: str) -> list[str] | None:
    """Nodes of ``patch`` by reading files from disk before and after ``git apply``."""
    spans = _spans(patch)
    found: set[str] = set()
    for (path, is_old), side_spans in spans.items():
        spec = language_for(path)
        if spec is None or not is_old:
            continue
        text = (checkout / path).read_text(errors="surrogateescape")
        found |= changed_node_ids(path, parse_nodes(text, spec), side_spans)
    if _git(checkout, "apply", "--whitespace=nowarn", "-", stdin=patch) != 0:
        fuzzy = subprocess.run(
            ["patch", "--batch", "--fuzz=5", "-p1", "--forward", "--no-backup-if-mismatch"],
            cwd=checkout,
            input=patch,
            text=True,
            capture_output=True,
        )
        if fuzzy.returncode != 0:
            return None
    for (path, is_old), side_spans in spans.items():
        spec = language_for(path)
        if spec is None or is_old:
            continue
        text = (checkout / path).read_text(errors="surrogateescape")
        found |= changed_node_ids(path, parse_nodes(text, spec), side_spans)
    return sorted(found)


def baseline(pairs: list[Pair], repos: Path, scratch: Path) -> tuple[float, list[list[str]]]:
    """Seconds to score every pair the checkout way, and the predicted nodes."""
    nodes = []
    started = time.perf_counter()
    for number, (instance, _, prediction) in enumerate(pairs):
        clone = repos / instance.repo_dir_name
        checkout = scratch / f"wt{number}"
        _git(clone, "worktree", "add", "-q", "--detach", str(checkout), instance.base_commit)
        try:
            gold = _disk_nodes(checkout, instance.patch) or []
            _git(checkout, "reset", "-q", "--hard")
            _git(checkout, "clean", "-fdq")
            predicted = _disk_nodes(checkout, prediction) if prediction.strip() else None
            predicted = predicted or []
            file_retrieval(patch_files(instance.patch), patch_files(prediction))
            set_prf(gold, predicted)
            nodes.append(predicted)
        finally:
            _git(clone, "worktree", "remove", "--force", str(checkout))
    return time.perf_counter() - started, nodes


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--output", type=Path, default=None, help="also write Markdown here")
    args = parser.parse_args(argv)
    instances = load_builtin("mini")
    pairs = make_pairs(instances, args.pairs)
    with tempfile.TemporaryDirectory(prefix="bench-retrieval-") as temp:
        repos = Path(temp) / "repos"
        materialise_builtin_repos("mini", repos)
        store = RepoStore(repo_dir=repos)
        fast(pairs[: len(instances)], store, cache_size=0)  # warm up: load the grammars
        cached_s, cached_nodes = fast(pairs, store, cache_size=256)
        uncached_s, uncached_nodes = fast(pairs, store, cache_size=0)
        scratch = Path(temp) / "scratch"
        scratch.mkdir()
        base_s, base_nodes = baseline(pairs, repos, scratch)
    agree = sum(a == b for a, b in zip(cached_nodes, base_nodes, strict=True))
    assert cached_nodes == uncached_nodes
    rows = [
        (f"{BASELINE}: worktree + git apply + parse from disk", base_s),
        ("polybench: cat-file + in-memory apply, no file cache", uncached_s),
        ("polybench: cat-file + in-memory apply, cached", cached_s),
    ]
    lines = [
        f"Retrieval metrics (file + node) on {len(pairs)} prediction/gold pairs of `mini` "
        f"({', '.join(KINDS)})",
        "",
        "| scorer | seconds | pairs/s | speed-up vs checkout baseline |",
        "|---|---:|---:|---:|",
    ]
    for name, seconds in rows:
        lines.append(
            f"| {name} | {seconds:.2f} | {len(pairs) / seconds:.0f} | {base_s / seconds:.1f}x |"
        )
    lines += [
        "",
        f"predicted node sets identical to the checkout baseline: {agree}/{len(pairs)}",
        "",
        "The checkout baseline runs polybench's own tree-sitter code; the official "
        "harness's retrieval code is not run by this benchmark.",
    ]
    text = "\n".join(lines)
    print(text)
    if args.output is not None:
        args.output.write_text(text + "\n")
    return 0 if agree == len(pairs) else 1


if __name__ == "__main__":
    sys.exit(main())
