"""Request and response models of the skills tools (declared as ToolSpecs in the package's ``__init__``).

Names are the issue's: ``search_skills``, ``create_skill``, ``update_skill``,
``record_outcome``, ``get_skill``, ``import_skills`` (plus ``list_skills`` and
``skill_history`` behind the CLI's ``ls`` and ``history``, ``archive_skill`` and
``unarchive_skill``, and the CLI-only ``reindex_skills``). Every request takes
``library`` (default ``default``): one skill library per namespace
(``skills/<library>``). Requests forbid unknown fields (:class:`Request`).

Two rules sit outside pydantic because their wording is fixed by the
specification: an empty query is refused with exactly :data:`QUERY_REQUIRED`
(:func:`check_query`), and an unknown id with :func:`skill_not_found` (the other
fixed texts are :func:`database_failed`, :func:`llm_failed`, :func:`no_llm`). Oversized
text is refused with the limit and the size (:func:`check_size`, also used by
the field validators here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator
from pydantic_core import PydanticCustomError, core_schema

from graphlore.contract import MAX_OFFSET, LocalPath, Request, Response, described_pattern
from graphlore.errors import InvalidInput
from graphlore.toolsets.skills.outcomes import Outcome
from graphlore.toolsets.skills.playbook import PlaybookError, parse

LIBRARY_PATTERN = described_pattern(r"^[a-z0-9][a-z0-9_-]{0,63}$", "1 to 64 lower-case letters, digits, - and _, starting with a letter or digit")
DEFAULT_LIBRARY = "default"
ISSUE_TYPES = ("how-to", "bug", "feature-request", "escalation", "other")
IssueType = Literal["how-to", "bug", "feature-request", "escalation", "other"]
DEFAULT_PRODUCT_AREA = "general"
DEFAULT_ISSUE_TYPE = "other"

# Limits (characters or items); an oversized input is refused with the limit and its size.
MAX_QUERY = 2_000
MAX_TITLE = 200
MAX_PROBLEM = 4_000
MAX_RESOLUTION = 40_000
MAX_CONVERSATION = 200_000
MAX_FEEDBACK = 10_000
MAX_REASON = 1_000
MAX_ITEM = 1_000  # one condition or keyword
MAX_CONDITIONS = 500  # an imported intent brings its examples (CLINC150: 100)
MAX_KEYWORDS = 100
#: The highest version get_skill can be asked for (a skill gains one per update).
MAX_VERSION = 1_000_000
MAX_METADATA_KEYS = 50
#: Confidence below which a returned skill is flagged ``low_confidence`` (0.5 at the start: two failed outcomes).
LOW_CONFIDENCE = 0.3

# -- the exact texts of the specification --------------------------------------------------------

QUERY_REQUIRED = "query is required"
LLM_SETUP = (
    "this call needs an LLM to read the conversation, and none is available: connect from an MCP client "
    "that supports sampling, or set GRAPHLORE_LLM_URL (and GRAPHLORE_LLM_MODEL, GRAPHLORE_LLM_API_KEY) "
    "for an OpenAI-compatible endpoint; or send the structured form instead ({form})"
)


def skill_not_found(skill_id: str) -> str:
    return f"Skill {skill_id} not found. Use search_skills to find the correct ID."


def skill_archived(skill_id: str, since: str) -> str:
    return (f"skill {skill_id} is archived (since {since}): unarchive it first with unarchive_skill "
            f"(CLI: graphlore skills unarchive {skill_id})")


def database_failed(reason: str) -> str:
    return f"Database connection failed: {reason}"


def llm_failed(detail: str) -> str:
    return f"LLM error: {detail}. Retry or resolve from scratch."


def no_llm(form: str) -> str:
    """The error of a conversation-based call without an LLM: both ways to get one, and the structured form."""
    return LLM_SETUP.format(form=form)


def too_large(what: str, size: int, limit: int, unit: str = "characters") -> str:
    return f"{what} is {size:,} {unit}; the limit is {limit:,} {unit}"


def check_size(what: str, value: str, limit: int) -> str:
    if len(value) > limit:
        raise InvalidInput(too_large(what, len(value), limit))
    return value


def check_query(query: str) -> str:
    """The query to search, or :data:`QUERY_REQUIRED` when it is empty or blank."""
    if not query or not query.strip():
        raise InvalidInput(QUERY_REQUIRED)
    return check_size("query", query, MAX_QUERY)


@dataclass(frozen=True)
class _Limit:
    """A size limit refused with :func:`too_large`'s message and declared in the JSON schema clients see
    (``maxLength`` for text, ``maxItems`` for lists)."""

    what: str
    limit: int
    unit: str = "characters"

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        def check(value: Any) -> Any:
            if len(value) > self.limit:  # its own error type: the message quotes no value (imports show it)
                raise PydanticCustomError("too_large", too_large(self.what, len(value), self.limit, self.unit))
            return value

        return core_schema.no_info_after_validator_function(check, handler(source))

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> Any:
        out = handler(schema)
        out["maxLength" if self.unit == "characters" else "maxItems"] = self.limit
        return out


def _limit(what: str, limit: int) -> _Limit:
    return _Limit(what, limit)


def _items(what: str, limit: int) -> _Limit:
    return _Limit(what, limit, "items")


def _valid_playbook(markdown: str) -> str:
    try:
        parse(markdown)
    except PlaybookError as exc:  # as a ValueError, so it is reported with the other fields' problems
        raise ValueError(exc.message) from exc
    return markdown


Text = Annotated[str, Field(min_length=1, pattern=r"\S")]
Library = Annotated[
    str,
    Field(
        pattern=LIBRARY_PATTERN,
        description="Skill library (lower-case letters, digits, - and _); each library is its own store.",
    ),
]
def _one_line(value: str) -> str:
    if value != value.strip() or len(value.splitlines()) != 1:
        raise PydanticCustomError("one_line", "the title is one line without surrounding spaces (it is the "
                                  "playbook's '# <Title>')")
    return value


Title = Annotated[Text, _limit("title", MAX_TITLE), AfterValidator(_one_line)]
Problem = Annotated[Text, _limit("problem", MAX_PROBLEM)]
Item = Annotated[Text, _limit("a condition or keyword", MAX_ITEM)]
Conditions = Annotated[list[Item], _items("conditions", MAX_CONDITIONS)]
Keywords = Annotated[list[Item], _items("keywords", MAX_KEYWORDS)]
Playbook = Annotated[str, _limit("resolution_md", MAX_RESOLUTION), AfterValidator(_valid_playbook)]
Conversation = Annotated[Text, _limit("conversation", MAX_CONVERSATION)]
SkillId = Annotated[
    str, Field(min_length=1, max_length=100, description="The skill_id search_skills returned.")
]
Confidence = Annotated[float, Field(ge=0.0, le=1.0)]

STRUCTURED_CREATE = (
    'skill={"title": ..., "problem": ..., "conditions": [...], "keywords": [...], "resolution_md": ..., '
    '"product_area"?: ..., "issue_type"?: ...}'
)
STRUCTURED_UPDATE = 'skill={"title"?: ..., "problem"?: ..., "conditions"?: [...], "resolution_md"?: ..., ...}'


# -- the skill -----------------------------------------------------------------------------------


class Skill(Response):
    """A stored skill at one version; ``resolution_md`` carries header lines rendered from these fields."""

    skill_id: str = Field(description="uuid4, made by graphlore.")
    title: str
    version: int = Field(ge=1)
    problem: str
    resolution_md: str
    conditions: list[str]
    keywords: list[str]
    product_area: str
    issue_type: IssueType
    confidence: Confidence
    times_used: int = Field(ge=0)
    times_confirmed: int = Field(ge=0)
    created_at: str = Field(description="ISO 8601 UTC.")
    updated_at: str = Field(description="ISO 8601 UTC.")
    source: str | None = Field(
        None, description="Where it came from, e.g. abcd:<flow>/<subflow> or intent:<name>."
    )
    archived_at: str | None = Field(
        None, description="ISO 8601 UTC: when it was archived (search_skills never returns it); null: in use."
    )
    negative_examples: list[str] = Field(
        default_factory=list, description="Questions it failed on (record_outcome failed with query): "
        "search_skills does not return it for a question closer to one of these than to its own passages."
    )


class SkillInput(Request):
    """A playbook written by the agent itself (no LLM needed)."""

    title: Title = Field(description="Short name of the procedure; the playbook's '# <Title>' must match it.")
    problem: Problem = Field(description="The customer's problem it solves, in a sentence or two.")
    conditions: Conditions = Field(description="When it applies (situations or example customer questions).")
    keywords: Keywords = Field(default_factory=list, description="Words a search should match.")
    resolution_md: Playbook = Field(description="The playbook in the resolution_md layout (see SKILL.md).")
    product_area: Annotated[str, _limit("product_area", MAX_TITLE)] = DEFAULT_PRODUCT_AREA
    issue_type: IssueType = DEFAULT_ISSUE_TYPE

    @model_validator(mode="after")
    def _title_matches(self) -> SkillInput:
        heading = parse(self.resolution_md).title
        if heading != self.title:
            raise ValueError(
                f"title {self.title!r} differs from the playbook's '# {heading}' (line 1); make them one"
            )
        return self


class SkillUpdate(Request):
    """New values for some fields; the rest keep theirs. A new title renames the playbook too."""

    title: Title | None = None
    problem: Problem | None = None
    conditions: Conditions | None = None
    keywords: Keywords | None = None
    resolution_md: Playbook | None = None
    product_area: Annotated[str, _limit("product_area", MAX_TITLE)] | None = None
    issue_type: IssueType | None = None

    @model_validator(mode="after")
    def _something(self) -> SkillUpdate:
        given = self.model_dump(exclude_none=True)
        if not given:
            raise ValueError(f"give at least one field to change: {', '.join(type(self).model_fields)}")
        if self.title is not None and self.resolution_md is not None:
            heading = parse(self.resolution_md).title
            if heading != self.title:
                raise ValueError(f"title {self.title!r} differs from the playbook's '# {heading}' (line 1)")
        return self


# -- search_skills --------------------------------------------------------------------------------


JudgeMode = Literal["auto", "calibrated", "llm"]


class SearchSkillsRequest(Request):
    query: str = Field(description="The customer's problem, in their words or yours.",
                       json_schema_extra={"maxLength": MAX_QUERY})  # refused by check_query with its message
    library: Library = DEFAULT_LIBRARY
    judge: JudgeMode | None = Field(
        None, description="Who decides: calibrated (the score rule; no LLM call, no sampling round trip), llm (the "
        "configured endpoint, else this client's model), auto (llm when one is available, else calibrated). "
        "Default: the server's GRAPHLORE_SKILLS_JUDGE (auto unless set). The calibrated judge decides whenever the "
        "LLM fails; the answer's judge says so."
    )


class SkillMatch(Response):
    skill_id: str
    title: str
    confidence: Confidence = Field(description="What its recorded outcomes say (0.5 at the start).")
    resolution_md: str
    conditions: list[str]
    template: bool = Field(
        description="true: an imported template whose procedure is still to be written (its Goal starts with "
        "TEMPLATE:): it names what the customer wants, not how to solve it."
    )
    low_confidence: bool = Field(
        description=f"true: its confidence is below {LOW_CONFIDENCE} (its outcomes were mostly failures): "
        "check each step before following it, and fix it with update_skill or retire it with archive_skill."
    )


class MatchedPassage(Response):
    field: Literal["title", "problem", "condition"] = Field(description="Which of the skill's fields it is.")
    text: str = Field(description="The passage (cut to 200 characters).")
    cosine: float = Field(description="Cosine similarity of the query and the passage, in [-1, 1].")


class CandidateEvidence(Response):
    skill_id: str
    title: str
    match: float = Field(description="Soft best match of the query over the skill's passages (cosine units).")
    typical: float = Field(
        description="The match its own examples reach (leave-one-out over its conditions, shrunk toward a prior "
        "for skills with few): a query well below it is probably not about this skill."
    )
    rank: float = Field(description="What candidates are ordered by: 0.7 x match + 0.3 x prototype cosine, "
                        "plus 0.72 x whitened in a library with a fresh calibration of its own.")
    whitened: float | None = Field(
        None, description="In a library with a fresh calibration of its own: the cosine of the query and the "
        "skill's mean condition in the library's whitened space (directions that vary within every skill "
        "discounted), which moved its rank and which the network reads (the best one's, and its margin over the "
        "others'). Null elsewhere."
    )
    matched: list[MatchedPassage] = Field(description="Its closest passage of each field, closest first.")
    failed_on: str | None = Field(
        None, description="A question it failed on that is closer to the query than its own passages: it is "
        "never returned for this query."
    )


class RoutingEvidence(Response):
    """Why search_skills answered as it did: the candidates it weighed and the decision."""

    candidates: list[CandidateEvidence] = Field(description="The skills hybrid search gathered, best rank first.")
    margin: float = Field(description="The best candidate's rank minus the runner-up's (0 when it is alone; for a "
                          "best candidate the linear rule judges in a library with a fresh calibration of its own, "
                          "the ranks before the whitened move).")
    score: float = Field(
        description="The calibrated judge's evidence for the best candidate, in [0, 1]: 0.5 and above answers."
    )
    decision: str = Field(description="What decided, in words; for no skill, what the nearest skill lacked.")
    nearest: str | None = Field(
        None, description="With skill null: the skill_id of the nearest skill (the one it would have returned)."
    )


class JudgeInfo(Response):
    """Which judge decided, and why the calibrated one did when the LLM was to."""

    kind: Literal["llm", "calibrated"] = Field(description="What decided: an LLM, or the calibrated score rule.")
    fallback: str | None = Field(
        None, description="Set when an LLM was to decide and could not (failed after one retry, timed out, answered "
        "unusably twice, or none is available): what happened. The calibrated judge decided instead."
    )


class SearchSkillsResponse(Response):
    skill: SkillMatch | None = Field(
        description="The one playbook that solves it, or null: resolve from scratch."
    )
    query: str
    search_time_ms: float
    judge: JudgeInfo = Field(description="What decided (kind) and, if the LLM could not, what happened (fallback).")
    evidence: RoutingEvidence = Field(description="Why: the candidates, their scores, the margin, the decision.")


# -- create_skill / update_skill ------------------------------------------------------------------


class CreateSkillRequest(Request):
    conversation: Conversation | None = Field(
        None, description="The transcript; an LLM extracts the playbook."
    )
    skill: SkillInput | None = Field(None, description="Or the playbook itself (no LLM needed).")
    resolution_confirmed: bool = Field(False, description="The customer confirmed the resolution worked.")
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Hints for the extraction (e.g. product_area, issue_type).",
        json_schema_extra={"maxProperties": MAX_METADATA_KEYS},  # refused below with the limit and the size
    )
    library: Library = DEFAULT_LIBRARY

    @model_validator(mode="after")
    def _one_form(self) -> CreateSkillRequest:
        if (self.conversation is None) == (self.skill is None):
            raise ValueError(
                f"give either conversation=<transcript> or {STRUCTURED_CREATE}, not both or neither"
            )
        if len(self.metadata) > MAX_METADATA_KEYS:
            raise ValueError(too_large("metadata", len(self.metadata), MAX_METADATA_KEYS, "keys"))
        if self.metadata and self.skill is not None:
            raise ValueError("metadata goes with conversation (hints for the LLM); with skill=..., put "
                             "product_area and issue_type in the skill")
        area, kind = self.metadata.get("product_area"), self.metadata.get("issue_type")
        if "product_area" in self.metadata and not (isinstance(area, str) and area.strip()
                                                    and len(area) <= MAX_TITLE):
            raise ValueError(f"metadata.product_area must be a non-empty string of at most {MAX_TITLE} characters")
        if "issue_type" in self.metadata and kind not in ISSUE_TYPES:
            raise ValueError(f"metadata.issue_type {kind!r} is not one of {', '.join(ISSUE_TYPES)}")
        return self


class CreateSkillResponse(Response):
    skill_id: str
    title: str
    skill: Skill
    created: bool = Field(description="false: a near-duplicate existed and is returned instead.")
    warnings: list[str] = Field(default_factory=list, description="What the playbook may get wrong (never a "
                                "refusal): filler Goal, text for annotators, invented data, a dangling condition.")


class TitleChange(Response):
    old: str
    new: str


class StepRef(Response):
    number: int = Field(
        ge=1, description="Step number (in the old playbook for removed steps, else the new)."
    )
    action: str


class StepEdit(Response):
    old_number: int = Field(ge=1)
    new_number: int = Field(ge=1)
    action: str = Field(description="The step's action in the new playbook.")
    fields: list[Literal["action", "do", "check", "say"]] = Field(description="What changed in the step.")


class SkillChanges(Response):
    """What an update changed, computed by diffing the old and new skill (never taken from an LLM)."""

    title: TitleChange | None = None
    steps_added: list[StepRef] = Field(default_factory=list)
    steps_removed: list[StepRef] = Field(default_factory=list)
    steps_edited: list[StepEdit] = Field(default_factory=list)
    conditions_added: list[str] = Field(default_factory=list)
    conditions_removed: list[str] = Field(default_factory=list)
    keywords_added: list[str] = Field(default_factory=list)
    keywords_removed: list[str] = Field(default_factory=list)
    fields_changed: list[str] = Field(
        default_factory=list,
        description="Other changes: problem, goal, prerequisites, edge_cases, escalation, product_area, "
        "issue_type, step_order, condition_order.",
    )

    @property
    def empty(self) -> bool:
        return self == SkillChanges()


class UpdateSkillRequest(Request):
    skill_id: SkillId
    conversation: Conversation | None = Field(None, description="What happened; an LLM merges the deviation.")
    feedback: Annotated[str, _limit("feedback", MAX_FEEDBACK)] = Field(
        "", description="What to change, in words (with conversation)."
    )
    skill: SkillUpdate | None = Field(None, description="Or the new field values (no LLM needed).")
    library: Library = DEFAULT_LIBRARY

    @model_validator(mode="after")
    def _one_form(self) -> UpdateSkillRequest:
        if (self.conversation is None) == (self.skill is None):
            raise ValueError(
                f"give either conversation=<transcript> or {STRUCTURED_UPDATE}, not both or neither"
            )
        if self.feedback and self.conversation is None:
            raise ValueError("feedback goes with conversation; with skill=..., put the change in the fields")
        return self


class UpdateSkillResponse(Response):
    skill_id: str
    title: str
    changes: list[str] = Field(description="What changed, one line per change (empty: nothing; the version stays).")
    change_detail: SkillChanges = Field(description="The same, structured (steps by number, fields by name).")
    version: int = Field(ge=1)
    warnings: list[str] = Field(default_factory=list, description="What the new playbook may get wrong (never a "
                                "refusal): filler Goal, text for annotators, invented data, a dangling condition.")


# -- record_outcome / get_skill -------------------------------------------------------------------


class RecordOutcomeRequest(Request):
    skill_id: SkillId
    outcome: Outcome = Field(
        description="confirmed (+0.10), likely_resolved (+0.03), likely_failed (-0.05), failed (-0.10), "
        "no_feedback (+0.01); confidence is clamped to [0, 1]."
    )
    query: Annotated[str, _limit("query", MAX_QUERY)] | None = Field(
        None, description="The question search_skills found the skill with. With confirmed it becomes a routing "
        "example of the skill (a condition, in a new version) unless it would take a question from another "
        "skill; with failed, a negative example."
    )
    library: Library = DEFAULT_LIBRARY


class LearnedExample(Response):
    kind: Literal["example", "negative_example"] = Field(
        description="example: a condition of the skill (confirmed); negative_example: a question it failed on."
    )
    added: bool = Field(description="false: nothing was written for it (reason says why).")
    reason: str
    version: int = Field(ge=1, description="The skill's version now (an added example makes a new one).")


class RecordOutcomeResponse(Response):
    skill_id: str
    outcome: Outcome
    previous_confidence: Confidence
    confidence: Confidence
    times_used: int = Field(ge=0)
    times_confirmed: int = Field(ge=0)
    learned: LearnedExample | None = Field(
        None, description="What the query taught the skill (null: no query, or an outcome that teaches nothing)."
    )


class GetSkillRequest(Request):
    skill_id: SkillId
    version: int | None = Field(None, ge=1, le=MAX_VERSION, description="An earlier version; default the current one.")
    library: Library = DEFAULT_LIBRARY


GetSkillResponse = Skill


# -- import_skills, list_skills, skill_history ----------------------------------------------------


class ImportSkillsRequest(Request):
    format: Literal["abcd", "intents"] = Field(
        description="abcd: ABCD's guidelines.json (kb.json and ontology.json next to it); intents: JSON lines "
        '{"text": ..., "intent": ...} (.jsonl) or a CSV with text,intent columns (.csv).'
    )
    path: Annotated[Text, LocalPath("file")] = Field(max_length=4096, description="The file to import, on the "
                                                    "server's machine.")
    library: Library = DEFAULT_LIBRARY
    text_column: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        None, description="intents: the column (CSV) or key (JSON lines) of the example text; default text.")
    intent_column: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        None, description="intents: the column or key of the label; default the first of intent, category, label "
        "the file has (BANKING77's train.csv is text,category).")

    @model_validator(mode="after")
    def _columns_for_intents(self) -> ImportSkillsRequest:
        given = [name for name in ("text_column", "intent_column") if getattr(self, name) is not None]
        if given and self.format != "intents":
            raise ValueError(f"{' and '.join(given)} go with format intents; ABCD's files have a fixed layout")
        return self


class KeptEdit(Response):
    """A skill an agent changed since the last import, where the file changed too."""

    skill_id: str
    source: str
    kept: list[str] = Field(description="Fields where the agent's version was kept: the file's new value was not "
                            "applied (get_skill shows the skill, skill_history the versions).")
    merged: list[str] = Field(description="conditions / keywords both changed: the file's items (less those the "
                              "agent removed) and the agent's added items were all kept.")


class LibraryCalibration(Response):
    """The library's own calibration of the judge's bias, as the import or reindex left it."""

    shift: float | None = Field(description="How far the judge's bias moves for this library (positive: it "
                                "answers more); null: the shipped bias decides.")
    fresh: bool = Field(description="Made for the library as it is now. A later write of skills (create, update, "
                        "archive, unarchive; routing examples learned from use once more than 2 % of the conditions "
                        "it was made from were learned since) makes it stale until the next import or reindex.")
    how: str = Field(description="How the shift was found, or why the shipped bias decides.")


class ImportSkillsResponse(Response):
    format: Literal["abcd", "intents"]
    path: str
    created: int = Field(ge=0)
    updated: int = Field(
        ge=0, description="Skills of the same source whose imported fields changed (new version)."
    )
    unchanged: int = Field(ge=0, description="Importing the same file again changes nothing.")
    archived: int = Field(ge=0, description="Archived skills of the file's sources, left as they are.")
    embedded_texts: int = Field(ge=0, description="Passages embedded (unchanged ones never are).")
    skill_ids: list[str] = Field(description="The file's skills, in the order of their source.")
    warnings: dict[str, int] = Field(
        default_factory=dict, description="How many of the file's playbooks have each playbook warning (template_goal, "
        "filler_goal, annotator_text, invented_data, dangling_condition); 0s included."
    )
    kept_edits: list[KeptEdit] = Field(
        default_factory=list, description="Skills an agent changed since the last import whose fields the file "
        "changed too: a re-import never overwrites an agent's edit; what it kept, per skill."
    )
    calibration: LibraryCalibration = Field(description="The library's own calibration of the judge after this "
                                            "import (made again only when the import wrote skills or the last one was not current).")


class ListSkillsRequest(Request):
    library: Library = DEFAULT_LIBRARY
    limit: int = Field(50, ge=1, le=1000)
    offset: int = Field(0, ge=0, le=MAX_OFFSET)
    archived: Literal["exclude", "include", "only"] = Field(
        "exclude", description="Archived skills: left out (default), listed too, or listed alone."
    )


class SkillSummary(Response):
    skill_id: str
    title: str
    version: int
    confidence: Confidence
    times_used: int
    times_confirmed: int
    source: str | None
    updated_at: str
    archived_at: str | None


class ListSkillsResponse(Response):
    skills: list[SkillSummary]
    total: int = Field(ge=0, description="Skills the archived filter lets through, on every page.")


class SkillHistoryRequest(Request):
    skill_id: SkillId
    library: Library = DEFAULT_LIBRARY


class SkillVersion(Response):
    version: int = Field(ge=1)
    title: str
    updated_at: str
    changes: SkillChanges | None = Field(None, description="What this version changed (none for version 1).")


class SkillEvent(Response):
    event: Literal["archived", "unarchived", "example_added", "negative_example_added"]
    at: str = Field(description="ISO 8601 UTC.")
    version: int = Field(ge=1, description="The skill's version then (for example_added: the new version).")
    reason: str | None = Field(description="Why, as given to archive_skill / unarchive_skill; or what was learned.")
    text: str | None = Field(None, description="The question learned (example_added, negative_example_added).")


class SkillHistoryResponse(Response):
    skill_id: str
    versions: list[SkillVersion]
    events: list[SkillEvent] = Field(description="Archived and unarchived, and what outcomes taught it, oldest first.")


class ArchiveSkillRequest(Request):
    skill_id: SkillId
    reason: Annotated[str, _limit("reason", MAX_REASON)] = Field(
        "", description="Why, kept in the skill's history."
    )
    library: Library = DEFAULT_LIBRARY


class ArchiveSkillResponse(Response):
    skill_id: str
    title: str
    archived_at: str | None = Field(description="ISO 8601 UTC: when it was archived; null: in use.")
    changed: bool = Field(description="false: it already was in that state (nothing was written).")


class ReindexSkillsRequest(Request):
    library: Library = DEFAULT_LIBRARY


class ReindexSkillsResponse(Response):
    library: str
    skills: int = Field(ge=0)
    embedded_texts: int = Field(ge=0)
    embedder: str
    calibration: LibraryCalibration = Field(description="The library's own calibration of the judge, made again "
                                            "from the new vectors.")
