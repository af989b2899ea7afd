"""The LLM paths of the skills tools: an OpenAI-compatible endpoint (a fake hosted model on 127.0.0.1) and
the MCP client's model through sampling, asked directly (handshake-era sessions) or round by round
(protocol 2026-07-28, where every question must come before any write)."""

from __future__ import annotations

import json
import time

import mcp_types as types
import pytest
from anyio.from_thread import start_blocking_portal
from helpers import backend
from helpers.fake_endpoint import chat_endpoint, json_endpoint
from helpers.mcp import connect, http_server, stdio_params
from helpers.skills_data import CONVERSATION, EXTRACTED, REFUND, RESET, fake_model_answer, sampling_callback

from graphlore.config import Settings
from graphlore.contract import parse_request
from graphlore.errors import ConfigError, InvalidInput, ProviderError
from graphlore.llm import SamplingLLM, SamplingRequired
from graphlore.runtime import Runtime
from graphlore.tools import CallContext
from graphlore.toolsets.skills import TOOLSET
from graphlore.toolsets.skills.library import SkillLibrary
from graphlore.toolsets.skills.playbook import parse, render

SPECS = {s.name: s for s in TOOLSET.tools}


def run(runtime: Runtime, tool: str, context: CallContext | None = None, **fields):
    spec = SPECS[tool]
    extra = {"context": context or CallContext(session="t")} if spec.context else {}
    return spec.run(runtime, parse_request(spec.request, fields), **extra)


@pytest.fixture
def endpoint():
    with chat_endpoint(fake_model_answer) as found:
        yield found


@pytest.fixture
def llm_runtime(endpoint, settings, embedder) -> Runtime:
    url, _ = endpoint
    return Runtime(backend.settings_for(settings.home, llm_url=url, llm_model="fake"), embedder=embedder)


def prompts(seen: list[dict]) -> list[str]:
    return [c["body"]["messages"][-1]["content"] for c in seen]


# -- create_skill from a conversation ----------------------------------------------------------------


def test_create_from_a_conversation_through_the_endpoint(llm_runtime, endpoint):
    _, seen = endpoint
    out = run(llm_runtime, "create_skill", conversation=CONVERSATION, resolution_confirmed=True)
    assert out.created and out.title == EXTRACTED["title"] and out.skill.issue_type == "bug"
    assert out.skill.conditions == EXTRACTED["conditions"] and out.skill.times_confirmed == 1
    assert out.skill.resolution_md == render(parse(EXTRACTED["resolution_md"]), None).replace(
        "# Fix rejected two-factor codes\n\n",
        "# Fix rejected two-factor codes\n\n**Confidence:** 0.60 (1 use, 1 confirmed)\n**Product Area:** accounts\n"
        "**Issue Type:** bug\n\n")
    [prompt] = prompts(seen)
    assert CONVERSATION in prompt and "### 1. <action>" in prompt and seen[0]["body"]["temperature"] == 0


def test_metadata_is_a_hint_and_its_area_and_type_are_kept(llm_runtime, endpoint):
    _, seen = endpoint
    out = run(llm_runtime, "create_skill", conversation=CONVERSATION,
              metadata={"product_area": "security", "issue_type": "how-to", "channel": "chat"})
    assert (out.skill.product_area, out.skill.issue_type) == ("security", "how-to")
    assert '{"channel": "chat", "issue_type": "how-to", "product_area": "security"}' in prompts(seen)[0]


def test_an_invalid_playbook_is_sent_back_once_with_the_validators_message(llm_runtime, endpoint):
    _, seen = endpoint
    out = run(llm_runtime, "create_skill", conversation=CONVERSATION + "\nINVALID-ONCE")
    assert out.created and len(seen) == 2
    retry = prompts(seen)[1]
    assert "Your last answer was refused:" in retry and "missing required section '## Steps'" in retry


