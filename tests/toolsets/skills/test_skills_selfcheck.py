"""The library's own calibration (judge v6, :mod:`selfcheck`): which way it moves the bias, when it applies,
and that a stale, missing or damaged one never breaks a search."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers.skills_data import PLAYBOOK

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.tools import CallContext, Cancelled
from graphlore.toolsets.skills import TOOLSET, judge, selfcheck
from graphlore.toolsets.skills.library import SELF_CALIBRATION, SkillLibrary
from graphlore.toolsets.skills.whitening import WhiteningCache

SPECS = {s.name: s for s in TOOLSET.tools}


def run(runtime: Runtime, tool: str, **fields):
    spec = SPECS[tool]
    extra = {"context": CallContext(session="t")} if spec.context else {}
    return spec.run(runtime, parse_request(spec.request, fields), **extra)


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _library(pairs: bool, skills: int = 20, conditions: int = selfcheck.MIN_CONDITIONS + 5, seed: int = 0) -> tuple[list[np.ndarray], list[int]]:
    """Synthetic skills of ``conditions`` paraphrases each (a title, then the conditions) around a centre of
    their own; with ``pairs``, every two skills' centres sit close together (unknown intents beside known
    ones, BANKING77's case), else all centres are far apart (CLINC150's)."""
    rng = np.random.default_rng(seed)
    base = _unit(rng.normal(size=(skills, 64)))
    if pairs:
        base = _unit(np.repeat(base[::2], 2, axis=0) + 0.45 * _unit(rng.normal(size=(skills, 64))))
    blocks = [_unit(c + 0.08 * rng.normal(size=(conditions + 1, 64))) for c in base]
    return blocks, [1] * skills


def test_a_library_of_close_neighbours_gets_a_lower_bias_than_one_of_separate_intents():
    separate = selfcheck.library_shift(*_library(pairs=False))
    neighbours = selfcheck.library_shift(*_library(pairs=True))
    assert separate[0] is not None and neighbours[0] is not None
    assert neighbours[0] < separate[0]
    assert "left-out skills" in separate[1]


def test_the_calibration_reports_each_fold_it_has_done():
    """Seconds on a large library, after the import's write: the caller sees it advance, with its unit."""
    heard = []
    selfcheck.library_shift(*_library(pairs=False), progress=lambda done, total, unit: heard.append((done, total, unit)))
    assert heard == [(k, selfcheck.FOLDS, "calibration folds") for k in range(1, selfcheck.FOLDS + 1)]


def test_the_shift_is_where_the_unknown_questions_are_refused_at_the_level():
    values = np.array([-2.0, -1.0, 0.0, 1.0, 2.0, 5.0]) + 0.004  # off the 0.01 grid of shifts and biases
    known = np.array([False] * 5 + [True])
    shift = selfcheck.shift_for(values, known, level=0.6)
    bias = selfcheck.decision.WHITENED.bias  # the network a calibrated library is judged by (judge v11)
    refused = (values[~known] + bias + shift < 0).mean()
    assert refused >= 0.6
    assert (values[~known] + bias + shift + 0.01 < 0).mean() < 0.6


@pytest.mark.parametrize("conditions, skills, why", [
    ([30] * 9, 9, "9 skills in use, 10 needed"),
    ([selfcheck.MIN_CONDITIONS - 1] * 20, 20,
     f"the median skill has {selfcheck.MIN_CONDITIONS - 1} conditions, {selfcheck.MIN_CONDITIONS} needed"),
])
def test_libraries_the_network_does_not_decide_for_keep_the_shipped_bias(conditions, skills, why):
    assert selfcheck.applies(conditions) == why
    blocks = [np.eye(n + 1, 16) for n in conditions]
    assert selfcheck.library_shift(blocks, [1] * skills) == (None, why)
    assert selfcheck.MIN_CONDITIONS == 50  # measured: bench/skills_routing.py --min-conditions


def _big(title: str, word: str) -> dict:
    return {"title": title, "problem": f"The customer asks about {word}.",
            "conditions": [f"question {n} about {word}" for n in range(judge.NETWORK_EXAMPLES)],
            "keywords": [], "resolution_md": PLAYBOOK.replace("# Reset a password", f"# {title}"),
            "product_area": "general", "issue_type": "how-to"}


