"""The skills tools. Each takes the runtime and a validated request and returns a response model.

``search_skills`` gathers :data:`judge.CANDIDATES` skills by hybrid search (BM25
over title, problem, conditions and keywords with the title weighted as in
:data:`TITLE_FIELD_WEIGHTS`, and the best passage cosine, fused) and lets a judge
pick one or none: the LLM when one is available (the configured endpoint, else
the calling client's model), else the calibrated judge (:mod:`judge`).
Everything written is written after every LLM question was answered.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from graphlore.contract import format_validation_error, parse_request
from graphlore.errors import ConfigError, InvalidInput, NotFound, ProviderError, StoreBusy, spell
from graphlore.roots import ESCAPES, escapes
from graphlore.runtime import Runtime
from graphlore.store import Node
from graphlore.store.factory import list_namespaces
from graphlore.tools import CallContext, Progress
from graphlore.toolsets.skills import (
    abcd,
    diff,
    evidence,
    extract,
    imports,
    judge,
    learning,
    quality,
    reimport,
    routing,
)
from graphlore.toolsets.skills.candidates import RANKING, calibrated, candidates, judged  # noqa: F401 - the bench's
from graphlore.toolsets.skills.library import (
    ARCHIVED,
    ARCHIVED_AT,
    ARCHIVED_ONLY,
    CONTENT,
    EVENTS,
    IN_USE,
    KIND,
    PROTOTYPE,
    SkillLibrary,
    Stored,
    canonical,
    changes_of,
    content_hash,
    count_archived,
    counters_of,
    counters_props,
    new_id,
    now,
    prototype_props,
    store_errors,
    to_skill,
)
from graphlore.toolsets.skills.models import (
    DEFAULT_LIBRARY,
    LOW_CONFIDENCE,
    STRUCTURED_CREATE,
    STRUCTURED_UPDATE,
    ArchiveSkillRequest,
    ArchiveSkillResponse,
    CreateSkillRequest,
    CreateSkillResponse,
    GetSkillRequest,
    ImportSkillsRequest,
    ImportSkillsResponse,
    JudgeInfo,
    KeptEdit,
    LibraryCalibration,
    ListSkillsRequest,
    ListSkillsResponse,
    RecordOutcomeRequest,
    RecordOutcomeResponse,
    ReindexSkillsRequest,
    ReindexSkillsResponse,
    SearchSkillsRequest,
    SearchSkillsResponse,
    Skill,
    SkillEvent,
    SkillHistoryRequest,
    SkillHistoryResponse,
    SkillInput,
    SkillMatch,
    SkillSummary,
    SkillVersion,
    UpdateSkillRequest,
    UpdateSkillResponse,
    check_query,
    no_llm,
    skill_archived,
    skill_not_found,
)
from graphlore.toolsets.skills.outcomes import apply_outcome, initial_counters, record_use
from graphlore.toolsets.skills.playbook import parse, render

log = logging.getLogger("graphlore.skills")


def _store_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A tool whose store failures read ``Database connection failed: <reason>``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with store_errors():
            return fn(*args, **kwargs)

    return wrapper


def _llm(runtime: Runtime, context: CallContext | None, form: str):
    llm = runtime.llm or (context.llm if context is not None else None)
    if llm is None:
        raise ConfigError(no_llm(form))
    return llm


# -- search_skills ---------------------------------------------------------------------------------


def _llm_decision(verdict_choice: str | None, found: list[Stored]) -> str:
    if verdict_choice is None:
        return "the LLM judged that none of the candidates solves it"
    title = next(s.fields["title"] for s in found if s.skill_id == verdict_choice)
    return f"the LLM chose {title!r}"


def _judge_llm(runtime: Runtime, request: SearchSkillsRequest, context: CallContext | None
               ) -> tuple[Any, str | None]:
    """The LLM that judges this search (None: the calibrated judge), and why none when one was asked for.
    ``auto`` takes the configured judge endpoint, else the client's model; ``calibrated`` never asks one."""
    mode = request.judge or runtime.settings.skills_judge
    if mode == "calibrated":
        return None, None
    llm = runtime.judge_llm or (context.llm if context is not None else None)
    if llm is None and mode == "llm":
        return None, ("judge llm was asked for, but no LLM is configured (GRAPHLORE_JUDGE_LLM_URL / "
                      "GRAPHLORE_LLM_URL) and the client offers no sampling")
    return llm, None


