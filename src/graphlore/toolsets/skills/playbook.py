"""The ``resolution_md`` format: parse markdown to a :class:`Playbook`, validate it, render it back.

A playbook is ONE executable procedure, laid out exactly so::

    # <Title>

    **Confidence:** 0.85 (23 uses, 20 confirmed)
    **Product Area:** billing
    **Issue Type:** how-to

    ## Goal
    <one sentence>

    ## Prerequisites
    - <condition>

    ## Steps

    ### 1. <action>
    **Do:** <what the agent does: lookup, API call, calculation>
    **Check:** <what must hold before going on>
    **Say:** <what the customer is told, if anything>

    ## Edge Cases
    - <condition> → <what to do instead>

    ## Escalation
    <when to hand off to a human, and what context to pass>

Rules the parser enforces (each failure names its line and what is wrong, all
failures at once so a writer can fix them in one go):

- the first non-blank line is ``# <Title>``; there is one title;
- sections are ``## Goal``, ``## Prerequisites``, ``## Steps``, ``## Edge Cases``,
  ``## Escalation``, each at most once and in that order; Goal and Steps are required;
- Goal and Escalation are one paragraph (its lines are joined with one space);
- Prerequisites and Edge Cases are ``- `` bullets; an edge case reads
  ``- <condition> → <what to do instead>`` (the arrow is U+2192);
- steps are ``### N. <action>`` numbered 1, 2, 3... and each has at least one of
  ``**Do:**``, ``**Check:**``, ``**Say:**`` (each at most once, one line each, in any order).

The header lines (Confidence, Product Area, Issue Type) are output only. They
are rendered from the skill's stored fields on every read (:class:`Header`) and
never trusted from input: the parser accepts them between the title and the
first section and drops them, so a playbook read back with ``get_skill`` can be
edited and sent to ``update_skill`` as it is, and a playbook without them is
just as valid. Any other text there is refused.

``render(parse(x)) == x`` for every rendered playbook ``x`` (with the same header
or none), and ``parse(render(p)) == p`` for every :class:`Playbook`: a
:class:`Playbook` refuses, when built, any text the parser would read back
differently (an empty or multi-line field, surrounding spaces, a Goal starting
with ``#``, an arrow in an edge-case condition).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphlore.errors import InvalidInput

SECTIONS = ("Goal", "Prerequisites", "Steps", "Edge Cases", "Escalation")
REQUIRED_SECTIONS = ("Goal", "Steps")
STEP_FIELDS = ("Do", "Check", "Say")
HEADER_LABELS = ("Confidence", "Product Area", "Issue Type")
ARROW = "→"
#: How many problems one error message lists (the rest are counted).
MAX_LISTED_PROBLEMS = 10

_STEP_HEADING = re.compile(r"^###\s+(\S*)\s*(.*)$")
_STEP_NUMBER = re.compile(r"^(\d+)\.$")
_FIELD = re.compile(r"^\*\*(Do|Check|Say):\*\*(.*)$")
_HEADER = re.compile(r"^\*\*(Confidence|Product Area|Issue Type):\*\*")


# -- the typed structure ------------------------------------------------------------------------


def _single_line(text: str) -> bool:
    """Non-empty, no surrounding whitespace, and one line in the sense of ``str.splitlines``."""
    return bool(text) and text == text.strip() and len(text.splitlines()) == 1


def _require(ok: bool, what: str, value: object) -> None:
    if not ok:
        raise ValueError(f"{what} must be one non-empty line without surrounding spaces, got {value!r}")


@dataclass(frozen=True)
class Step:
    """One numbered step: what to do, what to check, what to say (at least one of them)."""

    action: str
    do: str | None = None
    check: str | None = None
    say: str | None = None

    def __post_init__(self) -> None:
        _require(_single_line(self.action), "a step's action", self.action)
        for name in ("do", "check", "say"):
            value = getattr(self, name)
            if value is not None:
                _require(_single_line(value), f"a step's {name}", value)
        if self.do is None and self.check is None and self.say is None:
            raise ValueError(f"step {self.action!r} needs at least one of Do, Check, Say")

    def field(self, label: str) -> str | None:
        """The value of ``Do``, ``Check`` or ``Say``."""
        return getattr(self, label.lower())


@dataclass(frozen=True)
class EdgeCase:
    """``- <condition> → <what to do instead>``."""

    condition: str
    action: str

    def __post_init__(self) -> None:
        _require(_single_line(self.condition), "an edge case's condition", self.condition)
        _require(_single_line(self.action), "an edge case's action", self.action)
        if ARROW in self.condition:
            raise ValueError(f"an edge case's condition cannot contain {ARROW!r}: {self.condition!r}")


@dataclass(frozen=True)
class Playbook:
    """A parsed, valid playbook (the header is not part of it: see :class:`Header`)."""

    title: str
    goal: str
    steps: tuple[Step, ...]
    prerequisites: tuple[str, ...] = ()
    edge_cases: tuple[EdgeCase, ...] = ()
    escalation: str | None = None

    def __post_init__(self) -> None:
        _require(_single_line(self.title), "the title", self.title)
        _require(
            _single_line(self.goal) and not self.goal.startswith("#"),
            "the goal (not starting with #)",
            self.goal,
        )
        if not self.steps:
            raise ValueError("a playbook needs at least one step")
        for item in self.prerequisites:
            _require(_single_line(item), "a prerequisite", item)
        if self.escalation is not None:
            _require(
                _single_line(self.escalation) and not self.escalation.startswith("#"),
                "the escalation (not starting with #)",
                self.escalation,
            )


@dataclass(frozen=True)
class Header:
    """The three header lines, from the skill's stored fields."""

    confidence: float
    times_used: int
    times_confirmed: int
    product_area: str
    issue_type: str

    def lines(self) -> list[str]:
        uses = "use" if self.times_used == 1 else "uses"
        return [
            f"**Confidence:** {self.confidence:.2f} ({self.times_used} {uses}, {self.times_confirmed} confirmed)",
            f"**Product Area:** {_one_line(self.product_area)}",
            f"**Issue Type:** {_one_line(self.issue_type)}",
        ]


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "-"