def test_without_a_calibration_of_its_own_the_shipped_bias_decides_and_the_evidence_says_so(runtime):
    """... on judge v7's shipped rank: no candidate is re-ranked in a whitened space (judge v10's, only for a
    library with a fresh calibration of its own)."""
    for title, word in (("Card arrival", "when my new card arrives"), ("Exchange rates", "the exchange rate")):
        run(runtime, "create_skill", skill=_big(title, word))
    out = run(runtime, "search_skills", query="question 3 about the exchange rate")
    assert "no calibration of its own" in out.evidence.decision
    assert out.evidence.candidates and all(c.whitened is None for c in out.evidence.candidates)
    assert "whitened" not in out.evidence.decision
    library = SkillLibrary(runtime, "default")
    store = library.store()
    assert library.whitening(store) is None
    for damaged in ("garbage", {"shift": "x", "fresh": True, "judge": judge.JUDGE_VERSION},
                    {"shift": True, "fresh": True, "judge": judge.JUDGE_VERSION}, [1, 2]):
        with store.atomic():
            store.set_meta(SELF_CALIBRATION, damaged)
        library.handle.reread()
        again = run(runtime, "search_skills", query="question 3 about the exchange rate")
        assert (again.skill and again.skill.skill_id) == (out.skill and out.skill.skill_id)
        assert "shipped bias" in again.evidence.decision


@pytest.mark.slow
def test_an_import_calibrates_the_library_and_any_other_write_makes_it_stale(runtime, tmp_path, shared_data):
    rows = json.loads((shared_data / "clinc150" / "data_train_val.json").read_text())["train"]
    intents = sorted({i for _, i in rows})[:12]
    count: dict[str, int] = {}
    path = tmp_path / "intents.jsonl"
    with path.open("w") as fh:
        for text, intent in rows:
            if intent in intents and count.get(intent, 0) < selfcheck.MIN_CONDITIONS + 5:
                count[intent] = count.get(intent, 0) + 1
                fh.write(json.dumps({"text": text, "intent": intent}) + "\n")
    out = run(runtime, "import_skills", format="intents", path=str(path))
    library = SkillLibrary(runtime, "default")
    record = library.handle.meta(library.store())[SELF_CALIBRATION]
    assert record["fresh"] is True and record["judge"] == judge.JUDGE_VERSION and record["skills"] == 12
    assert out.calibration.model_dump() == {"shift": record["shift"], "fresh": True, "how": record["how"]}
    assert isinstance(record["shift"], float) and library.self_shift(library.store()) == (record["shift"], None)
    question = [t for t, i in rows if i == intents[0]][selfcheck.MIN_CONDITIONS + 10]
    calibrated = run(runtime, "search_skills", query=question)
    assert "shipped bias" not in calibrated.evidence.decision
    # judge v10: the candidates re-ranked in the library's whitened space, and the evidence says by how much
    assert "whitened rank" in calibrated.evidence.decision
    white = library.whitening(library.store())
    assert white is not None and white.w.shape == (384, 384)
    assert all(c.whitened is not None for c in calibrated.evidence.candidates)
    assert [c.rank for c in calibrated.evidence.candidates] == sorted(
        (c.rank for c in calibrated.evidence.candidates), reverse=True)
    # another process fits the same whitening from the stored vectors on its first search
    runtime.state(WhiteningCache).close()
    again = run(runtime, "search_skills", query=question)
    assert again.evidence.model_dump() == calibrated.evidence.model_dump()
    assert np.allclose(library.whitening(library.store()).w, white.w)

    run(runtime, "create_skill", skill=_big("Exchange rates", "the exchange rate"))
    library = SkillLibrary(runtime, "default")
    assert library.handle.meta(library.store())[SELF_CALIBRATION]["fresh"] is False
    out = run(runtime, "search_skills", query=question)
    assert "the library's own calibration is stale" in out.evidence.decision
    assert all(c.whitened is None for c in out.evidence.candidates)  # stale: judge v7's rank and network

    run(runtime, "import_skills", format="intents", path=str(path))  # importing again makes a fresh one
    library = SkillLibrary(runtime, "default")
    assert library.handle.meta(library.store())[SELF_CALIBRATION]["fresh"] is True


