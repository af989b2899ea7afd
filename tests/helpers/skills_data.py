"""Skills the skills tests share, a fake support model (the one thing tests may fake: a hosted LLM), and
the MCP sampling callback that answers with it.

The fake model reads the prompts graphlore sends and answers like a careful model would, with a few
words in the request steering it into the failures the tools must handle:

- a judge prompt ("Candidates:"): the candidate whose title shares most words with the request;
  ``{"id": null}`` when none shares a word; for a request with ``garbage`` prose without JSON every
  time; with ``wrongid`` an id that is no candidate every time;
- an extraction prompt ("Write ONE playbook"): :data:`EXTRACTED` as JSON; a conversation with
  ``INVALID-ONCE`` first gets a playbook without steps, then (once told why) a valid one; one with
  ``INVALID-ALWAYS`` never gets a valid one;
- a merge prompt ("Fold what worked"): the current skill with its second step's Say reworded, a
  step added and a condition added.
"""

from __future__ import annotations

import json
import re

import mcp_types as types

PLAYBOOK = """# Reset a password

## Goal
Get the customer back into their account with a new password.

## Prerequisites
- The customer can read the email address on the account

## Steps

### 1. Verify the account
**Do:** Look the account up by email.
**Check:** The account exists and is not locked.

### 2. Send the reset link
**Do:** Trigger the password reset email.
**Say:** I have sent you a link to set a new password.

## Edge Cases
- The account is locked → Unlock it first, then send the link

## Escalation
Hand off to security when the customer cannot access the email on the account.
"""

RESET = {
    "title": "Reset a password",
    "problem": "The customer forgot their password and cannot log in.",
    "conditions": ["I forgot my password", "I can't log in to my account"],
    "keywords": ["password", "login"],
    "resolution_md": PLAYBOOK,
    "product_area": "accounts",
    "issue_type": "how-to",
}

REFUND_PLAYBOOK = """# Refund a damaged item

## Goal
Refund an item that arrived damaged.

## Steps

### 1. Check the order
**Do:** Find the order by its id.
**Check:** The item was delivered less than 30 days ago.

### 2. Refund
**Do:** Issue the refund to the original payment method.
**Say:** Your refund is on its way and arrives in 3 to 5 days.
"""

REFUND = {
    "title": "Refund a damaged item",
    "problem": "An item arrived broken and the customer wants their money back.",
    "conditions": ["my package arrived damaged", "the item I got is broken, I want a refund"],
    "keywords": ["refund", "damaged"],
    "resolution_md": REFUND_PLAYBOOK,
    "product_area": "orders",
    "issue_type": "how-to",
}

CONVERSATION = """Customer: Hi, the app keeps saying my two-factor code is wrong.
Agent: Let me check. Is the clock on your phone set automatically?
Customer: No, I set it by hand.
Agent: Please turn on automatic time, then try a new code.
Customer: That worked, thanks!"""

EXTRACTED_PLAYBOOK = """# Fix rejected two-factor codes

## Goal
Get two-factor codes accepted again.

## Steps

### 1. Check the phone clock
**Check:** The phone's time is set automatically.
**Say:** Please turn on automatic date and time on your phone.

### 2. Try a new code
**Do:** Ask the customer to enter a freshly generated code.
"""

EXTRACTED = {
    "title": "Fix rejected two-factor codes",
    "problem": "Two-factor codes are rejected because the phone's clock is wrong.",
    "conditions": ["my two-factor code is always wrong", "the authenticator code does not work"],
    "keywords": ["2fa", "two-factor"],
    "resolution_md": EXTRACTED_PLAYBOOK,
    "product_area": "accounts",
    "issue_type": "bug",
}

NO_STEPS = "# Fix rejected two-factor codes\n\n## Goal\nGet two-factor codes accepted again.\n"


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3}


def _judge(prompt: str) -> str:
    request = prompt.split("Request:\n", 1)[1].split("\n\nCandidates:", 1)[0]
    if "garbage" in request:
        return "I think the second one, probably."
    if "wrongid" in request:
        return '{"id": "not-a-candidate", "reason": "guess"}'
    candidates = re.findall(r"^\[([^\]]+)\]\nTitle: (.*)$", prompt, flags=re.MULTILINE)
    scored = sorted(((len(_words(request) & _words(title)), cid) for cid, title in candidates), reverse=True)
    if not scored or scored[0][0] == 0:
        return '{"id": null, "reason": "no playbook is about this"}'
    return json.dumps({"id": scored[0][1], "reason": "its title names the problem"})


def _extract(prompt: str) -> str:
    refused = "Your last answer was refused" in prompt
    if "INVALID-ALWAYS" in prompt or ("INVALID-ONCE" in prompt and not refused):
        return "Here it is:\n```json\n" + json.dumps({**EXTRACTED, "resolution_md": NO_STEPS}) + "\n```"
    if "EXTRA-KEYS" in prompt:  # harmless keys nobody asked for
        return json.dumps({**EXTRACTED, "confidence": 0.9, "changes": ["wrote it"]})
    return json.dumps(EXTRACTED)


def _merge(prompt: str) -> str:
    current = json.loads(prompt.split("Current skill:\n", 1)[1].split("\n\nConversation:", 1)[0])
    markdown = current["resolution_md"].replace(
        "**Say:** I have sent you a link to set a new password.",
        "**Say:** I have sent you a link; it expires in one hour.",
    ).replace("## Edge Cases", "### 3. Check the spam folder\n**Say:** The email may be in your spam folder.\n\n"
                                "## Edge Cases")
    return json.dumps({**current, "resolution_md": markdown,
                       "conditions": [*current["conditions"], "the reset email never arrived"]})


def fake_model_answer(prompt: str) -> str:
    if "\n\nCandidates:\n" in prompt:
        return _judge(prompt)
    if prompt.startswith("Write ONE playbook"):
        return _extract(prompt)
    if prompt.startswith("An agent used this playbook"):
        return _merge(prompt)
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


async def sampling_callback(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    prompt = params.messages[0].content.text
    return types.CreateMessageResult(role="assistant", model="fake-model",
                                     content=types.TextContent(type="text", text=fake_model_answer(prompt)))
