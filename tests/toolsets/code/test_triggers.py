"""TRIGGERS edges: an XState event sent by a form reaches the symbol that holds the one machine invoking a service
on it (never a CALLS edge, never a guess between two machines); passport.session() reaches the module that
registers deserializeUser."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph

MACHINE = '''import { Machine } from "xstate";
import axios from "axios";

export const authMachine = Machine(
  {
    id: "auth",
    initial: "idle",
    states: {
      idle: {
        on: {
          LOGIN: "loading",
          SIGNUP: { target: "signup" },
          RESET: "idle",
        },
      },
      loading: {
        invoke: { src: "performLogin", onDone: { target: "idle" } },
      },
      signup: {
        invoke: { src: "performSignup", onDone: { target: "idle" } },
      },
    },
  },
  {
    services: {
      performLogin: async (ctx, event) => axios.post("http://api:3001/login", event),
      performSignup: async (ctx, event) => axios.post("http://api:3001/users", event),
    },
  }
);
'''

OTHER = '''import { createMachine } from "xstate";

export const otherMachine = createMachine({
  initial: "a",
  states: { a: { on: { SHARED: "b" } }, b: { invoke: { src: "load" } } },
});
'''

FORM = '''import { useService } from "@xstate/react";

export function SignUpForm({ authService }) {
  const signUpPending = (payload) => authService.send({ type: "SIGNUP", ...payload });
  const reset = () => authService.send("RESET");
  const shared = () => authService.send("SHARED");
  return null;
}
'''

BACKEND_AUTH = '''import passport from "passport";
import { Strategy as LocalStrategy } from "passport-local";
import { getUserById } from "./database";

passport.deserializeUser(function (id, done) {
  done(null, getUserById(id));
});

export default passport;
'''

BACKEND_APP = '''import express from "express";
import passport from "passport";
import "./auth";

const app = express();
app.use(passport.session());
'''


def test_events_and_framework_callbacks_are_trigger_edges(tmp_path: Path):
    (tmp_path / "web/src").mkdir(parents=True)
    (tmp_path / "web/package.json").write_text('{"name": "web", "version": "1.0.0"}\n')
    (tmp_path / "web/src/authMachine.ts").write_text(MACHINE)
    (tmp_path / "web/src/otherMachine.ts").write_text(OTHER)
    (tmp_path / "web/src/shared.ts").write_text(OTHER.replace("otherMachine", "thirdMachine"))
    (tmp_path / "web/src/SignUpForm.tsx").write_text(FORM)
    (tmp_path / "api").mkdir()
    (tmp_path / "api/package.json").write_text('{"name": "api", "version": "1.0.0"}\n')
    (tmp_path / "api/auth.ts").write_text(BACKEND_AUTH)
    (tmp_path / "api/app.ts").write_text(BACKEND_APP)
    (tmp_path / "api/database.ts").write_text("export function getUserById(id) {\n  return id;\n}\n")
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    triggers = {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"],
                 e.props.get("event") or e.props.get("via") or e.props["service"])
                for e in edges.values() if e.type == "TRIGGERS"}
    # RESET leads to a state that invokes nothing; SHARED is handled by two machines: no edge for either; the
    # machine runs the services its states invoke (its own `services`; otherMachine's `load` is given nowhere)
    assert triggers == {
        ("web/src/SignUpForm.tsx#SignUpForm.signUpPending", "web/src/authMachine.ts", "SIGNUP"),
        ("web/src/authMachine.ts", "web/src/authMachine.ts#authMachine.services.performLogin", "performLogin"),
        ("web/src/authMachine.ts", "web/src/authMachine.ts#authMachine.services.performSignup", "performSignup"),
        ("api/app.ts", "api/auth.ts", "passport.session -> deserializeUser")}
    assert not any(e.type == "CALLS" and nodes[e.dst].props.get("fqn") == "web/src/authMachine.ts"
                   for e in edges.values())


def test_a_sent_event_reaches_the_service_that_sends_the_request(tmp_path: Path):
    """The form's event reaches the machine, and the machine the service function its state invokes, which sends
    the request: the form is among what a change to the backend's route affects."""
    (tmp_path / "web/src").mkdir(parents=True)
    (tmp_path / "web/package.json").write_text('{"name": "web", "version": "1.0.0"}\n')
    (tmp_path / "web/src/authMachine.ts").write_text(MACHINE)
    (tmp_path / "web/src/SignUpForm.tsx").write_text(FORM)
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    into: dict[str, set[str]] = {}
    for e in edges.values():
        if e.type in ("TRIGGERS", "DECLARES_CLIENT"):
            into.setdefault(e.dst, set()).add(e.src)
    client = next(i for i, n in nodes.items() if n.kind == "client" and n.props.get("label", "").endswith("/users"))
    chain, frontier = set(), {client}
    while frontier:
        frontier = {s for f in frontier for s in into.get(f, ())} - chain
        chain |= frontier
    assert {nodes[i].props["fqn"] for i in chain} == {
        "web/src/authMachine.ts#authMachine.services.performSignup", "web/src/authMachine.ts",
        "web/src/SignUpForm.tsx#SignUpForm.signUpPending"}


def test_a_trigger_reaches_only_its_own_module(tmp_path: Path):
    """Each Node process has its own passport and its own machines: two services with passport, and a sender in
    a module with no machine, link nothing across modules."""
    for service in ("api", "admin"):
        (tmp_path / service).mkdir()
        (tmp_path / f"{service}/package.json").write_text(f'{{"name": "{service}", "version": "1.0.0"}}\n')
        (tmp_path / f"{service}/auth.ts").write_text(BACKEND_AUTH)
        (tmp_path / f"{service}/app.ts").write_text(BACKEND_APP)
        (tmp_path / f"{service}/database.ts").write_text("export function getUserById(id) {\n  return id;\n}\n")
    (tmp_path / "web/src").mkdir(parents=True)
    (tmp_path / "web/package.json").write_text('{"name": "web", "version": "1.0.0"}\n')
    (tmp_path / "web/src/authMachine.ts").write_text(MACHINE)
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot/package.json").write_text('{"name": "bot", "version": "1.0.0"}\n')
    (tmp_path / "bot/ws.ts").write_text('export function notify(ws) {\n  ws.send("LOGIN");\n}\n')
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    triggers = {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"]) for e in edges.values()
                if e.type == "TRIGGERS" and e.props.get("kind") != "state_machine_invoke"}
    assert triggers == {("api/app.ts", "api/auth.ts"), ("admin/app.ts", "admin/auth.ts")}


def test_only_a_file_that_uses_xstate_sends_its_events(tmp_path: Path):
    """``ws.send("LOGIN")`` in a file that imports no XState package is a socket's send, not the machine's event."""
    (tmp_path / "web/src").mkdir(parents=True)
    (tmp_path / "web/package.json").write_text('{"name": "web", "version": "1.0.0"}\n')
    (tmp_path / "web/src/authMachine.ts").write_text(MACHINE)
    (tmp_path / "web/src/SignUpForm.tsx").write_text(FORM)
    (tmp_path / "web/src/socket.ts").write_text('export function ping(ws) {\n  ws.send("LOGIN");\n}\n')
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    triggers = {(nodes[e.src].props["fqn"], e.props["event"]) for e in edges.values()
                if e.type == "TRIGGERS" and e.props.get("kind") == "state_machine_event"}
    assert triggers == {("web/src/SignUpForm.tsx#SignUpForm.signUpPending", "SIGNUP")}
