"""Every property test runs under the project's Hypothesis profile (``tests/conftest.py``): no per-example
deadline and no ``too_slow`` health check, the wall-clock checks a loaded machine fails (the project's tests
make no wall-clock assertions), with Hypothesis' own example counts. A test's ``@settings`` inherits the
profile; these tests also read every test file with ``ast`` so that none brings a wall-clock check back."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hypothesis import HealthCheck, settings

TESTS = Path(__file__).parent
#: A call of ``settings`` or of a ``*_profile`` function, however it is spaced or continued: only the files
#: holding one are parsed (parsing all ~250 test files took most of the file check's time).
MAY_CALL = re.compile(r"(settings|_profile)[\s\\]*\(")


def test_the_loaded_profile_times_nothing_by_the_wall_clock():
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
    assert settings.default.max_examples == settings.get_profile("default").max_examples


def test_a_tests_own_settings_inherit_the_profile():
    @settings(max_examples=150)
    def property_test() -> None: ...

    chosen = property_test._hypothesis_internal_use_settings
    assert chosen.max_examples == 150
    assert chosen.deadline is None and HealthCheck.too_slow in chosen.suppress_health_check


def keeps_the_profile(call: ast.Call) -> str:
    """Why a ``settings(...)`` call in a test file brings a wall-clock check back ('' when it does not)."""
    for keyword in call.keywords:
        value = ast.unparse(keyword.value)
        if keyword.arg == "deadline" and value != "None":
            return f"deadline={value}"
        if keyword.arg == "suppress_health_check" and value != "list(HealthCheck)" and "too_slow" not in value:
            return f"suppress_health_check={value} (without too_slow)"
        if keyword.arg == "parent":
            return f"parent={value} (a profile of its own)"
    return ""


def test_no_test_file_brings_a_wall_clock_check_back():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if "fixtures" in path.relative_to(TESTS).parts:
            continue
        text = path.read_text(encoding="utf-8")
        if not MAY_CALL.search(text):
            continue
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func)
            if name.endswith(("register_profile", "load_profile")) and path != TESTS / "conftest.py":
                found.append(f"{path.relative_to(TESTS)}:{node.lineno}: {name} (the profile is conftest's)")
            elif name in ("settings", "hypothesis.settings") and (why := keeps_the_profile(node)):
                found.append(f"{path.relative_to(TESTS)}:{node.lineno}: {why}")
    assert not found, "\n".join(found)


def test_the_file_check_sees_a_deadline_and_a_lost_too_slow():
    def call(text: str) -> ast.Call:
        return ast.parse(text).body[0].value

    assert keeps_the_profile(call("settings(max_examples=5, deadline=200)")) == "deadline=200"
    assert "without too_slow" in keeps_the_profile(call("settings(suppress_health_check=[HealthCheck.data_too_large])"))
    assert keeps_the_profile(call("settings(max_examples=5, suppress_health_check=list(HealthCheck))")) == ""


def test_the_file_check_reads_every_file_that_may_call_settings():
    for text in ("@settings(deadline=1)", "hypothesis.settings (deadline=1)", "x = settings\\\n    (deadline=1)",
                 "@settings(\n    deadline=1)", "settings.register_profile('x')", "load_profile ('x')"):
        assert MAY_CALL.search(text), text
    assert not MAY_CALL.search("def test(settings):\n    runtime = Runtime(settings)")