def test_a_playbook_invalid_twice_is_an_llm_error_and_writes_nothing(llm_runtime, endpoint):
    _, seen = endpoint
    with pytest.raises(ProviderError) as error:
        run(llm_runtime, "create_skill", conversation=CONVERSATION + "\nINVALID-ALWAYS")
    text = error.value.message
    assert text.startswith("LLM error: the model's skill was refused twice (") and "## Steps" in text
    assert text.endswith(". Retry or resolve from scratch.") and len(seen) == 2
    assert not SkillLibrary(llm_runtime, "default").exists()


def test_an_endpoint_failure_is_an_llm_error_for_extraction_after_one_retry(endpoint, settings, embedder):
    url, seen = endpoint
    runtime = Runtime(backend.settings_for(settings.home, llm_url=url, llm_model="broken"), embedder=embedder)
    with pytest.raises(ProviderError) as error:
        run(runtime, "create_skill", conversation=CONVERSATION)
    assert error.value.message.startswith("LLM error: LLM endpoint ")
    assert "answered 503: overloaded" in error.value.message and len(seen) == 2  # asked again once
    assert error.value.message.endswith(". Retry or resolve from scratch.")


def test_harmless_extra_keys_in_the_models_skill_are_ignored_with_a_warning(llm_runtime, endpoint, caplog):
    _, seen = endpoint
    out = run(llm_runtime, "create_skill", conversation=CONVERSATION + "\nEXTRA-KEYS")
    assert out.created and out.title == EXTRACTED["title"] and len(seen) == 1  # not refused, not asked again
    assert "ignored: changes, confidence" in caplog.text


# -- update_skill from a conversation ----------------------------------------------------------------


def test_an_llm_merge_gets_a_new_version_and_changes_computed_by_diffing(llm_runtime, endpoint):
    _, seen = endpoint
    skill_id = run(llm_runtime, "create_skill", skill=RESET).skill_id
    out = run(llm_runtime, "update_skill", skill_id=skill_id, conversation="Customer: the email never came.",
              feedback="Mention the spam folder.")
    assert out.version == 2
    c = out.change_detail
    assert [(s.number, s.action) for s in c.steps_added] == [(3, "Check the spam folder")]
    assert [(e.old_number, e.new_number, e.fields) for e in c.steps_edited] == [(2, 2, ["say"])]
    assert c.conditions_added == ["the reset email never arrived"] and c.fields_changed == []
    [prompt] = prompts(seen)
    assert "Mention the spam folder." in prompt and '"title": "Reset a password"' in prompt
    assert "**Confidence:**" not in prompt  # the model sees the content, not the rendered header
    assert run(llm_runtime, "get_skill", skill_id=skill_id, version=1).resolution_md.count("### ") == 2


# -- search_skills with the LLM judge ----------------------------------------------------------------


def test_the_llm_judge_sees_every_part_of_each_candidate_and_decides(llm_runtime, endpoint):
    _, seen = endpoint
    reset = run(llm_runtime, "create_skill", skill=RESET).skill_id
    run(llm_runtime, "create_skill", skill=REFUND)
    out = run(llm_runtime, "search_skills", query="help me reset my password please")
    assert out.judge.kind == "llm" and out.skill.skill_id == reset
    [prompt] = prompts(seen)
    for part in ("Title: Reset a password", "Problem: The customer forgot their password", "Applies when:",
                 "  - I forgot my password", "Confidence: 0.50 (0 uses, 0 confirmed)", "Steps:",
                 "  1. Verify the account | Do: Look the account up by email. | Check: The account exists",
                 "Title: Refund a damaged item"):
        assert part in prompt
    assert run(llm_runtime, "get_skill", skill_id=reset).times_used == 1


def test_the_llm_judge_is_told_which_candidate_is_a_template(llm_runtime, endpoint, tmp_path):
    _, seen = endpoint
    rows = tmp_path / "intents.jsonl"
    rows.write_text('{"text": "reset my password please", "intent": "reset_password"}\n')
    run(llm_runtime, "import_skills", format="intents", path=str(rows))
    out = run(llm_runtime, "search_skills", query="reset my password please")
    assert out.judge.kind == "llm" and out.skill.template is True
    assert "Template: yes (an imported stub" in prompts(seen)[-1]