def test_a_calibration_is_recorded_only_if_nothing_was_written_since_the_write_it_was_made_for(runtime):
    run(runtime, "create_skill", skill=_big("Card arrival", "when my new card arrives"))
    library = SkillLibrary(runtime, "default")
    store = library.store()
    with library.lock(), store.atomic():
        late = library.pending_calibration(store)
    run(runtime, "create_skill", skill=_big("Exchange rates", "the exchange rate"))  # written since: too late
    assert library.calibrate(late) is None
    library.handle.reread()
    assert library.handle.meta(store)[SELF_CALIBRATION] == {"fresh": False}
    with library.lock(), store.atomic():
        token = library.pending_calibration(store)
    record = library.calibrate(token)
    assert record["fresh"] is True and record["shift"] is None and record["skills"] == 2
    assert record["how"] == "2 skills in use, 10 needed"
    out = run(runtime, "search_skills", query="question 3 about the exchange rate")
    assert "no calibration of its own: 2 skills in use, 10 needed" in out.evidence.decision


def _intents(path, intents: dict[str, list[str]]):
    path.write_text("".join(json.dumps({"text": t, "intent": i}) + "\n" for i, ts in intents.items() for t in ts))
    return path


def test_the_same_file_again_keeps_a_fresh_calibration_even_when_stopped(runtime, tmp_path, monkeypatch):
    """Importing the same file again writes nothing: it neither recomputes the library's own calibration nor,
    stopped where that would run (Ctrl-C, a busy lock), leaves a fresh one stale."""
    path = _intents(tmp_path / "intents.jsonl", {"card_arrival": ["where is my card", "my card has not come"],
                                                 "exchange_rate": ["what is the exchange rate", "rate for euros"]})
    run(runtime, "import_skills", format="intents", path=str(path))
    library = SkillLibrary(runtime, "default")
    before = library.handle.meta(library.store())[SELF_CALIBRATION]
    assert before["fresh"] is True

    def stopped(*args, **kwargs):
        raise Cancelled

    monkeypatch.setattr(selfcheck, "library_shift", stopped)
    out = run(runtime, "import_skills", format="intents", path=str(path))
    assert (out.created, out.updated, out.unchanged) == (0, 0, 2)
    library = SkillLibrary(runtime, "default")
    assert library.handle.meta(library.store())[SELF_CALIBRATION] == before


@pytest.mark.parametrize("record, why", [
    ({"shift": 0.1, "fresh": True, "judge": judge.JUDGE_VERSION - 1, "how": "x"},
     f"made for judge v{judge.JUDGE_VERSION - 1}"),
    ({"fresh": False, "pending": "t"}, "not recorded since the last import or reindex"),
    ({"shift": 0.1, "fresh": False, "judge": judge.JUDGE_VERSION, "how": "x"}, "skills were written since"),
])
def test_the_evidence_says_why_the_shipped_bias_decides(runtime, record, why):
    """Each reason the library's own calibration is not used is named as it is: another judge's (nothing was
    written), one not recorded after its import (stopped, or being made), one skills were written since."""
    library = SkillLibrary(runtime, "default")
    run(runtime, "create_skill", skill=_big("Exchange rates", "the exchange rate"))
    store = library.store()
    with store.atomic():
        store.set_meta(SELF_CALIBRATION, record)
    library.handle.reread()
    assert why in library.self_shift(store)[1]