@_store_errors
def search_skills(runtime: Runtime, request: SearchSkillsRequest, context: CallContext | None = None
                  ) -> SearchSkillsResponse:
    started = time.perf_counter()
    query = check_query(request.query)
    library = SkillLibrary(runtime, request.library)
    store = library.store()
    if store is None:
        known(library)  # no such library: a name other than the default one is not_found
    found: list[Stored] = []
    vector = None
    negatives: dict[str, np.ndarray] = {}
    verdict = judge.Verdict(None, None)
    if store is not None:
        vector = runtime.embeddings.embed([query])[0]
        found, negatives, verdict = judged(library, store, query, vector)
    llm, fallback = _judge_llm(runtime, request, context)
    picked, decided_by, decision = verdict.skill_id, "calibrated", None
    offered = [s for s in found if not any(x.skill_id == s.skill_id and x.blocked for x in verdict.scored)]
    if offered and llm is not None:
        try:
            chosen = extract.pick(llm, query, [(s.skill_id, s.fields, s.counters) for s in offered])
        except ProviderError as exc:  # an outage never breaks search: the calibrated judge decides
            fallback = f"the LLM failed ({exc.message})"
        else:
            if chosen.decided:
                picked, decided_by, decision = chosen.choice, "llm", _llm_decision(chosen.choice, offered)
            else:
                fallback = chosen.reason
    if fallback is not None:
        log.warning("search_skills: the calibrated judge decided: %s", fallback)
    match = None
    if picked is not None:
        stored = next(s for s in found if s.skill_id == picked)
        _, counters = library.update_counters(store, picked, record_use)
        skill = to_skill(picked, stored.fields, stored.node.props, counters)
        match = SkillMatch(skill_id=skill.skill_id, title=skill.title, confidence=skill.confidence,
                           resolution_md=skill.resolution_md, conditions=skill.conditions,
                           template=imports.is_template(skill.resolution_md),
                           low_confidence=skill.confidence < LOW_CONFIDENCE)
    why = evidence.build(found, verdict, vector, negatives, picked, decision)
    elapsed = (time.perf_counter() - started) * 1000
    return SearchSkillsResponse(skill=match, query=request.query, search_time_ms=round(elapsed, 2),
                                judge=JudgeInfo(kind=decided_by, fallback=fallback), evidence=why)


# -- create_skill -----------------------------------------------------------------------------------


def _embedded_duplicate(library: SkillLibrary, store, prototype: np.ndarray) -> str | None:
    """The skill in use whose prototype is closest to ``prototype`` at or above the duplicate threshold."""
    hits = store.vector_search(prototype, kind=PROTOTYPE, where=IN_USE, limit=1)
    if hits and hits[0].score >= routing.DUPLICATE_THRESHOLD:
        return hits[0].id.removesuffix("#prototype")
    return None


@_store_errors
def create_skill(runtime: Runtime, request: CreateSkillRequest, context: CallContext | None = None
                 ) -> CreateSkillResponse:
    if request.conversation is not None:
        llm = _llm(runtime, context, STRUCTURED_CREATE)
        given = extract.extract_skill(llm, request.conversation, request.metadata)
    else:
        given = request.skill
    fields = canonical(given.model_dump())
    library = SkillLibrary(runtime, request.library)
    [embedded] = library.embed([fields])
    with library.writing() as store, store.atomic():
        existing = _embedded_duplicate(library, store, embedded.prototype)
        if existing is not None:
            [stored] = library.read(store, [existing]).values()
            skill = stored.skill()
            return CreateSkillResponse(skill_id=skill.skill_id, title=skill.title, skill=skill, created=False,
                                       warnings=_warnings(skill.resolution_md))
        skill_id, stamp = new_id(), now()
        counters = initial_counters(request.resolution_confirmed)
        props = {"version": 1, "created_at": stamp, "updated_at": stamp, "source": None,
                 "initial": counters_props(counters), "changes": None}
        write = library.rows(skill_id, fields, props, embedded)
        library.commit(store, [write])
    skill = to_skill(skill_id, fields, props, counters)
    return CreateSkillResponse(skill_id=skill_id, title=skill.title, skill=skill, created=True,
                               warnings=_warnings(fields["resolution_md"]))


def _warnings(resolution_md: str) -> list[str]:
    """What a valid playbook may still get wrong (:mod:`quality`)."""
    return [str(w) for w in quality.check(parse(resolution_md))]


# -- update_skill -----------------------------------------------------------------------------------


