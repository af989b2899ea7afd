"""The items toolset: semantic search and duplicate detection over feature-management folders."""

from __future__ import annotations

from graphlore.tools import Arg, Cli, Toolset, ToolSpec
from graphlore.toolsets.folder_index import folder_stores
from graphlore.toolsets.items import examples, models, render, tools

INSTRUCTIONS = """\
Search and de-duplicate the work items of a feature-management folder (bugs/, features/,
human-actions/, inquiries/, completed/). Every tool takes project_path, the folder itself.
The index is built or refreshed automatically; similarity_score is a cosine similarity in [0, 1].
Before creating a bug or feature, call check_duplicates."""

#: The folder flag every command takes; on the CLI it defaults to the current folder.
PROJECT = Arg(short="-p", default=".", metavar="PATH",
              help="The feature-management folder (holds bugs/, features/, ...).")
TYPES = Arg(short="-t")

TOOLSET = Toolset(
    name="items",
    summary="Semantic search and duplicate detection over a feature-management folder.",
    instructions=INSTRUCTIONS,
    examples=examples.examples,
    stores=folder_stores("items"),
    tools=[
        ToolSpec(
            name="search",
            description=(
                "Find work items (bugs, features, human actions, inquiries) by meaning and keywords. "
                "Builds the index if missing and updates it first if files changed. Results are ordered by "
                "relevance (BM25 fused with vector search); similarity_score is the cosine similarity of the "
                "query to the item (0..1) and results below `threshold` (default 0.5) are left out. "
                "Completed items are excluded unless include_completed=true."
            ),
            request=models.SearchRequest,
            response=models.SearchResponse,
            run=tools.search,
            render=render.search,
            read_only=False,  # builds or refreshes the index first
            progress=True, progress_unit="passages embedded",
            mcp_text="json",
            cli=Cli(examples=('graphlore items search "sync conflicts after working offline" -p examples/feature-management',), help="Find items by meaning and keywords.", args={
                "query": Arg(positional=True), "project_path": PROJECT, "item_types": TYPES,
                "status": Arg(short="-s"), "limit": Arg(short="-n"),
            }),
        ),
        ToolSpec(
            name="index",
            description=(
                "Build or update the semantic index of a feature-management folder. Incremental: only new or "
                "changed items are embedded, deleted items are removed. force=true rebuilds from scratch "
                "(use it when told the index is corrupted or was built with another embedder). Returns counts, "
                "duration and warnings for files that could not be fully read."
            ),
            request=models.IndexRequest,
            response=models.IndexResponse,
            run=tools.index,
            render=render.index,
            read_only=False,
            progress=True, progress_unit="passages embedded",
            mcp_text="json",
            cli=Cli(examples=('graphlore items index -p examples/feature-management',), help="Build or update the index (only changed items are embedded).",
                    args={"project_path": PROJECT}, kept=tools.index_kept),
        ),
        ToolSpec(
            name="check_duplicates",
            description=(
                "Before creating an item, check whether it already exists. Compares title + description with "
                "every indexed item (completed ones included). LIKELY_DUPLICATE: similarity_score >= threshold "
                "(default duplicate_similarity_threshold from .agent-config.json, else 0.94); the best-ranked "
                "candidate is LIKELY_DUPLICATE from similarity_score 0.62 on; POSSIBLY_RELATED: "
                "within 0.15 below it; weaker matches are left out. At most 10 candidates: likely duplicates "
                "first, each group best match first."
            ),
            request=models.CheckDuplicatesRequest,
            response=models.CheckDuplicatesResponse,
            run=tools.check_duplicates,
            render=render.check_duplicates,
            read_only=False,  # builds or refreshes the index first
            progress=True, progress_unit="passages embedded",
            mcp_text="json",
            cli=Cli(examples=('graphlore items check-duplicates --title "Offline edits overwrite each other" --description "Notes edited offline lose changes when they sync" -p examples/feature-management',), help="Check whether an item already exists before creating it.",
                    args={"project_path": PROJECT, "item_type": TYPES}),
        ),
        ToolSpec(
            name="get_similar",
            description=(
                "List the items most similar to an existing item (by id, e.g. BUG-012), ordered by relevance, "
                "with similarity_score and a relationship label (LIKELY_DUPLICATE, POSSIBLY_RELATED, SIMILAR) "
                "using the project's duplicate threshold. An unknown id is an error that names close ids."
            ),
            request=models.GetSimilarRequest,
            response=models.GetSimilarResponse,
            run=tools.get_similar,
            render=render.get_similar,
            read_only=False,  # builds or refreshes the index first
            progress=True, progress_unit="passages embedded",
            mcp_text="json",
            cli=Cli(examples=('graphlore items similar BUG-002 -p examples/feature-management',), command="similar", help="List the items most similar to ITEM_ID.", args={
                "item_id": Arg(positional=True), "project_path": PROJECT, "limit": Arg(short="-n"),
                "include_completed": Arg(flags=("--include-completed/--exclude-completed",)),
            }),
        ),
        ToolSpec(
            name="get_index_status",
            description=(
                "Report whether the folder is indexed, when it was last indexed, whether files changed since "
                "(stale_files), how many items are indexed and the index size. Never modifies the index."
            ),
            request=models.GetIndexStatusRequest,
            response=models.GetIndexStatusResponse,
            run=tools.get_index_status,
            render=render.get_index_status,
            mcp_text="json",
            cli=Cli(examples=('graphlore items status -p examples/feature-management',), command="status", help="Show whether the index exists and is up to date.",
                    args={"project_path": PROJECT}),
        ),
    ],
)
