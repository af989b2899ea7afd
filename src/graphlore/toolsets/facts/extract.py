"""Extraction by an LLM, in two steps, into the same :class:`DocumentRecord` every other path uses.

Step 1 lists the document's entities and topics; step 2 lists facts whose
subject and object must be names from that list. A fact without ``date_context``
gets the document date. Whatever the model proposes that does not fit the schema
(an unknown name, a missing field, a chunk that does not exist) is left out and
reported in ``skipped``, never dropped silently. Both questions are asked before
anything is written.
"""

from __future__ import annotations

import json
import re

from pydantic import ValidationError

from graphlore.contract import format_validation_error
from graphlore.errors import ProviderError, spell
from graphlore.llm import LLM, LLMRequest, parse_json_reply
from graphlore.toolsets.facts.models import DocumentRecord, EntityIn, ExtractDocumentRequest, FactIn, TopicIn
from graphlore.toolsets.facts.names import exact_key
from graphlore.toolsets.facts.resolve import Judge, Mention, NodeState

#: A chunk is a paragraph; paragraphs shorter than SMALL_CHUNK are joined with the next, up to CHUNK_CHARS,
#: and a paragraph longer than CHUNK_CHARS is cut at sentence ends.
CHUNK_CHARS = 1200
SMALL_CHUNK = 300
ENTITY_TYPES = "Company, Person, Organization, Location, Product, Event, Other"

SYSTEM = (
    "You turn documents into a knowledge graph. Answer with one JSON object and nothing else. "
    "Use only what the document says."
)
STEP1 = """STEP 1 of 2: list the entities and topics of this document.

Document: {name} (dated {date})
{chunks}

Answer with JSON of this shape:
{{"entities": [{{"name": "...", "type": "one of {types}", "definition": "one sentence saying what it is",
  "aliases": ["other names used for it in the document"]}}],
 "topics": [{{"name": "...", "definition": "one sentence saying what the topic covers"}}]}}
Entities are named things (companies, people, places, products, events); topics are themes
(e.g. Inflation, Climate policy). Give each thing once, under its fullest name."""
STEP2 = """STEP 2 of 2: list the facts the document states between these entities and topics.

Document: {name} (dated {date})
{chunks}

Entities and topics (subject and object must be one of these names, exactly):
{names}

Answer with JSON of this shape:
{{"facts": [{{"subject": "...", "relationship": "short verb phrase, e.g. acquired",
  "object": "...", "sentence": "one self-contained sentence stating the fact",
  "date_context": "when it happened, as the text says or implies (e.g. 2025-10-15, Q3 2024); required",
  "chunk": <number of the chunk it comes from>}}]}}"""


SAME = """SAME THING? Do these two descriptions name the same real-world {kind}?

A: {a_name} ({a_type}): {a_definition}
B: {b_name} ({b_type}): {b_definition}{b_aliases}

Answer with JSON: {{"same": true}} or {{"same": false}}."""
#: Questions the judge may ask per write; past that, possible duplicates stay linked, not merged.
MAX_JUDGEMENTS = 10


def llm_judge(llm: LLM) -> Judge:
    """Possible duplicates decided by the model: merged when it says they are the same thing."""
    asked = 0

    def judge(mention: Mention, node: NodeState) -> bool:
        nonlocal asked
        if asked >= MAX_JUDGEMENTS:
            return False
        asked += 1
        aliases = f" (also called {', '.join(node.aliases)})" if node.aliases else ""
        reply = parse_json_reply(llm.complete(LLMRequest(SYSTEM, SAME.format(
            kind=mention.kind, a_name=mention.name, a_type=mention.type or mention.kind,
            a_definition=mention.definition, b_name=node.name, b_type=node.type or node.kind,
            b_definition=node.definition, b_aliases=aliases), max_tokens=50)), f"the LLM ({llm.name})")
        return reply.get("same") is True

    return judge


