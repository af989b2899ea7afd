"""The request contract every toolset shares: strict types, limits on every request, short error quotes.

The models are the real ones of every registered toolset, so a new toolset meets the same rules.
"""

from __future__ import annotations

import errno
from typing import Any

import pytest

from graphlore.adapters.command import attach
from graphlore.contract import (
    MAX_DEPTH,
    MAX_INTEGER,
    MAX_ITEMS,
    MAX_STRING,
    Request,
    check_input,
    parse_request,
    quote,
)
from graphlore.errors import MAX_MESSAGE, InvalidInput, StoreUnavailable, from_os_error
from graphlore.toolsets import TOOLSETS, load_toolset
from graphlore.toolsets.facts import models as F
from graphlore.toolsets.items import models as I  # noqa: E741

ALL_REQUESTS = sorted({spec.request for name in TOOLSETS for spec in attach(load_toolset(name)).tools},
                      key=lambda m: m.__qualname__)


@pytest.mark.parametrize("model, data, field", [
    (I.IndexRequest, {"project_path": "/p", "force": "true"}, "force"),
    (I.IndexRequest, {"project_path": "/p", "force": 1}, "force"),
    (I.SearchRequest, {"query": "q", "project_path": "/p", "limit": "5"}, "limit"),
    (I.SearchRequest, {"query": "q", "project_path": "/p", "limit": True}, "limit"),
    (I.SearchRequest, {"query": "q", "project_path": "/p", "threshold": "0.5"}, "threshold"),
    (I.SearchRequest, {"query": "q", "project_path": "/p", "include_completed": "yes"}, "include_completed"),
    (F.CatRequest, {"numbers": ["1"]}, "numbers.0"),
    (F.LsRequest, {"what": "entities", "limit": 5.0}, "limit"),
    (F.SearchRequest, {"entity": ["A"], "limit": True}, "limit"),
    (F.AddDocumentRequest, {"name": "d", "date": "2024-01-01", "chunks": ["x"], "facts": [
        {"subject": "A", "relationship": "r", "object": "A", "sentence": "s", "chunk": "0"}],
        "entities": [{"name": "A", "type": "T", "definition": "d"}]}, "facts.0.chunk"),
])
def test_json_types_are_strict(model, data, field):
    with pytest.raises(InvalidInput, match=f"field '{field}'"):
        parse_request(model, data)


def test_an_integer_is_a_number_and_true_is_a_boolean():
    assert parse_request(I.SearchRequest, {"query": "q", "project_path": "/p", "threshold": 1}).threshold == 1.0
    assert parse_request(I.IndexRequest, {"project_path": "/p", "force": True}).force is True


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_numbers_are_finite(value):
    with pytest.raises(InvalidInput, match="finite"):
        parse_request(I.SearchRequest, {"query": "q", "project_path": "/p", "threshold": value})


@pytest.mark.parametrize("model", ALL_REQUESTS, ids=lambda m: m.__qualname__)
def test_every_request_model_is_strict_and_closed(model):
    assert issubclass(model, Request)
    assert model.model_config.get("strict") is True and model.model_config.get("extra") == "forbid"


def test_a_lone_surrogate_is_refused_with_where_it_is():
    with pytest.raises(InvalidInput, match=r"field 'query' is not valid Unicode text: a lone surrogate \(U\+D800\) "
                                           r"at character 2"):
        parse_request(I.SearchRequest, {"query": "ab\ud800", "project_path": "/p"})
    with pytest.raises(InvalidInput, match=r"field 'entity.0'.*U\+DCFF"):  # argv bytes a shell could not decode
        parse_request(F.SearchRequest, {"entity": ["caf\udcff"]})


@pytest.mark.parametrize("value", [MAX_INTEGER + 1, -(MAX_INTEGER + 1), 2**63, 10**100])
def test_a_huge_integer_anywhere_is_refused(value):
    """In a free-form object too (where a model would let it through to the store); a declared field says its
    own range."""

    class Free(Request):
        filter: dict[str, Any] = {}

    with pytest.raises(InvalidInput, match=r"field 'filter.arity' is .*an integer is at most 9,007,199,254,740,991"):
        parse_request(Free, {"filter": {"arity": value}})
    bound = "at most 1000000000" if value > 0 else "at least 0"
    with pytest.raises(InvalidInput, match=f"field 'offset' must be {bound}"):
        parse_request(F.LsRequest, {"what": "entities", "offset": value})
    assert check_input({"filter": {"arity": MAX_INTEGER, "flag": True}}) is None