def test_the_llm_may_pick_none(llm_runtime, endpoint):
    run(llm_runtime, "create_skill", skill=RESET)
    out = run(llm_runtime, "search_skills", query="what is the weather tomorrow")
    assert out.skill is None and out.judge.kind == "llm"


@pytest.mark.parametrize("word,problem", [("garbage", "it was not a JSON object"),
                                          ("wrongid", "'not-a-candidate' is not one of the candidate ids")])
def test_unusable_answers_are_asked_again_once_then_the_calibrated_judge_decides(llm_runtime, endpoint, runtime,
                                                                                 word, problem):
    _, seen = endpoint
    reset = run(llm_runtime, "create_skill", skill=RESET).skill_id
    query = f"{word}: I forgot my password and cannot log in"
    out = run(llm_runtime, "search_skills", query=query)
    assert out.judge.kind == "calibrated" and out.skill.skill_id == reset and len(seen) == 2
    assert problem in prompts(seen)[1] and out.judge.fallback.startswith("the LLM's answers were unusable twice")
    without_llm = run(runtime, "search_skills", query=query)  # the same library, no LLM configured
    assert without_llm.judge.kind == "calibrated" and without_llm.skill.skill_id == reset


def test_extra_keys_in_the_judges_answer_are_ignored_with_a_warning(settings, embedder, caplog):
    # issue 24 item 5: unknown extra keys in LLM output are ignored with a warning, the judge's answer included
    def answer(path, body):
        picked = json.loads(fake_model_answer(body["messages"][-1]["content"]))
        text = json.dumps({**picked, "confidence": 0.9, "changes": []})
        return 200, {"choices": [{"message": {"role": "assistant", "content": text}}]}

    with json_endpoint(answer) as (url, seen):
        runtime = judging_runtime(settings, embedder, url)
        reset = run(runtime, "create_skill", skill=RESET).skill_id
        out = run(runtime, "search_skills", query="help me reset my password please")
    assert out.judge.kind == "llm" and out.skill.skill_id == reset and len(seen) == 1  # used, not asked again
    assert "ignored: changes, confidence" in caplog.text


# -- an LLM outage never breaks search ------------------------------------------------------------------


def flaky_endpoint(failures: list):
    """A chat endpoint that answers each request with the next of ``failures`` (a status, or "slow": a reply
    after 2 s) while any is left, then like the fake model."""
    def answer(path, body):
        if failures:
            failure = failures.pop(0)
            if failure == "slow":
                time.sleep(2.0)
            else:
                return failure, b"server error"
        text = fake_model_answer(body["messages"][-1]["content"])
        return 200, {"choices": [{"message": {"role": "assistant", "content": text}}]}
    return json_endpoint(answer)


def judging_runtime(settings, embedder, url, **values) -> Runtime:
    return Runtime(backend.settings_for(settings.home, judge_llm_url=url, judge_llm_model="fake", **values),
                   embedder=embedder)


@pytest.mark.parametrize("failures,what", [([500, 500], "answered 500: server error"),
                                           pytest.param(["slow", "slow"], "timed out",
                                                        marks=pytest.mark.slow)])  # ~2 s of timeouts
def test_an_llm_outage_falls_back_to_the_calibrated_judge_and_says_so(settings, embedder, failures, what):
    with flaky_endpoint(failures) as (url, seen):
        runtime = judging_runtime(settings, embedder, url, judge_llm_timeout=0.5)
        reset = run(runtime, "create_skill", skill=RESET).skill_id
        out = run(runtime, "search_skills", query="I forgot my password and cannot log in")
    assert out.skill.skill_id == reset and out.judge.kind == "calibrated" and len(seen) == 2  # retried once
    assert out.judge.fallback.startswith("the LLM failed (LLM endpoint ") and what in out.judge.fallback
    assert "judge: calibrated (the LLM could not decide: the LLM failed" in SPECS["search_skills"].render(out)
    assert run(runtime, "get_skill", skill_id=reset).times_used == 1


