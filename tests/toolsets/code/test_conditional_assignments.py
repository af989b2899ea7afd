"""A variable assigned under a condition (``if``/``else``, ``switch``, ``try``/``catch``, a loop) may keep any of
the values that reach its use: a straight-line write replaces the one before it, a write in a branch the use is
not in adds an alternative (a choice, each value followed), a later write in the same branch replaces it."""

from __future__ import annotations

from graphlore.toolsets.code.languages.folding import CHOICE_OPEN, expand
from graphlore.toolsets.code.languages.go.constants import GoFolder, GoValues
from graphlore.toolsets.code.languages.go.extract import extract as extract_go
from graphlore.toolsets.code.languages.python.constants import PythonFolder
from graphlore.toolsets.code.languages.python.extract import extract as extract_python
from graphlore.toolsets.code.languages.typescript.constants import ScriptFolder
from graphlore.toolsets.code.languages.typescript.extract import extract as extract_script

SCRIPT = '''let base = "http://a:1";
if (flag) {
  base = "http://b:2";
}
let host = "x";
host = "y";
let mode = "one";
switch (kind) {
  case 1: mode = "two"; mode = "three"; break;
  default: mode = "four";
}
let inner = "p";
if (flag) {
  inner = "q";
  use(inner);
}
let caught = "r";
try {
  caught = "s";
} catch (e) {
  caught = "t";
} finally {
  host = "z";
}
export function get() { return fetch(base + "/x"); }
'''


def _values(folder, facts, owner: str, line: int, name: str) -> list[str]:
    folded = folder.at(facts, owner, line).fold(name)
    return sorted(v.text for v in expand(folded))


def test_a_write_in_a_branch_is_an_alternative_to_the_one_before():
    facts = extract_script("src/api.js", SCRIPT.encode())
    folder = ScriptFolder({"src/api.js": facts}, "src/api.js")
    get = next(s.key for s in facts.symbols if s.name == "get")
    assert _values(folder, facts, get, 25, "base") == ["http://a:1", "http://b:2"]
    assert CHOICE_OPEN in folder.at(facts, get, 19).fold("base").text


def test_a_straight_line_write_replaces_and_a_later_write_in_the_same_arm_too():
    facts = extract_script("src/api.js", SCRIPT.encode())
    folder = ScriptFolder({"src/api.js": facts}, "src/api.js")
    assert _values(folder, facts, "", 7, "host") == ["y"]
    assert _values(folder, facts, "", 11, "mode") == ["four", "one", "three"]   # "two" is replaced in its case


def test_inside_the_branch_its_own_write_is_the_value_and_finally_always_runs():
    facts = extract_script("src/api.js", SCRIPT.encode())
    folder = ScriptFolder({"src/api.js": facts}, "src/api.js")
    assert _values(folder, facts, "", 15, "inner") == ["q"]
    assert _values(folder, facts, "", 25, "caught") == ["r", "s", "t"]
    assert _values(folder, facts, "", 25, "host") == ["z"]


PYTHON = '''import os

URL = "http://a:1"
if os.getenv("B"):
    URL = "http://b:2"
elif os.getenv("C"):
    URL = "http://c:3"


def get():
    return URL
'''


def test_python_module_values_assigned_in_branches_are_alternatives():
    facts = extract_python("app/conf.py", PYTHON.encode())
    folder = PythonFolder({"app.conf": facts}, "app.conf")
    get = next(s.key for s in facts.symbols if s.name == "get")
    assert _values(folder, facts, get, 11, "URL") == ["http://a:1", "http://b:2", "http://c:3"]


GO = '''package client

import "net/http"

func Get(kind string) {
	url := "http://a:1/x"
	switch kind {
	case "b":
		url = "http://b:2/x"
	default:
	}
	if u := pick(); u != "" {
		http.Get(u)
	}
	http.Get(url)
}
'''


def test_go_switch_cases_are_alternatives_and_an_if_initialiser_always_runs():
    facts = extract_go("client/get.go", GO.encode())
    get = next(s.key for s in facts.symbols if s.name == "Get")
    folder = GoFolder(GoValues([("client", facts)]), "client", facts)
    assert _values(folder, facts, get, 16, "url") == ["http://a:1/x", "http://b:2/x"]
    assert facts.extra.get("conditional", {}).get(get, {}).get("u") is None


def test_a_page_global_config_value_stays_unknown_and_says_why():
    facts = extract_script("src/api.js", b"let base = window?.APP_CONFIG?.API_BASE_URL\nif (!base) {\n  base = '/api'\n}\n")
    folded = ScriptFolder({"src/api.js": facts}, "src/api.js").at(facts, "", 5).fold("base")
    assert sorted(v.known for v in expand(folded)) == [False, True]
    assert any("window.APP_CONFIG.API_BASE_URL is a browser global" in why for why in folded.why)


def test_a_page_global_a_project_file_sets_is_its_value():
    files = {"src/api.js": extract_script("src/api.js", b"const base = window.APP_CONFIG.API_BASE_URL\n"),
             "public/env.js": extract_script("public/env.js", b"window.APP_CONFIG.API_BASE_URL = 'http://api:8080'\n")}
    folded = ScriptFolder(files, "src/api.js").at(files["src/api.js"], "", 2).fold("base")
    assert folded.text == "http://api:8080" and folded.known
