"""Per-toolset scenarios for the reliability suite's process parts (``bench/reliability.py``, tests/e2e/).

- **Many processes, one store** (:class:`Workload`): several real ``graphlore serve`` processes share
  one data folder; on each, a writer and a reader run at once. Every write the client saw acknowledged
  is recorded, and :meth:`Workload.verify` checks afterwards that each is present exactly once.
- **Crashes** (:class:`CrashWork`): a long write is interrupted by ``kill -9`` of its server; after each
  kill :meth:`CrashWork.check` opens the store (integrity check, nothing half-written), and at the end
  :meth:`CrashWork.finish` completes the work and :meth:`CrashWork.snapshot` is compared with the one
  of an uninterrupted run.

A toolset's scenarios are listed in :data:`WORKLOADS` and :data:`CRASHES`; a toolset without one is
reported as not covered by these parts (the fuzzing covers every toolset from its declarations).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.store.factory import sqlite_path
from graphlore.toolsets.code.index.code_index import CodeIndex
from graphlore.toolsets.code.query.examples import write_tree
from graphlore.toolsets.facts.graph import FACT, FactsGraph
from graphlore.toolsets.facts.models import DocumentRecord
from graphlore.toolsets.facts.write import Writer, document_key
from graphlore.toolsets.items.examples import write_project
from graphlore.toolsets.items.index import ItemIndex
from graphlore.toolsets.skills.examples import SKILLS
from graphlore.toolsets.skills.library import KIND as SKILL_KIND
from graphlore.toolsets.skills.library import SkillLibrary
from graphlore.toolsets.skills.models import CreateSkillRequest
from graphlore.toolsets.skills.tools import create_skill
from helpers.stores import integrity


def text_of(result: Any) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


@dataclass
class Ack:
    """One acknowledged write: what was sent and what the server answered."""

    key: str
    detail: dict[str, Any] = field(default_factory=dict)


# -- facts ----------------------------------------------------------------------------------------------


SHARED = {"name": "Apple Inc", "type": "Company", "definition": "American technology company that makes the iPhone",
          "aliases": ["Apple"]}


def facts_record(tag: str, n: int) -> dict[str, Any]:
    """A small document of its own (unique name) that mentions one shared entity and one of its own."""
    own = {"name": f"Supplier {tag} {n}", "type": "Company", "definition": f"a parts supplier numbered {tag}-{n}"}
    sentence = f"Apple Inc bought parts from Supplier {tag} {n}."
    return {"name": f"Report {tag}-{n}", "date": f"20{10 + n % 15:02d}-0{1 + n % 9}-1{n % 10}",
            "source": f"bench://{tag}/{n}", "chunks": [sentence], "entities": [SHARED, own],
            "facts": [{"subject": "Apple Inc", "relationship": "bought parts from", "object": own["name"],
                       "sentence": sentence, "chunk": 0}]}


def facts_problems(runtime: Runtime, graph: str, records: list[dict]) -> list[str]:
    """Each record is in the graph exactly once and whole (document, chunks, facts, both ends)."""
    fg = FactsGraph(runtime, graph)
    store = fg.store()
    problems = []
    for raw in records:
        record = parse_request(DocumentRecord, raw)
        found = store.nodes_by_keys([document_key(record)], kind="document").get(document_key(record), [])
        if len(found) != 1:
            problems.append(f"document {record.name!r} is in the graph {len(found)} times")
            continue
        [doc] = store.get_nodes(found)
        chunks = store.node_ids_with_prefix(doc.id + "#")
        facts = store.get_edges(store.edge_ids_with_prefix(doc.id + "/"))
        if len(chunks) != doc.props["chunks"] or len(facts) != doc.props["facts"] or len(facts) != len(record.facts):
            problems.append(f"document {record.name!r} is half-written: {len(chunks)} chunks and {len(facts)} facts "
                            f"for {doc.props['chunks']} / {doc.props['facts']} recorded, {len(record.facts)} sent")
        ends = {i for e in facts for i in (e.src, e.dst)}
        if len(store.get_nodes(list(ends))) != len(ends) or any(e.vector is None for e in facts):
            problems.append(f"document {record.name!r}: a fact lost an end or its vector")
    names = [n.name for n in store.iter_nodes("document")]
    if len(names) != len(set(names)):
        problems.append(f"{len(names) - len(set(names))} documents are in the graph twice")
    return problems


def store_integrity(runtime: Runtime, namespace: str) -> list[str]:
    path = sqlite_path(runtime.settings, namespace)
    if not path.exists():
        return []
    result = integrity(path)
    return [] if result == ["ok"] else [f"{path}: integrity check says {result[:3]}"]


class FactsWorkload:
    """Writers add documents of their own (now and then the same one again: it must stay once); readers
    search around the shared entity and count."""

    toolset = "facts"
    graph = "default"

    def prepare(self, root: Path, runtime: Runtime) -> None:
        Writer(FactsGraph(runtime, self.graph)).write([parse_request(DocumentRecord, facts_record("seed", 0))])

    async def warmup(self, client: Any) -> None:
        """Load the server's model (a find embeds its selector)."""
        await client.call_tool("find", {"entity": [{"name": "Apple", "definition": "a company"}]})

    async def write(self, client: Any, worker: int, n: int) -> Ack | None:
        again = n > 3 and n % 4 == 0
        record = facts_record(f"w{worker}", n - 1 if again else n)
        result = await client.call_tool("add_document", record)
        if result.is_error:
            raise RuntimeError(text_of(result))
        status = result.structured_content["status"]
        if again and status != "unchanged":
            raise RuntimeError(f"the same document again answered {status!r}")
        return Ack(record["name"], {"record": record})

    async def read(self, client: Any, worker: int, n: int) -> None:
        call = [("search", {"entity": ["Apple Inc"], "limit": 5}), ("stats", {}),
                ("ls", {"what": "documents", "limit": 3}), ("info", {"name": "Apple"})][n % 4]
        result = await client.call_tool(*call)
        if result.is_error:
            raise RuntimeError(text_of(result))

    def verify(self, runtime: Runtime, acks: list[Ack]) -> list[str]:
        records = {a.key: a.detail["record"] for a in acks}
        problems = store_integrity(runtime, f"facts/{self.graph}")
        problems += facts_problems(runtime, self.graph, [facts_record("seed", 0), *records.values()])
        total = FactsGraph(runtime, self.graph).store().count_nodes("document")
        if total != len(records) + 1:
            problems.append(f"{total} documents in the graph for {len(records) + 1} acknowledged")
        return problems


