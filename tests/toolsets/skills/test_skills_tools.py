"""The skills tools in process, on a real SQLite store with the real embedder: the rules of the issue
(duplicates, versions, history, outcomes, counters, imports) and every error text."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest
from helpers import backend
from helpers.lock_holder import holding
from helpers.skills_data import PLAYBOOK, REFUND, RESET

from graphlore.contract import parse_request
from graphlore.errors import (
    ConfigError,
    EmbedderMismatch,
    InvalidInput,
    NotFound,
    StoreBusy,
    StoreUnavailable,
)
from graphlore.runtime import Runtime
from graphlore.store.factory import EMBEDDER_META
from graphlore.tools import CallContext
from graphlore.toolsets.skills import TOOLSET, judge, library, routing
from graphlore.toolsets.skills.cache import PassageCache
from graphlore.toolsets.skills.library import KIND, PROTOTYPE, VERSION_EDGE, SkillLibrary

SPECS = {s.name: s for s in TOOLSET.tools}


def run(runtime: Runtime, tool: str, **fields):
    spec = SPECS[tool]
    extra = {"context": CallContext(session="t")} if spec.context else {}
    return spec.run(runtime, parse_request(spec.request, fields), **extra)


def create(runtime: Runtime, skill=RESET, **fields):
    return run(runtime, "create_skill", skill=skill, **fields)


def store_of(runtime: Runtime, name: str = "default"):
    return SkillLibrary(runtime, name).store()


# -- create_skill ------------------------------------------------------------------------------------


def test_create_stores_one_skill_with_its_passages_and_renders_the_header_from_the_counters(runtime):
    out = create(runtime)
    assert out.created and out.title == "Reset a password" and out.skill_id == out.skill.skill_id
    skill = out.skill
    assert len(skill.skill_id) == 36 and skill.version == 1 and skill.source is None
    assert (skill.confidence, skill.times_used, skill.times_confirmed) == (0.5, 0, 0)
    assert skill.created_at == skill.updated_at and skill.created_at.endswith("Z")
    assert skill.resolution_md.startswith(
        "# Reset a password\n\n**Confidence:** 0.50 (0 uses, 0 confirmed)\n**Product Area:** accounts\n"
        "**Issue Type:** how-to\n\n## Goal\n")
    store = store_of(runtime)
    [node] = store.get_nodes([skill.skill_id], with_vectors=True)
    assert node.kind == KIND and node.name == "Reset a password"
    assert node.vectors.shape == (len(routing.skill_passages(RESET)), 384) == (4, 384)
    assert "**Confidence:**" not in node.props["resolution_md"]  # the header is never stored
    assert store.count_nodes(PROTOTYPE) == 1
    assert store.get_meta("skills") == {"routing": routing.ROUTING_VERSION, "judge": judge.JUDGE_VERSION}
    assert store.get_meta(EMBEDDER_META)["name"] == runtime.embedder.name


def test_header_lines_in_the_input_are_never_trusted(runtime):
    lying = RESET["resolution_md"].replace(
        "# Reset a password\n", "# Reset a password\n\n**Confidence:** 0.99 (500 uses, 480 confirmed)\n")
    out = create(runtime, {**RESET, "resolution_md": lying})
    assert "**Confidence:** 0.50 (0 uses, 0 confirmed)" in out.skill.resolution_md


def test_a_confirmed_resolution_starts_with_one_confirmed_use(runtime):
    out = create(runtime, resolution_confirmed=True)
    assert (out.skill.confidence, out.skill.times_used, out.skill.times_confirmed) == (0.6, 1, 1)
    assert "**Confidence:** 0.60 (1 use, 1 confirmed)" in out.skill.resolution_md


def test_a_near_duplicate_returns_the_existing_skill_and_writes_nothing(runtime):
    first = create(runtime)
    reworded = {**RESET, "conditions": ["I forgot my password", "I cannot log in to my account"]}
    again = create(runtime, reworded)
    assert not again.created and again.skill_id == first.skill_id and again.skill == first.skill
    assert store_of(runtime).count_nodes(KIND) == 1
    other = create(runtime, REFUND)
    assert other.created and store_of(runtime).count_nodes(KIND) == 2


def test_the_duplicate_threshold_is_on_the_prototype_cosine(runtime):
    first = create(runtime)
    store = store_of(runtime)
    [proto] = store.get_nodes([f"{first.skill_id}#prototype"], with_vectors=True)
    vectors = runtime.embedder.embed(routing.skill_passages(RESET))
    assert np.allclose(proto.vectors[0], routing.prototype(vectors), atol=1e-5)
    assert routing.DUPLICATE_THRESHOLD == 0.95


# -- search_skills -----------------------------------------------------------------------------------


def test_search_returns_the_skill_and_counts_the_use(runtime):
    reset = create(runtime).skill_id
    create(runtime, REFUND)
    out = run(runtime, "search_skills", query="I can't remember my password")
    assert out.judge.kind == "calibrated" and out.query == "I can't remember my password" and out.search_time_ms > 0
    assert out.skill.skill_id == reset and out.skill.title == "Reset a password"
    assert out.skill.conditions == RESET["conditions"] and out.skill.confidence == 0.5
    assert "**Confidence:** 0.50 (1 use, 0 confirmed)" in out.skill.resolution_md
    run(runtime, "search_skills", query="forgot my password, how do I log in")
    assert run(runtime, "get_skill", skill_id=reset).times_used == 2


def test_search_abstains_on_an_unrelated_question_and_counts_nothing(runtime):
    reset = create(runtime).skill_id
    out = run(runtime, "search_skills", query="what is the capital of France")
    assert out.skill is None and out.judge.kind == "calibrated"
    assert run(runtime, "get_skill", skill_id=reset).times_used == 0


def test_a_library_that_does_not_exist_is_not_found_and_nothing_is_created(runtime):
    """A typo is not an empty library: search and ls answer not_found (as facts does for a graph), naming the
    libraries there are; the default library is empty until its first skill."""
    create(runtime, library="team-a")
    for tool, fields in (("search_skills", {"query": "reset my password"}), ("list_skills", {})):
        with pytest.raises(NotFound, match=r"no skill library 'nowhere' \(libraries: team-a\)"):
            run(runtime, tool, library="nowhere", **fields)
    assert not SkillLibrary(runtime, "nowhere").exists()
    assert run(runtime, "search_skills", query="reset my password").skill is None  # the default: empty


def test_libraries_are_apart(runtime):
    create(runtime, library="team-a")
    create(runtime, library="team-b", skill=REFUND)
    assert run(runtime, "search_skills", query="I forgot my password", library="team-b").skill is None
    assert run(runtime, "search_skills", query="I forgot my password", library="team-a").skill is not None
    assert run(runtime, "list_skills", library="default").total == 0


# -- update_skill, versions, history -----------------------------------------------------------------------


def test_a_structured_update_makes_a_new_version_and_keeps_the_old(runtime):
    first = create(runtime).skill
    new_md = PLAYBOOK.replace("### 2. Send the reset link", "### 2. Email the reset link").replace(
        "## Edge Cases", "### 3. Confirm the login\n**Check:** The customer can log in.\n\n## Edge Cases")
    out = run(runtime, "update_skill", skill_id=first.skill_id,
              skill={"resolution_md": new_md, "conditions": ["I forgot my password", "password reset please"],
                     "keywords": ["password"]})
    assert out.version == 2 and out.title == "Reset a password"
    c = out.change_detail
    assert out.changes == ["step added: 3. Confirm the login", "step edited: 2->2. Email the reset link (action)",
                           "condition added: password reset please", "condition removed: I can't log in to my account",
                           "keyword removed: login"]  # the specification's list[str]
    assert [(s.number, s.action) for s in c.steps_added] == [(3, "Confirm the login")]
    assert [(e.old_number, e.new_number, e.action, e.fields) for e in c.steps_edited] == [
        (2, 2, "Email the reset link", ["action"])]
    assert c.conditions_added == ["password reset please"] and c.conditions_removed == ["I can't log in to my account"]
    assert c.keywords_removed == ["login"] and c.steps_removed == [] and c.title is None
    now = run(runtime, "get_skill", skill_id=first.skill_id)
    old = run(runtime, "get_skill", skill_id=first.skill_id, version=1)
    assert now.version == 2 and "### 3. Confirm the login" in now.resolution_md
    assert old == first  # every earlier version reads back exactly as it was
    history = run(runtime, "skill_history", skill_id=first.skill_id)
    assert [v.version for v in history.versions] == [1, 2]
    assert history.versions[0].changes is None and history.versions[1].changes == c


def test_a_new_title_renames_the_playbook_and_only_changed_passages_are_embedded(runtime, monkeypatch):
    skill_id = create(runtime).skill_id
    store = store_of(runtime)
    [before] = store.get_nodes([skill_id], with_vectors=True)
    embedded: list[str] = []
    real = runtime.embedder.embed
    monkeypatch.setattr(runtime.embedder, "embed", lambda texts: embedded.extend(texts) or real(texts))
    out = run(runtime, "update_skill", skill_id=skill_id, skill={"product_area": "security"})
    assert out.version == 2 and out.change_detail.fields_changed == ["product_area"] and embedded == []
    [same] = store.get_nodes([skill_id], with_vectors=True)
    assert np.array_equal(same.vectors, before.vectors) and same.text_hash == before.text_hash
    out = run(runtime, "update_skill", skill_id=skill_id, skill={"title": "Reset a forgotten password"})
    assert out.change_detail.title.old == "Reset a password" and out.change_detail.title.new == "Reset a forgotten password"
    assert run(runtime, "get_skill", skill_id=skill_id).resolution_md.startswith("# Reset a forgotten password\n")
    assert embedded[0] == "Reset a forgotten password"  # the title is a passage: embedded again


def test_an_update_that_changes_nothing_keeps_the_version(runtime):
    skill_id = create(runtime).skill_id
    out = run(runtime, "update_skill", skill_id=skill_id, skill={"problem": RESET["problem"]})
    assert out.version == 1 and out.changes == [] and out.change_detail.empty
    assert run(runtime, "skill_history", skill_id=skill_id).versions[-1].version == 1


def test_an_update_that_only_reorders_conditions_is_a_change(runtime):
    skill_id = create(runtime).skill_id
    conditions = list(reversed(RESET["conditions"]))
    out = run(runtime, "update_skill", skill_id=skill_id, skill={"conditions": conditions})
    assert out.version == 2 and out.changes == ["condition order changed"]
    assert run(runtime, "get_skill", skill_id=skill_id).conditions == conditions


def test_a_playbook_whose_heading_is_not_the_title_is_refused(runtime):
    skill_id = create(runtime).skill_id
    other = PLAYBOOK.replace("# Reset a password", "# Something else")
    with pytest.raises(InvalidInput, match="heading '# Something else' differs from the title"):
        run(runtime, "update_skill", skill_id=skill_id, skill={"resolution_md": other})
    assert run(runtime, "get_skill", skill_id=skill_id).version == 1


@pytest.mark.parametrize("title", [" Padded", "Two\nlines"])
def test_a_title_that_cannot_be_a_heading_is_refused(runtime, title):
    skill_id = create(runtime).skill_id
    with pytest.raises(InvalidInput, match="the title is one line without surrounding spaces"):
        run(runtime, "update_skill", skill_id=skill_id, skill={"title": title})
    with pytest.raises(InvalidInput, match="the title is one line without surrounding spaces"):
        create(runtime, {**RESET, "title": title})


def test_history_keeps_the_counters_each_version_had(runtime):
    skill_id = create(runtime).skill_id
    run(runtime, "record_outcome", skill_id=skill_id, outcome="confirmed")
    run(runtime, "update_skill", skill_id=skill_id, skill={"problem": "Forgotten password."})
    run(runtime, "record_outcome", skill_id=skill_id, outcome="failed")
    old = run(runtime, "get_skill", skill_id=skill_id, version=1)
    assert (old.confidence, old.times_confirmed) == (0.6, 1) and old.problem == RESET["problem"]
    now = run(runtime, "get_skill", skill_id=skill_id)
    assert now.confidence == 0.5 and now.problem == "Forgotten password."
    store = store_of(runtime)
    edges = store.get_edges(store.edge_ids_with_prefix(f"{skill_id}@"))
    assert [(e.id, e.type) for e in edges] == [(f"{skill_id}@1", VERSION_EDGE)]


# -- record_outcome ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("outcome,confidence,confirmed", [
    ("confirmed", 0.6, 1), ("likely_resolved", 0.53, 0), ("likely_failed", 0.45, 0), ("failed", 0.4, 0),
    ("no_feedback", 0.51, 0),
])
def test_each_outcome_moves_confidence_by_its_delta(runtime, outcome, confidence, confirmed):
    skill_id = create(runtime).skill_id
    out = run(runtime, "record_outcome", skill_id=skill_id, outcome=outcome)
    assert (out.previous_confidence, out.confidence, out.times_confirmed, out.times_used) == (0.5, confidence,
                                                                                             confirmed, confirmed)
    assert run(runtime, "get_skill", skill_id=skill_id).confidence == confidence


def test_confidence_is_clamped_to_zero_and_one(runtime):
    skill_id = create(runtime).skill_id
    for _ in range(6):
        out = run(runtime, "record_outcome", skill_id=skill_id, outcome="failed")
    assert out.confidence == 0.0 and out.previous_confidence == 0.0
    for _ in range(11):
        out = run(runtime, "record_outcome", skill_id=skill_id, outcome="confirmed")
    assert out.confidence == 1.0 and out.times_confirmed == 11
    assert "**Confidence:** 1.00 (11 uses, 11 confirmed)" in run(runtime, "get_skill", skill_id=skill_id).resolution_md


def test_counters_live_with_their_skill_and_a_use_rewrites_only_them(runtime):
    skill_id, other = create(runtime).skill_id, create(runtime, REFUND).skill_id
    store = store_of(runtime)

    def nodes():  # every node as stored, but the time of its last rewrite
        return {n.id: (n.kind, n.name, n.text, n.props, n.text_hash) for n in store.iter_nodes()}

    before = nodes()
    if not runtime.settings.database_url:
        store.vector_search(np.ones(384, dtype=np.float32), limit=1)
        snapshot = (store._snapshot.base, store._snapshot.delta)
    assert run(runtime, "search_skills", query="I forgot my password").skill.skill_id == skill_id
    run(runtime, "record_outcome", skill_id=skill_id, outcome="confirmed")
    after = nodes()
    assert after[skill_id][3].pop("counters") == {"confidence": 0.6, "times_used": 1, "times_confirmed": 1}
    assert after == before and other in after
    if not runtime.settings.database_url:  # the vectors were not read again: a use reloads nothing
        store.vector_search(np.ones(384, dtype=np.float32), limit=1)
        assert (store._snapshot.base, store._snapshot.delta) == snapshot
    assert not runtime.store_exists("skills/default/usage")


def test_a_use_recorded_while_an_update_embeds_is_kept(runtime, monkeypatch):
    """update_skill reads the skill, embeds, then writes under the library's write lock; a use recorded by
    another caller meanwhile (which takes no write lock) is carried into the new version."""
    skill_id = create(runtime).skill_id
    embed = SkillLibrary.embed

    def embed_and_use(self, *args, **kwargs):
        out = embed(self, *args, **kwargs)
        run(runtime, "record_outcome", skill_id=skill_id, outcome="confirmed")
        return out

    monkeypatch.setattr(SkillLibrary, "embed", embed_and_use)
    run(runtime, "update_skill", skill_id=skill_id, skill={"problem": "The user cannot sign in at all anymore."})
    skill = run(runtime, "get_skill", skill_id=skill_id)
    assert (skill.version, skill.times_confirmed, skill.confidence) == (2, 1, 0.6)


def test_the_counters_an_older_version_kept_apart_are_folded_in_once(runtime):
    """A library written before the counters moved into the skills kept them in skills/{lib}/usage: the next
    open moves them into the skills in one transaction, marks the library and drops the old namespace."""
    from graphlore.store import Node

    skill_id, other = create(runtime).skill_id, create(runtime, REFUND).skill_id
    store = store_of(runtime)
    store.set_meta("counters", None)  # as an older version left it
    usage = runtime.open_store("skills/default/usage", create=True)
    usage.upsert_nodes([Node(skill_id, "usage", props={"confidence": 0.9, "times_used": 7, "times_confirmed": 3}),
                        Node("gone", "usage", props={"confidence": 0.1, "times_used": 1, "times_confirmed": 0})])
    skill = run(runtime, "get_skill", skill_id=skill_id)
    assert (skill.confidence, skill.times_used, skill.times_confirmed) == (0.9, 7, 3)
    assert run(runtime, "get_skill", skill_id=other).times_used == 0
    assert store.get_meta("counters") == "skill" and not runtime.store_exists("skills/default/usage")
    assert run(runtime, "search_skills", query="I forgot my password").skill.skill_id == skill_id
    assert run(runtime, "get_skill", skill_id=skill_id).times_used == 8


# -- list_skills ------------------------------------------------------------------------------------------


def test_list_is_by_title_with_counters(runtime):
    reset, refund = create(runtime).skill_id, create(runtime, REFUND).skill_id
    run(runtime, "record_outcome", skill_id=refund, outcome="likely_resolved")
    out = run(runtime, "list_skills")
    assert out.total == 2 and [s.skill_id for s in out.skills] == [refund, reset]
    assert out.skills[0].confidence == 0.53 and out.skills[0].source is None
    assert [s.skill_id for s in run(runtime, "list_skills", limit=1, offset=1).skills] == [reset]


# -- archive_skill, unarchive_skill -------------------------------------------------------------------------


def test_an_archived_skill_is_never_a_search_candidate_but_stays_readable(runtime):
    reset, refund = create(runtime).skill_id, create(runtime, REFUND).skill_id
    out = run(runtime, "archive_skill", skill_id=reset, reason="replaced by the SSO flow")
    assert out.changed and out.archived_at.endswith("Z") and out.title == "Reset a password"
    for query in ("I forgot my password", "I can't log in to my account", "reset password"):
        found = run(runtime, "search_skills", query=query).skill
        assert found is None or found.skill_id == refund  # never the archived one, not even at the top
    store = store_of(runtime)
    assert store.get_nodes([f"{reset}#prototype"])[0].props["archived"] is True
    shown = run(runtime, "get_skill", skill_id=reset)
    assert shown.archived_at == out.archived_at and shown.times_used == 0  # the searches above never used it
    assert run(runtime, "get_skill", skill_id=refund).archived_at is None


def test_an_archived_skill_is_not_a_near_duplicate(runtime):
    reset = create(runtime).skill_id
    run(runtime, "archive_skill", skill_id=reset)
    again = create(runtime)  # the same playbook: a new skill, since the archived one is out of use
    assert again.created and again.skill_id != reset
    assert create(runtime).created is False  # the new one is in use: it is the near-duplicate now


def test_list_leaves_archived_skills_out_unless_asked(runtime):
    reset, refund = create(runtime).skill_id, create(runtime, REFUND).skill_id
    run(runtime, "archive_skill", skill_id=reset)
    listed = run(runtime, "list_skills")
    assert (listed.total, [s.skill_id for s in listed.skills]) == (1, [refund])
    everything = run(runtime, "list_skills", archived="include")
    assert everything.total == 2 and [s.archived_at is not None for s in everything.skills] == [False, True]
    only = run(runtime, "list_skills", archived="only", limit=1)
    assert (only.total, [s.skill_id for s in only.skills]) == (1, [reset])
    assert run(runtime, "list_skills", archived="only", offset=1).skills == []
    with pytest.raises(InvalidInput, match="archived"):
        run(runtime, "list_skills", archived="hidden")


def test_an_archived_skill_cannot_be_updated_until_unarchived_and_its_history_keeps_the_events(runtime):
    reset = create(runtime).skill_id
    run(runtime, "archive_skill", skill_id=reset, reason="outdated")
    with pytest.raises(InvalidInput, match=f"skill {reset} is archived .since .*: unarchive it first with "
                                           f"unarchive_skill .CLI: graphlore skills unarchive {reset}"):
        run(runtime, "update_skill", skill_id=reset, skill={"problem": "Something else."})
    assert run(runtime, "get_skill", skill_id=reset).version == 1
    again = run(runtime, "archive_skill", skill_id=reset)
    assert again.changed is False  # already archived: nothing written, no second event
    back = run(runtime, "unarchive_skill", skill_id=reset, reason="needed again")
    assert back.changed and back.archived_at is None
    assert run(runtime, "unarchive_skill", skill_id=reset).changed is False
    run(runtime, "update_skill", skill_id=reset, skill={"problem": "Something else."})
    assert run(runtime, "search_skills", query="I forgot my password").skill.skill_id == reset
    history = run(runtime, "skill_history", skill_id=reset)
    assert [v.version for v in history.versions] == [1, 2]
    assert [(e.event, e.version, e.reason) for e in history.events] == [
        ("archived", 1, "outdated"), ("unarchived", 1, "needed again")]
    assert history.events[0].at <= history.events[1].at <= history.versions[1].updated_at


def test_an_outcome_of_an_archived_skill_still_counts(runtime):
    reset = create(runtime).skill_id
    run(runtime, "archive_skill", skill_id=reset)
    assert run(runtime, "record_outcome", skill_id=reset, outcome="confirmed").confidence == 0.6


def test_an_import_leaves_archived_skills_as_they_are(runtime, tmp_path):
    path = intents_file(tmp_path, ROWS)
    first = run(runtime, "import_skills", format="intents", path=str(path))
    run(runtime, "archive_skill", skill_id=first.skill_ids[0])
    changed = intents_file(tmp_path, [*ROWS, ("show me my balance", "balance")])
    out = run(runtime, "import_skills", format="intents", path=str(changed))
    assert (out.created, out.updated, out.unchanged, out.archived) == (0, 0, 1, 1)
    assert out.skill_ids == first.skill_ids
    kept = run(runtime, "get_skill", skill_id=first.skill_ids[0])
    assert kept.version == 1 and kept.archived_at is not None


def test_archiving_an_unknown_skill_is_the_exact_text(runtime):
    create(runtime)
    for tool in ("archive_skill", "unarchive_skill"):
        with pytest.raises(NotFound, match="Skill nope not found. Use search_skills to find the correct ID."):
            run(runtime, tool, skill_id="nope")


def test_archiving_survives_a_reindex(runtime):
    reset = create(runtime).skill_id
    run(runtime, "archive_skill", skill_id=reset)
    run(runtime, "reindex_skills")
    assert store_of(runtime).get_nodes([f"{reset}#prototype"])[0].props["archived"] is True
    assert run(runtime, "search_skills", query="I forgot my password").skill is None
    assert create(runtime).created  # still not a near-duplicate


# -- import_skills ----------------------------------------------------------------------------------------


def intents_file(tmp_path: Path, rows: list[tuple[str, str]], name: str = "intents.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps({"text": t, "intent": i}) + "\n" for t, i in rows))
    return path


ROWS = [("what's my balance", "balance"), ("how much money do I have", "balance"),
        ("book a flight to Paris", "book_flight"), ("I need a plane ticket to Rome", "book_flight")]


def test_an_intents_import_is_idempotent_and_a_changed_file_makes_new_versions(runtime, tmp_path):
    path = intents_file(tmp_path, ROWS)
    out = run(runtime, "import_skills", format="intents", path=str(path))
    assert (out.created, out.updated, out.unchanged, out.embedded_texts) == (2, 0, 0, 8)
    skills = {run(runtime, "get_skill", skill_id=i).source: run(runtime, "get_skill", skill_id=i)
              for i in out.skill_ids}
    assert set(skills) == {"intent:balance", "intent:book_flight"}
    assert skills["intent:balance"].conditions == ["what's my balance", "how much money do I have"]
    again = run(runtime, "import_skills", format="intents", path=str(path))
    assert (again.created, again.updated, again.unchanged, again.embedded_texts) == (0, 0, 2, 0)
    assert again.skill_ids == out.skill_ids
    path = intents_file(tmp_path, [*ROWS, ("show me my balance", "balance")])
    changed = run(runtime, "import_skills", format="intents", path=str(path))
    assert (changed.created, changed.updated, changed.unchanged, changed.embedded_texts) == (0, 1, 1, 5)
    balance = run(runtime, "get_skill", skill_id=out.skill_ids[0])
    assert balance.version == 2 and balance.conditions[-1] == "show me my balance"
    assert run(runtime, "skill_history", skill_id=balance.skill_id).versions[1].changes.conditions_added == [
        "show me my balance"]


def test_a_reimport_does_not_undo_what_agents_changed(runtime, tmp_path):
    path = intents_file(tmp_path, ROWS)
    first = run(runtime, "import_skills", format="intents", path=str(path))
    run(runtime, "update_skill", skill_id=first.skill_ids[0], skill={"problem": "Balance questions."})
    again = run(runtime, "import_skills", format="intents", path=str(path))
    assert again.unchanged == 2
    assert run(runtime, "get_skill", skill_id=first.skill_ids[0]).problem == "Balance questions."


def test_a_changed_file_never_overwrites_an_agents_edit_and_says_what_it_kept(runtime, tmp_path):
    # issue 24 audit 4: a re-import of a changed file wiped conditions an agent had added, answering updated: 1
    first = run(runtime, "import_skills", format="intents", path=str(intents_file(tmp_path, ROWS)))
    balance = first.skill_ids[0]
    run(runtime, "update_skill", skill_id=balance, skill={
        "problem": "Balance questions.", "conditions": ["what's my balance", "how much money do I have",
                                                         "what's left on my account"]})
    playbook = run(runtime, "get_skill", skill_id=balance).resolution_md.split("## Goal")[1]
    edited = "# Balance\n\n## Goal" + playbook.replace("### 1. Handle balance", "### 1. Read the balance aloud")
    run(runtime, "update_skill", skill_id=balance, skill={"resolution_md": edited})
    changed = intents_file(tmp_path, [("show me my balance", "balance"), *ROWS[1:],
                                      ("book me a flight", "book_flight")])
    out = run(runtime, "import_skills", format="intents", path=str(changed))
    assert (out.created, out.updated, out.unchanged) == (0, 2, 0)
    [kept] = out.kept_edits
    assert (kept.skill_id, kept.source, kept.kept, kept.merged) == (balance, "intent:balance", [], ["conditions"])
    now = run(runtime, "get_skill", skill_id=balance)
    # the file dropped "what's my balance" and added "show me my balance"; the agent's condition stays
    assert now.conditions == ["show me my balance", "how much money do I have", "what's left on my account"]
    assert now.problem == "Balance questions." and "### 1. Read the balance aloud" in now.resolution_md
    assert "intent:balance" in SPECS["import_skills"].render(out) and "merged conditions" in SPECS[
        "import_skills"].render(out)
    flight = run(runtime, "get_skill", skill_id=first.skill_ids[1])  # untouched by agents: the file's version
    assert flight.conditions[-1] == "book me a flight" and flight.version == 2


def test_a_merge_past_the_condition_limit_keeps_the_agents_list_and_says_so(runtime, tmp_path):
    # review finding: merged conditions were written unchecked, so a merge past MAX_CONDITIONS made every
    # later update of the skill refused
    from graphlore.toolsets.skills.models import MAX_CONDITIONS
    first = run(runtime, "import_skills", format="intents", path=str(intents_file(tmp_path, ROWS)))
    balance = first.skill_ids[0]
    mine = [*(t for t, i in ROWS if i == "balance"), *(f"agent question {n}" for n in range(300))]
    run(runtime, "update_skill", skill_id=balance, skill={"conditions": mine})
    theirs = [(f"file question {n}", "balance") for n in range(MAX_CONDITIONS - 250)]
    out = run(runtime, "import_skills", format="intents", path=str(intents_file(tmp_path, [*theirs, *ROWS[2:]])))
    [kept] = out.kept_edits
    assert (kept.skill_id, kept.kept, kept.merged) == (balance, ["conditions"], [])
    assert run(runtime, "get_skill", skill_id=balance).conditions == mine
    run(runtime, "update_skill", skill_id=balance, skill={"problem": "Balance questions."})  # still possible


def test_a_field_both_changed_keeps_the_agents_version_and_reports_it(runtime, tmp_path):
    first = run(runtime, "import_skills", format="intents", path=str(intents_file(tmp_path, ROWS)))
    run(runtime, "update_skill", skill_id=first.skill_ids[0], skill={"keywords": ["money"]})
    path = intents_file(tmp_path, ROWS)
    text = path.read_text().replace('"balance"', '"account_balance"')  # the file renames the intent
    path.write_text(text)
    out = run(runtime, "import_skills", format="intents", path=str(path))
    assert out.created == 1  # another source: a new skill; the old one keeps what it holds
    assert run(runtime, "get_skill", skill_id=first.skill_ids[0]).keywords == ["money"]
    from graphlore.toolsets.skills import reimport
    base = {"title": "T", "problem": "p", "conditions": ["a"], "keywords": ["k"], "product_area": "x",
            "issue_type": "other", "resolution_md": "# T\n\n## Goal\nG.\n\n## Steps\n\n### 1. S\n**Do:** D.\n"}
    mine = {**base, "title": "Mine", "problem": "agent's", "resolution_md": base["resolution_md"].replace("# T", "# Mine")}
    theirs = {**base, "problem": "file's", "resolution_md": base["resolution_md"].replace("G.", "New goal.")}
    merged = reimport.merge(base, mine, theirs)
    assert merged.kept == ["problem"] and merged.fields["problem"] == "agent's" and merged.fields["title"] == "Mine"
    assert merged.fields["resolution_md"].startswith("# Mine\n") and "New goal." in merged.fields["resolution_md"]
    unknown = reimport.merge(None, mine, theirs)  # no record of the last import: every difference is the agent's
    assert unknown.kept == ["title", "problem", "resolution_md"] and unknown.fields["problem"] == "agent's"


def test_the_abcd_import_makes_55_valid_skills_once(runtime, shared_data):
    path = shared_data / "abcd" / "guidelines.json"
    out = run(runtime, "import_skills", format="abcd", path=str(path), library="abcd")
    assert (out.created, out.updated, out.unchanged) == (55, 0, 0) and len(set(out.skill_ids)) == 55
    again = run(runtime, "import_skills", format="abcd", path=str(path), library="abcd")
    assert (again.created, again.unchanged, again.embedded_texts) == (0, 55, 0) and again.skill_ids == out.skill_ids
    sources = {run(runtime, "get_skill", skill_id=i, library="abcd").source for i in out.skill_ids}
    assert "abcd:Product Defect/Initiate Refund" in sources
    found = run(runtime, "search_skills", query="The item I received is defective, I want a refund", library="abcd")
    assert run(runtime, "get_skill", skill_id=found.skill.skill_id, library="abcd").source.startswith(
        "abcd:Product Defect/")


def test_a_bad_import_file_writes_nothing(runtime, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "hello", "intent": "greet"}\n{"text": "", "intent": "greet"}\n')
    with pytest.raises(InvalidInput, match="line 2: 'text' must be a non-empty string"):
        run(runtime, "import_skills", format="intents", path=str(bad))
    assert not SkillLibrary(runtime, "default").exists()
    with pytest.raises(InvalidInput, match="is not a file; give the path of ABCD's guidelines.json"):
        run(runtime, "import_skills", format="abcd", path=str(tmp_path / "missing.json"))
    too_many = intents_file(tmp_path, [(f"example {i}", "greet") for i in range(501)])
    with pytest.raises(InvalidInput, match=r"skill 1 of the file's 1 \(intents in alphabetical order\): field "
                                           r"'conditions': conditions is 501 items; the limit is 500 items"):
        run(runtime, "import_skills", format="intents", path=str(too_many))
    notjson = tmp_path / "guidelines.json"
    notjson.write_text("{not json")
    (tmp_path / "kb.json").write_text("{}")
    (tmp_path / "ontology.json").write_text("{}")
    with pytest.raises(InvalidInput, match=r"guidelines.json is not JSON \(Expecting property name .* at line 1 "
                                           r"column 2\)"):
        run(runtime, "import_skills", format="abcd", path=str(notjson))
    notjson.write_text('{"Flow": {"subflows": {}}}')
    with pytest.raises(InvalidInput, match="guidelines.json \\(with kb.json and ontology.json\\) is not ABCD's data: "
                                           "missing the key 'intents'"):
        run(runtime, "import_skills", format="abcd", path=str(notjson))
    notjson.write_text('{"Flow": {"description": "d", "subflows": {"Sub": {"instructions": [], "actions": []}}}}')
    (tmp_path / "ontology.json").write_text('{"intents": {"subflows": {"flow": ["sub"]}}, "actions": {}}')
    with pytest.raises(InvalidInput, match="a value has the wrong type or is empty"):  # was a bug: a ValueError
        run(runtime, "import_skills", format="abcd", path=str(notjson))


# -- stale vectors, embedders ----------------------------------------------------------------------------


def test_a_library_of_another_routing_version_is_re_embedded_when_opened(runtime, monkeypatch):
    skill_id = create(runtime).skill_id
    store = store_of(runtime)
    [before] = store.get_nodes([skill_id])
    monkeypatch.setattr(routing, "ROUTING_VERSION", routing.ROUTING_VERSION + 1)
    monkeypatch.setattr(library.routing, "ROUTING_VERSION", routing.ROUTING_VERSION)
    store = store_of(runtime)
    [after] = store.get_nodes([skill_id])
    assert store.get_meta("skills")["routing"] == routing.ROUTING_VERSION
    assert after.text_hash != before.text_hash and after.props == before.props
    assert run(runtime, "search_skills", query="I forgot my password").skill.skill_id == skill_id


def test_a_writer_re_embeds_a_stale_library_under_its_own_lock(runtime, monkeypatch):
    first = create(runtime).skill_id
    monkeypatch.setattr(library.routing, "ROUTING_VERSION", routing.ROUTING_VERSION + 1)
    done: list = []
    worker = threading.Thread(target=lambda: done.append(create(runtime, REFUND)), daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), "create_skill waited for the write lock it held itself"
    assert done[0].created and store_of(runtime).get_meta("skills")["routing"] == routing.ROUTING_VERSION
    assert run(runtime, "search_skills", query="I forgot my password").skill.skill_id == first


def test_another_embedder_is_refused_until_reindexed(runtime, settings, embedder):
    create(runtime)
    store_of(runtime).set_meta(EMBEDDER_META, {"name": "other-model", "dim": 384})
    with pytest.raises(EmbedderMismatch, match="graphlore skills reindex --library default"):
        run(runtime, "search_skills", query="I forgot my password")
    out = run(runtime, "reindex_skills")
    assert (out.skills, out.embedded_texts, out.embedder) == (1, 4, embedder.name)
    assert run(runtime, "search_skills", query="I forgot my password").skill is not None


# -- errors ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_exactly_query_is_required(runtime, query):
    with pytest.raises(InvalidInput) as error:
        run(runtime, "search_skills", query=query)
    assert error.value.message == "query is required"


@pytest.mark.parametrize("tool,fields", [
    ("get_skill", {}), ("skill_history", {}), ("record_outcome", {"outcome": "confirmed"}),
    ("update_skill", {"skill": {"problem": "x"}}),
])
def test_an_unknown_id_is_the_exact_text(runtime, tool, fields):
    create(runtime)
    for library_name in ("default", "empty"):
        with pytest.raises(NotFound) as error:
            run(runtime, tool, skill_id="nope-123", library=library_name, **fields)
        assert error.value.message == "Skill nope-123 not found. Use search_skills to find the correct ID."


def test_an_unknown_version_names_the_versions(runtime):
    skill_id = create(runtime).skill_id
    with pytest.raises(NotFound, match="has no version 3; its versions are 1 to 1"):
        run(runtime, "get_skill", skill_id=skill_id, version=3)


def test_conversation_calls_without_an_llm_name_both_ways_and_the_structured_form(runtime):
    with pytest.raises(ConfigError) as error:
        run(runtime, "create_skill", conversation="Customer: hi")
    text = error.value.message
    assert "sampling" in text and "GRAPHLORE_LLM_URL" in text and "GRAPHLORE_LLM_MODEL" in text
    assert 'skill={"title": ...' in text
    skill_id = create(runtime).skill_id
    with pytest.raises(ConfigError, match=r"sampling.*GRAPHLORE_LLM_URL.*skill=\{\"title\"\?"):
        run(runtime, "update_skill", skill_id=skill_id, conversation="Customer: hi")
    assert not SkillLibrary(runtime, "other").exists()


def test_oversized_input_names_the_limit_and_the_size(runtime):
    with pytest.raises(InvalidInput, match="query is 2,001 characters; the limit is 2,000 characters"):
        run(runtime, "search_skills", query="x" * 2001)
    with pytest.raises(InvalidInput, match="conversation is 200,001 characters; the limit is 200,000"):
        run(runtime, "create_skill", conversation="x" * 200_001)


def test_a_store_that_cannot_be_written_is_database_connection_failed(tmp_path, embedder):
    home = tmp_path / "home"
    backend.sqlite_only(backend.settings_for(home), "a file where the store's folder should be "
                        "(tests/store/postgres covers an unreachable database)")
    home.mkdir()
    (home / "skills").write_text("a file where the skills folder should be")
    runtime = Runtime(backend.settings_for(home), embedder=embedder)
    with pytest.raises(StoreUnavailable) as error:
        create(runtime)
    assert error.value.message.startswith("Database connection failed: cannot create ")


@pytest.mark.slow  # over a second: the everyday run keeps its 2 minutes
def test_a_write_waits_at_most_the_lock_timeout_then_store_busy_and_writes_nothing(tmp_path, embedder):
    # issue 24 audit 5: a create behind a long import waited 56 s, an update behind a 50 s holder had no end
    runtime = Runtime(backend.settings_for(tmp_path / "home", lock_timeout=0.5), embedder=embedder)
    reset = create(runtime).skill_id
    with holding(runtime.settings, "skills/default", library.WRITE_LOCK):
        with pytest.raises(StoreBusy) as error:
            create(runtime, REFUND)
        assert error.value.message == ("Database connection failed: another writer held the write lock of "
                                       "skills/default for more than 0.5 s (a long import or reindex?); nothing "
                                       "was written: retry when it is done")  # said once
        with pytest.raises(StoreBusy):
            run(runtime, "update_skill", skill_id=reset, skill={"problem": "Locked out."})
        found = run(runtime, "search_skills", query="I forgot my password")  # reads and counters take no lock
        assert found.skill.skill_id == reset
    assert run(runtime, "list_skills").total == 1 and run(runtime, "get_skill", skill_id=reset).version == 1
    assert create(runtime, REFUND).created  # released: the write goes through


def test_store_errors_are_wrapped_once():
    for error in (StoreUnavailable, StoreBusy):
        with pytest.raises(error) as raised, library.store_errors():
            with library.store_errors():  # e.g. the PostgreSQL backend already says it
                raise error("disk I/O error")
        assert raised.value.message == "Database connection failed: disk I/O error"


def test_a_confirmed_outcome_counts_the_use_it_confirms(runtime):
    skill_id = create(runtime).skill_id  # never returned by search_skills: 0 uses
    out = run(runtime, "record_outcome", skill_id=skill_id, outcome="confirmed")
    assert (out.times_used, out.times_confirmed) == (1, 1)


# -- the passage cache -------------------------------------------------------------------------------------


def test_the_passage_cache_serves_a_skill_until_its_passages_change(runtime, monkeypatch):
    skill_id = create(runtime).skill_id
    store = store_of(runtime)
    cache = runtime.state(PassageCache)
    reads: list[list[str]] = []
    real = store.node_vectors
    monkeypatch.setattr(store, "node_vectors", lambda ids: reads.append(list(ids)) or real(ids))
    [first] = SkillLibrary(runtime, "default").read(store, [skill_id], with_vectors=True).values()
    [again] = SkillLibrary(runtime, "default").read(store, [skill_id], with_vectors=True).values()
    assert reads == [[skill_id]] and np.array_equal(first.node.vectors, again.node.vectors) and len(cache) == 1
    run(runtime, "update_skill", skill_id=skill_id, skill={"conditions": ["my password expired"]})
    [changed] = SkillLibrary(runtime, "default").read(store, [skill_id], with_vectors=True).values()
    assert reads == [[skill_id], [skill_id]] and changed.node.vectors.shape[0] == 3
    assert np.allclose(changed.node.vectors[2], runtime.embedder.embed(["my password expired"])[0], atol=1e-6)
    out = run(runtime, "search_skills", query="my password expired")
    assert out.skill.conditions == ["my password expired"]


def test_the_passage_cache_holds_its_skills_rows_not_the_stores_whole_matrix(runtime):
    """The SQLite store serves passage vectors as views of its in-memory snapshot: a cached view would keep
    the whole snapshot's matrix alive (every skill's rows, and after the snapshot is rebuilt, an old copy
    of it), so the cache's bound would not bound memory. Each cached skill holds its own rows only."""
    create(runtime)
    create(runtime, REFUND)
    run(runtime, "search_skills", query="I forgot my password")  # loads the snapshot, fills the cache
    cached = list(runtime.state(PassageCache)._rows.values())
    assert cached

    def pinned(rows: np.ndarray) -> int:  # bytes the array keeps alive
        while isinstance(rows.base, np.ndarray):
            rows = rows.base
        return rows.nbytes

    assert [pinned(rows) for rows in cached] == [rows.nbytes for rows in cached]