def _in_use(stored: Stored) -> None:
    """Refuse to change an archived skill, saying how to bring it back."""
    if stored.node.props.get(ARCHIVED):
        raise InvalidInput(skill_archived(stored.skill_id, stored.node.props[ARCHIVED_AT]))


def _structured(current: dict[str, Any], request: UpdateSkillRequest) -> dict[str, Any]:
    """``current`` with the given fields replaced; a new title renames the playbook's heading too."""
    given = request.skill.model_dump(exclude_none=True)
    merged = {**current, **given}
    heading = parse(merged["resolution_md"]).title
    if "title" in given and "resolution_md" not in given:
        merged["resolution_md"] = render(dataclasses.replace(parse(current["resolution_md"]), title=given["title"]))
    elif "resolution_md" in given and heading != merged["title"]:
        raise InvalidInput(f"the playbook's heading '# {heading}' differs from the title {merged['title']!r}; "
                           "send title too to rename the skill, or keep the heading")
    return canonical(parse_request(SkillInput, merged).model_dump())


@_store_errors
def update_skill(runtime: Runtime, request: UpdateSkillRequest, context: CallContext | None = None
                 ) -> UpdateSkillResponse:
    library = SkillLibrary(runtime, request.library)
    _, seen = library.require(request.skill_id)
    _in_use(seen)
    if request.conversation is not None:
        llm = _llm(runtime, context, STRUCTURED_UPDATE)
        new = canonical(extract.merge_skill(llm, seen.fields, request.conversation, request.feedback).model_dump())
    else:
        new = _structured(seen.fields, request)
    changes = diff.changes(seen.fields, new)
    warnings = _warnings(new["resolution_md"])
    if changes.empty:
        return UpdateSkillResponse(skill_id=seen.skill_id, title=seen.fields["title"], changes=[],
                                   change_detail=changes, version=seen.version, warnings=warnings)
    with library.writing() as store:
        [current] = library.read(store, [seen.skill_id]).values() or [None]
        if current is None or current.version != seen.version:
            raise InvalidInput(f"skill {seen.skill_id} changed while this update was prepared (now version "
                               f"{current.version if current else '?'}); call update_skill again")
        _in_use(current)
        [embedded] = library.embed([new], [current.node.text_hash])
        props = {**{k: v for k, v in current.node.props.items() if k not in CONTENT}, "version": current.version + 1,
                 "updated_at": now(), "changes": changes.model_dump(mode="json")}
        with store.atomic():
            library.commit(store, [library.rows(current.skill_id, new, props, embedded, previous=current)])
    return UpdateSkillResponse(skill_id=current.skill_id, title=new["title"], changes=diff.describe(changes),
                               change_detail=changes, version=current.version + 1, warnings=warnings)


# -- record_outcome, get_skill, list_skills, skill_history ------------------------------------------------


#: What an outcome with a query teaches (other outcomes teach nothing).
LEARNS = {"confirmed": learning.add_example, "failed": learning.add_negative}


@_store_errors
def record_outcome(runtime: Runtime, request: RecordOutcomeRequest) -> RecordOutcomeResponse:
    library = SkillLibrary(runtime, request.library)
    store, stored = library.require(request.skill_id)
    learned = None
    teach = LEARNS.get(request.outcome)
    if request.query is not None and teach is not None:
        text = learning.clean(check_query(request.query))
        learned = teach(library, stored.skill_id, text, runtime.embeddings.embed([text])[0])
    before, after = library.update_counters(store, stored.skill_id, lambda c: apply_outcome(c, request.outcome))
    return RecordOutcomeResponse(skill_id=stored.skill_id, outcome=request.outcome,
                                 previous_confidence=before.confidence, confidence=after.confidence,
                                 times_used=after.times_used, times_confirmed=after.times_confirmed, learned=learned)


def _version_skill(stored: Stored, snapshot: dict[str, Any]) -> Skill:
    props = {**snapshot, ARCHIVED_AT: stored.node.props.get(ARCHIVED_AT)}  # the skill's state, not the version's
    return to_skill(stored.skill_id, snapshot, props, counters_of(snapshot["counters"]))


@_store_errors
def get_skill(runtime: Runtime, request: GetSkillRequest) -> Skill:
    library = SkillLibrary(runtime, request.library)
    store, stored = library.require(request.skill_id)
    if request.version is None or request.version == stored.version:
        return stored.skill()
    if request.version < stored.version:
        for edge in library.versions(store, stored.skill_id):
            if edge.props["version"] == request.version:
                return _version_skill(stored, edge.props)
    raise NotFound(f"skill {stored.skill_id} has no version {request.version}; its versions are 1 to "
                   f"{stored.version} (graphlore skills history {stored.skill_id})")