class FactsCrash:
    """Rounds of add_document calls (each one transaction); each round's server is killed after a random
    number of them, a random fraction of a second later (so some kills land inside a call)."""

    toolset = "facts"
    graph = "default"
    per_round = 30

    def __init__(self, rounds: int = 20, per_round: int = 30) -> None:
        self.per_round = per_round
        self.records = [facts_record("c", n) for n in range(per_round * rounds)]
        self.round = 0

    def prepare(self, root: Path, runtime: Runtime) -> None:
        Writer(FactsGraph(runtime, "warmup")).write([parse_request(DocumentRecord, facts_record("warm", 0))])

    def start_round(self, number: int) -> None:
        self.round = number

    def current(self) -> list[dict[str, Any]]:
        return self.records[self.round * self.per_round:(self.round + 1) * self.per_round]

    async def warmup(self, client: Any) -> None:
        await client.call_tool("find", {"entity": [{"name": "Apple", "definition": "a company"}], "graph": "warmup"})

    async def work(self, client: Any, acked: list[str], trigger: Any, rng: random.Random) -> None:
        records = self.current()
        kill_after = rng.randrange(len(records))
        for i, record in enumerate(records):
            if i == kill_after:
                trigger.set()
            result = await client.call_tool("add_document", record)
            if result.is_error:
                raise RuntimeError(text_of(result))
            acked.append(record["name"])

    def check(self, runtime: Runtime, acked: list[str]) -> list[str]:
        problems = store_integrity(runtime, f"facts/{self.graph}")
        if problems or not runtime.store_exists(f"facts/{self.graph}"):
            return problems
        store = FactsGraph(runtime, self.graph).store()
        present = {n.name for n in store.iter_nodes("document")}
        missing = [name for name in acked if name not in present]
        if missing:
            problems.append(f"{len(missing)} acknowledged documents are missing, e.g. {missing[0]!r}")
        written = [r for r in self.records if r["name"] in present]
        return problems + facts_problems(runtime, self.graph, written)

    def kept(self, runtime: Runtime) -> int:
        """Documents of this round the graph holds (what the killed run kept)."""
        graph = FactsGraph(runtime, self.graph)
        if not graph.exists():
            return 0
        present = {n.name for n in graph.store().iter_nodes("document")}
        return sum(r["name"] in present for r in self.current())

    def finish(self, runtime: Runtime) -> None:
        writer = Writer(FactsGraph(runtime, self.graph))
        for raw in self.records:
            writer.write([parse_request(DocumentRecord, raw)])

    def snapshot(self, runtime: Runtime) -> dict[str, Any]:
        store = FactsGraph(runtime, self.graph).store()
        nodes = {n.id: (n.kind, n.name, n.text_hash) for kind in ("entity", "topic", "document", "chunk")
                 for n in store.iter_nodes(kind)}
        ends = [i for i, (kind, _, _) in nodes.items() if kind in ("entity", "topic")]
        edge_ids: set[str] = set()
        for start in range(0, len(ends), 400):
            edge_ids |= {e.id for e in store.select_edges(ends[start:start + 400], type=FACT).edges}
        facts = store.get_edges(sorted(edge_ids))
        vectors = {e.id: e.vector for e in facts} | {i: v for i, v in store.node_vectors(ends).items()}
        return {"nodes": nodes, "facts": sorted((e.id, e.src, e.dst, e.text) for e in facts), "vectors": vectors}


