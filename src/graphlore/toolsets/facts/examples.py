"""A small dated graph and a valid call of every facts tool against it (:attr:`Toolset.examples`).

Tests and ``bench/reliability.py`` start from these calls (the fuzzer mutates them); the graph is
written through :class:`~graphlore.toolsets.facts.write.Writer`, as add_document would write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphlore.runtime import Runtime
from graphlore.toolsets.facts.graph import FactsGraph
from graphlore.toolsets.facts.models import DocumentRecord
from graphlore.toolsets.facts.write import Writer

APPLE = {"name": "Apple Inc", "type": "Company", "definition": "American technology company that makes the iPhone",
         "aliases": ["Apple"]}
BEATS = {"name": "Beats Electronics", "type": "Company", "definition": "maker of headphones and speakers"}
TOKYO = {"name": "東京都", "type": "Location", "definition": "the capital of Japan"}
INFLATION = {"name": "Inflation", "definition": "a general rise in consumer prices over time"}

RECORDS = [
    {"name": "Apple buys Beats", "date": "2014-05-28", "source": "https://example.com/beats",
     "chunks": ["Apple bought Beats Electronics, the headphone maker."],
     "entities": [APPLE, BEATS], "topics": [],
     "facts": [{"subject": "Apple Inc", "relationship": "acquired", "object": "Beats Electronics",
                "sentence": "Apple bought Beats Electronics, the headphone maker.", "chunk": 0}]},
    {"name": "Prices in Tokyo", "date": "2023-03-01", "source": "https://example.com/tokyo",
     "chunks": ["Inflation raised prices in Tokyo.", "Apple raised iPhone prices in Tokyo."],
     "entities": [APPLE, TOKYO], "topics": [INFLATION],
     "facts": [{"subject": "Inflation", "relationship": "raised prices in", "object": "東京都",
                "sentence": "Inflation raised prices in Tokyo.", "chunk": 0},
               {"subject": "Apple Inc", "relationship": "raised prices in", "object": "東京都",
                "sentence": "Apple raised iPhone prices in Tokyo.", "date_context": "March 2023", "chunk": 1}]},
]

#: Two mentions resolution joins (an acronym, definitions that agree), in graph ``merged``: what ``split`` undoes.
NEW_YORK = {"name": "New York City", "type": "Location", "definition": "the most populous city in the United States"}
NYC = {"name": "NYC", "type": "Location", "definition": "largest city in the United States, on the Hudson River"}
MERGED = [
    {"name": "City census", "date": "2020-04-01", "source": "https://example.com/census",
     "chunks": ["New York City counted its people."], "entities": [NEW_YORK], "topics": [], "facts": []},
    {"name": "Store opening", "date": "2024-06-01", "source": "https://example.com/store",
     "chunks": ["Apple opened a store in NYC."], "entities": [APPLE, NYC], "topics": [],
     "facts": [{"subject": "Apple Inc", "relationship": "opened a store in", "object": "NYC",
                "sentence": "Apple opened a store in NYC.", "chunk": 0}]},
]

#: Two names of one city resolution keeps apart (nothing in the names says so), in graph ``apart``: what
#: ``merge`` joins; and a document ``retract`` takes back.
BIG_APPLE = {"name": "The Big Apple", "type": "Location", "definition": "nickname of the largest US city"}
APART = [
    {"name": "City census", "date": "2020-04-01", "source": "https://example.com/census",
     "chunks": ["New York City counted its people."], "entities": [NEW_YORK], "topics": [], "facts": []},
    {"name": "Nicknames", "date": "2021-05-01", "source": "https://example.com/nicknames",
     "chunks": ["Jazz musicians called it The Big Apple."], "entities": [BIG_APPLE], "topics": [], "facts": []},
]


def examples(runtime: Runtime, folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Write :data:`RECORDS` into graph ``default`` (:data:`MERGED` and :data:`APART`, one write each, into
    ``merged`` and ``apart``) and a
    JSONL copy under ``folder``; a valid call per tool."""
    Writer(FactsGraph(runtime, "default")).write([DocumentRecord.model_validate(r) for r in RECORDS])
    for graph, records in (("merged", MERGED), ("apart", APART)):
        for record in records:
            Writer(FactsGraph(runtime, graph)).write([DocumentRecord.model_validate(record)])
    jsonl = folder / "records.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    selector = {"name": "Apple", "definition": "the company that makes the iPhone"}
    return {
        "find": [{"entity": [selector]}, {"topic": [{"name": "prices", "definition": "rising prices"}]}],
        "search": [{"entity": ["Apple Inc"]}, {"entity": ["Apple"], "topic": ["Inflation"], "mode": "between"},
                   {"entity": ["東京都"], "query": "prices", "from": "2020-01-01", "limit": 5},
                   {"entity": ["Apple Inc"], "current": True}, {"entity": ["Apple Inc"], "as_of": "2020"}],
        "cat": [{"numbers": [1]}],
        "info": [{"name": "Apple Inc"}, {"name": "東京都"}],
        "ls": [{"what": "entities"}, {"what": "documents", "limit": 1}],
        "stats": [{}],
        "add_document": [RECORDS[0], {**RECORDS[1], "graph": "other"}],
        "ingest": [{"file": str(jsonl)}],
        "kg_execute": [{"command": "stats"}, {"command": 'search -entity "Apple Inc" --limit 3 --current'},
                       {"command": "help search"}],
        "split": [{"name": "New York City", "mentions": ["NYC"], "graph": "merged"}],
        "merge": [{"name": "New York City", "other": "The Big Apple", "graph": "apart"}],
        "retract": [{"document": "Nicknames", "graph": "apart"}],
        "relation_set": [{"name": "raised prices in", "functional": False}],
        "extract_document": [{"name": "Note", "date": "2024-01-01", "text": "Apple opened a store in Tokyo."}],
        "resolve_links": [{"limit": 5}],
        "check_contradictions": [{"limit": 5}],
    }
