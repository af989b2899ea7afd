"""Two ways to start a skill library: ABCD's support procedures, and labelled intent examples.

Both are pure and deterministic: they read a file and return skill field dicts
(``title``, ``problem``, ``resolution_md``, ``conditions``, ``keywords``,
``product_area``, ``issue_type``, ``source``), sorted by ``source``, each with a
playbook that passes :func:`playbook.parse`. Importing the same file twice gives
the same dicts, so the store can make an import idempotent by comparing them with
what it holds under each ``source``.

**ABCD** (``guidelines.json`` of asappresearch/abcd: 10 flows, 55 subflows, each a
list of agent actions ``{type, button, text, subtext}`` and two ``instructions``).
One skill per subflow, ``source = "abcd:<flow>/<subflow>"`` with the keys spelled
as in the file. Rules, in order:

- every action becomes one step, headed by its button (``N/A``: by the start of its
  text; "(optional)" when the guideline marks it so). Cells that only label an
  action ("Option 2", "Communication", "x") are dropped. Each line of its text and subtext is sorted into Do, Check or Say by
  :func:`line_role`: lines that speak to the customer (tell, explain, apologise,
  ask the customer...) are Say, lines that verify (check, confirm, make sure,
  ``If ...`` branches, and the lines of a ``kb query``) are Check, the rest Do;
  ``communication`` actions default to Say. Each step with a button also gets a
  Do naming it, with the system action and its slots from ``ontology.json`` when
  the button's slug is one of the subflow's actions in ``kb.json``;
- the first instruction's ``If <condition>, <action>`` sentences become edge
  cases (both instructions'); its other sentences that describe the customer's
  situation (not an imperative, not a lead-in ending in ``:``) become the problem
  and the conditions; an imperative sentence becomes a first "Start" step (one
  without a full stop is a lead-in to the actions and is dropped);
- FAQ subflows (first instruction "The main effort is in figuring out which
  question the customer is asking") list their questions in the second
  instruction: each becomes a condition. Elsewhere the second instruction is the
  wrap-up: its sentences become a last "Wrap up" step;
- ``title`` = ``"<subflow> (<flow>)"``; ``product_area`` = the flow;
  ``issue_type`` = ``bug`` for Troubleshoot Site, ``how-to`` for the rest;
  ``keywords`` = flow and subflow (the flow's description is shared by its
  subflows, so it would not tell them apart).

**Intents** (JSON lines ``{"text": ..., "intent": ...}`` or a CSV with ``text`` and
``intent`` columns): one skill per intent, ``source = "intent:<intent>"``, its
distinct examples (in file order) as ``conditions``, ``title`` from the label
(``book_flight`` → ``Book flight``), and a template playbook: one Do step naming
the intent, its Goal starting with :data:`TEMPLATE_MARK` so a reader (and
:func:`is_template`) knows the team still has to write the procedure.

**Errors never quote the file.** The file may be any file the server can read, so a refusal names the
place (a file name we expect, a line, a row, a flow's number, a key of the expected layout) and what
is wrong there, never what the file holds.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from graphlore.errors import InvalidInput
from graphlore.toolsets.skills.playbook import EdgeCase, Playbook, Step, render

ABCD_PREFIX = "abcd:"
INTENT_PREFIX = "intent:"
TEMPLATE_MARK = "TEMPLATE:"
FAQ_MARK = "the main effort is in figuring out which question the customer is asking"
BUG_FLOWS = frozenset({"Troubleshoot Site"})

SkillFields = dict[str, Any]

# -- line roles ---------------------------------------------------------------------------------

_SAY = re.compile(
    r"\b(tell|let (?:the customer|them) know|let them|explain|instruct|apologi[sz]e|assure|inform|convince|"
    r"share|say|message the customer|ask (?:the customer|them|for|how|if|what)|asking (?:the customer|for|if)|"
    r"provide (?:it|a link)|offer (?:them|a|to)|have the customer)\b",
    re.IGNORECASE,
)
_CHECK = re.compile(
    r"^(?:if|check|confirm|make sure|verify|decide|to confirm|to decide|find out whether|whether)\b",
    re.IGNORECASE,
)
_IMPERATIVE = re.compile(
    r"^(?:start|help|let|choose|pick|shuffle|keep|follow|please|ask|explain|wrap|share|act|be|remember|"
    r"make|feel|tell|go|then|as|to|in all)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
#: Guideline cells that only label an action ("Option 2", "Communication", "Optional Step"), not content.
_LABEL = re.compile(r"^(?:option \d+|communication|optional step|x)$", re.IGNORECASE)
_IF_SENTENCE = re.compile(r"^If (?P<condition>.+?)(?:, (?:then )?| (?=it is likely ))(?P<action>.+)$")


def _clean(text: str) -> str:
    return " ".join(text.replace("\u2019", "'").split())


def _sentence(text: str) -> str:
    """``text`` ending in punctuation, so joined lines read as sentences."""
    return text if text[-1] in ".!?:)'\"" else text + "."


def sentences(text: str) -> list[str]:
    """Split a paragraph at sentence ends (., !, ? followed by space)."""
    return [s for s in (_clean(p) for p in _SENTENCE_END.split(_clean(text))) if s]


def line_role(line: str, default: str) -> str:
    """``Say``, ``Check`` or ``Do`` for one guideline line (``default`` when no rule applies).

    Verification comes first (an ``If`` branch that tells the customer something
    is still a condition to check), then customer-facing speech; "Ask the Oracle"
    is a system query, not speech.
    """
    if _CHECK.match(line):
        return "Check"
    spoken = _SAY.search(line.replace("Ask the Oracle", "").replace("Asking the Oracle", ""))
    if spoken:
        return "Say"
    return default


def _join(parts: Iterable[str]) -> str | None:
    joined = " ".join(_sentence(p) for p in parts)
    return joined or None


def _step(action: str, lines: Iterable[tuple[str, str]], lead: str | None = None) -> Step:
    fields: dict[str, list[str]] = {"Do": [lead] if lead else [], "Check": [], "Say": []}
    for role, line in lines:
        fields[role].append(line)
    return Step(action, do=_join(fields["Do"]), check=_join(fields["Check"]), say=_join(fields["Say"]))


# -- ABCD ---------------------------------------------------------------------------------------


def _slug(text: str, sep: str = "-") -> str:
    return sep.join(re.findall(r"[a-z0-9]+", text.lower()))


def _ontology_keys(guidelines: Mapping[str, Any], ontology: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """(flow, subflow) of the guidelines → the ontology's subflow key (same flows, same order)."""
    keys: dict[tuple[str, str], str] = {}
    subflows = ontology["intents"]["subflows"]
    for flow, body in guidelines.items():
        names = list(body["subflows"])
        listed = subflows.get(_slug(flow, "_"))
        if listed is None or len(listed) != len(names):
            number = list(guidelines).index(flow) + 1
            raise InvalidInput(f"ontology.json does not list the {len(names)} subflows of flow number {number} "
                               "of guidelines.json")
        keys.update({(flow, name): key for name, key in zip(names, listed, strict=True)})
    return keys