#: list_skills' ``archived`` values as store filters.
LIST_FILTERS: dict[str, Any] = {"exclude": IN_USE, "include": None, "only": ARCHIVED_ONLY}


def known(library: SkillLibrary) -> SkillLibrary:
    """``library``, when it exists or is the default one (empty until the first skill); another name that
    does not exist is ``not_found`` (a typo is not an empty library), naming the libraries there are."""
    if library.name == DEFAULT_LIBRARY or library.exists():
        return library
    names = sorted(ns.split("/", 1)[1] for ns in list_namespaces(library.runtime.settings)
                   if ns.startswith("skills/") and ns.count("/") == 1)
    there = f"libraries: {', '.join(names)}" if names else "no library has skills yet"
    raise NotFound(f"no skill library {library.name!r} ({there}); create or import skills to start one")


@_store_errors
def list_skills(runtime: Runtime, request: ListSkillsRequest) -> ListSkillsResponse:
    library = known(SkillLibrary(runtime, request.library))
    store = library.store()
    if store is None:
        return ListSkillsResponse(skills=[], total=0)
    where = LIST_FILTERS[request.archived]
    ids = store.list_node_ids(KIND, order_by="name", limit=request.limit, offset=request.offset, where=where)
    stored = library.read(store, ids)
    rows = [SkillSummary(skill_id=s.skill_id, title=s.fields["title"], version=s.version,
                         confidence=s.counters.confidence, times_used=s.counters.times_used,
                         times_confirmed=s.counters.times_confirmed, source=s.node.props.get("source"),
                         updated_at=s.node.props["updated_at"], archived_at=s.node.props.get(ARCHIVED_AT))
            for s in (stored[i] for i in ids if i in stored)]
    return ListSkillsResponse(skills=rows, total=store.count_nodes(KIND, where))


@_store_errors
def skill_history(runtime: Runtime, request: SkillHistoryRequest) -> SkillHistoryResponse:
    library = SkillLibrary(runtime, request.library)
    store, stored = library.require(request.skill_id)
    versions = [SkillVersion(version=e.props["version"], title=e.props["title"], updated_at=e.props["updated_at"],
                             changes=changes_of(e.props)) for e in library.versions(store, stored.skill_id)]
    versions.append(SkillVersion(version=stored.version, title=stored.fields["title"],
                                 updated_at=stored.node.props["updated_at"], changes=changes_of(stored.node.props)))
    events = [SkillEvent.model_validate(e) for e in stored.node.props.get(EVENTS, [])]
    return SkillHistoryResponse(skill_id=stored.skill_id, versions=versions, events=events)


# -- archive_skill, unarchive_skill ------------------------------------------------------------------


def _set_archived(runtime: Runtime, request: ArchiveSkillRequest, archive: bool) -> ArchiveSkillResponse:
    """Archive or bring back a skill: its node and prototype get (or lose) ``archived_at``, and the node
    records the event; one transaction under the library's write lock. The same state again writes nothing."""
    library = SkillLibrary(runtime, request.library)
    library.require(request.skill_id)
    with library.writing() as store:
        [current] = library.read(store, [request.skill_id]).values() or [None]
        if current is None:  # deleted meanwhile: the specification's not-found error
            raise NotFound(skill_not_found(request.skill_id))
        props = current.node.props
        if bool(props.get(ARCHIVED)) == archive:
            return ArchiveSkillResponse(skill_id=current.skill_id, title=current.fields["title"],
                                        archived_at=props.get(ARCHIVED_AT), changed=False)
        stamp = now()
        event = {"event": "archived" if archive else "unarchived", "at": stamp, "version": current.version,
                 "reason": request.reason or None}
        props = {**props, ARCHIVED: archive, ARCHIVED_AT: stamp if archive else None,
                 EVENTS: [*props.get(EVENTS, []), event]}
        node = dataclasses.replace(current.node, props=props, vectors=None)  # vectors None: keep the stored ones
        prototype = Node(f"{current.skill_id}#prototype", PROTOTYPE, "", "", prototype_props(current.skill_id, props))
        with store.atomic():
            store.upsert_nodes([node, prototype])
            count_archived(store)
        library.handle.reread()
    return ArchiveSkillResponse(skill_id=current.skill_id, title=current.fields["title"],
                                archived_at=props[ARCHIVED_AT], changed=True)