def test_the_passage_cache_keeps_nothing_read_across_a_write_and_is_bounded(runtime):
    ids = [create(runtime).skill_id, create(runtime, REFUND).skill_id]
    store = store_of(runtime)
    small = PassageCache(max_skills=1)
    nodes = store.get_nodes(ids)
    nodes[0].text_hash = "not-what-the-store-holds"  # as if a write landed between the two reads
    small.fill(store, nodes)
    assert all(n.vectors is not None for n in nodes) and [key[1] for key in small._rows] == [ids[1]]
    bounded = PassageCache(max_skills=1)
    bounded.fill(store, store.get_nodes(ids))
    assert [key[1] for key in bounded._rows] == [ids[1]]  # the least recently used went first


def test_the_library_counts_its_archived_skills_and_filters_only_when_some_are(runtime):
    reset = create(runtime).skill_id
    create(runtime, REFUND)

    def filtered():
        handle = SkillLibrary(runtime, "default")
        store = handle.store()
        return store.get_meta(library.ARCHIVED_COUNT), handle.in_use(store)

    assert filtered() == (0, None)
    run(runtime, "archive_skill", skill_id=reset)
    assert filtered() == (1, library.IN_USE)
    assert run(runtime, "search_skills", query="I forgot my password").skill is None
    run(runtime, "unarchive_skill", skill_id=reset)
    assert filtered() == (0, None)
    assert run(runtime, "search_skills", query="I forgot my password").skill.skill_id == reset
    # a library written before the count (no meta) is filtered, as every library was
    store = store_of(runtime)
    with store.atomic():
        store.set_meta(library.ARCHIVED_COUNT, None)
    assert filtered() == (None, library.IN_USE)
