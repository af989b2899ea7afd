"""bench/gold.py credits a producer or consumer the tool reports at a place the key's ``also_accept`` lists (a shared
send or consume site) to the entry whose topic the node names, and to none when the place is shared and the topic
names no one entry."""

from __future__ import annotations

import sys
from pathlib import Path

from graphlore.toolsets.code.model import GraphNode

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import gold  # noqa: E402

SHARED = {"file": "pkg/send.go", "span": [10, 12]}
KEY = {"services": [], "routes": [], "clients": [], "consumers": [], "producers": [
    {"id": "P.a", "exchange": "a-ex", "routing_key": "a-key", "file": "svc/a.go", "span": [5, 5],
     "also_accept": [SHARED]},
    {"id": "P.b", "exchange": "b-ex", "routing_key": "b-key", "file": "svc/b.go", "span": [7, 7],
     "also_accept": [SHARED, {"file": "cmd/b/main.go", "line": 20}]},
]}


def _producer(file: str, line: int, topic: str) -> GraphNode:
    return GraphNode(f"pr_{file}_{line}_{topic}", "producer", topic, "", {"file": file, "line": line, "topic": topic})


def test_also_accept_places_are_credited_by_topic_and_a_shared_place_by_no_guess():
    nodes = {n.id: n for n in [_producer("svc/a.go", 5, "{?}"), _producer("pkg/send.go", 11, "b-ex/b-key"),
                               _producer("pkg/send.go", 11, "{?}/{?}"), _producer("cmd/b/main.go", 20, "{?}"),
                               _producer("pkg/other.go", 11, "a-ex/a-key")]}
    matcher = gold.Matcher(KEY, nodes, {})
    assert sorted(matcher.producers.values(), key=str) == sorted(["P.a", "P.b", None, "P.b", None], key=str)
    assert matcher.producers["pr_pkg/send.go_11_{?}/{?}"] is None
    assert matcher.producers["pr_cmd/b/main.go_20_{?}"] == "P.b"


def test_one_line_publishing_one_of_two_dapr_events_is_credited_by_pubsub_and_topic():
    key = {"services": [], "routes": [], "clients": [], "consumers": [], "producers": [
        {"id": "P.no", "pubsub": "bus", "topic": "Rejected", "file": "svc/h.cs", "span": [36, 40]},
        {"id": "P.yes", "pubsub": "bus", "topic": "Confirmed", "file": "svc/h.cs", "span": [36, 40]}]}
    nodes = {n.id: n for n in [_producer("svc/h.cs", 40, "bus/Confirmed"), _producer("svc/h.cs", 40, "bus/Rejected")]}
    matcher = gold.Matcher(key, nodes, {})
    assert matcher.producers == {"pr_svc/h.cs_40_bus/Confirmed": "P.yes", "pr_svc/h.cs_40_bus/Rejected": "P.no"}


# -- the keys keep the README's schema -------------------------------------------------------------------------------

import copy  # noqa: E402
import json  # noqa: E402

import code_questions  # noqa: E402
import gold_schema  # noqa: E402
import pytest  # noqa: E402

KEYS = sorted(gold.GOLD.glob("*.json"))
# Faults of a key found by the checks and reported, not edited (a key is its writer's; bench/README.md says which):
# cy-15 is typed service_pairs but its items are call places with no from/to, so the judge can only pass it.
KNOWN = {"question 'cy-15' items[0]", "question 'cy-15' items[1]", "question 'cy-15' items[2]",
         "question 'cy-15' items[3]", "question 'cy-15' items[4]", "question 'cy-15' items[5]"}
# Two blind keys of session 11, found when the checks met them: yas's 166 optional Next.js call sites (`ys.C.fe.*`,
# never linked) carry no `function`, and go-random-chat's `rc.R.web.home` lists gin's empty group path "" among its
# `accept_paths`.
KNOWN_IN_KEYS = ("no 'function'", "accept_paths[0] '' is not a path")
KNOWN_KEY_IDS = ("ys.C.fe.", "rc.R.web.home")


def _known_in_key(problem: str) -> bool:
    where, _, what = problem.partition(": ")
    return what in KNOWN_IN_KEYS and any(f" {prefix}" in where for prefix in KNOWN_KEY_IDS)