def test_a_library_re_embedded_when_opened_under_a_new_routing_version_is_calibrated_again(runtime, tmp_path,
                                                                                            monkeypatch):
    """The re-embedding an upgrade makes on first open is a reindex: it leaves a current calibration of the
    library, not a stale one until someone runs reindex by hand."""
    from graphlore.toolsets.skills import library as library_module
    path = _intents(tmp_path / "intents.jsonl", {"card_arrival": ["where is my card", "my card has not come"],
                                                 "exchange_rate": ["what is the exchange rate", "rate for euros"]})
    run(runtime, "import_skills", format="intents", path=str(path))
    monkeypatch.setattr(library_module.routing, "ROUTING_VERSION", library_module.routing.ROUTING_VERSION + 1)
    library = SkillLibrary(runtime, "default")
    store = library.store()
    assert store.get_meta("skills")["routing"] == library_module.routing.ROUTING_VERSION  # re-embedded
    record = store.get_meta(SELF_CALIBRATION)
    assert record["fresh"] is True and record["how"] == "2 skills in use, 10 needed"
    assert library.self_shift(store) == (0.0, "no calibration of its own: 2 skills in use, 10 needed")


def test_an_import_stopped_while_calibrating_keeps_its_skills_and_the_same_file_again_calibrates(
        runtime, tmp_path, monkeypatch):
    """Ctrl-C during the calibration: the import's skills are kept, the library is judged with the shipped bias
    and says why, and running the command again (as the CLI says) makes the calibration."""
    path = _intents(tmp_path / "intents.jsonl", {"card_arrival": ["where is my card", "my card has not come"],
                                                 "exchange_rate": ["what is the exchange rate", "rate for euros"]})
    real = selfcheck.library_shift

    def stopped(*args, **kwargs):
        raise Cancelled

    monkeypatch.setattr(selfcheck, "library_shift", stopped)
    with pytest.raises(Cancelled):
        run(runtime, "import_skills", format="intents", path=str(path))
    library = SkillLibrary(runtime, "default")
    store = library.store()
    assert store.count_nodes("skill") == 2
    assert "not recorded since the last import or reindex" in library.self_shift(store)[1]
    monkeypatch.setattr(selfcheck, "library_shift", real)
    out = run(runtime, "import_skills", format="intents", path=str(path))
    assert (out.created, out.updated) == (0, 0)
    library = SkillLibrary(runtime, "default")
    assert library.handle.meta(library.store())[SELF_CALIBRATION]["fresh"] is True


@pytest.mark.parametrize("error, said, logged", [
    (MemoryError("cannot allocate"), "its own calibration ran out of memory; the skills are written",
     "its own calibration ran out of memory"),
    (KeyError("shift"), "its own calibration could not be computed (an internal error, logged by the server); the "
     "skills are written", "KeyError: 'shift'"),  # the cause, with its traceback, in the server's log only
])
def test_a_calibration_that_fails_leaves_the_import_answered_as_written(runtime, tmp_path, monkeypatch, caplog,
                                                                         error, said, logged):
    """The skills are committed before the calibration runs: a failure there (a store error, memory) is logged
    and leaves the shipped bias deciding; the import still answers what it wrote, never an error, and says what
    happened in words (never an exception's name)."""
    path = _intents(tmp_path / "intents.jsonl", {"card_arrival": ["where is my card", "my card has not come"],
                                                 "exchange_rate": ["what is the exchange rate", "rate for euros"]})

    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(selfcheck, "library_shift", broken)
    out = run(runtime, "import_skills", format="intents", path=str(path))
    assert out.created == 2
    assert logged in caplog.text
    assert out.calibration.shift is None and out.calibration.fresh is False
    assert out.calibration.how.startswith(said)
    assert type(error).__name__ not in out.calibration.how and str(error) not in out.calibration.how
    assert "the shipped bias decides until the next import or reindex" in out.calibration.how
    library = SkillLibrary(runtime, "default")
    assert "not recorded since the last import or reindex" in library.self_shift(library.store())[1]