def _action_note(button: str, allowed: list[str], slots: Mapping[str, list[str]]) -> str:
    """``[Button]``, plus its system action and slots when the subflow's kb sequence names it."""
    slug = _slug(button)
    action = next((a for a in allowed if a == slug), None) or next(
        (a for a in allowed if slug.startswith(a + "-") or a.startswith(slug + "-")), None
    )
    if action is None:
        return f"Use [{button}]."
    fields = slots.get(action, [])
    return f"Use [{button}] (action {action}" + (f": {', '.join(fields)})." if fields else ").")


def _abcd_steps(
    actions: list[Mapping[str, Any]], allowed: list[str], slots: Mapping[str, list[str]]
) -> list[Step]:
    steps = []
    for action in actions:
        kind, button = action["type"], _clean(action["button"])
        cells = [_clean(action["text"]), *(_clean(s) for s in action["subtext"])]
        lines = [line for line in cells if line and not _LABEL.match(line)]  # "x" marks an empty cell
        optional = " (optional)" if any(line.lower() == "optional step" for line in cells) else ""
        default = {"communication": "Say", "kb query": "Check"}.get(kind, "Do")
        # One role per line, not per sentence: a subtext line is one list item, and splitting it would
        # scatter its parts ("Gift card - ... ask for their address. Enter it in the next step.").
        roles = [(line_role(line, default), line) for line in lines]
        if button in ("N/A", ""):
            heading = _heading(lines[0]) if lines else "Talk to the customer"
            steps.append(_step(heading + optional, roles))
        else:
            steps.append(_step(button + optional, roles, lead=_action_note(button, allowed, slots)))
    return steps


def _heading(line: str, limit: int = 60) -> str:
    first = sentences(line)[0].rstrip(".:")
    if len(first) <= limit:
        return first
    return first[:limit].rsplit(" ", 1)[0] + "..."