def _questions() -> list[dict]:
    return [json.loads(line) for path in sorted(gold.GOLD.glob(code_questions.QUESTIONS))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _systems() -> set[str]:
    return {json.loads(path.read_text(encoding="utf-8"))["system"] for path in KEYS}


@pytest.mark.parametrize("path", KEYS, ids=lambda p: p.stem)
def test_every_key_keeps_the_readme_schema(path):
    problems = gold_schema.key_problems(json.loads(path.read_text(encoding="utf-8")))
    assert [p for p in problems if not _known_in_key(p)] == []


def test_every_question_has_a_unique_id_a_keyed_system_the_answer_shape_its_class_needs_and_a_plan():
    problems = gold_schema.question_problems(_questions(), _systems(), code_questions.PLANS)
    assert [p for p in problems if p.split(":")[0] not in KNOWN] == []


def _broken(key: dict, how: str) -> dict:
    key = copy.deepcopy(key)
    route = next(r for r in key["routes"] if r["kind"] == "http")
    client = next(c for c in key["clients"] if c["kind"] == "http")
    if how == "no route path":
        del route["path"]
    elif how == "line as text":
        client["line"] = str(client["line"])
    elif how == "line outside span":
        client["line"] = client["span"][1] + 5
    elif how == "absolute file":
        client["file"] = "/tmp/x/" + client["file"]
    elif how == "link to nothing":
        key["links"][0]["to"] = "no.such.route"
    elif how == "duplicate id":
        key["clients"].append(copy.deepcopy(client))
    elif how == "unknown service":
        route["service"] = "no-such-service"
    elif how == "evidence with no line":
        route["evidence"] = [f"{route['handler']['file']}:0"]
    elif how == "route kind":
        route["kind"] = "rest"
    elif how == "required as text":
        route["required"] = "true"
    return key


@pytest.mark.parametrize("how", ["no route path", "line as text", "line outside span", "absolute file",
                                 "link to nothing", "duplicate id", "unknown service", "evidence with no line",
                                 "route kind", "required as text"])
def test_a_broken_copy_of_a_key_fails(how):
    key = gold.load("piggymetrics")
    assert gold_schema.key_problems(key) == []
    assert gold_schema.key_problems(_broken(key, how)) != []


@pytest.mark.parametrize("how", ["duplicate id", "no plan", "class and type disagree", "line as text",
                                 "routes item", "unknown system"])
def test_a_broken_question_fails(how):
    questions = copy.deepcopy(_questions())
    by_type = {q["answer"]["type"]: q for q in questions}
    if how == "duplicate id":
        questions.append(copy.deepcopy(questions[0]))
    elif how == "no plan":
        questions[0]["id"] = "zz-99"
    elif how == "class and type disagree":
        by_type["none"]["class"] = "routes_of"
    elif how == "line as text":
        item = by_type["symbols"]["answer"]["items"][0]
        item["line"] = str(item["line"])
    elif how == "routes item":
        by_type["routes"]["answer"]["items"].append("/v1/no-method")
    elif how == "unknown system":
        questions[0]["system"] = "no-such-system"
    problems = gold_schema.question_problems(questions, _systems(), code_questions.PLANS)
    assert [p for p in problems if p.split(":")[0] not in KNOWN] != []


class _Store:
    def iter_nodes(self, kind):
        return []


def test_the_routes_judge_takes_a_spelling_the_keys_route_lists_in_accept_paths():
    key = {"services": [{"name": "shop", "root": "src/shop", "names": [{"name": "Shop.Api"}]}],
           "routes": [{"id": "R.p", "service": "shop", "kind": "http", "method": "GET", "path": "/v1/product/{id}",
                       "accept_paths": ["/v1/Product/{id}"]},
                      {"id": "R.q", "service": "other", "kind": "http", "method": "GET", "path": "/v1/brand",
                       "accept_paths": ["/v1/Brand"]}]}
    judge = code_questions.Judge(key, _Store())
    question = {"type": "routes", "items": [{"method": "GET", "path": "/v1/product/{productId}", "service": "shop"}]}
    assert judge.routes(question, ["GET /v1/Product/{id}"])[0]
    assert judge.routes(question, ["GET /v1/product/{x}"])[0]
    assert not judge.routes(question, ["GET /v1/Products/{id}"])[0]
    own = {"type": "routes", "items": [{"method": "GET", "path": "/a", "service": "shop", "accept_paths": ["/A"]}]}
    assert judge.routes(own, ["GET /A"])[0]
    other = {"type": "routes", "items": [{"method": "GET", "path": "/v1/brand", "service": "shop"}]}
    assert not judge.routes(other, ["GET /v1/Brand"])[0]  # another service's spelling is not this one's


class _Service:
    kind = "microservice"

    def __init__(self, name: str, root: str) -> None:
        self.name, self.props = name, {"root": root}


class _Services(_Store):
    def __init__(self, *services: _Service) -> None:
        self.services = services

    def iter_nodes(self, kind):
        return list(self.services) if kind == "microservice" else []


def test_the_judge_matches_a_service_by_the_root_the_index_gives_its_name():
    """The key README: a service matches "by any of its names ... or by root" (a build name the key did not list)."""
    key = {"services": [{"name": "ads", "root": "src/ads", "names": [{"name": "ads"}]},
                        {"name": "web", "root": "src/web", "names": []}]}
    judge = code_questions.Judge(key, _Services(_Service("shop-ads-app", "src/ads"), _Service("web", "src/other")))
    assert judge.canonical("shop-ads-app") == "ads"
    assert judge.canonical("web") == "web"          # a name the key lists decides first
    assert judge.canonical("unknown") == "unknown"
    question = {"type": "service_pairs", "items": [{"from": "web", "to": "ads"}]}
    assert judge.pairs(question, [("web", "shop-ads-app")])[0]


def test_the_judge_counts_a_service_the_key_marks_not_required_neither_way():
    """The key README: ``required: false`` entries are "not counted either way", unless the question requires one."""
    key = {"services": [{"name": "api", "root": "api"}, {"name": "worker", "root": "worker"},
                        {"name": "loadgen", "root": "loadgen", "required": False}]}
    judge = code_questions.Judge(key, _Store())
    leaves = {"type": "services", "items": ["api"]}
    assert judge.verdict({"answer": leaves}, {"services": ["api", "loadgen"]})[0]
    assert judge.verdict({"answer": leaves}, {"services": ["api"]})[0]
    assert not judge.verdict({"answer": leaves}, {"services": ["api", "worker"]})[0]
    asked = {"type": "services", "items": ["api", "loadgen"]}
    assert not judge.verdict({"answer": asked}, {"services": ["api"]})[0]   # required by the question: still missing
    pairs = {"type": "service_pairs", "items": [{"from": "api", "to": "worker"}]}
    assert judge.pairs(pairs, [("api", "worker"), ("loadgen", "api")])[0]
    assert not judge.pairs(pairs, [("api", "worker"), ("worker", "api")])[0]
def test_the_config_judge_finds_a_value_json_escapes_inside_a_string():
    judge = code_questions.Judge({"services": []}, _Store())
    question = {"type": "config", "items": [{"key": "topic", "value": '"q."+os.Getenv("HOST")'},
                                            {"key": "dir", "value": "C:\\data"}]}
    seen = json.dumps([{"note": 'topic: "q."+os.Getenv("HOST"), dir: C:\\data'}])
    assert judge.config(question, seen)[0]
    assert not judge.config(question, json.dumps([{"note": "topic: q.HOST, dir: C:/data"}]))[0]
    assert not code_questions.Judge({"services": []}, _Store(), verbatim=True).config(question, seen)[0]


def test_the_config_judge_seeks_a_secret_as_the_code_toolset_shows_it():
    judge = code_questions.Judge({"services": []}, _Store())
    url = {"type": "config", "items": [{"key": "DB_URI (the database)", "value": "postgresql://app:pw@db:5432/app"}]}
    assert judge.config(url, json.dumps(["DB_URI=postgresql://db:5432/app (k8s/config.yaml:3)"]))[0]
    assert not judge.config(url, json.dumps(["DB_URI=postgresql://other:5432/app"]))[0]
    secret = {"type": "config", "items": [{"key": "ai.api-key", "value": "${AI_KEY:change-me}"}]}
    assert judge.config(secret, json.dumps(["ai.api-key: redacted (application.properties:9)"]))[0]
    assert judge.config(secret, json.dumps(["environment ai.api-key=redacted"]))[0]
    assert not judge.config(secret, json.dumps(["other.api-key: redacted", "ai.api-key is read by Client"]))[0]
    plain = {"type": "config", "items": [{"key": "HOST", "value": "db"}]}
    assert not judge.config(plain, json.dumps(["HOST: redacted"]))[0]   # not a credential: its value is sought
