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

FORM = '''export function SignUpForm({ authService }) {
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
    triggers = {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"], e.props.get("event") or e.props["via"])
                for e in edges.values() if e.type == "TRIGGERS"}
    # RESET leads to a state that invokes nothing; SHARED is handled by two machines: no edge for either
    assert triggers == {
        ("web/src/SignUpForm.tsx#SignUpForm.signUpPending", "web/src/authMachine.ts", "SIGNUP"),
        ("api/app.ts", "api/auth.ts", "passport.session -> deserializeUser")}
    assert not any(e.type == "CALLS" and nodes[e.dst].props.get("fqn") == "web/src/authMachine.ts"
                   for e in edges.values())