# -- validation errors --------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a playbook, at a 1-based line number."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class PlaybookError(InvalidInput):
    """A playbook that fails validation; ``problems`` lists every failure with its line."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        shown = "; ".join(str(p) for p in problems[:MAX_LISTED_PROBLEMS])
        more = len(problems) - MAX_LISTED_PROBLEMS
        if more > 0:
            shown += f"; and {more} more"
        super().__init__(f"invalid resolution_md: {shown}")


# -- parsing ------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, markdown: str) -> None:
        self.lines = [line.rstrip() for line in markdown.splitlines()]
        self.problems: list[Problem] = []
        self.title: str | None = None
        self.section: str | None = None
        self.section_lines: dict[str, int] = {}
        self.paragraphs: dict[str, list[str]] = {"Goal": [], "Escalation": []}
        self.prerequisites: list[str] = []
        self.edge_cases: list[EdgeCase] = []
        self.steps: list[dict] = []
        self.bulleted: set[str] = set()  # bullet sections with any line (a bad one is reported once)

    def fail(self, line: int, message: str) -> None:
        self.problems.append(Problem(line, message))

    def run(self) -> Playbook | None:
        start = next((i for i, line in enumerate(self.lines) if line.strip()), None)
        if start is None:
            self.fail(1, "the playbook is empty; it must start with '# <Title>'")
            return None
        for index in range(start, len(self.lines)):
            self.line(index + 1, self.lines[index])
        self.finish()
        return self.build()

    def line(self, number: int, line: str) -> None:
        stripped = line.strip()
        if self.title is None:
            if stripped.startswith("# ") and stripped[2:].strip():
                self.title = stripped[2:].strip()
            else:
                self.fail(number, f"the playbook must start with '# <Title>', got {_shorten(stripped)!r}")
                self.title = ""
            return
        if stripped.startswith("## ") or stripped == "##":
            self.heading(number, stripped[2:].strip())
        elif stripped.startswith("# "):
            self.fail(number, "a second title; a playbook has one '# <Title>' (sections use '## ')")
        elif self.section is None:
            if stripped and not _HEADER.match(stripped):
                self.fail(
                    number,
                    "only the header lines (**Confidence:**, **Product Area:**, **Issue Type:**) may come "
                    f"between the title and '## Goal', got {_shorten(stripped)!r}",
                )
        elif self.section == "Steps":
            self.step_line(number, stripped)
        elif not stripped:
            return
        elif stripped.startswith("#"):
            self.fail(number, f"{_shorten(stripped)!r} is not a heading of section '## {self.section}'")
        elif self.section in self.paragraphs:
            self.paragraphs[self.section].append(stripped)
        else:
            self.bullet(number, stripped)

    def heading(self, number: int, name: str) -> None:
        if name not in SECTIONS:
            self.fail(number, f"unknown section '## {name}'; valid sections: {', '.join(SECTIONS)}")
            self.section = "?"
            return
        if name in self.section_lines:
            self.fail(number, f"section '## {name}' appears twice (first at line {self.section_lines[name]})")
            self.section = "?"
            return
        later = [s for s in self.section_lines if SECTIONS.index(s) > SECTIONS.index(name)]
        if later:
            self.fail(
                number,
                f"section '## {name}' must come before '## {later[0]}' (order: {', '.join(SECTIONS)})",
            )
        self.section_lines[name] = number
        self.section = name

    def bullet(self, number: int, stripped: str) -> None:
        if self.section == "?":
            return  # already reported at the heading
        self.bulleted.add(self.section)
        if not stripped.startswith("- ") or not stripped[2:].strip():
            self.fail(number, f"'## {self.section}' holds '- ' bullets only, got {_shorten(stripped)!r}")
            return
        item = stripped[2:].strip()
        if self.section == "Prerequisites":
            self.prerequisites.append(item)
            return
        condition, arrow, action = item.partition(ARROW)
        if not arrow or not condition.strip() or not action.strip():
            self.fail(
                number,
                f"an edge case reads '- <condition> {ARROW} <what to do instead>', got {_shorten(stripped)!r}",
            )
            return
        self.edge_cases.append(EdgeCase(condition.strip(), action.strip()))

    def step_line(self, number: int, stripped: str) -> None:
        if not stripped:
            return
        heading = _STEP_HEADING.match(stripped) if stripped.startswith("### ") else None
        if heading:
            expected = len(self.steps) + 1
            numbered = _STEP_NUMBER.match(heading.group(1))
            action = heading.group(2).strip()
            if not numbered or not action:
                self.fail(
                    number, f"a step heading reads '### {expected}. <action>', got {_shorten(stripped)!r}"
                )
            elif int(numbered.group(1)) != expected:
                self.fail(
                    number, f"step numbered {numbered.group(1)}, expected {expected} (steps count 1, 2, 3...)"
                )
            self.steps.append({"line": number, "action": action or "?", "fields": {}})
            return
        if stripped.startswith("#"):
            self.fail(
                number,
                f"{_shorten(stripped)!r} is not a step heading ('### N. <action>') nor a section ('## Name')",
            )
            return
        field = _FIELD.match(stripped)
        if not self.steps:
            self.fail(number, f"text before the first step heading '### 1. <action>': {_shorten(stripped)!r}")
            return
        step = self.steps[-1]
        if not field:
            self.fail(
                number,
                f"step {len(self.steps)} holds only '**Do:**', '**Check:**' and '**Say:**' lines, "
                f"got {_shorten(stripped)!r}",
            )
            return
        label, value = field.group(1), field.group(2).strip()
        if label in step["fields"]:
            self.fail(number, f"step {len(self.steps)} has a second '**{label}:**' line; put it in one line")
        elif not value:
            self.fail(number, f"'**{label}:**' in step {len(self.steps)} is empty")
        else:
            step["fields"][label] = value

    def finish(self) -> None:
        end = len(self.lines)
        for name in REQUIRED_SECTIONS:
            if name not in self.section_lines:
                self.fail(end, f"missing required section '## {name}'")
        for name, lines in self.paragraphs.items():
            if name in self.section_lines and not lines:
                self.fail(self.section_lines[name], f"section '## {name}' is empty")
        if "Steps" in self.section_lines and not self.steps:
            self.fail(self.section_lines["Steps"], "section '## Steps' has no step ('### 1. <action>')")
        for index, step in enumerate(self.steps, start=1):
            if not step["fields"]:
                self.fail(step["line"], f"step {index} has none of '**Do:**', '**Check:**', '**Say:**'")
        for name in ("Prerequisites", "Edge Cases"):
            if name in self.section_lines and name not in self.bulleted:
                self.fail(self.section_lines[name], f"section '## {name}' is empty (leave it out instead)")

    def build(self) -> Playbook | None:
        if self.problems:
            return None
        escalation = self.paragraphs["Escalation"]
        return Playbook(
            title=self.title or "",
            goal=" ".join(self.paragraphs["Goal"]),
            steps=tuple(
                Step(s["action"], s["fields"].get("Do"), s["fields"].get("Check"), s["fields"].get("Say"))
                for s in self.steps
            ),
            prerequisites=tuple(self.prerequisites),
            edge_cases=tuple(self.edge_cases),
            escalation=" ".join(escalation) if escalation else None,
        )


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def validate(markdown: str) -> list[Problem]:
    """Every problem of ``markdown`` as a playbook, in line order; empty when it is valid."""
    parser = _Parser(markdown)
    parser.run()
    return sorted(parser.problems, key=lambda p: p.line)


def parse(markdown: str) -> Playbook:
    """The :class:`Playbook` in ``markdown``, or :class:`PlaybookError` listing every problem."""
    parser = _Parser(markdown)
    playbook = parser.run()
    if playbook is None:
        raise PlaybookError(sorted(parser.problems, key=lambda p: p.line))
    return playbook


# -- rendering ----------------------------------------------------------------------------------


def render(playbook: Playbook, header: Header | None = None) -> str:
    """The canonical markdown of ``playbook``; with ``header``, the three header lines after the title."""
    out = [f"# {playbook.title}", ""]
    if header is not None:
        out += [*header.lines(), ""]
    out += ["## Goal", playbook.goal, ""]
    if playbook.prerequisites:
        out += ["## Prerequisites", *(f"- {item}" for item in playbook.prerequisites), ""]
    out += ["## Steps", ""]
    for number, step in enumerate(playbook.steps, start=1):
        out.append(f"### {number}. {step.action}")
        out += [f"**{label}:** {step.field(label)}" for label in STEP_FIELDS if step.field(label) is not None]
        out.append("")
    if playbook.edge_cases:
        out += ["## Edge Cases", *(f"- {e.condition} {ARROW} {e.action}" for e in playbook.edge_cases), ""]
    if playbook.escalation is not None:
        out += ["## Escalation", playbook.escalation, ""]
    return "\n".join(out)
