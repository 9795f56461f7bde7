"""Every citation in the repository points inside it, at a section or rule its doc really has.

The rules live in the project's own docs: docs/bao.md ("Rules": sections and rule ids such as
[R4.2]), docs/mancala.md and docs/othello.md (numbered sections). A user's clone holds nothing
else, so no tracked text file may name a path outside the repository: the folder of rules,
vectors and design notes the project was written from, or an absolute path on a development
machine. And every section sign or rule id in brackets must name a label of the doc it cites:
explicitly (`docs/mancala.md` followed by the section), or through the one rules doc the file
names (a line "rule ids and sections refer to docs/bao.md" settles it when a file names several).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = ("tests/data/",)
"""Copied facts (the vectors), checked byte for byte elsewhere, not prose."""

SECTION = r"\u00a7\d+(?:\.\d+)*"
RULE = r"\[R\d+(?:\.\d+)*[a-z]?\]"
CITATION = re.compile(f"{SECTION}|{RULE}")
DOC = r"`?docs/([\w.-]+\.md)`?"
SEPARATOR = r"(?:\s*,\s*|\s+and\s+|\s+or\s+|\s*\.\.\s*|\s*[–-]\s*|\s+)"
EXPLICIT = re.compile(f"{DOC}((?:{SEPARATOR}(?:{SECTION}|{RULE}))+)")
"""`docs/X.md` followed by one or more citations: `docs/bao.md §2.3 and §17`."""
DECLARATION = re.compile(r"refers? to\b[^.\n]*?" + DOC)
"""A file's statement of the doc its bare citations mean: "... refer to docs/bao.md"."""
NAMED_DOC = re.compile(DOC)

OUTSIDE = re.compile(
    r"(?<![\w-])shared/(?:rules|vectors|design)\b"
    r"|\.\./shared\b"
    r"|(?<![\w.~-])/(?:work|home|Users)/"
)
"""Paths outside the repository: the specification folder, or an absolute machine path."""

HEADING = re.compile(r"^#{1,6}[ \t]+(\u00a7\d+(?:\.\d+)*)", re.MULTILINE)
RULE_LABEL = re.compile(r"^[ \t]*- \*\*(\[R\d+(?:\.\d+)*[a-z]?\])\*\*", re.MULTILINE)
"""A rule's own statement: a list item that opens with its id in bold, `- **[R4.2]** ...`."""
LETTERED_ITEM = re.compile(r"^[ \t]*- ([a-z])\)", re.MULTILINE)


def labels_in(text: str) -> set[str]:
    """The sections (headings `### §4 ...`) and rule ids a doc defines, lettered items included.

    A rule's items a), b), c) (up to the next rule or heading) can be cited as `[R10.2a]`.
    """
    found = set(HEADING.findall(text))
    rules = list(RULE_LABEL.finditer(text))
    ends = sorted([m.start() for m in rules] + [m.start() for m in HEADING.finditer(text)])
    for match in rules:
        rule = match[1]
        found.add(rule)
        if rule[-2].isdigit():
            end = next((e for e in ends if e > match.start()), len(text))
            for item in LETTERED_ITEM.findall(text, match.end(), end):
                found.add(f"{rule[:-1]}{item}]")
    return found


@cache
def doc_labels(name: str) -> frozenset[str]:
    """The labels of docs/<name>, or none if the project has no such doc."""
    path = ROOT / "docs" / name
    return frozenset(labels_in(path.read_text(encoding="utf-8"))) if path.is_file() else frozenset()


def rules_docs() -> set[str]:
    """The docs that define numbered sections or rule ids."""
    return {path.name for path in (ROOT / "docs").glob("*.md") if doc_labels(path.name)}


@dataclass(frozen=True)
class Problem:
    line: int
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.text}"


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def outside_paths(text: str) -> list[Problem]:
    """Every mention of a path outside the repository."""
    return [Problem(line_of(text, m.start()), m[0]) for m in OUTSIDE.finditer(text)]


def default_doc(path: str, text: str, docs: set[str]) -> str | None:
    """The doc a file's bare citations refer to: itself (a rules doc), the one it declares, or
    the only rules doc it names; None when that is unknown."""
    if path.startswith("docs/") and Path(path).name in docs:
        return Path(path).name
    declared = {m[1] for m in DECLARATION.finditer(text)} & docs
    named = declared or {m[1] for m in NAMED_DOC.finditer(text)} & docs
    return named.pop() if len(named) == 1 else None


def bad_citations(
    path: str, text: str, labels: dict[str, frozenset[str]] | None = None
) -> list[Problem]:
    """Every citation that names a doc or label the project does not have.

    `labels` maps doc names to their labels (default: the repository's docs).
    """
    if labels is None:
        labels = {name: doc_labels(name) for name in rules_docs()}
    docs = {name for name, found in labels.items() if found}
    problems = []
    explicit_spans = []
    for match in EXPLICIT.finditer(text):
        explicit_spans.append(match.span())
        found = labels.get(match[1], frozenset())
        for cited in CITATION.findall(match[2]):
            if cited not in found:
                where = line_of(text, match.start())
                problems.append(Problem(where, f"docs/{match[1]} has no {cited}"))
    default = default_doc(path, text, docs)
    for match in CITATION.finditer(text):
        if any(start <= match.start() < end for start, end in explicit_spans):
            continue
        where = line_of(text, match.start())
        if default is None:
            problems.append(Problem(where, f"{match[0]} cites no doc the file names"))
        elif match[0] not in labels[default]:
            problems.append(Problem(where, f"docs/{default} has no {match[0]}"))
    return problems


