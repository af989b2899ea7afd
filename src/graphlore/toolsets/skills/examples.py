"""A small skill library and a valid call of every skills tool against it (:attr:`Toolset.examples`).

Tests and ``bench/reliability.py`` start from these calls (the fuzzer mutates them). The two skills
are created as an agent without an LLM would create them (``create_skill`` with ``skill=``), so the
library is the one the tools write; an intents file under the folder gives ``import_skills`` a file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphlore.runtime import Runtime
from graphlore.toolsets.skills.models import CreateSkillRequest
from graphlore.toolsets.skills.tools import create_skill

RESET_PLAYBOOK = """# Reset a password

## Goal
Get the customer back into their account with a new password.

## Steps

### 1. Verify the account
**Do:** Look the account up by email.
**Check:** The account exists and is not locked.

### 2. Send the reset link
**Do:** Trigger the password reset email.
**Say:** I have sent you a link to set a new password.

## Escalation
Hand off to security when the customer cannot access the email on the account.
"""

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

CLOSE_PLAYBOOK = """# Close an account

## Goal
Delete the customer's account for good.

## Steps

### 1. Close it
**Do:** Delete the account.
**Say:** Your account is closed.
"""

SKILLS = [
    {"title": "Reset a password", "problem": "The customer forgot their password and cannot log in.",
     "conditions": ["I forgot my password", "I can't log in to my account"], "keywords": ["password", "login"],
     "resolution_md": RESET_PLAYBOOK, "product_area": "accounts", "issue_type": "how-to"},
    {"title": "Refund a damaged item", "problem": "An item arrived broken and the customer wants their money back.",
     "conditions": ["my package arrived damaged", "the item I got is broken, I want a refund"],
     "keywords": ["refund", "damaged"], "resolution_md": REFUND_PLAYBOOK, "product_area": "orders"},
]

INTENTS = [{"text": "where is my parcel", "intent": "track_order"},
           {"text": "has my order shipped yet", "intent": "track_order"},
           {"text": "change the address on my account", "intent": "update_address"}]


def examples(runtime: Runtime, folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Create :data:`SKILLS` in library ``default`` and an intents file under ``folder``; a valid call per tool."""
    ids = [create_skill(runtime, CreateSkillRequest(skill=skill)).skill_id for skill in SKILLS]
    intents = folder / "intents.jsonl"
    intents.write_text("".join(json.dumps(row) + "\n" for row in INTENTS), encoding="utf-8")
    reset, refund = ids
    return {
        "search_skills": [{"query": "I forgot my password"}, {"query": "my parcel came broken", "library": "default"}],
        "create_skill": [{"skill": {"title": "Close an account", "problem": "The customer wants their account deleted.",
                                    "conditions": ["delete my account"], "resolution_md":
                                    CLOSE_PLAYBOOK},
                          "resolution_confirmed": True, "library": "other"}],
        "update_skill": [{"skill_id": reset, "skill": {"keywords": ["password", "login", "reset"]}},
                         {"skill_id": refund, "skill": {"conditions": ["my package arrived damaged"],
                                                        "issue_type": "how-to"}}],
        "record_outcome": [{"skill_id": reset, "outcome": "confirmed"}, {"skill_id": refund, "outcome": "failed"}],
        "get_skill": [{"skill_id": reset}, {"skill_id": refund, "version": 1}],
        "skill_history": [{"skill_id": reset}],
        "list_skills": [{}, {"limit": 1, "offset": 1}, {"archived": "include"}],
        "archive_skill": [{"skill_id": refund, "reason": "replaced by the returns portal"}],
        "unarchive_skill": [{"skill_id": refund}],
        "import_skills": [{"format": "intents", "path": str(intents), "library": "imported"}],
        "reindex_skills": [{"library": "default"}],
    }
