"""Request and response models of the items tools (the featmgmt-semantic contract).

One model per tool input and output; the MCP adapter and the CLI validate
through these, and ``skills/items/SKILL.md`` is checked against them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from graphlore.contract import LocalPath, Request, Response

ItemType = Literal["bug", "feature", "action", "inquiry"]
Recommendation = Literal["LIKELY_DUPLICATE", "POSSIBLY_RELATED"]
Relationship = Literal["LIKELY_DUPLICATE", "POSSIBLY_RELATED", "SIMILAR"]

# Limits of one request (documented in SKILL.md; the JSON schema shows them as maxLength / maxItems).
#: characters of a query, a title, a description (what check_duplicates compares), a path, a status or id
MAX_QUERY = 10_000
MAX_TITLE = 1000
MAX_DESCRIPTION = 100_000
MAX_PATH = 4096
MAX_NAME = 200

NonEmpty = Annotated[str, Field(min_length=1, max_length=MAX_NAME, pattern=r"\S")]
ProjectPath = Annotated[
    str,
    LocalPath("folder"),
    Field(min_length=1, max_length=MAX_PATH, pattern=r"\S",
          description="Path of the feature-management folder (holds bugs/, features/, ...)."),
]
Score = Annotated[float, Field(ge=0.0, le=1.0)]


# -- requests ---------------------------------------------------------------------


class SearchRequest(Request):
    query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY, pattern=r"\S")] = Field(
        description="Free-text question or description; matched by meaning and keywords.")
    project_path: ProjectPath
    item_types: list[ItemType] | None = Field(None, min_length=1, max_length=4, description="Only these item types.")
    status: list[NonEmpty] | None = Field(None, min_length=1, max_length=20,
                                          description="Only items whose status is one of these.")
    include_completed: bool = Field(False, description="Also search items archived under completed/.")
    limit: int = Field(10, ge=1, le=100, description="Most results to return.")
    threshold: Score = Field(0.5, description=(
        "Minimum similarity_score (cosine, 0..1) of a result that does not hold the query's rare words; "
        "an item holding them all (keyword_match) is listed whatever its score."))


class IndexRequest(Request):
    project_path: ProjectPath
    force: bool = Field(False, description="Rebuild from scratch (repairs a corrupted index, switches embedder).")


class CheckDuplicatesRequest(Request):
    title: Annotated[str, Field(min_length=1, max_length=MAX_TITLE, pattern=r"\S")] = Field(
        description="Title of the item you are about to create.")
    description: str = Field(max_length=MAX_DESCRIPTION, description="Its description (may be empty).")
    project_path: ProjectPath
    threshold: Score | None = Field(
        None, description="LIKELY_DUPLICATE cut; default: duplicate_similarity_threshold in .agent-config.json, else 0.94."
    )
    item_type: ItemType | None = Field(None, description="Only compare with items of this type.")


class GetSimilarRequest(Request):
    item_id: NonEmpty = Field(description="An indexed item id, e.g. BUG-012.")
    project_path: ProjectPath
    limit: int = Field(5, ge=1, le=100, description="Most similar items to return.")
    include_completed: bool = Field(True, description="Also consider items archived under completed/.")


class GetIndexStatusRequest(Request):
    project_path: ProjectPath


# -- responses --------------------------------------------------------------------


class IndexStatusSummary(Response):
    last_indexed: str | None = Field(description="ISO 8601 UTC time of the last index update.")
    is_stale: bool
    items_indexed: int
    embedded: int = Field(description="Passages embedded so far.")
    total: int = Field(description="Passages to embed in all.")
    unit: Literal["passages"] = "passages"
    partial: bool = Field(description="Embedding is not finished (it continues in the background): items not "
                                      "embedded yet are found by keywords and scored by their title and description.")


class SearchResult(Response):
    item_id: str
    title: str
    description: str
    similarity_score: Score
    keyword_match: bool = Field(description="The item's title or text holds the query's rare words (listed whatever "
                                            "its similarity_score).")
    item_type: ItemType
    status: str
    priority: str
    path: str


class SearchResponse(Response):
    results: list[SearchResult]
    query: str
    total_results: int
    index_status: IndexStatusSummary
    more_results: int = Field(description="Further matches past `limit` (a higher limit lists them).")
    below_threshold: int = Field(description="Ranked items left out: similarity_score under `threshold` and no "
                                             "keyword_match.")
    retry_threshold: Score | None = Field(
        description="A threshold that would also list the best of those left out (None when none was).")
    retry_adds: int = Field(description="How many more results `retry_threshold` would list.")
    completed_matches: int | None = Field(
        description="Matches among completed items, not searched (include_completed=true lists them); None when "
                    "they were searched.")
    threshold_used: Score
    notes: list[str] = Field(description="What was left out and how to see it; why an answer is empty or partial.")


class IndexResponse(Response):
    status: Literal["created", "updated", "unchanged", "rebuilt"]
    project_path: str
    items_indexed: int = Field(description="Items in the index after this call.")
    items_updated: int = Field(description="Items added or whose text changed (re-embedded).")
    items_removed: int
    duration_ms: int
    index_location: str
    warnings: list[str]


class DuplicateCandidate(Response):
    item_id: str
    title: str
    similarity_score: Score
    status: str
    recommendation: Recommendation


class CheckDuplicatesResponse(Response):
    potential_duplicates: list[DuplicateCandidate]
    has_likely_duplicates: bool
    threshold_used: Score
    index_status: IndexStatusSummary
    warnings: list[str] = Field(description="How .agent-config.json was read when it is not plain JSON, or why the default threshold is used.")


class SourceItem(Response):
    item_id: str
    title: str


class SimilarItem(Response):
    item_id: str
    title: str
    similarity_score: Score
    status: str
    relationship: Relationship


class GetSimilarResponse(Response):
    source_item: SourceItem
    similar_items: list[SimilarItem]
    index_status: IndexStatusSummary
    warnings: list[str] = Field(description="How .agent-config.json was read when it is not plain JSON, or why the default threshold is used.")


class GetIndexStatusResponse(Response):
    exists: bool
    project_path: str
    index_location: str
    last_indexed: str | None
    is_stale: bool
    stale_files: list[str] = Field(description="Files added, changed or removed since the last index (relative paths).")
    items_indexed: int
    items_embedded: int = Field(description="Items whose passages are all embedded.")
    passages_embedded: int
    passages_total: int
    partial: bool = Field(description="Some items are not embedded yet (the index tool finishes them).")
    index_size_bytes: int
    warnings: list[str] = Field(description="Problems reading .agent-config.json: how it was read, why the default "
                                            "threshold is used, or an invalid threshold the duplicate tools refuse.")