def compare(reference: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """Where an interrupted-then-finished run differs from the uninterrupted one (vectors to 1e-4)."""
    problems = []
    for key in reference:
        if key == "vectors":
            ref, new = reference[key], got[key]
            if set(ref) != set(new):
                problems.append(f"vectors of {len(set(ref) ^ set(new))} rows differ in presence")
            bad = [k for k in set(ref) & set(new)
                   if not np.allclose(np.asarray(ref[k]), np.asarray(new[k]), atol=1e-4)]
            if bad:
                problems.append(f"{len(bad)} rows have other vectors, e.g. {bad[0]}")
        elif reference[key] != got[key]:
            a, b = reference[key], got[key]
            if isinstance(a, dict):
                diff = sorted(set(a.items()) ^ set(b.items()))[:3]
            else:
                diff = sorted(set(a) ^ set(b))[:3]
            problems.append(f"{key} differ from the uninterrupted run: {diff}")
    return problems


# -- items ----------------------------------------------------------------------------------------------


def write_atomically(path: Path, text: str) -> None:
    """As editors save: a whole new file renamed over the old one (a reader never sees half a file)."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


class ItemsWorkload:
    """Each writer owns one item: it rewrites its description (a token per round), adds a new item now and
    then, and indexes; then it searches its token and must find its own write (read-your-writes across
    processes). Readers search, check duplicates, list similar items and ask for the status."""

    toolset = "items"

    def prepare(self, root: Path, runtime: Runtime) -> None:
        self.project = write_project(root)
        ItemIndex(runtime, self.project).sync()

    def args(self, **extra: Any) -> dict[str, Any]:
        return {"project_path": str(self.project), **extra}

    async def warmup(self, client: Any) -> None:
        await client.call_tool("search", self.args(query="accents"))

    def owned(self, worker: int) -> Path:
        return self.project / "bugs" / f"BUG-{500 + worker}-worker-{worker}"

    async def write(self, client: Any, worker: int, n: int) -> Ack | None:
        folder = self.owned(worker)
        folder.mkdir(exist_ok=True)
        token = f"w{worker}x{n}round"
        description = f"Worker {worker} wrote round {n}: {token}"
        write_atomically(folder / "bug_report.json", json.dumps({"title": f"Worker {worker} item", "description":
                                                                 description}))
        created = None
        if n % 5 == 0:
            created = self.project / "features" / f"FEAT-{1000 * (worker + 1) + n}-new"
            created.mkdir()
            write_atomically(created / "feature_request.json", json.dumps({"title": f"New item {worker} {n}"}))
        result = await client.call_tool("index", self.args())
        if result.is_error:
            raise RuntimeError(text_of(result))
        found = await client.call_tool("search", self.args(query=token, threshold=0.0, limit=100))
        if found.is_error:
            raise RuntimeError(text_of(found))
        mine = [r for r in found.structured_content["results"] if r["item_id"] == f"BUG-{500 + worker}"]
        if len(mine) != 1 or mine[0]["description"] != description:
            raise RuntimeError(f"after an acknowledged index, search shows {mine} instead of {description!r}")
        return Ack(f"{worker}:{n}", {"worker": worker, "description": description,
                                     "created": created.name.split("-new")[0] if created else None})

    async def read(self, client: Any, worker: int, n: int) -> None:
        call = [("search", self.args(query="crash when saving")), ("get_index_status", self.args()),
                ("check_duplicates", self.args(title="Dark theme", description="")),
                ("get_similar", self.args(item_id="BUG-001"))][n % 4]
        result = await client.call_tool(*call)
        if result.is_error:
            raise RuntimeError(text_of(result))

    def verify(self, runtime: Runtime, acks: list[Ack]) -> list[str]:
        problems = store_integrity(runtime, ItemIndex(runtime, self.project).namespace)
        ItemIndex(runtime, self.project).sync()
        store = ItemIndex(runtime, self.project).store()
        ids = store.node_hashes("item")
        folders = [p for d in ("bugs", "features", "human-actions", "completed") for p in (self.project / d).iterdir()
                   if p.is_dir()]
        if len(ids) != len(folders):
            problems.append(f"{len(ids)} items in the index for {len(folders)} item folders")
        last: dict[int, str] = {}
        for ack in acks:
            last[ack.detail["worker"]] = ack.detail["description"]
            created = ack.detail["created"]
            if created and created not in ids:
                problems.append(f"acknowledged new item {created} is not in the index")
        for worker, description in last.items():
            [node] = store.get_nodes([f"BUG-{500 + worker}"]) or [None]
            if node is None or node.props["description"] != description:
                problems.append(f"worker {worker}'s last acknowledged write is not what the index holds")
        return problems


class ItemsCrash:
    """Rounds of edits to a project (a new long text for 30 of its items each round), each indexed by a
    server that is killed when the index reports a random fraction of its work done."""

    toolset = "items"
    per_round = 30
    WORDS = ("sync offline device crash title note search accent index editor theme export import folder server "
             "token limit memory cache").split()

    def __init__(self, rounds: int = 20, per_round: int = 30, items: int = 120) -> None:
        self.items = items
        self.per_round = per_round
        self.round = 0

    def folder(self, n: int) -> Path:
        return self.project / "bugs" / f"BUG-{2000 + n}-generated"

    def write_item(self, n: int, words: int, tag: str) -> None:
        rng = random.Random(f"{n}-{tag}")
        folder = self.folder(n)
        folder.mkdir(exist_ok=True)
        write_atomically(folder / "bug_report.json", json.dumps(
            {"title": f"Generated problem {n}: " + " ".join(rng.choices(self.WORDS, k=6)),
             "description": f"{tag}: " + " ".join(rng.choices(self.WORDS, k=30))}))
        write_atomically(folder / "PROMPT.md", " ".join(rng.choices(self.WORDS, k=words)))

    def prepare(self, root: Path, runtime: Runtime) -> None:
        self.project = write_project(root)
        for n in range(self.items):
            self.write_item(n, 200, "start")
        self.warm = write_project(root / "warmup")
        ItemIndex(runtime, self.warm).sync()

    def start_round(self, number: int) -> None:
        self.round = number
        first = number * self.per_round % self.items
        for n in range(first, first + self.per_round):
            self.write_item(n % self.items, 1400, f"round {number}")  # about ten passages each

    async def warmup(self, client: Any) -> None:
        await client.call_tool("search", {"query": "dark mode", "project_path": str(self.warm)})

    async def work(self, client: Any, acked: list[str], trigger: Any, rng: random.Random) -> None:
        fraction = rng.uniform(0.05, 0.95)

        async def progress(done: float, total: float | None, _message: str | None) -> None:
            if total and done / total >= fraction:
                trigger.set()

        result = await client.call_tool("index", {"project_path": str(self.project)}, progress_callback=progress)
        if result.is_error:
            raise RuntimeError(text_of(result))
        acked.append("index")

    def check(self, runtime: Runtime, acked: list[str]) -> list[str]:
        index = ItemIndex(runtime, self.project)
        problems = store_integrity(runtime, index.namespace)
        if problems or not index.exists():
            return problems
        store = index.store()
        nodes = store.get_nodes(list(store.node_hashes("item")))
        vectors = store.node_vectors([n.id for n in nodes])
        pending = set(index.pending(store))  # a partial index: listed, and embedded by the next call
        for node in nodes:
            if hashlib.sha256(node.text.encode()).hexdigest() != node.text_hash or (
                    node.id not in vectors and node.id not in pending):
                problems.append(f"item {node.id} is half-written (text, hash and vectors disagree)")
        if acked and (store.get_meta("last_indexed") is None or index.stale_files(store)):
            problems.append("an acknowledged index left the index behind the files")
        return problems

    def kept(self, runtime: Runtime) -> int:
        """Items holding this round's text (what the killed run kept of its work)."""
        index = ItemIndex(runtime, self.project)
        if not index.exists():
            return 0
        return sum(f"round {self.round}:" in n.props["description"] for n in index.store().iter_nodes("item"))

    def finish(self, runtime: Runtime) -> None:
        ItemIndex(runtime, self.project).sync()

    def snapshot(self, runtime: Runtime) -> dict[str, Any]:
        store = ItemIndex(runtime, self.project).store()
        hashes = store.node_hashes("item")
        return {"nodes": hashes, "files": sorted(store.get_meta("files")),
                "vectors": store.node_vectors(list(hashes))}


# -- skills ---------------------------------------------------------------------------------------------


SKILL_WORDS = ("account invoice parcel refund password login printer router battery screen subscription coupon "
               "warranty delivery address payment card bank transfer receipt order cancel upgrade downgrade "
               "plan trial license device app update crash sync backup restore storage email phone number "
               "verification code locked banned review rating seller buyer shipping customs tax discount "
               "gift voucher loyalty points membership renewal contract").split()


def skill_fields(worker: int, n: int) -> dict[str, Any]:
    """A skill of its own (words drawn per worker and round, so no two are near-duplicates)."""
    rng = random.Random(f"skill-{worker}-{n}")
    words = rng.sample(SKILL_WORDS, 12)
    title = f"Handle {words[0]} {words[1]} {words[2]} case {worker}-{n}"
    playbook = (f"# {title}\n\n## Goal\nSort out the {words[3]} {words[4]} problem.\n\n## Steps\n\n"
                f"### 1. Look at the {words[5]}\n**Do:** Open the {words[6]} {words[7]} record.\n"
                f"**Say:** I am checking your {words[8]} now.\n")
    return {"title": title, "problem": f"The customer has a {words[3]} {words[4]} problem with {words[9]}.",
            "conditions": [f"my {words[9]} {words[10]} does not work", f"{words[11]} {words[3]} issue"],
            "keywords": words[:3], "resolution_md": playbook, "product_area": words[5]}


class SkillsWorkload:
    """Writers alternate: create a new skill of their own (each acknowledged one must be in the library once,
    under the id the server gave), and update their own seeded skill's keywords (the version must count
    exactly the acknowledged updates, the keywords be the last ones sent). Readers search, list, get a
    skill and its history."""

    toolset = "skills"
    library = "default"

    def prepare(self, root: Path, runtime: Runtime) -> None:
        self.seeds = [create_skill(runtime, CreateSkillRequest(skill=skill)).skill_id for skill in SKILLS]
        self.own: dict[int, str] = {}
        self.runtime = runtime

    def owned(self, worker: int) -> str:
        """The worker's own skill to update, made before the clock starts (in :meth:`warmup`'s process)."""
        return self.own[worker]

    async def warmup(self, client: Any) -> None:
        worker = len(self.own)
        result = await client.call_tool("create_skill", {"skill": skill_fields(worker, 0)})
        if result.is_error or not result.structured_content["created"]:
            raise RuntimeError(f"worker {worker}'s own skill was not created: {text_of(result)[:300]}")
        self.own[worker] = result.structured_content["skill_id"]

    async def write(self, client: Any, worker: int, n: int) -> Ack | None:
        if n % 2:
            fields = skill_fields(worker, n)
            result = await client.call_tool("create_skill", {"skill": fields})
            if result.is_error:
                raise RuntimeError(text_of(result))
            answer = result.structured_content
            if not answer["created"]:
                raise RuntimeError(f"a new skill {fields['title']!r} was taken for {answer['title']!r}")
            return Ack(f"create:{worker}:{n}", {"skill_id": answer["skill_id"], "title": fields["title"]})
        keywords = ["update", f"w{worker}", f"n{n}"]
        result = await client.call_tool("update_skill", {"skill_id": self.owned(worker), "skill": {"keywords": keywords}})
        if result.is_error:
            raise RuntimeError(text_of(result))
        return Ack(f"update:{worker}:{n}", {"worker": worker, "keywords": keywords,
                                            "version": result.structured_content["version"]})

    async def read(self, client: Any, worker: int, n: int) -> None:
        call = [("search_skills", {"query": "I forgot my password"}), ("list_skills", {"limit": 20}),
                ("get_skill", {"skill_id": self.seeds[n % 2]}), ("skill_history", {"skill_id": self.owned(worker)})
                ][n % 4]
        result = await client.call_tool(*call)
        if result.is_error:
            raise RuntimeError(text_of(result))

    def verify(self, runtime: Runtime, acks: list[Ack]) -> list[str]:
        library = SkillLibrary(runtime, self.library)
        problems = store_integrity(runtime, library.namespace)
        store = library.store()
        skills = {s.skill_id: s for s in library.read(store, [n.id for n in store.iter_nodes(SKILL_KIND)]).values()}
        titles = [s.fields["title"] for s in skills.values()]
        created = [a for a in acks if a.key.startswith("create:")]
        for ack in created:
            skill = skills.get(ack.detail["skill_id"])
            if skill is None or skill.fields["title"] != ack.detail["title"]:
                problems.append(f"acknowledged skill {ack.detail['title']!r} is missing")
            elif titles.count(ack.detail["title"]) != 1:
                problems.append(f"skill {ack.detail['title']!r} is in the library {titles.count(ack.detail['title'])} "
                                "times")
        expected = len(self.seeds) + len(self.own) + len(created)
        if len(skills) != expected:
            problems.append(f"{len(skills)} skills in the library for {expected} acknowledged")
        for worker, skill_id in self.own.items():
            updates = [a for a in acks if a.key.startswith(f"update:{worker}:")]
            skill = skills.get(skill_id)
            if skill is None:
                problems.append(f"worker {worker}'s own skill is missing")
            elif skill.version != 1 + len(updates) or (updates and sorted(skill.fields["keywords"])
                                                         != sorted(updates[-1].detail["keywords"])):
                problems.append(f"worker {worker}'s skill is at version {skill.version} with keywords "
                                f"{skill.fields['keywords']} after {len(updates)} acknowledged updates")
        return problems


# -- code -----------------------------------------------------------------------------------------------


class CodeCrash(ItemsCrash):
    """Rounds of edits to a Python source tree (30 of its modules rewritten each round), each indexed by a
    server killed when the index reports a random fraction of its work done (structure, then embeddings)."""

    toolset = "code"

    def __init__(self, rounds: int = 20, per_round: int = 30, items: int = 40) -> None:
        super().__init__(rounds, per_round, items)

    def write_item(self, n: int, words: int, tag: str) -> None:
        rng = random.Random(f"{n}-{tag}")
        path = self.project / "app" / "app" / f"mod{n}.py"
        functions = "".join(f'\n\ndef {rng.choice(self.WORDS)}_{k}(x):\n    """{tag}: '
                            f'{" ".join(rng.choices(self.WORDS, k=words // 100))}."""\n    return helper(x)\n'
                            for k in range(10))
        write_atomically(path, f'"""Module {n}, {tag}."""\nfrom app.base import helper\n{functions}')

    def prepare(self, root: Path, runtime: Runtime) -> None:
        self.project = root / "tree"
        (self.project / "app" / "app").mkdir(parents=True)
        (self.project / "app" / "pyproject.toml").write_text('[project]\nname = "app"\n')
        (self.project / "app" / "app" / "__init__.py").write_text("")
        (self.project / "app" / "app" / "base.py").write_text("def helper(x):\n    return x\n")
        for n in range(self.items):
            self.write_item(n, 200, "start")
        self.warm = write_tree(root / "warmup")
        CodeIndex(runtime, self.warm).sync()

    async def warmup(self, client: Any) -> None:
        await client.call_tool("search", {"query": "order total", "project_path": str(self.warm)})

    def check(self, runtime: Runtime, acked: list[str]) -> list[str]:
        index = CodeIndex(runtime, self.project)
        problems = store_integrity(runtime, index.namespace)
        if problems or not index.exists():
            return problems
        store = index.store()
        nodes = set(store.node_hashes())
        dangling = [e.id for e in store.get_edges(store.edge_ids_with_prefix("")) if not {e.src, e.dst} <= nodes]
        if dangling:
            problems.append(f"{len(dangling)} edges lost an end (half-written structure), e.g. {dangling[0]}")
        if acked and (store.get_meta("last_indexed") is None or index.stale_files(store) or index.pending(store)):
            problems.append("an acknowledged index left the index behind the files or without embeddings")
        return problems

    def kept(self, runtime: Runtime) -> int:
        """Symbols of this round's text that are embedded (what the killed run kept of its work)."""
        index = CodeIndex(runtime, self.project)
        if not index.exists():
            return 0
        store = index.store()
        pending = {node_id for _, node_id, _ in index.pending(store)}
        return sum(f"round {self.round}:" in str(n.props.get("docstring")) and n.id not in pending
                   for n in store.iter_nodes("symbol"))

    def finish(self, runtime: Runtime) -> None:
        index = CodeIndex(runtime, self.project)
        index.sync()
        index.embed()

    def snapshot(self, runtime: Runtime) -> dict[str, Any]:
        store = CodeIndex(runtime, self.project).store()
        hashes = store.node_hashes()
        edges = store.get_edges(store.edge_ids_with_prefix(""))
        return {"nodes": hashes, "edges": sorted((e.id, e.src, e.dst, e.type) for e in edges),
                "vectors": store.node_vectors(list(hashes))}


WORKLOADS: dict[str, Any] = {"facts": FactsWorkload, "items": ItemsWorkload, "skills": SkillsWorkload}
CRASHES: dict[str, Any] = {"code": CodeCrash, "facts": FactsCrash, "items": ItemsCrash}