def chunk_text(text: str, limit: int = CHUNK_CHARS) -> list[str]:
    """One chunk per paragraph (short ones joined, over-long ones cut at sentence ends)."""
    pieces: list[str] = []
    for paragraph in (p.strip() for p in re.split(r"\n\s*\n", text)):
        if not paragraph:
            continue
        if len(paragraph) <= limit:
            pieces.append(paragraph)
            continue
        current = ""
        for sentence in re.split(r"(?<=[.!?])\s+", paragraph):
            if current and len(current) + 1 + len(sentence) > limit:
                pieces.append(current)
                current = sentence
            else:
                current = f"{current} {sentence}".strip()
        if current:
            pieces.append(current)
    chunks: list[str] = []
    for piece in pieces:
        if chunks and len(chunks[-1]) < SMALL_CHUNK and len(chunks[-1]) + 2 + len(piece) <= limit:
            chunks[-1] += "\n\n" + piece
        else:
            chunks.append(piece)
    return chunks


def _numbered(chunks: list[str]) -> str:
    return "\n".join(f"[chunk {i}]\n{c}" for i, c in enumerate(chunks))


def _items(reply: dict, key: str, source: str) -> list:
    items = reply.get(key, [])
    if not isinstance(items, list):
        raise ProviderError(f"{source} answered {key!r} with {type(items).__name__}, not a list")
    return items


def _problem(model, exc: ValidationError) -> str:
    return spell(format_validation_error(model, exc, valid_fields=False))


def extract_record(llm: LLM, request: ExtractDocumentRequest) -> tuple[DocumentRecord, list[str]]:
    chunks = chunk_text(request.text)
    skipped: list[str] = []
    source = f"the LLM ({llm.name})"
    step1 = parse_json_reply(llm.complete(LLMRequest(SYSTEM, STEP1.format(
        name=request.name, date=request.date, chunks=_numbered(chunks), types=ENTITY_TYPES))), source)
    entities: list[EntityIn] = []
    topics: list[TopicIn] = []
    used: set[str] = set()
    for kind, model, target in (("entities", EntityIn, entities), ("topics", TopicIn, topics)):
        for raw in _items(step1, kind, source):
            try:
                item = model.model_validate(raw, strict=False)  # a model's answer: "0" for 0 is fine
            except ValidationError as exc:
                skipped.append(f"{kind[:-1]} {json.dumps(raw)[:120]}: {_problem(model, exc)}")
                continue
            names = {exact_key(n) for n in (item.name, *item.aliases)}
            if names & used:
                skipped.append(f"{kind[:-1]} {item.name!r}: repeats a name already listed")
                continue
            used |= names
            target.append(item)
    listed = [e.name for e in entities] + [t.name for t in topics]
    facts: list[FactIn] = []
    if listed:
        step2 = parse_json_reply(llm.complete(LLMRequest(SYSTEM, STEP2.format(
            name=request.name, date=request.date, chunks=_numbered(chunks),
            names="\n".join(f"- {n}" for n in listed)))), source)
        for raw in _items(step2, "facts", source):
            if isinstance(raw, dict) and not raw.get("date_context"):
                raw = {**raw, "date_context": request.date}
            try:
                fact = FactIn.model_validate(raw, strict=False)
            except ValidationError as exc:
                skipped.append(f"fact {json.dumps(raw)[:120]}: {_problem(FactIn, exc)}")
                continue
            ends = [e for e in (fact.subject, fact.object) if exact_key(e) not in used]
            if ends:
                skipped.append(f"fact {fact.sentence[:80]!r}: {', '.join(map(repr, ends))} is not in the step 1 list")
            elif fact.chunk >= len(chunks):
                skipped.append(f"fact {fact.sentence[:80]!r}: chunk {fact.chunk} does not exist (0 to {len(chunks) - 1})")
            else:
                facts.append(fact)
    record = DocumentRecord(name=request.name, date=request.date, source=request.source, chunks=chunks,
                            entities=entities, topics=topics, facts=facts)
    return record, skipped
