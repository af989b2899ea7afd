"""Go: a function literal's parameter is a name of the literal only. ``h.repo.Update(ctx, id, func(h *Hour)
(*Hour, error) {...})`` in a method whose receiver is ``h`` calls the receiver's field, and ``h`` after the
literal is the receiver again; inside the literal, ``h`` is the parameter."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

FILES = {
    "go.mod": "module example.org/gym\n\ngo 1.22\n",
    "hour/hour.go": """package hour

type Hour struct{ booked bool }

func (h *Hour) Book() error { h.booked = true; return nil }

func (h *Hour) Release() error { h.booked = false; return nil }

type Repository interface {
	UpdateHour(id string, update func(h *Hour) (*Hour, error)) error
}
""",
    "store/memory.go": """package store

import "example.org/gym/hour"

type MemoryRepo struct{}

func (m MemoryRepo) UpdateHour(id string, update func(h *hour.Hour) (*hour.Hour, error)) error { return nil }

func (m MemoryRepo) Close() error { return nil }
""",
    "store/sql.go": """package store

import "example.org/gym/hour"

type SQLRepo struct{}

func (s SQLRepo) UpdateHour(id string, update func(h *hour.Hour) (*hour.Hour, error)) error { return nil }

func (s SQLRepo) Close() error { return nil }
""",
    "app/schedule.go": """package app

import (
	"example.org/gym/hour"
	"example.org/gym/store"
)

type scheduleHandler struct {
	repo store.MemoryRepo
}

func (h scheduleHandler) Handle(id string) error {
	err := h.repo.UpdateHour(id, func(h *hour.Hour) (*hour.Hour, error) {
		if err := h.Book(); err != nil {
			return nil, err
		}
		return h, nil
	})
	if err != nil {
		return err
	}
	return h.repo.Close()
}

func (h scheduleHandler) Quick(id string) error {
	_ = h.repo.UpdateHour(id, func(h *hour.Hour) (*hour.Hour, error) { return h, h.Release() })
	return h.repo.Close()
}
""",
}


def _calls(root: Path) -> set[tuple[str, str]]:
    nodes, edges = CodeGraph.build(write_tree(root, FILES)).snapshot()
    fqn = {n.id: n.props.get("fqn", n.name) for n in nodes.values()}
    return {(fqn[e.src].rsplit("/", 1)[-1], fqn[e.dst].rsplit("/", 1)[-1]) for e in edges.values()
            if e.type == "CALLS"}


def test_a_closure_parameter_does_not_shadow_the_receiver_outside_the_closure(tmp_path: Path):
    calls = _calls(tmp_path / "gym")
    handle = "app.scheduleHandler.Handle"
    assert (handle, "store.MemoryRepo.UpdateHour") in calls   # the receiver's field, on the literal's line
    assert (handle, "store.MemoryRepo.Close") in calls        # the receiver again after the literal
    assert (handle, "hour.Hour.Book") in calls                # the parameter inside the literal
    assert (handle, "store.SQLRepo.UpdateHour") not in calls and (handle, "store.SQLRepo.Close") not in calls


def test_a_one_line_closure_s_parameter_ends_with_its_line(tmp_path: Path):
    calls = _calls(tmp_path / "gym")
    quick = "app.scheduleHandler.Quick"
    assert (quick, "hour.Hour.Release") in calls              # the parameter on the literal's line
    assert (quick, "store.MemoryRepo.Close") in calls         # the receiver again on the next line
