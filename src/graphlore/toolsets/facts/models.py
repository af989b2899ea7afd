"""Request and response models of the facts tools, and the one schema every document record follows.

The MCP adapter and the CLI validate through these (``extra="forbid"``), and
``skills/facts/SKILL.md`` is checked against them. The same
:class:`DocumentRecord` is a line of ``graphlore facts ingest FILE.jsonl``, the
body of ``add_document``, and what ``extract_document`` builds from the model's
answers.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from graphlore.contract import MAX_OFFSET, LocalPath, Request, Response, described_pattern, quote
from graphlore.toolsets.facts.names import exact_key

GRAPH_PATTERN = described_pattern(r"^[a-z0-9][a-z0-9_-]{0,63}$", "1 to 64 lower-case letters, digits, - and _, starting with a letter or digit")
DEFAULT_GRAPH = "default"
MAX_SELECTORS = 20
#: Facts one search lists (its ``limit``), so also the largest result number ``cat`` can expand.
MAX_SEARCH_RESULTS = 200

# Limits of one request (documented in SKILL.md; the JSON schema shows them as maxLength / maxItems).
#: characters of a name, alias, type or relationship; of a definition or sentence; of one chunk
MAX_NAME = 500
MAX_DEFINITION = 2000
MAX_CHUNK = 20_000
#: entries of one document record
MAX_CHUNKS = 1000
MAX_ENTITIES = 500
MAX_TOPICS = 500
MAX_FACTS = 2000
MAX_ALIASES = 50
#: characters of a document extract_document reads
MAX_TEXT = 200_000
#: characters of a search query, a source and a file path
MAX_QUERY = 1000
MAX_SOURCE = 2000
MAX_PATH = 4096
#: characters of a kg_execute command line
MAX_COMMAND = 10_000


DATE_PATTERN = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"


def _iso_date(value: str) -> str:
    """A day as YYYY-MM-DD only (``date.fromisoformat`` also takes week dates such as 2020-W53-7 and
    20201231: stored dates compare as text, so each day has one spelling)."""
    form = "use YYYY-MM-DD (year, month, day), e.g. 2025-10-15"
    if not re.fullmatch(DATE_PATTERN, value):
        raise ValueError(f"{quote(value)} is not a date: {form}")
    try:
        dt.date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"{quote(value)} is not a date ({exc}): {form}") from exc
    return value


#: The edge type of facts (:mod:`graph` describes the rows).
FACT = "fact"
#: The day ``current`` reads validity on: later than any fact's end, so only facts nothing ended pass.
CURRENT_DAY = "9999-12-31"
PERIOD_PATTERN = r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$"  # ASCII digits (\d takes any script's)
PERIOD_FORM = "use YYYY-MM-DD (a day), YYYY-MM (a month) or YYYY (a year), e.g. 2025-10-15, 2025-10 or 2025"


def _period(value: str) -> str:
    """A day, a month or a year; ``period_bounds`` turns it into its first and last day."""
    if not re.fullmatch(PERIOD_PATTERN, value):
        raise ValueError(f"{quote(value)} is not a date: {PERIOD_FORM}")
    try:
        period_bounds(value)
    except ValueError as exc:
        raise ValueError(f"{quote(value)} is not a date ({exc}): {PERIOD_FORM}") from exc
    return value


def period_bounds(value: str) -> tuple[str, str]:
    """First and last day of a period: ``2024`` -> 2024-01-01..2024-12-31, ``2024-02`` -> ..2024-02-29."""
    parts = [int(p) for p in value.split("-")]
    if len(parts) == 3:
        day = dt.date(*parts)
        return day.isoformat(), day.isoformat()
    if len(parts) == 2:
        year, month = parts
        first = dt.date(year, month, 1)
        return first.isoformat(), dt.date(year, month, calendar.monthrange(year, month)[1]).isoformat()
    first = dt.date(parts[0], 1, 1)
    return first.isoformat(), dt.date(parts[0], 12, 31).isoformat()


Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME, pattern=r"\S")]
Definition = Annotated[str, Field(min_length=1, max_length=MAX_DEFINITION, pattern=r"\S")]
IsoDate = Annotated[str, Field(min_length=1, max_length=10, json_schema_extra={"format": "date"}),
                    AfterValidator(_iso_date)]
Period = Annotated[str, Field(min_length=1, max_length=10, json_schema_extra={"pattern": PERIOD_PATTERN}),
                   AfterValidator(_period)]
Graph = Annotated[
    str,
    Field(pattern=GRAPH_PATTERN, description="Graph name (lower-case letters, digits, - and _); each graph is its own store."),
]
Kind = Literal["entity", "topic"]
Score = Annotated[float, Field(ge=0.0, le=1.0)]

FIND_FORM = (
    'entity=[{"name": "Apple Inc", "definition": "American technology company"}] '
    "(CLI: --entity 'Apple Inc: American technology company', repeatable; kg_execute: "
    '--entity {"name": "Apple Inc", "definition": "American technology company"}; topics the same with '
    "topic / --topic)"
)
SEARCH_FORM = ('entity=["Apple Inc", "Microsoft Corp"] (CLI: --entity "Apple Inc" --entity "Microsoft Corp"; '
               'kg_execute: -entity "Apple Inc, Microsoft Corp")')


# -- the document record --------------------------------------------------------------------------


class EntityIn(Request):
    name: Name = Field(description="The name used in this document, e.g. Apple Inc.")
    type: Name = Field(description="Company, Person, Organization, Location, Product, Event, ... (free text).")
    definition: Definition = Field(description="One sentence saying what it is; resolution compares definitions.")
    aliases: list[Name] = Field(default_factory=list, max_length=MAX_ALIASES,
                                description="Other names used for it in this document.")


class TopicIn(Request):
    name: Name = Field(description="The topic, e.g. Inflation.")
    definition: Definition = Field(description="One sentence saying what the topic covers.")
    aliases: list[Name] = Field(default_factory=list, max_length=MAX_ALIASES,
                                description="Other names used for it in this document.")


class FactIn(Request):
    subject: Name = Field(description="Name or alias of an entity or topic of this record.")
    relationship: Name = Field(description="What the subject does to the object, e.g. acquired.")
    object: Name = Field(description="Name or alias of an entity or topic of this record.")
    sentence: Definition = Field(description="A self-contained sentence stating the fact.")
    date_context: Name | None = Field(None, description="When it happened, as the text says; default: the document date.")
    chunk: int = Field(ge=0, le=MAX_CHUNKS - 1, description="Index (from 0) of the chunk the fact comes from.")


class DocumentRecord(Request):
    name: Name = Field(description="Document name; with source it identifies the document.")
    date: IsoDate = Field(description="Document date, YYYY-MM-DD; every fact of the document carries it.")
    source: str = Field("", max_length=MAX_SOURCE,
                        description="Where the document comes from (URL, path); part of its identity.")
    chunks: list[Annotated[str, Field(min_length=1, max_length=MAX_CHUNK, pattern=r"\S")]] = Field(
        min_length=1, max_length=MAX_CHUNKS, description="The document's text, split into chunks.")
    entities: list[EntityIn] = Field(default_factory=list, max_length=MAX_ENTITIES)
    topics: list[TopicIn] = Field(default_factory=list, max_length=MAX_TOPICS)
    facts: list[FactIn] = Field(default_factory=list, max_length=MAX_FACTS)

    @model_validator(mode="after")
    def _references_resolve(self) -> DocumentRecord:
        """Names unique per kind; every fact's ends name exactly one entity or topic (a name or alias of
        this record, compared case-insensitively); chunks exist."""
        names: dict[str, tuple[str, str]] = {}
        for kind, items in (("entity", self.entities), ("topic", self.topics)):
            seen: dict[str, str] = {}
            for item in items:
                key = exact_key(item.name)
                if key in seen:
                    raise ValueError(f"{kind} names must be unique in a record: {quote(seen[key])} and {quote(item.name)} "
                                     "are the same name; give one entry (with aliases)")
                seen[key] = item.name
            for item in items:
                for label in (item.name, *item.aliases):
                    key = exact_key(label)
                    other = names.get(key)
                    if other is not None and other != (kind, item.name):
                        raise ValueError(f"{quote(label)} names both {other[0]} {quote(other[1])} and {kind} {quote(item.name)}; "
                                         "names and aliases must point at one entity or topic")
                    names[key] = (kind, item.name)
        every = sorted({v[1] for v in names.values()})
        valid = ", ".join(quote(n, 40) for n in every[:20]) + (f" and {len(every) - 20} more" if len(every) > 20 else "")
        valid = valid or "(none)"
        for i, fact in enumerate(self.facts):
            for end in ("subject", "object"):
                label = getattr(fact, end)
                if exact_key(label) not in names:
                    raise ValueError(f"facts[{i}].{end} {quote(label)} is not the name or alias of an entity or topic of "
                                     f"this record; names: {valid}")
            if fact.chunk >= len(self.chunks):
                raise ValueError(f"facts[{i}].chunk is {fact.chunk} but the record has {len(self.chunks)} chunk(s) "
                                 f"(indexes 0 to {len(self.chunks) - 1})")
        return self

    def node_for(self, label: str) -> tuple[str, str]:
        """(kind, name) of the entity or topic a fact end names."""
        key = exact_key(label)
        for kind, items in (("entity", self.entities), ("topic", self.topics)):
            for item in items:
                if key in {exact_key(n) for n in (item.name, *item.aliases)}:
                    return kind, item.name
        raise KeyError(label)


class AddDocumentRequest(DocumentRecord):
    graph: Graph = DEFAULT_GRAPH


class IngestRequest(Request):
    """``graphlore facts ingest`` (CLI only: over MCP the agent sends records with add_document)."""

    file: Annotated[str, LocalPath("file"), Field(min_length=1, max_length=MAX_PATH, pattern=r"\S")] = Field(
        description="A JSONL file: one DocumentRecord per line.")
    graph: Graph = DEFAULT_GRAPH


class ExtractDocumentRequest(Request):
    name: Name = Field(description="Document name (CLI: the file name).")
    date: IsoDate = Field(description="Document date, YYYY-MM-DD (CLI: --date, default the file's modification date).")
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT, pattern=r"\S")] = Field(
        description="The document's full text (CLI: the file's contents).")
    source: str = Field("", max_length=MAX_SOURCE, description="Where it comes from (CLI: --source, default the file's path).")
    graph: Graph = DEFAULT_GRAPH


# -- query requests --------------------------------------------------------------------------------


class Selector(Request):
    name: Name = Field(description="The name you are looking for.")
    definition: Definition = Field(description="What you mean by it; the query text is '{name}: {definition}'.")
    id: Name | None = Field(None, description="Your own label for this selector, echoed back.")


def _strict_selectors(value: Any, field: str) -> Any:
    if isinstance(value, str) or (isinstance(value, list) and any(not isinstance(v, dict) for v in value)):
        raise ValueError(f"{field} takes selector objects, not names or 'name: definition' strings; use {FIND_FORM}")
    return value


#: Fields of older interfaces, and the form that replaced each, per tool.
FIND_LEGACY_FIELDS = {
    "entity_name": FIND_FORM, "entity_def": FIND_FORM, "topic_name": FIND_FORM, "topic_def": FIND_FORM,
    "to": f"find has no date filter (dates belong to search: to_date=YYYY-MM-DD); find takes {FIND_FORM}",
}
SEARCH_LEGACY_FIELDS = {
    "entity_name": SEARCH_FORM, "topic_name": SEARCH_FORM,
    "to": "to_date=YYYY-MM-DD (CLI: --to-date YYYY-MM-DD)",
}


def _reject_legacy(data: Any, legacy: dict[str, str]) -> Any:
    if isinstance(data, dict):
        for key, form in legacy.items():
            if key in data:
                raise ValueError(f"'{key}' is an old form and is not accepted; use {form}")
    return data


class FindRequest(Request):
    entity: list[Selector] = Field(default_factory=list, max_length=MAX_SELECTORS,
                                   description="Entity selectors, each searched among entities.")
    topic: list[Selector] = Field(default_factory=list, max_length=MAX_SELECTORS,
                                  description="Topic selectors, each searched among topics.")
    graph: Graph = DEFAULT_GRAPH

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:
        return _reject_legacy(data, FIND_LEGACY_FIELDS)

    @field_validator("entity", "topic", mode="before")
    @classmethod
    def _objects_only(cls, value: Any, info) -> Any:
        return _strict_selectors(value, info.field_name)

    @model_validator(mode="after")
    def _at_least_one(self) -> FindRequest:
        if not self.entity and not self.topic:
            raise ValueError(f"give at least one selector: {FIND_FORM}")
        return self


class SearchRequest(Request):
    entity: list[Name] = Field(default_factory=list, max_length=50,
                               description="Entities by canonical name, alias or node id.")
    topic: list[Name] = Field(default_factory=list, max_length=50,
                              description="Topics by canonical name, alias or node id.")
    mode: Literal["around", "between"] = Field(
        "around", description="around: facts with subject or object selected; between: both selected.")
    query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY, pattern=r"\S")] | None = Field(
        None, description="Rank the filtered facts by relevance to this text.")
    from_: Period | None = Field(
        None, alias="from",
        description="Only facts whose document date is on or after this day, or the first day of this month or year "
                    "(YYYY-MM-DD, YYYY-MM or YYYY).")
    to_date: Period | None = Field(
        None, description="Only facts whose document date is on or before this day, or the last day of this month or "
                          "year (YYYY-MM-DD, YYYY-MM or YYYY: 2024-10 means through 2024-10-31).")
    limit: int = Field(20, ge=1, le=MAX_SEARCH_RESULTS, description="Most facts listed.")
    as_of: Period | None = Field(
        None, description="Only facts that held on this day (the last day of a month or year given): valid_from on "
                          "or before it and not ended by then (YYYY-MM-DD, YYYY-MM or YYYY).")
    current: bool = Field(False, description="Only facts nothing has ended (valid_to null): what holds now.")
    graph: Graph = DEFAULT_GRAPH

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:
        return _reject_legacy(data, SEARCH_LEGACY_FIELDS)

    @field_validator("entity", "topic", mode="before")
    @classmethod
    def _list_of_names(cls, value: Any, info) -> Any:
        if isinstance(value, str):
            raise ValueError(f"{info.field_name} takes a list of names, e.g. {SEARCH_FORM}")
        if isinstance(value, list) and any(isinstance(v, dict) for v in value):
            raise ValueError(f"{info.field_name} takes names or ids, not selector objects (those are for find); "
                             f"e.g. {SEARCH_FORM}")
        return value

    @model_validator(mode="after")
    def _check(self) -> SearchRequest:
        if not self.entity and not self.topic:
            raise ValueError(f"give at least one entity or topic: {SEARCH_FORM}")
        if self.date_from and self.date_to and self.date_from > self.date_to:
            given = f"from ({self.from_}{'' if self.from_ == self.date_from else ' = ' + self.date_from})"
            end = f"to_date ({self.to_date}{'' if self.to_date == self.date_to else ' = ' + self.date_to})"
            raise ValueError(f"{given} is after {end}")
        if self.as_of and self.current:
            raise ValueError("as_of and current exclude each other: current is what holds now, as_of what held "
                             "on a day; give one")
        return self

    @property
    def valid_at(self) -> str | None:
        """The day validity is read on: the last day ``as_of`` stands for, "now" for ``current``, else None."""
        return period_bounds(self.as_of)[1] if self.as_of else CURRENT_DAY if self.current else None

    @property
    def date_from(self) -> str | None:
        """The first day ``from`` stands for (a month or a year starts on its first day)."""
        return period_bounds(self.from_)[0] if self.from_ else None

    @property
    def date_to(self) -> str | None:
        """The last day ``to_date`` stands for (a month or a year ends on its last day)."""
        return period_bounds(self.to_date)[1] if self.to_date else None


class CatRequest(Request):
    numbers: list[Annotated[int, Field(ge=1, le=MAX_SEARCH_RESULTS)]] = Field(min_length=1, max_length=50,
                                                       description="Result numbers of the latest search.")
    search_id: Annotated[str, Field(min_length=1, max_length=64, pattern=r"\S")] | None = Field(
        None, description="Expand this search instead of the session's latest.")
    graph: Graph = DEFAULT_GRAPH


class InfoRequest(Request):
    name: Name = Field(description="An entity or topic: canonical name, alias or node id.")
    graph: Graph = DEFAULT_GRAPH


class LsRequest(Request):
    what: Literal["entities", "topics", "documents"] = Field(description="What to list.")
    type: Name | None = Field(None, description="Only entities of this type (compared case-insensitively), filtered "
                                                "before offset and limit; entities only.")
    limit: int = Field(50, ge=1, le=1000, description="Most rows in this page.")
    offset: int = Field(0, ge=0, le=MAX_OFFSET,
                        description="Rows to skip first (the next page starts at offset + limit).")
    graph: Graph = DEFAULT_GRAPH

    @model_validator(mode="after")
    def _type_is_for_entities(self) -> LsRequest:
        if self.type is not None and self.what != "entities":
            raise ValueError(f"type filters entities only (only entities have a type); "
                             f"use what='entities' with type, or leave type out to list {self.what}")
        return self


class StatsRequest(Request):
    graph: Graph = DEFAULT_GRAPH


class RetractRequest(Request):
    document: Name = Field(description="The document to take back: its name (as ls documents lists it) or its id "
                                       "(D:...).")
    graph: Graph = DEFAULT_GRAPH


class MergeRequest(Request):
    name: Name = Field(description="The entity or topic that stays (canonical name, alias or node id).")
    other: Name = Field(description="The one that joins it and disappears (canonical name, alias or node id), "
                                    "of the same kind.")
    graph: Graph = DEFAULT_GRAPH


class RelationSetRequest(Request):
    name: Name = Field(description="The relationship, as facts state it (compared case-insensitively), "
                                   "e.g. 'has CEO'.")
    functional: bool = Field(description="true: a subject has one object at a time, so a later fact naming another "
                                         "object ends the earlier one; false: facts of it never end each other.")
    graph: Graph = DEFAULT_GRAPH


class SplitRequest(Request):
    name: Name = Field(description="The entity or topic to split: canonical name, alias or node id.")
    mentions: list[Name] = Field(
        min_length=1, max_length=100,
        description="The mentions that leave it for a new node: mention ids as info lists them (8 characters, or "
                    "legacy), or names as a mention gave them (every mention with that name).")
    graph: Graph = DEFAULT_GRAPH


class ResolveLinksRequest(Request):
    limit: int = Field(default=20, ge=1, le=500,
                       description="Open possible-duplicate links to ask the LLM about, strongest first (default 20).")
    graph: Graph = DEFAULT_GRAPH


class CheckContradictionsRequest(Request):
    limit: int = Field(default=20, ge=1, le=500,
                       description="Facts still held to ask the LLM about, each with the later facts of its subject "
                                   "that could contradict it (default 20).")
    graph: Graph = DEFAULT_GRAPH


# -- responses ---------------------------------------------------------------------------------------


class NodeRef(Response):
    id: str
    name: str
    kind: Kind


class DocumentRef(Response):
    id: str
    name: str
    date: str
    source: str


class EndedBy(Response):
    fact: str = Field(description="The fact that ended it (the evidence).")
    document: str | None = Field(description="That fact's document id.")
    object: str = Field(description="That fact's object (node id): what replaced this fact's object.")
    reason: str
    judge: str | None = Field(None, description="The LLM that judged the later fact contradicts this one "
                                                "(check_contradictions); null: the functional-relationship rule.")
    decided: str | None = Field(None, description="When the judge decided (UTC); null for the rule.")


class FactOut(Response):
    number: int = Field(description="Position in the result list (1-based); 0 outside a search.")
    id: str
    date: str = Field(description="document_date of the fact's document.")
    subject: NodeRef
    relationship: str
    object: NodeRef
    sentence: str
    date_context: str
    document: DocumentRef
    score: Score | None = Field(None, description="Cosine of query and sentence (search with query only).")
    valid_from: str = Field("", description="From when the fact holds: its date_context when that is a date (its "
                                            "first day), else the document date.")
    valid_to: str | None = Field(None, description="When a later fact ended it; null: it still holds.")
    ended_by: EndedBy | None = Field(None, description="What ended it (the evidence); null while it holds.")


class Candidate(Response):
    id: str
    name: str
    type: str | None = Field(description="Entity type; null for topics.")
    score: Score
    weak: bool = Field(description="score is below find's floor: probably not what the selector means.")


class SelectorMatches(Response):
    name: str
    id: str | None
    candidates: list[Candidate]


class FindResponse(Response):
    graph: str
    entities: list[SelectorMatches]
    topics: list[SelectorMatches]


class ResolvedName(Response):
    given: str
    id: str
    name: str
    kind: Kind
    matched: Literal["id", "name", "alias", "normalised"] = Field(
        description="How the name was found: node id, canonical name or alias (case-insensitive), or equal after "
                    "normalisation (accents, punctuation, legal suffixes such as Inc dropped).")


class SearchResponse(Response):
    graph: str
    search_id: str
    mode: Literal["around", "between"]
    selected: list[ResolvedName]
    query: str | None
    from_: str | None = Field(alias="from", description="The first day searched (YYYY-MM-DD), or null.")
    to_date: str | None = Field(description="The last day searched (YYYY-MM-DD), or null.")
    limit: int
    as_of: str | None = Field(None, description="The day validity was read on (as_of as given), or null.")
    current: bool = Field(False, description="Only facts that still hold were searched.")
    total: int = Field(description="Facts that pass the selectors, date and validity filters.")
    results: list[FactOut]


class NodeSummary(Response):
    id: str
    name: str
    kind: Kind
    type: str | None
    definition: str
    facts: int


class CatItem(Response):
    fact: FactOut
    chunk: str
    subject: NodeSummary
    object: NodeSummary


class SearchSummary(Response):
    """What a numbered result list answered: cat repeats it so its results are never read out of context."""

    mode: Literal["around", "between"]
    selected: list[ResolvedName]
    query: str | None
    from_: str | None = Field(alias="from")
    to_date: str | None
    as_of: str | None = None
    current: bool = False
    total: int


class CatResponse(Response):
    graph: str
    search_id: str
    search: SearchSummary | None = Field(
        description="The search the numbers belong to; null only for a CLI search saved by an older graphlore.")
    items: list[CatItem]


class Neighbour(Response):
    id: str
    name: str
    kind: Kind
    facts: int = Field(description="Facts shared with the node.")


class DuplicateLink(Response):
    id: str
    name: str
    score: Score
    reason: str
    decision: Literal["open", "same", "different", "settled"] = Field(
        default="open", description="open: nothing decided it yet (resolve_links asks an LLM); same / different: "
                                    "what the LLM judge decided (same: merged, unless a split undid it); settled: "
                                    "identifiers (codes, editions, variants) keep the two apart, never asked.")
    evidence: str | None = Field(default=None, description="The judge's reason, and which model (null: not judged).")


class MentionOut(Response):
    """One distinct mention (name, type, definition) that created or joined a node: its record."""

    id: str = Field(description="Mention id: what split takes (8 characters of its key, or legacy).")
    name: str = Field(description="The name the mention gave.")
    aliases: list[str] = Field(description="Other names the mention gave.")
    type: str | None
    definition: str = Field(description="The definition the mention gave.")
    action: Literal["created", "merged", "legacy"] = Field(
        description="created the node, merged into it, or legacy: what the node was when it was first written "
                    "before graphlore kept mention records.")
    reason: str = Field(description="Why resolution put it here.")
    document: DocumentRef | None = Field(description="The first document that said it; null for legacy.")


class InfoResponse(Response):
    graph: str
    id: str
    kind: Kind
    name: str
    type: str | None
    definition: str
    aliases: list[str]
    fact_count: int
    first_date: str | None
    last_date: str | None
    neighbours: list[Neighbour]
    latest_facts: list[FactOut] = Field(description="Its newest facts that still hold.")
    superseded_facts: list[FactOut] = Field(default_factory=list, description=(
        "Its newest facts that a later fact ended (valid_to, ended_by), listed apart from the ones that hold."))
    superseded_count: int = Field(0, description="Facts of the node that a later fact ended.")
    possible_duplicates: list[DuplicateLink]
    mention_count: int = Field(description="Mention records of the node (0: written before records were kept).")
    mentions: list[MentionOut] = Field(description="Its mention records, newest first (at most 20): which document "
                                                   "said what. split takes their ids.")
    kept_apart: list[NodeRef] = Field(description="Nodes a split kept apart from this one: their names never "
                                                  "merge into it again.")


class LsRow(Response):
    id: str
    name: str
    type: str | None = Field(description="Entity type; null for topics and documents.")
    date: str | None = Field(description="Document date; null for entities and topics.")
    facts: int
    chunks: int | None = Field(description="Chunks of a document; null for entities and topics.")


class LsResponse(Response):
    graph: str
    what: Literal["entities", "topics", "documents"] = Field(description="What to list.")
    type: str | None = Field(description="The type filter as given; null without one.")
    total: int = Field(description="How many there are (of the type, with a type filter).")
    offset: int = Field(description="Rows skipped before this page.")
    has_more: bool = Field(description="Rows follow this page: ask again with offset + len(rows).")
    rows: list[LsRow]


class SplitNode(Response):
    id: str
    name: str
    type: str | None
    definition: str
    aliases: list[str]
    mentions: list[str] = Field(description="Ids of its mention records.")
    facts: int = Field(description="Facts it is an end of.")


class SplitResponse(Response):
    graph: str
    kept: SplitNode = Field(description="The node that was split, rebuilt from the mentions it kept (same id).")
    split_off: SplitNode = Field(description="The new node, rebuilt from the mentions that left.")
    facts_moved: int = Field(description="Facts whose subject or object came from a mention that left.")


class RetractResponse(Response):
    graph: str
    document: DocumentRef
    chunks_removed: int
    facts_removed: int
    mentions_removed: int = Field(description="Mention records only this document said.")
    nodes_removed: list[NodeRef] = Field(description="Entities and topics no other document mentions.")
    nodes_rebuilt: list[NodeRef] = Field(description="Entities and topics rebuilt from the mentions they keep.")
    came_apart: list[NodeRef] = Field(description="Nodes made from mentions whose merge rested on this document.")
    validity_changed: int = Field(description="Facts whose validity changed (what this document's facts ended "
                                              "holds again).")


class MergeResponse(Response):
    graph: str
    merged: SplitNode = Field(description="The node that stayed, rebuilt from both nodes' mentions.")
    removed: NodeRef = Field(description="The node that joined it (its id is gone; split restores it).")
    joined_mentions: list[str] = Field(description="Ids of the mentions that came with it: split NAME with exactly "
                                                   "these restores both nodes as they were.")
    facts_moved: int
    validity_changed: int


class RelationSetResponse(Response):
    graph: str
    relationship: str = Field(description="The relationship as compared (lower case, spaces collapsed).")
    functional: bool
    default: bool = Field(description="Whether it is functional by default (graphlore's list).")
    facts_changed: int = Field(description="Facts whose validity changed.")


class StatsResponse(Response):
    graph: str
    location: str
    entities: int
    topics: int
    documents: int
    chunks: int
    facts: int
    possible_duplicates: int
    first_date: str | None
    last_date: str | None
    embedder: str | None


class Resolution(Response):
    kind: Kind
    name: str = Field(description="The name as given in the document.")
    id: str = Field(description="The node it now belongs to.")
    canonical_name: str
    action: Literal["created", "merged", "matched"]
    reason: str
    possible_duplicates: list[DuplicateLink]


class AddDocumentResponse(Response):
    graph: str
    status: Literal["created", "updated", "unchanged"]
    document: DocumentRef
    chunks: int
    facts: int = Field(description="Facts of the document after this call.")
    facts_added: int
    facts_removed: int
    resolutions: list[Resolution]


class ExtractDocumentResponse(AddDocumentResponse):
    llm: str
    skipped: list[str] = Field(description="Items the model proposed that did not fit the schema, and why.")


class IngestResponse(Response):
    graph: str
    file: str
    documents: int
    created: int
    updated: int
    unchanged: int
    facts_added: int
    facts_removed: int
    entities_created: int
    topics_created: int
    merged: int
    embedded_texts: int
    duration_ms: int
    outcomes: list[AddDocumentResponse]


# -- kg_execute: the original server's command language ----------------------------------------------

CommandName = Literal["find", "search", "cat", "info", "ls", "stats", "retract", "merge", "help"]


class ExecuteRequest(Request):
    command: Annotated[str, Field(min_length=1, max_length=MAX_COMMAND, pattern=r"\S")] = Field(description=(
        "One command line of the original facts server: find --entity {\"name\": \"Apple\", \"definition\": "
        "\"US technology company\"} | search -entity \"Apple Inc, Microsoft Corp\" [--mode between] [-q TEXT] "
        "[--from DATE] [--to-date DATE] [--as-of DATE] [--current] | cat 1 2 | info Apple Inc | ls entities [-type company] "
        "| stats | retract DOCUMENT | merge NAME OTHER | help."))


class ExecuteResponse(Response):
    command: CommandName = Field(description="The command that ran.")
    text: str = Field(description="The typed tool's text rendering (help: the commands and the workflow).")
    result: dict[str, Any] | None = Field(description="The typed tool's structured output; null for help.")


class LinkDecision(Response):
    link: str = Field(description="The possible-duplicate link's id.")
    a: NodeRef
    b: NodeRef
    decision: Literal["same", "different", "undecided"] = Field(
        description="same: the two nodes were merged; different: the link stays, marked, and is not asked again; "
                    "undecided: no usable answer, the link stays open.")
    evidence: str = Field(description="The judge's reason (or why there is no decision).")
    merged_into: NodeRef | None = Field(description="The node both are now (same); null otherwise.")
    undo: str | None = Field(description="The command that undoes the decision (split after a merge, merge after "
                                         "a 'different'); null when there is nothing to undo.")


class ResolveLinksResponse(Response):
    graph: str
    llm: str = Field(description="The model that judged.")
    decisions: list[LinkDecision]
    open_links: int = Field(description="Links still open after this call (ask again to go on).")


class ContradictionCheck(Response):
    fact: str = Field(description="The fact asked about (its id).")
    sentence: str
    decision: Literal["ended", "holds", "undecided"] = Field(
        description="ended: a later fact contradicts it, so it held until that fact's valid_from (the verdict is "
                    "recorded on it; retracting the evidence's document undoes it); holds: no later fact contradicts "
                    "it (asked again only when the later facts it is shown, the 10 earliest, change); undecided: no "
                    "usable answer, nothing changed (asked again next time).")
    evidence: str | None = Field(description="The later fact that ended it (ended); null otherwise.")
    evidence_sentence: str | None = Field(description="That fact's sentence; null otherwise.")
    valid_to: str | None = Field(description="Until when it held (ended); null otherwise.")
    reason: str = Field(description="The judge's reason (or why there is no decision).")


class CheckContradictionsResponse(Response):
    graph: str
    llm: str = Field(description="The model that judged.")
    checks: list[ContradictionCheck]
    unchecked: int = Field(description="Facts still held with later facts the judge has not weighed yet (call "
                                       "again to go on).")