def text_files() -> dict[str, str]:
    """Every tracked (or new, not ignored) text file of the repository, by path."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = {}
    for name in sorted(set(listed.decode().split("\0")) - {""}):
        path = ROOT / name
        if name.startswith(SKIPPED) or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data:
            continue
        try:
            files[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return files


def report(problems: dict[str, list[Problem]]) -> str:
    return "\n".join(f"{path} {problem}" for path, found in problems.items() for problem in found)


# -- the repository ---------------------------------------------------------------------------


def test_the_scan_sees_the_code_tests_and_docs() -> None:
    files = text_files()
    assert {"engine/bao/rules.py", "tests/engine/test_bao_rules.py", "docs/bao.md"} <= set(files)
    assert not any(name.startswith("tests/data/") for name in files)


def test_the_rules_docs_define_their_sections() -> None:
    assert rules_docs() >= {"bao.md", "mancala.md", "othello.md"}
    bao = doc_labels("bao.md")
    sections = {label for label in bao if label.startswith("\u00a7") and "." not in label}
    assert sections == {f"\u00a7{n}" for n in (*range(1, 18), 19, 20, 21)}
    assert {f"\u00a7{n}" for n in range(1, 8)} <= doc_labels("mancala.md")
    assert {f"\u00a7{n}" for n in range(1, 6)} <= doc_labels("othello.md")


def test_no_file_references_a_path_outside_the_repository() -> None:
    problems = {path: outside_paths(text) for path, text in text_files().items()}
    found = {path: problem for path, problem in problems.items() if problem}
    assert not found, "\n" + report(found)


def test_every_citation_names_a_label_of_a_project_doc() -> None:
    problems = {path: bad_citations(path, text) for path, text in text_files().items()}
    found = {path: problem for path, problem in problems.items() if problem}
    assert not found, "\n" + report(found)


# -- the checks themselves can fail -----------------------------------------------------------

S = "\u00a7"
LABELS = {
    "bao.md": frozenset({f"{S}2", f"{S}2.3", "[R4.2]", "[R6.4a]"}),
    "mancala.md": frozenset({f"{S}7"}),
}


@pytest.mark.parametrize(
    "text",
    [
        "see " + "shared" + "/rules/bao.md",
        "a copy of " + "shared" + "/vectors/bao.jsonl",
        "../" + "shared/STYLE.md",
        "the table of /" + "work/shared/x.md",
        "open /" + "home/someone/notes.md",
    ],
)
def test_a_path_outside_the_repository_is_found(text: str) -> None:
    assert len(outside_paths(text)) == 1


@pytest.mark.parametrize(
    "text",
    ["see https://example.org/home/page", "the project's shared folder", "docs/bao.md", "a/work/b"],
)
def test_ordinary_text_is_not_an_outside_path(text: str) -> None:
    assert outside_paths(text) == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (f"docs/bao.md {S}99", f"docs/bao.md has no {S}99"),
        (f"docs/bao.md {S}2.3 and {S}17", f"docs/bao.md has no {S}17"),
        (f"docs/mancala.md {S}8", f"docs/mancala.md has no {S}8"),
        (f"docs/engine.md {S}1", f"docs/engine.md has no {S}1"),
        ("rules in docs/bao.md\n[R4.3] a lap", "docs/bao.md has no [R4.3]"),
        (f"rules in docs/bao.md\n{S}3 the state", f"docs/bao.md has no {S}3"),
        (f"no doc named: {S}2", f"{S}2 cites no doc the file names"),
        (f"docs/bao.md and docs/mancala.md, then {S}2", f"{S}2 cites no doc the file names"),
    ],
)
def test_a_citation_of_a_missing_label_is_found(text: str, problem: str) -> None:
    assert [found.text for found in bad_citations("x.py", text, LABELS)] == [problem]


@pytest.mark.parametrize(
    "text",
    [
        f"docs/bao.md {S}2.3 and {S}2, [R4.2]",
        f"rules in docs/bao.md: {S}2 [R6.4a] ({S}2.3).",
        f"Rule ids refer to docs/bao.md; docs/mancala.md {S}7 has the table; {S}2 [R4.2]",
        "no citation at all",
    ],
)
def test_a_citation_of_an_existing_label_passes(text: str) -> None:
    assert bad_citations("x.py", text, LABELS) == []


def test_labels_are_headings_rule_items_and_their_lettered_items() -> None:
    doc = "\n".join(
        [
            f"### {S}6 Namua",
            f"#### {S}6.2 Takasa",
            "- **[R6.4]** Eligible holes:",
            "  - a) the nyumba;",
            "  - **[R6.4b]** b) singletons;",
            "- **[R6.5]** Playing it (see [R7.1], b) below).",
            f"### {S}7 Mtaji",
            "  - c) not an item of R6.5",
        ]
    )
    assert labels_in(doc) == {f"{S}{n}" for n in ("6", "6.2", "7")} | {
        "[R6.4]",
        "[R6.4a]",
        "[R6.4b]",
        "[R6.5]",
    }