def test_import_and_reindex_answers_say_what_calibration_the_library_has(runtime, tmp_path):
    """The answer of an import (a first one, the same file again) and of a reindex reports the library's own
    calibration as it stands after it: the shift (null: the shipped bias), whether it is fresh, and how or why
    not; the CLI prints it in a line."""
    from graphlore.toolsets.skills import render
    path = _intents(tmp_path / "intents.jsonl", {"card_arrival": ["where is my card", "my card has not come"],
                                                 "exchange_rate": ["what is the exchange rate", "rate for euros"]})
    first = run(runtime, "import_skills", format="intents", path=str(path))
    assert first.calibration.model_dump() == {
        "shift": None, "fresh": True, "how": "no calibration of its own: 2 skills in use, 10 needed"}
    assert "the shipped bias (no calibration of its own: 2 skills in use, 10 needed)" in render.import_skills(first)
    assert run(runtime, "import_skills", format="intents", path=str(path)).calibration == first.calibration
    run(runtime, "create_skill", skill=_big("Exchange rates", "the exchange rate"))
    again = run(runtime, "import_skills", format="intents", path=str(path))  # nothing written, but it was stale
    assert again.calibration.model_dump() == {
        "shift": None, "fresh": True, "how": "no calibration of its own: 3 skills in use, 10 needed"}
    again = run(runtime, "reindex_skills")
    assert again.calibration == first.calibration.model_copy(update={"how": again.calibration.how})
    assert "the judge's calibration for this library" in render.reindex_skills(again)


def test_an_example_learned_from_use_keeps_the_calibration_fresh_within_its_share(runtime, tmp_path):
    """A confirmed outcome's routing example leaves the library's own calibration valid while the examples
    learned since it was made stay within selfcheck.LEARNED_SHARE of the conditions it was made from; the next
    one past that makes it stale (any other write of skills still does at once)."""
    from graphlore.toolsets.skills import learning
    words = {"card_arrival": "when my new card arrives", "exchange_rate": "the exchange rate"}
    path = _intents(tmp_path / "intents.jsonl", {i: [f"question {n} about {w}" for n in range(30)]
                                                 for i, w in words.items()})
    out = run(runtime, "import_skills", format="intents", path=str(path))
    library = SkillLibrary(runtime, "default")
    record = library.store().get_meta(SELF_CALIBRATION)
    assert (record["conditions"], record["learned"], record["fresh"]) == (60, 0, True)
    assert selfcheck.keeps(1, 60) and not selfcheck.keeps(2, 60)  # 0.02 of 60: one example
    skill_id = out.skill_ids[-1]
    for n, fresh in ((1, True), (2, False)):
        text = f"what is {words['exchange_rate']} today, case {n}"
        added = learning.add_example(library, skill_id, text, runtime.embedder.embed([text])[0])
        assert added.added, added.reason
        record = library.store().get_meta(SELF_CALIBRATION)
        assert record["fresh"] is fresh
        assert (library.calibration_state(library.store())["fresh"]) is fresh
    assert record["learned"] == 1  # the stale record keeps what it was made with
    again = run(runtime, "import_skills", format="intents", path=str(path))  # stale: calibrated again
    assert again.calibration.fresh is True


def test_a_learned_example_on_a_record_of_another_shape_makes_it_stale():
    from graphlore.toolsets.skills.library import learn
    record = {"shift": 0.2, "fresh": True, "judge": judge.JUDGE_VERSION, "min_conditions": selfcheck.MIN_CONDITIONS,
              "conditions": 1000, "learned": 3, "how": "x"}
    assert learn(record) == {**record, "learned": 4}
    for other in ({**record, "fresh": False}, {**record, "judge": judge.JUDGE_VERSION - 1}, {**record, "learned": True},
                  {k: v for k, v in record.items() if k != "min_conditions"},
                  {k: v for k, v in record.items() if k != "conditions"}, {**record, "pending": "t"},
                  {**record, "learned": 20}, "garbage", None):
        assert learn(other) is None


def test_a_left_out_question_takes_its_nearest_conditions_with_it_but_leaves_two():
    """Judge v7's simulation: a known skill's left-out question finds none of its PARAPHRASES_OUT nearest
    conditions among what is left (unseen wording), and a skill keeps at least 2 conditions."""
    rng = np.random.default_rng(1)
    question = _unit(rng.normal(size=(1, 16)))
    copies = _unit(question + 0.01 * rng.normal(size=(selfcheck.PARAPHRASES_OUT, 16)))
    others = _unit(rng.normal(size=(6, 16)))
    kept = np.vstack([_unit(rng.normal(size=(1, 16))), copies, others])  # a title, then the conditions
    left = selfcheck._unseen(kept, 1, question)
    assert len(left) == 1 + len(others)
    assert np.allclose(left[0], kept[0]) and np.allclose(left[1:], others)
    small = kept[:1 + selfcheck.PARAPHRASES_OUT]
    assert selfcheck._unseen(small, 1, question) is small  # fewer than 2 would be left: nothing leaves


