""".agent-config.json as real projects write it: comments, trailing commas, a broken key elsewhere, no file.

The threshold is read whenever it can be; the default is used (with a warning) when it cannot; a
threshold that is present but invalid is still an error. The shared featmgmt tree's own config
(broken by its init script) is read as it is.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.paths import SHARED_DATA

from graphlore.errors import ConfigError
from graphlore.toolsets.items.config import CONFIG_FILE, load_project_config, strip_jsonc, top_level_values

REAL_TREE = SHARED_DATA / "featmgmt" / "feature-management"

#: As the featmgmt docs show the file: // comments (and a trailing comma).
COMMENTED = """{
  // similarity above which check_duplicates says LIKELY_DUPLICATE
  "duplicate_similarity_threshold": 0.82, /* tuned on our tracker */
  "project_name": "demo // not a comment",
  "available_tags": ["api", "ui",],
}
"""
#: What featmgmt's init script writes: a block with literal "\\n" outside strings.
BROKEN_ELSEWHERE = """{
  "version": "1.0.0",
  "duplicate_similarity_threshold": 0.6,
  "component_detection_keywords": {
    n    "agents": ["agents"],\\n    "templates": ["templates"]
  },
  "severity_keywords": {"critical": ["crash"]}
}
"""


def write(folder: Path, content: str | bytes) -> None:
    path = folder / CONFIG_FILE
    path.write_bytes(content if isinstance(content, bytes) else content.encode())


def test_no_file_is_the_default_without_a_warning(tmp_path):
    reading = load_project_config(tmp_path)
    assert reading.duplicate_similarity_threshold == 0.94 and reading.warnings == ()


def test_plain_json_and_json_with_comments_read_without_a_warning(tmp_path):
    write(tmp_path, '{"duplicate_similarity_threshold": 0.6, "available_tags": ["sync"]}')
    assert load_project_config(tmp_path).duplicate_similarity_threshold == 0.6
    write(tmp_path, COMMENTED)
    reading = load_project_config(tmp_path)
    assert reading.duplicate_similarity_threshold == 0.82 and reading.warnings == ()
    write(tmp_path, "\ufeff" + '{"duplicate_similarity_threshold": 1}')  # a BOM, an integer
    assert load_project_config(tmp_path).duplicate_similarity_threshold == 1.0


def test_the_threshold_is_found_when_another_key_is_broken(tmp_path):
    write(tmp_path, BROKEN_ELSEWHERE)
    reading = load_project_config(tmp_path)
    assert reading.duplicate_similarity_threshold == 0.6
    [warning] = reading.warnings
    assert warning.startswith(f"{tmp_path / CONFIG_FILE}: not valid JSON (Expecting property name")
    assert "line 5 column 5" in warning and "read duplicate_similarity_threshold = 0.6 from it" in warning


@pytest.mark.parametrize("content,said", [
    ('{"project_name": "x", "tags": [1,,2]}', "no top-level duplicate_similarity_threshold could be read"),
    ('{"settings": {"duplicate_similarity_threshold": 0.5}, broken}', "no top-level"),  # nested: not ours
    ("[0.8]", "expected a JSON object, got list"),
    ('"just text"', "expected a JSON object, got str"),
    (b"\xff\xfe\x00garbage", "not UTF-8 text"),
])
def test_unusable_files_fall_back_to_the_default_and_say_so(tmp_path, content, said):
    write(tmp_path, content)
    reading = load_project_config(tmp_path)
    assert reading.duplicate_similarity_threshold == 0.94
    [warning] = reading.warnings
    assert said in warning and "using the default duplicate_similarity_threshold 0.94" in warning


def test_an_unreadable_file_falls_back(tmp_path):
    (tmp_path / CONFIG_FILE).mkdir()  # a folder where the file should be: never opened
    [warning] = load_project_config(tmp_path).warnings
    assert "is a folder, not a regular file" in warning and "using the default" in warning


def test_a_named_pipe_is_never_opened(tmp_path):
    os.mkfifo(tmp_path / CONFIG_FILE)  # opening it would wait for a writer forever
    [warning] = load_project_config(tmp_path).warnings
    assert "is a named pipe, not a regular file" in warning and "using the default" in warning


@pytest.mark.parametrize("content,said", [
    ('{"duplicate_similarity_threshold": 7}', "less than or equal to 1"),
    ('{"duplicate_similarity_threshold": -0.1}', "greater than or equal to 0"),
    ('{"duplicate_similarity_threshold": "0.8"}', "valid number"),
    ('{"duplicate_similarity_threshold": true}', "valid number"),
    ('{"duplicate_similarity_threshold": null}', "valid number"),
    ('{\n // comment\n "duplicate_similarity_threshold": 7,\n}', "less than or equal to 1"),
    (BROKEN_ELSEWHERE.replace("0.6", "7"), "less than or equal to 1"),  # broken file, invalid threshold
    ('{"duplicate_similarity_threshold": 0.7x, broken', "its value (line 1) is not a JSON value"),
    ('{"a": 1,\n"duplicate_similarity_threshold": , "a": 1', "its value (line 2) is not a JSON value"),
    ('{"duplicate_similarity_threshold": "SECRET-1234"}', "valid number"),
    ('{"duplicate_similarity_threshold": 0.7x "api_key": "SECRET-1234"}', "is not a JSON value"),
])
def test_a_present_but_invalid_threshold_is_still_an_error(tmp_path, content, said):
    write(tmp_path, content)
    with pytest.raises(ConfigError) as exc:
        load_project_config(tmp_path)
    assert str(tmp_path / CONFIG_FILE) in exc.value.message and said in exc.value.message
    assert "between 0 and 1" in exc.value.message or "not a JSON value" in exc.value.message
    assert "SECRET" not in exc.value.message and "0.7x" not in exc.value.message  # the file is never quoted


def test_a_key_given_twice_in_a_broken_file_counts_as_json_would(tmp_path):
    write(tmp_path, '{"duplicate_similarity_threshold": 0.5, "x": [1 2], "duplicate_similarity_threshold": 0.9}')
    reading = load_project_config(tmp_path)
    assert reading.duplicate_similarity_threshold == 0.9 and "given 2 times: the last counts" in reading.warnings[0]


def test_strip_jsonc_keeps_strings_and_positions():
    text = '{"a": "x // y /* z */", // c\n "b": [1, 2,], /* d\n e */ "c": 3,}'
    stripped = strip_jsonc(text)
    assert len(stripped) == len(text) and stripped.count("\n") == text.count("\n")
    import json
    assert json.loads(stripped) == {"a": "x // y /* z */", "b": [1, 2], "c": 3}


def test_top_level_values_skip_nested_keys_and_strings():
    text = '{"k": {"t": 1}, "note": "\\"t\\": 2", "t": 3, "list": [{"t": 4}]'
    assert top_level_values(text, "t") == [3]


@pytest.mark.skipif(not REAL_TREE.is_dir(), reason=f"needs the shared featmgmt tree at {REAL_TREE}")
def test_the_real_trees_config_is_read_as_it_is():
    reading = load_project_config(REAL_TREE)
    raw = (REAL_TREE / CONFIG_FILE).read_text(encoding="utf-8")
    assert '"duplicate_similarity_threshold": 0.75' in raw  # what the file says, read by eye
    assert reading.duplicate_similarity_threshold == 0.75
    import json
    try:
        json.loads(raw)
    except ValueError:
        assert len(reading.warnings) == 1 and "not valid JSON" in reading.warnings[0]
    else:
        assert reading.warnings == ()
