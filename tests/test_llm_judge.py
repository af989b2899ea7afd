"""The LLM judge helper: one candidate or none, one retry for an unusable answer, then the caller decides."""

from __future__ import annotations

import pytest
from helpers.fake_endpoint import chat_endpoint

from graphlore.errors import ProviderError
from graphlore.llm import Choice, OpenAICompatibleLLM, judge

CHOICES = [Choice("s1", "Reset a password: send a reset link."), Choice("s2", "Refund an order: check the receipt.")]


def judged(replies: list[str]):
    answers = iter(replies)
    with chat_endpoint(lambda prompt: next(answers)) as (url, seen):
        verdict = judge(OpenAICompatibleLLM(url, "fake"), "I forgot my password", CHOICES, task="Pick a playbook.")
    return verdict, [c["body"]["messages"][-1]["content"] for c in seen]


def test_the_model_picks_one_candidate_and_sees_every_description():
    verdict, prompts = judged(['{"id": "s1", "reason": "password reset"}'])
    assert (verdict.choice, verdict.decided, verdict.reason) == ("s1", True, "password reset")
    assert "I forgot my password" in prompts[0] and "[s2]\nRefund an order" in prompts[0]


def test_none_is_an_answer():
    verdict, _ = judged(['```json\n{"id": null, "reason": "nothing fits"}\n```'])
    assert (verdict.choice, verdict.decided) == (None, True)


@pytest.mark.parametrize("first", ["I think s1", '{"id": "s9"}'])
def test_an_unusable_answer_is_asked_again_once_with_the_problem(first):
    verdict, prompts = judged([first, '{"id": "s2", "reason": "ok"}'])
    assert verdict.choice == "s2" and len(prompts) == 2 and "Your last answer was unusable" in prompts[1]


def test_two_unusable_answers_leave_the_decision_to_the_caller():
    verdict, prompts = judged(['{"id": "s9"}', "no idea"])
    assert (verdict.choice, verdict.decided) == (None, False) and len(prompts) == 2
    assert "unusable twice" in verdict.reason


def test_an_endpoint_failure_is_a_provider_error():
    with chat_endpoint(lambda prompt: "x") as (url, _):
        with pytest.raises(ProviderError, match="503"):
            judge(OpenAICompatibleLLM(url, "broken"), "q", CHOICES)