def test_one_failure_is_retried_and_the_llm_still_decides(settings, embedder):
    with flaky_endpoint([503]) as (url, seen):
        runtime = judging_runtime(settings, embedder, url)
        run(runtime, "create_skill", skill=RESET)
        out = run(runtime, "search_skills", query="help me reset my password please")
    assert out.judge.kind == "llm" and out.judge.fallback is None and len(seen) == 2


def test_the_judge_and_extraction_use_their_own_models(settings, embedder):
    with chat_endpoint(fake_model_answer) as (url, seen):
        runtime = Runtime(backend.settings_for(settings.home, llm_url=url, llm_model="expensive",
                                               judge_llm_model="cheap"), embedder=embedder)
        run(runtime, "create_skill", conversation=CONVERSATION)
        run(runtime, "search_skills", query="my two-factor code is rejected")
    assert [c["body"]["model"] for c in seen] == ["expensive", "cheap"]


def test_the_judge_setting_and_the_request_choose_the_judge(llm_runtime, endpoint, settings, embedder):
    _, seen = endpoint
    run(llm_runtime, "create_skill", skill=RESET)
    out = run(llm_runtime, "search_skills", query="reset my password", judge="calibrated")
    assert out.judge.kind == "calibrated" and out.judge.fallback is None and seen == []

    def never(request):
        raise AssertionError("a client that opted out must not be asked")

    quiet = Runtime(backend.settings_for(settings.home, skills_judge="calibrated"), embedder=embedder)
    out = run(quiet, "search_skills", CallContext(session="t", llm=SamplingLLM(never)), query="reset my password")
    assert out.judge.kind == "calibrated" and out.skill is not None
    out = run(quiet, "search_skills", CallContext(session="t", llm=SamplingLLM(answer)), query="reset my password",
              judge="auto")  # the request wins over the server's setting
    assert out.judge.kind == "llm"
    out = run(quiet, "search_skills", query="reset my password", judge="llm")
    assert out.judge.kind == "calibrated" and "no LLM is configured" in out.judge.fallback and out.skill is not None
    with pytest.raises(InvalidInput, match="auto, calibrated, llm|'auto', 'calibrated' or 'llm'"):
        run(quiet, "search_skills", query="reset my password", judge="oracle")
    with pytest.raises(ConfigError, match="skills_judge must be one of auto, calibrated, llm"):
        Settings.load({"GRAPHLORE_SKILLS_JUDGE": "oracle", "GRAPHLORE_HOME": str(settings.home)})


def test_the_configured_endpoint_wins_over_the_clients_model(llm_runtime, endpoint):
    _, seen = endpoint

    def never(request):
        raise AssertionError("the client's model must not be asked when an endpoint is configured")

    run(llm_runtime, "create_skill", skill=RESET)
    out = run(llm_runtime, "search_skills", CallContext(session="t", llm=SamplingLLM(never)),
              query="reset my password")
    assert out.judge.kind == "llm" and len(seen) == 1


# -- sampling, in process ------------------------------------------------------------------------------


def answer(request) -> str:
    return fake_model_answer(request.prompt)


def test_the_clients_model_asked_directly(runtime):
    context = CallContext(session="t", llm=SamplingLLM(answer))
    out = run(runtime, "create_skill", context, conversation=CONVERSATION)
    assert out.created and out.title == EXTRACTED["title"]
    found = run(runtime, "search_skills", CallContext(session="t", llm=SamplingLLM(answer)),
                query="my two-factor codes are rejected")
    assert found.judge.kind == "llm" and found.skill.skill_id == out.skill_id