def _edge_case(sentence: str) -> EdgeCase | None:
    match = _IF_SENTENCE.match(sentence)
    if not match:
        return None
    action = match.group("action").rstrip(".")
    return EdgeCase(match.group("condition").strip(), action[0].upper() + action[1:])


def abcd_skill(
    flow: str,
    subflow: str,
    body: Mapping[str, Any],
    description: str,
    allowed: list[str],
    slots: Mapping[str, list[str]],
) -> SkillFields:
    """The skill fields of one ABCD subflow (see the module docstring for the rules)."""
    first, *rest = body["instructions"]
    closing = " ".join(rest)
    faq = FAQ_MARK in _clean(first).lower()
    situation, start, edges = [], [], []
    for sentence in sentences(first):
        edge = _edge_case(sentence)
        if edge:
            edges.append(edge)
        elif _IMPERATIVE.match(sentence):
            if sentence[-1] in ".!?":
                start.append(sentence)
            # else a lead-in to the actions below ("To get their username, you must"): dropped
        elif sentence.endswith(":"):
            continue  # a lead-in to the actions below
        else:
            situation.append(sentence)
    steps = _abcd_steps(body["actions"], allowed, slots)
    if start:
        steps.insert(0, _step("Start", [(line_role(s, "Do"), s) for s in start]))
    if faq:
        questions = [q for q in (_clean(q) for q in re.split(r",\s+", closing)) if q]
        conditions = [q[0].upper() + q[1:] for q in questions]
        situation = [f"The customer asks a {subflow} question: {', '.join(questions)}."]
    else:
        wrap = []
        for sentence in sentences(closing):
            edge = _edge_case(sentence)
            if edge:
                edges.append(edge)
            else:
                wrap.append((line_role(sentence, "Do"), sentence))
        if wrap:
            steps.append(_step("Wrap up", wrap))
        conditions = list(situation)
    problem = " ".join(situation) or f"The customer asks about {subflow.lower()} ({description})."
    if not conditions:
        conditions = [problem]
    title = f"{subflow} ({flow})"
    playbook = Playbook(
        title=title,
        goal=f"Resolve the customer's {flow.lower()} request: {subflow.lower()}.",
        steps=tuple(steps),
        edge_cases=tuple(edges),
    )
    return {
        "title": title,
        "problem": problem,
        "resolution_md": render(playbook),
        "conditions": conditions,
        "keywords": [flow.lower(), subflow.lower()],
        "product_area": flow,
        "issue_type": "bug" if flow in BUG_FLOWS else "how-to",
        "source": f"{ABCD_PREFIX}{flow}/{subflow}",
    }


def abcd_skills(
    guidelines: Mapping[str, Any], kb: Mapping[str, list[str]], ontology: Mapping[str, Any]
) -> list[SkillFields]:
    """One skill per subflow of ABCD's ``guidelines.json`` (with its ``kb.json`` and ``ontology.json``)."""
    keys = _ontology_keys(guidelines, ontology)
    slots: dict[str, list[str]] = {}
    for group in ontology["actions"].values():
        slots.update(group)
    skills = []
    for flow, flow_body in guidelines.items():
        for subflow, body in flow_body["subflows"].items():
            allowed = kb.get(keys[(flow, subflow)], [])
            skills.append(abcd_skill(flow, subflow, body, flow_body["description"], allowed, slots))
    return sorted(skills, key=lambda s: s["source"])


def load_abcd(guidelines_path: Path) -> list[SkillFields]:
    """:func:`abcd_skills` from ``guidelines.json`` and the ``kb.json``/``ontology.json`` next to it."""
    folder = guidelines_path.parent
    missing = [name for name in ("kb.json", "ontology.json") if not (folder / name).is_file()]
    if missing:
        raise InvalidInput(
            f"{', '.join(missing)} must sit next to {guidelines_path} (they come with ABCD's data)"
        )
    guidelines, kb, ontology = (read_json(path) for path in (guidelines_path, folder / "kb.json",
                                                               folder / "ontology.json"))
    try:
        return abcd_skills(guidelines, kb, ontology)
    except KeyError as exc:
        raise InvalidInput(f"{guidelines_path.name} (with kb.json and ontology.json) is not ABCD's data: missing "
                           f"the key {exc.args[0]!r} of its layout (flows -> subflows -> actions and "
                           "instructions)") from exc
    except (TypeError, AttributeError, ValueError) as exc:  # a value of another type, an empty list
        raise InvalidInput(f"{guidelines_path.name} (with kb.json and ontology.json) is not ABCD's data: a value "
                           "has the wrong type or is empty (the layout: flows -> subflows -> actions and "
                           "instructions)") from exc


