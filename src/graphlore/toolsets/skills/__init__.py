"""The skills toolset: Do/Check/Say support playbooks that agents search, create, refine and learn from.

Modules: ``playbook`` (the ``resolution_md`` format), ``routing`` (what of a skill
is indexed, near-duplicates), ``judge`` (the calibrated judge), ``outcomes``
(confidence rules), ``diff`` (what an update changed), ``imports`` (ABCD procedures
and labelled intents to skills), ``extract`` (what an LLM does), ``library`` (the
rows in the store), ``tools``, ``render`` and ``cli``.
"""

from __future__ import annotations

from graphlore.tools import Arg, Cli, StoreKind, Toolset, ToolSpec
from graphlore.toolsets.skills import cli, examples, models, render, tools
from graphlore.toolsets.skills.judge import CANDIDATES
from graphlore.toolsets.skills.library import WRITE_LOCK, store_label
from graphlore.toolsets.skills.routing import DUPLICATE_THRESHOLD

INSTRUCTIONS = """\
A library of customer-support playbooks: each skill is ONE executable procedure (numbered steps of
Do / Check / Say). Before resolving a customer's problem from scratch, call search_skills with the
problem: it returns one playbook that solves it, or null (then resolve it yourself). After using a
playbook, record_outcome. After solving a new problem, create_skill (from the conversation with an
LLM, or with the playbook you write); after deviating from a playbook, update_skill. get_skill shows
a skill (any version), skill_history its versions, list_skills the library; archive_skill retires a
skill that should no longer be used (unarchive_skill brings it back). Every tool takes library
(default "default")."""