def test_deep_nesting_is_refused_without_recursion():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(InvalidInput, match=f"more than {MAX_DEPTH} levels"):
        parse_request(F.CatRequest, {"numbers": deep})


def test_huge_strings_lists_and_requests_are_refused_before_validation():
    with pytest.raises(InvalidInput, match=f"holds {MAX_STRING + 1:,} characters; a string holds at most"):
        check_input({"x": "a" * (MAX_STRING + 1)})
    with pytest.raises(InvalidInput, match=f"holds {MAX_ITEMS + 1:,} entries"):
        check_input({"x": [1] * (MAX_ITEMS + 1)})
    with pytest.raises(InvalidInput, match="more than 4,000,000 characters and entries"):
        check_input({f"k{i}": "a" * 900_000 for i in range(5)})


def test_errors_quote_a_short_prefix_of_what_they_refuse():
    huge = "Bad Graph " * 100_000
    with pytest.raises(InvalidInput) as caught:
        parse_request(F.StatsRequest, {"graph": huge})
    message = str(caught.value)
    assert "'Bad Graph Bad Graph Bad Graph Bad Graph Bad Graph Bad Graph '... (1,000,000 characters)" in message
    assert len(message) < 400
    with pytest.raises(InvalidInput) as caught:
        parse_request(F.StatsRequest, {huge[:5000]: 1})
    assert len(str(caught.value)) < 400


def test_a_refused_choice_lists_every_valid_option():
    """Long lists of options (the code toolset's edge keys) are not cut like other messages."""
    from graphlore.toolsets.code.query import models as C
    from graphlore.toolsets.code.query.edge_keys import EDGE_KEYS

    with pytest.raises(InvalidInput) as caught:
        parse_request(C.NeighborsRequest, {"project_path": "/p", "id": "x", "edge_types": ["CALLERS"]})
    assert all(f"'{key}'" in caught.value.message for key in EDGE_KEYS)


def test_every_problem_is_listed_up_to_twenty():
    with pytest.raises(InvalidInput) as caught:
        parse_request(F.StatsRequest, {f"unknown{i}": i for i in range(50)})
    assert str(caught.value).count("unknown field") == 20 and "and 30 more problems" in str(caught.value)


def test_every_message_is_capped():
    assert len(str(InvalidInput("x" * 100_000))) < MAX_MESSAGE + 100


def test_quote():
    assert quote("abc") == "'abc'"
    assert quote("a" * 100, 10) == "'aaaaaaaaaa'... (100 characters)"
    assert quote(list(range(1000))) == "list of 1,000 entries"


def test_os_errors_become_errors_that_name_the_file(tmp_path):
    too_long = OSError(errno.ENAMETOOLONG, "File name too long", "/tmp/" + "a" * 300)
    error = from_os_error(too_long, tmp_path)
    assert isinstance(error, InvalidInput) and "too long" in str(error) and len(str(error)) < 400
    full = from_os_error(OSError(errno.ENOSPC, "No space left on device", "/elsewhere/x"), tmp_path)
    assert isinstance(full, StoreUnavailable) and "No space left" in str(full)
    inside = from_os_error(OSError(errno.EACCES, "Permission denied", str(tmp_path / "facts" / "x")), tmp_path)
    assert isinstance(inside, StoreUnavailable)


def test_errors_about_input_with_lone_surrogates_can_be_sent():
    """Found by the fuzzer: a field name holding surrogates made the error itself unsendable."""
    with pytest.raises(InvalidInput) as caught:
        parse_request(F.InfoRequest, {"\ud898\udf03x": {"K\udbda": {"\uda0dzr": 5}}})
    assert "\\ud898\\udf03x" in str(caught.value)
    str(caught.value).encode("utf-8")  # raises if a surrogate slipped through
    assert str(InvalidInput("bad \udcff")).encode("utf-8") == b"[invalid_input] bad \\udcff"


def _bounded_pattern(pattern: str) -> bool:
    """A regex that can only match a bounded length: anchored, without * or + (e.g. ^[a-z0-9]{0,63}$)."""
    return pattern.startswith("^") and pattern.endswith("$") and "*" not in pattern and "+" not in pattern