@pytest.mark.slow  # embeds MIN_SKILLS skills of MIN_CONDITIONS conditions
def test_a_learned_example_that_gives_the_library_enough_conditions_makes_its_record_stale(runtime, tmp_path):
    """A record without a calibration of its own because the median skill has too few conditions is not kept
    fresh by a learned example that brings the median to MIN_CONDITIONS: the library now gets a calibration of
    its own, and the next import must make it (a record that still says why it has none would be false)."""
    from graphlore.toolsets.skills import learning
    need = selfcheck.MIN_CONDITIONS
    words = [f"topic{n}" for n in range(selfcheck.MIN_SKILLS)]  # half one short of MIN_CONDITIONS: median need - 0.5
    path = _intents(tmp_path / "intents.jsonl", {w: [f"question {k} about {w}" for k in range(need - (n % 2))]
                                                 for n, w in enumerate(words)})
    out = run(runtime, "import_skills", format="intents", path=str(path))
    assert out.calibration.shift is None and f"{need - 0.5:g} conditions, {need} needed" in out.calibration.how
    library = SkillLibrary(runtime, "default")
    record = library.store().get_meta(SELF_CALIBRATION)
    assert selfcheck.keeps(1, record["conditions"])  # within the bound: only the median decides
    text = f"a new question about {words[1]}"
    added = learning.add_example(library, out.skill_ids[1], text, runtime.embedder.embed([text])[0])
    assert added.added, added.reason
    assert library.store().get_meta(SELF_CALIBRATION)["fresh"] is False
    again = run(runtime, "import_skills", format="intents", path=str(path))
    assert isinstance(again.calibration.shift, float) and again.calibration.fresh is True


def test_a_record_made_under_another_minimum_of_conditions_leaves_the_shipped_bias(runtime):
    """A calibration recorded before MIN_CONDITIONS was measured (records then did not say their minimum: 13)
    may calibrate a library the minimum now leaves uncalibrated: it is not this judge's answer, and says so."""
    for title, word in (("Card arrival", "when my new card arrives"), ("Exchange rates", "the exchange rate")):
        run(runtime, "create_skill", skill=_big(title, word))
    library = SkillLibrary(runtime, "default")
    store = library.store()
    old = {"shift": 0.5, "fresh": True, "judge": judge.JUDGE_VERSION, "skills": 2, "conditions": 20, "learned": 0,
           "how": "found so"}
    for record, why in ((old, f"a median skill of 13 conditions for one, now {selfcheck.MIN_CONDITIONS}"),
                        ({**old, "min_conditions": selfcheck.MIN_CONDITIONS}, None)):
        with store.atomic():
            store.set_meta(SELF_CALIBRATION, record)
        library.handle.reread()
        shift, said = library.self_shift(store)
        assert (shift, said is None) == ((0.0, False) if why else (0.5, True))
        assert why is None or why in said
        assert library.calibration_current(store) is (why is None)


def test_a_record_without_a_shift_is_kept_only_while_the_library_still_gets_none():
    from graphlore.toolsets.skills.library import learn
    need = selfcheck.MIN_CONDITIONS
    record = {"shift": None, "fresh": True, "judge": judge.JUDGE_VERSION, "min_conditions": need, "skills": 20,
              "conditions": 20 * (need - 1),
              "learned": 0, "how": f"the median skill has {need - 1} conditions, {need} needed"}
    assert learn(record, lambda: [need - 1] * 20) == {**record, "learned": 1}
    assert learn(record, lambda: [need] * 20) is None
    few = {**record, "skills": selfcheck.MIN_SKILLS - 1, "how": "9 skills in use, 10 needed"}
    assert learn(few, lambda: pytest.fail("a library of too few skills gets none whatever its conditions")) == {
        **few, "learned": 1}