TOOLSET = Toolset(
    name="skills",
    summary="Support playbooks (Do/Check/Say) that agents search, create, refine and learn from.",
    instructions=INSTRUCTIONS,
    commands=cli.commands,
    examples=examples.examples,
    stores=StoreKind(label=store_label, locks=(WRITE_LOCK,)),
    tools=[
        ToolSpec(
            name="search_skills",
            description=(
                "The one playbook that solves a customer's problem, or null: resolve it from scratch then. "
                f"Hybrid search (BM25 + vector) gathers the top {CANDIDATES} skills and a judge picks one or "
                "none: an LLM when one is available (the configured endpoint, else this client's model), else "
                "the calibrated score rule; judge=\"calibrated\" skips the LLM (no sampling round trip). If the LLM "
                "fails, the calibrated rule decides: the answer's judge says which decided and why. A returned "
                "skill's times_used goes up."
            ),
            request=models.SearchSkillsRequest, response=models.SearchSkillsResponse, run=tools.search_skills,
            render=render.search_skills, read_only=False, idempotent=False, context=True,
            cli=Cli(command="search", examples=('graphlore skills search "I was charged twice for my order"',), help="The one playbook that solves a problem, or none.",
                    args={"query": Arg(positional=True, metavar="QUERY"), "library": cli.LIBRARY}),
        ),
        ToolSpec(
            name="create_skill",
            description=(
                "Save what solved a new problem. Either conversation (an LLM extracts the playbook: the "
                "configured endpoint, else this client's model) or skill={title, problem, conditions, keywords?, "
                "resolution_md, product_area?, issue_type?} written by you (no LLM needed; layout in the skill's "
                "docs). resolution_confirmed=true starts at confidence 0.6 with one confirmed use. A skill whose "
                f"embedding is at least {DUPLICATE_THRESHOLD} similar to an existing one is not created: the "
                "existing one is returned with created=false."
            ),
            request=models.CreateSkillRequest, response=models.CreateSkillResponse, run=tools.create_skill,
            render=render.create_skill, read_only=False, idempotent=False, context=True,
            cli=Cli(command="create", examples=('graphlore skills create --skill @examples/skills/double-charge.json',), help="Save a playbook (from --skill JSON, or --conversation with an LLM).",
                    args={"skill": cli.SKILL_JSON, "conversation": Arg(metavar="TEXT"),
                          "metadata": Arg(json=True, metavar="JSON"), "library": cli.LIBRARY}),
        ),
        ToolSpec(
            name="update_skill",
            description=(
                "Fold a deviation into a playbook: conversation (+ feedback) merged by an LLM, or skill={...} with "
                "the new values of some fields (no LLM). The version goes up and the old one is kept; changes is "
                "computed by comparing the two versions. An update that changes nothing keeps the version."
            ),
            request=models.UpdateSkillRequest, response=models.UpdateSkillResponse, run=tools.update_skill,
            render=render.update_skill, read_only=False, idempotent=False, context=True,
            cli=Cli(command="update", examples=('graphlore skills update SKILL_ID --skill \'{"problem": "The customer was charged two or more times for one order."}\'',), help="A new version of a skill (from --skill JSON, or --conversation with an LLM).",
                    args={"skill_id": cli.SKILL_ID, "skill": cli.SKILL_JSON, "conversation": Arg(metavar="TEXT"),
                          "feedback": Arg(metavar="TEXT"), "library": cli.LIBRARY}),
        ),
        ToolSpec(
            name="record_outcome",
            description=(
                "What happened when a playbook was used: confirmed (+0.10 confidence, times_confirmed +1), "
                "likely_resolved (+0.03), likely_failed (-0.05), failed (-0.10), no_feedback (+0.01); confidence "
                "stays within [0, 1]. Returns the new confidence and counters."
            ),
            request=models.RecordOutcomeRequest, response=models.RecordOutcomeResponse, run=tools.record_outcome,
            render=render.record_outcome, read_only=False, idempotent=False,
            cli=Cli(command="outcome", examples=('graphlore skills outcome SKILL_ID confirmed --query "I was charged twice for my order"',), help="Record what happened when a skill was used.",
                    args={"skill_id": cli.SKILL_ID, "outcome": Arg(positional=True), "query": Arg(metavar="TEXT"),
                          "library": cli.LIBRARY}),
        ),
        ToolSpec(
            name="get_skill",
            description="A skill with its playbook: the current version, or an earlier one (version=N).",
            request=models.GetSkillRequest, response=models.Skill, run=tools.get_skill, render=render.skill,
            cli=Cli(command="show", examples=('graphlore skills show SKILL_ID --version 1',), help="Show a skill (--version N: an earlier version).",
                    args={"skill_id": cli.SKILL_ID, "version": Arg(metavar="N"), "library": cli.LIBRARY}),
        ),
        ToolSpec(
            name="skill_history",
            description="Every version of a skill, oldest first, with what each one changed.",
            request=models.SkillHistoryRequest, response=models.SkillHistoryResponse, run=tools.skill_history,
            render=render.skill_history,
            cli=Cli(command="history", examples=('graphlore skills history SKILL_ID',), help="Every version of a skill and what each changed.",
                    args={"skill_id": cli.SKILL_ID, "library": cli.LIBRARY}),
        ),
        ToolSpec(
            name="list_skills",
            description=("The library's skills by title, with version, confidence and counters (limit / offset); "
                         "archived skills only with archived=include or only."),
            request=models.ListSkillsRequest, response=models.ListSkillsResponse, run=tools.list_skills,
            render=render.list_skills,
            cli=Cli(command="ls", examples=("graphlore skills ls -n 20",), help="List the library's skills (--archived include|only: archived ones too).",
                    args={"limit": Arg(metavar="N"), "offset": Arg(metavar="N"), "library": cli.LIBRARY}),
        ),
        ToolSpec(
            name="archive_skill",
            description=(
                "Retire a skill: search_skills never returns it again (nor weighs it as a candidate) and "
                "create_skill no longer counts it as a near-duplicate; get_skill still shows it, list_skills lists "
                "it with archived=include, its history records the event, and it cannot be updated until "
                "unarchive_skill. Archiving an archived skill changes nothing."
            ),
            request=models.ArchiveSkillRequest, response=models.ArchiveSkillResponse, run=tools.archive_skill,
            render=render.archive_skill, read_only=False,
            cli=Cli(command="archive", examples=('graphlore skills archive SKILL_ID --reason "replaced by a newer playbook"',), help="Retire a skill: search never returns it again (unarchive undoes it).",
                    args={"skill_id": cli.SKILL_ID, "reason": Arg(metavar="TEXT"), "library": cli.LIBRARY}),
        ),
        ToolSpec(
            name="unarchive_skill",
            description="Bring an archived skill back into use (search_skills may return it again).",
            request=models.ArchiveSkillRequest, response=models.ArchiveSkillResponse, run=tools.unarchive_skill,
            render=render.archive_skill, read_only=False,
            cli=Cli(command="unarchive", examples=('graphlore skills unarchive SKILL_ID',), help="Bring an archived skill back into use.",
                    args={"skill_id": cli.SKILL_ID, "reason": Arg(metavar="TEXT"), "library": cli.LIBRARY}),
        ),
        ToolSpec(
            name="import_skills",
            description=(
                "Start a library from a file on the server's machine: abcd (ABCD's guidelines.json: one playbook "
                "per subflow, source abcd:<flow>/<subflow>) or intents (labelled examples, JSON lines "
                '{"text", "intent"} or CSV text,intent: one template skill per intent, source intent:<intent>). '
                "One transaction; importing the same file again changes nothing, and a changed file never "
                "overwrites what an agent changed since the last import (kept_edits says what was kept)."
            ),
            request=models.ImportSkillsRequest, response=models.ImportSkillsResponse, run=tools.import_skills,
            render=render.import_skills, read_only=False, progress=True, progress_unit="passages embedded",
            cli=Cli(command="import", examples=('graphlore skills import --format intents examples/skills/intents.csv --library bank',), help="Import skills from a file (--format abcd|intents).",
                    args={"path": Arg(positional=True, metavar="FILE"), "library": cli.LIBRARY}),
        ),
        ToolSpec(
            name="reindex_skills",
            description=(
                "Embed every skill of a library again with the configured embedder (after changing embedders)."
            ),
            request=models.ReindexSkillsRequest, response=models.ReindexSkillsResponse, run=tools.reindex_skills,
            render=render.reindex_skills, read_only=False, progress=True, progress_unit="passages embedded", surfaces=frozenset({"cli"}),
            cli=Cli(command="reindex", examples=('graphlore skills reindex --library bank',), help="Re-embed every skill of a library with the configured embedder.",
                    args={"library": cli.LIBRARY}),
        ),
    ],
)
