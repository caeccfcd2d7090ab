"""Which log parser reads the test logs of each official SWE-PolyBench repository.

The names are those of ``polybench.grading.parsers``; each produces exactly the test ids
the official harness put in ``F2P``/``P2P`` for that repository (checked against the
official results of real leaderboard runs).
"""

from __future__ import annotations

OFFICIAL_REPO_PARSERS: dict[str, str] = {
    # Java: Maven Surefire XML reports cat'ed into the log.
    "google/guava": "junit_xml",
    "google/gson": "junit_xml",
    "apache/dubbo": "junit_xml",
    "apolloconfig/apollo": "junit_xml",
    "apache/rocketmq": "junit_xml",
    "trinodb/trino": "junit_xml",
    # JavaScript / TypeScript.
    "mrdoob/three.js": "mocha_json_or_tap",  # QUnit TAP: "<n> <module > test>"
    "sveltejs/svelte": "mocha_json_or_tap",  # mocha JSON: fullTitle
    "serverless/serverless": "mocha_json",
    "microsoft/vscode": "mocha_json",
    "mui/material-ui": "mocha_json_file",
    "prettier/prettier": "jest_json",
    "coder/code-server": "jest_json",
    "tailwindlabs/tailwindcss": "jest_json_title",
    "angular/angular": "bazel",
    # Python: pytest or unittest, whichever the log holds.
    "Significant-Gravitas/AutoGPT": "pytest_or_unittest",
    "huggingface/transformers": "pytest_or_unittest",
    "langchain-ai/langchain": "pytest_or_unittest",
    "yt-dlp/yt-dlp": "pytest_or_unittest",
    "tensorflow/models": "pytest_or_unittest",
    "keras-team/keras": "pytest_or_unittest",
}


def parser_for(repo: str | None, declared: str | None = None) -> str:
    """Name of the parser for ``repo``: ``declared`` if given, else the official one.

    Raises ``ValueError`` when no parser is declared and the repository is not one of the
    official ones.
    """
    if declared:
        return declared
    if repo:
        name = OFFICIAL_REPO_PARSERS.get(repo)
        if name is None:
            # Repository names are case-insensitive on GitHub.
            lowered = {key.lower(): value for key, value in OFFICIAL_REPO_PARSERS.items()}
            name = lowered.get(repo.lower())
        if name is not None:
            return name
        raise ValueError(
            f"no log parser declared for repository {repo!r} and it is not an official "
            "SWE-PolyBench repository; set the instance's log_parser "
            f"(official repositories: {', '.join(sorted(OFFICIAL_REPO_PARSERS))})"
        )
    raise ValueError("cannot choose a log parser: neither a parser name nor a repository given")