def unbounded(schema: dict) -> list[str]:
    """Places in a JSON schema where a string, array or free-form object has no declared size limit, or an
    integer or number no declared range (a minimum and a maximum, inclusive or exclusive)."""
    defs = schema.get("$defs", {})
    out: list[str] = []
    seen: set[str] = set()

    def walk(node: dict, where: str) -> None:
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name not in seen:
                seen.add(name)
                walk(defs[name], where)
            return
        for option in node.get("anyOf", []) + node.get("allOf", []) + node.get("oneOf", []):
            walk(option, where)
        kind = node.get("type")
        if kind == "string" and "maxLength" not in node and "enum" not in node and "const" not in node \
                and not _bounded_pattern(node.get("pattern", "")):
            out.append(f"{where} (a string without maxLength)")
        if kind in ("integer", "number") and not (
                {"minimum", "exclusiveMinimum"} & set(node) and {"maximum", "exclusiveMaximum"} & set(node)):
            out.append(f"{where} ({'an' if kind == 'integer' else 'a'} {kind} without a minimum and a maximum)")
        if kind == "array":
            if "maxItems" not in node:
                out.append(f"{where} (an array without maxItems)")
            walk(node.get("items", {}), where + "[]")
        if kind == "object":
            for name, inner in node.get("properties", {}).items():
                walk(inner, f"{where}.{name}" if where else name)
            extra = node.get("additionalProperties")
            if isinstance(extra, dict) or (extra is True and not node.get("properties")):
                if "maxProperties" not in node:
                    out.append(f"{where} (an object without maxProperties)")
                if isinstance(extra, dict):
                    walk(extra, where + "{}")

    walk(schema, "")
    return out


@pytest.mark.parametrize("model", ALL_REQUESTS, ids=lambda m: m.__qualname__)
def test_every_field_of_every_request_declares_its_limit(model):
    """Every toolset's requests state their limits in the schema clients see (maxLength, maxItems,
    maxProperties, a bounded pattern, or an integer's or number's minimum and maximum); the contract's
    global limits are only the backstop."""
    missing = unbounded(model.model_json_schema(by_alias=True))
    assert not missing, f"{model.__qualname__}: declare a limit for {missing}"


def test_the_limit_check_sees_unbounded_integers_and_numbers():
    assert unbounded({"type": "object", "properties": {
        "offset": {"type": "integer", "minimum": 0}, "score": {"type": "number", "maximum": 1},
        "limit": {"type": "integer", "minimum": 1, "maximum": 9}, "n": {"type": "integer", "exclusiveMinimum": 0,
                                                                         "exclusiveMaximum": 5}}}) == [
        "offset (an integer without a minimum and a maximum)", "score (a number without a minimum and a maximum)"]


def test_a_union_field_is_named_as_sent_with_its_problems_merged():
    # pydantic names the union member it tried in the location ("filter.dict[str,any]",
    # "filter.constrained-str"); callers sent "filter", and one value that is neither gets one problem.
    from pydantic import BaseModel as Model
    from pydantic import ConfigDict, Field, ValidationError

    from graphlore.contract import format_validation_error
    from graphlore.toolsets.code.query.models import SearchRequest

    try:
        SearchRequest.model_validate({"project_path": "/x", "query": "q", "kind": "symbol", "filter": 5})
    except ValidationError as exc:
        message = format_validation_error(SearchRequest, exc, valid_fields=False)
    assert message == "⟪filter⟫ must be an object or text (got 5)"

    class Inner(Model):
        model_config = ConfigDict(extra="forbid")
        when: int | str

    class Outer(Model):
        model_config = ConfigDict(extra="forbid")
        parts: list[Inner | int] = Field(default_factory=list)
        named: dict[str, int] = Field(default_factory=dict)

    try:
        Outer.model_validate({"parts": [{"when": [1]}, "x"], "named": {"a": "b"}})
    except ValidationError as exc:
        message = format_validation_error(Outer, exc, valid_fields=False)
    assert "⟪parts.0.when⟫ must be a whole number or text" in message
    assert "⟪named.a⟫ must be a whole number (got 'b')" in message
    assert "Inner" not in message and "[" not in message.replace("[1]", "")