def test_the_documented_answer_says_when_the_calibration_is_made_again_and_what_leaves_it_fresh():
    """The output model's descriptions (the MCP schema an agent reads) match the code: an import calibrates when
    it wrote skills or the record was not current, and learned examples keep it fresh up to LEARNED_SHARE."""
    from graphlore.toolsets.skills.models import ImportSkillsResponse, LibraryCalibration
    fresh = LibraryCalibration.model_fields["fresh"].description
    assert f"{selfcheck.LEARNED_SHARE * 100:g} % of the conditions" in fresh
    assert "not current" in ImportSkillsResponse.model_fields["calibration"].description


def test_the_cli_line_calls_the_libraries_shift_a_shift_as_the_answer_does():
    """The answer's ``shift`` moves the shipped bias; the CLI line must not print it as the bias itself."""
    from graphlore.toolsets.skills import render
    from graphlore.toolsets.skills.models import LibraryCalibration
    line = render.calibration(LibraryCalibration(shift=0.24, fresh=True, how="found so"))
    assert line == "the judge's calibration for this library: its own, the shipped bias shifted by +0.24 (found so)"


@pytest.mark.slow
def test_every_process_re_ranks_by_the_same_whitening_after_an_example_is_learned(runtime, tmp_path, shared_data):
    """A learned example changes a skill's stored vectors but keeps the calibration fresh: the process that
    had fitted the whitening and one that fits it from the stored vectors now must judge alike."""
    rows = json.loads((shared_data / "clinc150" / "data_train_val.json").read_text())["train"]
    intents = sorted({i for _, i in rows})[:12]
    by_intent = {i: [t for t, j in rows if j == i] for i in intents}
    path = _intents(tmp_path / "intents.jsonl", {i: ts[:selfcheck.MIN_CONDITIONS + 5] for i, ts in by_intent.items()})
    run(runtime, "import_skills", format="intents", path=str(path))
    question = by_intent[intents[0]][selfcheck.MIN_CONDITIONS + 10]
    first = run(runtime, "search_skills", query=question)
    assert first.skill is not None and all(c.whitened is not None for c in first.evidence.candidates)
    taught = run(runtime, "record_outcome", skill_id=first.skill.skill_id, outcome="confirmed",
                 query=by_intent[intents[0]][selfcheck.MIN_CONDITIONS + 20])
    assert taught.learned.added, taught.learned.reason
    library = SkillLibrary(runtime, "default")
    assert library.handle.meta(library.store())[SELF_CALIBRATION]["learned"] == 1  # still fresh
    here = run(runtime, "search_skills", query=question)
    runtime.state(WhiteningCache).close()  # another process: fits from the stored vectors
    elsewhere = run(runtime, "search_skills", query=question)
    assert [(c.skill_id, c.whitened) for c in here.evidence.candidates] == [
        (c.skill_id, c.whitened) for c in elsewhere.evidence.candidates]


def test_a_fresh_looking_record_on_a_library_with_nothing_to_whiten_never_breaks_a_search(runtime):
    """A damaged record claiming a fresh calibration of this judge on a library whose skills have one condition
    each (no within-skill covariance to fit): the search is judged as judge v7 judges it."""
    for title, word in (("Card arrival", "when my new card arrives"), ("Exchange rates", "the exchange rate")):
        run(runtime, "create_skill", skill={**_big(title, word), "conditions": [f"a question about {word}"]})
    plain = run(runtime, "search_skills", query="a question about the exchange rate")
    library = SkillLibrary(runtime, "default")
    store = library.store()
    with store.atomic():
        store.set_meta(SELF_CALIBRATION, {"shift": 0.1, "fresh": True, "judge": judge.JUDGE_VERSION, "made": "x",
                                          "min_conditions": selfcheck.MIN_CONDITIONS, "learned": 0, "how": "x"})
    library.handle.reread()
    out = run(runtime, "search_skills", query="a question about the exchange rate")
    assert all(c.whitened is None for c in out.evidence.candidates)
    assert (out.skill and out.skill.skill_id) == (plain.skill and plain.skill.skill_id)
    assert out.evidence.decision == plain.evidence.decision  # the linear rule decides, as without the record