@_store_errors
def archive_skill(runtime: Runtime, request: ArchiveSkillRequest) -> ArchiveSkillResponse:
    return _set_archived(runtime, request, archive=True)


@_store_errors
def unarchive_skill(runtime: Runtime, request: ArchiveSkillRequest) -> ArchiveSkillResponse:
    return _set_archived(runtime, request, archive=False)


# -- import_skills, reindex_skills ----------------------------------------------------------------------


def _load(runtime: Runtime, request: ImportSkillsRequest) -> list[dict[str, Any]]:
    """The file's skills, each checked like a structured create_skill; nothing is written yet. (The file
    itself was confined to the allowed roots by the adapter; ABCD's two files beside it are checked here.)"""
    path = Path(request.path).expanduser()
    if not path.is_file():
        raise InvalidInput(f"{path} is not a file; give the path of "
                           + ("ABCD's guidelines.json" if request.format == "abcd" else
                              "a .jsonl or .csv file of labelled examples"))
    if request.format == "abcd":
        for name in ("kb.json", "ontology.json"):
            if escapes(path.parent / name, runtime.roots):
                raise InvalidInput(f"{name} next to {path} {ESCAPES}")
    try:
        skills = (abcd.load_abcd(path) if request.format == "abcd" else
                  imports.load_intents(path, request.text_column, request.intent_column))
    except OSError as exc:
        raise InvalidInput(f"cannot read {exc.filename or path}: {exc.strerror or type(exc).__name__}") from exc
    return checked_imports(skills)