def read_text(path: Path) -> str:
    """A file's text, or an error naming the file and what is wrong (never its bytes)."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path.name} is not UTF-8 text (byte {exc.start + 1} is not); save it as UTF-8") from exc


def read_json(path: Path) -> Any:
    """A JSON file's value, or an error naming the file and where it stops being JSON."""
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path.name} is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from exc
    except RecursionError as exc:
        raise InvalidInput(f"{path.name} is not usable JSON (nested too deeply)") from exc


# -- intents ------------------------------------------------------------------------------------


def read_intent_rows(text: str, fmt: str) -> list[tuple[str, str]]:
    """(text, intent) rows of a JSON-lines (``fmt="jsonl"``) or CSV (``fmt="csv"``) file's content.

    A bad row is an error naming its line (JSON lines) or row (CSV) and what is
    missing; blank JSON lines are skipped.
    """
    rows: list[tuple[str, str]] = []
    if fmt == "jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(
                    f'line {number}: not JSON ({exc.msg}); each line is {{"text": ..., "intent": ...}}'
                ) from exc
            rows.append(_intent_row(record, f"line {number}"))
    elif fmt == "csv":
        reader = csv.DictReader(io.StringIO(text))
        try:
            if not reader.fieldnames or not {"text", "intent"} <= set(reader.fieldnames):
                raise InvalidInput("a CSV of intents needs the columns text,intent: its first row names them, "
                                   f"and this one's first row has {len(reader.fieldnames or [])} other column(s)")
            for number, record in enumerate(reader, start=2):
                rows.append(_intent_row(record, f"row {number}"))
        except csv.Error as exc:  # e.g. a field past the csv module's size limit
            raise InvalidInput(f"row {reader.line_num}: not CSV ({exc})") from exc
    else:
        raise InvalidInput(f"unknown intents format {fmt!r}; valid: jsonl, csv")
    if not rows:
        raise InvalidInput("the intents file has no rows")
    return rows


def _intent_row(record: Any, where: str) -> tuple[str, str]:
    if not isinstance(record, dict):
        raise InvalidInput(f"{where}: expected an object with text and intent, got {type(record).__name__}")
    text, intent = record.get("text"), record.get("intent")
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(f"{where}: 'text' must be a non-empty string")
    if not isinstance(intent, str) or not intent.strip():
        raise InvalidInput(f"{where}: 'intent' must be a non-empty string")
    return _clean(text), intent.strip()


def intent_title(intent: str) -> str:
    """``book_flight`` → ``Book flight`` (separators to spaces, first letter up)."""
    words = " ".join(re.split(r"[_\-\s]+", intent)).strip() or intent
    return words[0].upper() + words[1:]


def intent_skills(rows: Iterable[tuple[str, str]]) -> list[SkillFields]:
    """One template skill per intent, its distinct examples (first-seen order) as conditions.

    Examples are compared after collapsing whitespace and turning typographic
    apostrophes into plain ones, so "life’s" and "life's" are one condition.
    """
    examples: dict[str, dict[str, None]] = {}
    for text, intent in rows:
        examples.setdefault(intent.strip(), {})[_clean(text)] = None
    skills = []
    for intent in sorted(examples):
        title = intent_title(intent)
        playbook = Playbook(
            title=title,
            goal=f"{TEMPLATE_MARK} write the procedure for the intent '{intent}' (imported from labelled examples).",
            steps=(Step(f"Handle {intent}", do=f"Resolve the customer's '{intent}' request."),),
        )
        skills.append(
            {
                "title": title,
                "problem": f"Requests with the intent '{intent}'.",
                "resolution_md": render(playbook),
                "conditions": list(examples[intent]),
                "keywords": [intent],
                "product_area": "general",
                "issue_type": "other",
                "source": f"{INTENT_PREFIX}{intent}",
            }
        )
    return skills


def load_intents(path: Path) -> list[SkillFields]:
    """:func:`intent_skills` of a ``.jsonl``/``.json`` (JSON lines) or ``.csv`` file."""
    suffix = path.suffix.lower()
    fmt = {".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}.get(suffix)
    if fmt is None:
        raise InvalidInput(
            f"cannot tell the format of {path.name}: use .jsonl (JSON lines) or .csv (text,intent)"
        )
    return intent_skills(read_intent_rows(read_text(path), fmt))


def is_template(resolution_md: str) -> bool:
    """Whether a playbook is an imported template still to be written (its Goal starts with the mark)."""
    return f"## Goal\n{TEMPLATE_MARK}" in resolution_md