def rounds(runtime: Runtime, tool: str, **fields):
    """Call like a 2026-07-28 client: each question ends the call; the next call carries every answer."""
    answered: list[tuple[str, str]] = []
    states = []
    while True:
        try:
            return run(runtime, tool, CallContext(session=None, llm=SamplingLLM(None, answered)), **fields), states
        except SamplingRequired as need:
            states.append(SkillLibrary(runtime, fields.get("library", "default")).exists())
            answered = [*need.answered, (need.request.key(), fake_model_answer(need.request.prompt))]


def test_round_by_round_every_question_comes_before_any_write(runtime):
    out, before = rounds(runtime, "create_skill", conversation=CONVERSATION + "\nINVALID-ONCE")
    assert out.created and before == [False, False]  # two questions, nothing written until both were answered
    run(runtime, "create_skill", skill=RESET)
    reset = run(runtime, "list_skills").skills
    found, _ = rounds(runtime, "search_skills", query="reset my password")
    assert found.judge.kind == "llm" and found.skill.title == "Reset a password"
    uses = {s.title: s.times_used for s in run(runtime, "list_skills").skills}
    assert uses["Reset a password"] == 1 and len(reset) == 2  # counted once, after the answer


# -- over MCP with the SDK client's sampling callback ----------------------------------------------------


def _through_mcp(portal, target, **options):
    with connect(portal, target, "skills", sampling_callback=sampling_callback, **options) as s:
        created, _ = s.ok("create_skill", {"conversation": CONVERSATION})
        assert created.created and created.title == EXTRACTED["title"]
        s.ok("create_skill", {"skill": RESET})
        found, text = s.ok("search_skills", {"query": "my two-factor code is rejected"})
        assert found.judge.kind == "llm" and found.skill.skill_id == created.skill_id and "judge: llm" in text
        updated, _ = s.ok("update_skill", {"skill_id": s.ok("search_skills", {"query": "reset my password"})[0]
                                           .skill.skill_id, "conversation": "Customer: no email came."})
        assert updated.version == 2 and [a.action for a in updated.change_detail.steps_added] == ["Check the spam folder"]


@pytest.mark.slow  # a real server process
def test_sampling_over_stdio_round_by_round(tmp_path):
    with start_blocking_portal() as portal:
        _through_mcp(portal, stdio_params("skills", tmp_path / "home"))


@pytest.mark.slow  # a real server process
def test_sampling_over_http_asked_directly_in_a_session_and_round_by_round(tmp_path):
    with start_blocking_portal() as portal, http_server("skills", tmp_path / "home", tmp_path / "log") as (url, _):
        _through_mcp(portal, url, mode="legacy")
    with start_blocking_portal() as portal, http_server("skills", tmp_path / "home2", tmp_path / "log2") as (url, _):
        _through_mcp(portal, url)


@pytest.mark.slow  # a real server process
def test_without_sampling_or_endpoint_a_conversation_is_refused_over_mcp(tmp_path):
    with start_blocking_portal() as portal, connect(portal, stdio_params("skills", tmp_path / "home"), "skills") as s:
        text = s.error("create_skill", {"conversation": CONVERSATION})
        assert "[config_error] this call needs an LLM" in text and "skill={" in text


@pytest.mark.slow  # a real server process
def test_a_client_whose_model_refuses_gets_the_calibrated_judge(tmp_path):
    async def refuse(context, params):
        return types.ErrorData(code=-1, message="sampling is switched off here")

    with start_blocking_portal() as portal, http_server("skills", tmp_path / "home", tmp_path / "log") as (url, _):
        with connect(portal, url, "skills", sampling_callback=refuse, mode="legacy") as s:
            reset = s.ok("create_skill", {"skill": RESET})[0].skill_id
            found, _ = s.ok("search_skills", {"query": "I forgot my password and cannot log in"})
            assert found.skill.skill_id == reset and found.judge.kind == "calibrated"
            assert "the client's model failed: sampling is switched off here" in found.judge.fallback
            quiet, _ = s.ok("search_skills", {"query": "I forgot my password", "judge": "calibrated"})
            assert quiet.judge.kind == "calibrated" and quiet.judge.fallback is None