def checked_imports(skills: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Skill fields with a ``source``, each checked like a structured create_skill (playbook canonical). A
    refusal names the skill by its place among the file's skills, sorted by source, and the field, never
    the values (they are the file's content)."""
    out = []
    for number, skill in enumerate(skills, start=1):
        try:
            checked = SkillInput.model_validate({k: skill[k] for k in CONTENT})
        except ValidationError as exc:
            problem = spell(format_validation_error(SkillInput, exc, quote_input=False, valid_fields=False))
            kind = skill["source"].split(":", 1)[0]
            order = "intents in alphabetical order" if kind == "intent" else "subflows sorted by flow and name"
            raise InvalidInput(f"skill {number} of the file's {len(skills)} ({order}): {problem}; nothing was "
                               "imported") from exc
        out.append({**canonical(checked.model_dump()), "source": skill["source"]})
    return out


@_store_errors
def import_skills(runtime: Runtime, request: ImportSkillsRequest, progress: Progress | None = None
                  ) -> ImportSkillsResponse:
    """Create or update one skill per source of the file (one transaction); the same file again changes
    nothing (compared by the hash of what the file gave), and a changed one is merged with what agents changed
    since (:mod:`reimport`)."""
    skills = _load(runtime, request)
    out = write_imports(SkillLibrary(runtime, request.library), skills, progress)
    warnings = quality.counts([parse(s["resolution_md"]) for s in skills])
    return ImportSkillsResponse(format=request.format, path=request.path, warnings=warnings, **out)


def write_imports(library: SkillLibrary, skills: list[dict[str, Any]], progress: Progress | None = None
                  ) -> dict[str, Any]:
    """Write checked skill fields with a ``source`` each: new sources are created, changed ones get a new
    version merged with what agents changed since the last import (:mod:`reimport`: an agent's edit is never
    overwritten), archived ones are left as they are; one transaction. Returns the counts, the texts embedded,
    the skill ids in input order and the agents' edits kept."""
    created = updated = unchanged = 0
    kept_edits: list[KeptEdit] = []
    with library.writing() as store:
        existing_ids = library.by_source(store, [s["source"] for s in skills])
        existing = library.read(store, list(existing_ids.values()))
        stored = [existing.get(existing_ids.get(s["source"], "")) for s in skills]
        archived = {i for i, old in enumerate(stored) if old is not None and old.node.props.get(ARCHIVED)}
        todo = [i for i, (s, old) in enumerate(zip(skills, stored, strict=True)) if i not in archived and
                (old is None or old.node.props.get("import_hash") != content_hash(s))]
        targets = {}
        for i in todo:
            given = {k: skills[i][k] for k in CONTENT}
            old = stored[i]
            if old is None:
                targets[i] = reimport.Merged(given)
                continue
            targets[i] = reimport.merge(_last_import(old), old.fields, given)
            if targets[i].kept or targets[i].merged:
                kept_edits.append(KeptEdit(skill_id=old.skill_id, source=skills[i]["source"], kept=targets[i].kept,
                                           merged=targets[i].merged))
        embedded = library.embed([targets[i].fields for i in todo],
                                 [stored[i].node.text_hash if stored[i] else None for i in todo], progress)
        writes = []
        stamp = now()
        for i, e in zip(todo, embedded, strict=True):
            skill, old, fields = skills[i], stored[i], targets[i].fields
            given = {k: skill[k] for k in CONTENT}
            imported = {"import_hash": content_hash(skill), reimport.IMPORTED: given}
            if old is None:
                props = {"version": 1, "created_at": stamp, "updated_at": stamp, "source": skill["source"],
                         "initial": counters_props(initial_counters()), "changes": None, **imported}
                writes.append(library.rows(new_id(), fields, props, e))
                created += 1
                continue
            changes = diff.changes(old.fields, fields)
            props = {**{k: v for k, v in old.node.props.items() if k not in CONTENT}, **imported}
            if changes.empty:  # nothing the skill holds changes (the file's change was the agent's already, or
                # was kept out): record what this import gave only
                writes.append(library.rows(old.skill_id, fields, props, e))
                unchanged += 1
                continue
            props |= {"version": old.version + 1, "updated_at": stamp, "changes": changes.model_dump(mode="json")}
            writes.append(library.rows(old.skill_id, fields, props, e, previous=old))
            updated += 1
        token = None
        if writes or not library.calibration_current(store):  # the same file again keeps a current calibration
            with store.atomic():
                library.commit(store, writes)
                token = library.pending_calibration(store)
    failed = _calibrate(library, token, progress) if token is not None else None
    written = {w.node.props["source"]: w.node.id for w in writes}
    texts = sum(len(e.vectors) for e in embedded if e.vectors is not None)
    return {"created": created, "updated": updated, "unchanged": unchanged + len(skills) - len(todo) - len(archived),
            "archived": len(archived), "embedded_texts": texts, "kept_edits": kept_edits,
            "calibration": _calibration(library, failed),
            "skill_ids": [written.get(s["source"]) or existing_ids[s["source"]] for s in skills]}


def _calibrate(library: SkillLibrary, token: str, progress: Progress | None = None) -> str | None:
    """The library's own calibration after an import or reindex (:mod:`selfcheck`, seconds on a large library,
    shown as ``calibration folds``); a writer holding the lock too long leaves it stale (the search then uses the
    shipped bias and says so), never fails the write. Returns why it was not recorded (None: it was, or a later
    write made it moot)."""
    try:
        library.calibrate(token, progress)
    except StoreBusy as exc:
        why = f"its own calibration was not recorded ({exc.message})"
    except MemoryError:
        why = "its own calibration ran out of memory; the skills are written"
    except Exception:  # noqa: BLE001 - the write is committed: a failed calibration must not report it failed
        why = "its own calibration could not be computed (an internal error, logged by the server); the skills are written"
        log.exception("skill library %r: the calibration after an import or reindex failed", library.name)
    else:
        return None
    log.warning("skill library %r: %s; the shipped bias decides until the next import or reindex", library.name, why)
    return why


def _calibration(library: SkillLibrary, failed: str | None) -> LibraryCalibration:
    """The answer's account of the library's own calibration after an import or reindex."""
    state = library.calibration_state(library.store())
    if failed is not None and state["shift"] is None:
        state["how"] = f"{failed}: the shipped bias decides until the next import or reindex"
    return LibraryCalibration(**state)


def _last_import(old: Stored) -> dict[str, Any] | None:
    """What the last import gave a skill (None: not known; see :mod:`reimport`)."""
    recorded = old.node.props.get(reimport.IMPORTED)
    if recorded is not None:
        return recorded
    return old.fields if content_hash(old.fields) == old.node.props.get("import_hash") else None


@_store_errors
def reindex_skills(runtime: Runtime, request: ReindexSkillsRequest, progress: Progress | None = None
                   ) -> ReindexSkillsResponse:
    library = SkillLibrary(runtime, request.library)
    if not library.exists():
        raise NotFound(f"skill library {request.library!r} does not exist; create or import skills first")
    with library.lock():
        store = library.store(check=False)
        skills, texts = library.reindex(store, progress)
        with store.atomic():
            token = library.pending_calibration(store)
    failed = _calibrate(library, token, progress)
    return ReindexSkillsResponse(library=request.library, skills=skills, embedded_texts=texts,
                                 embedder=runtime.embedder.name, calibration=_calibration(library, failed))

