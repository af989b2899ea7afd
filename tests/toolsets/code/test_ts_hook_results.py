"""What a custom hook (a React hook, a Vue composable: any project function) returns in an object, taken apart by
its caller (``const { signUpMutation, logout } = useAuth()``) or kept whole (``const auth = useAuth()``): calling a
returned function reaches the function the hook declares; ``signUpMutation.mutate(x)`` reaches the hook, whose
TanStack Query ``useMutation`` holds the ``mutationFn`` that runs. A returned value that is neither (a query's data,
a callback's return) draws nothing. And CommonJS's ``module.exports = function charge(req) {...}`` (or a class) is
what ``require`` of the module gives."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

HOOK = """import { useMutation, useQuery } from "@tanstack/react-query"
import { registerUser, readMe } from "../client"

const useAuth = () => {
  const { data: user } = useQuery({ queryKey: ["me"], queryFn: readMe })

  const signUpMutation = useMutation({
    mutationFn: (data: { email: string }) => registerUser(data),
    onSuccess: () => {
      return { logout }
    },
  })

  const logout = () => {
    localStorage.removeItem("access_token")
  }

  return { user, signUpMutation, logout, leave: logout }
}

export default useAuth
"""

CART = """export function useCart() {
  function addItem(sku: string) {
    return sku
  }
  return { addItem }
}
"""

CLIENT = """export function registerUser(data: { email: string }) {
  return fetch("/api/v1/users/signup", { method: "POST", body: JSON.stringify(data) })
}

export function readMe() {
  return fetch("/api/v1/users/me")
}
"""

PAGE = """import useAuth from "../hooks/useAuth"
import { useCart } from "../hooks/useCart"

export function SignUp() {
  const { signUpMutation, logout, user, leave: quit } = useAuth()
  const { addItem } = useCart()

  const onSubmit = (data: { email: string }) => {
    signUpMutation.mutate(data)
  }
  const onLeave = () => {
    logout()
  }
  const onQuit = () => quit()
  const onBuy = () => addItem("sku-1")
  const onUser = () => user.mutate()
  return onSubmit
}

export function Settings() {
  const auth = useAuth()
  const onSave = () => auth.signUpMutation.mutate({ email: "" })
  const onLeave = () => auth.logout()
  const onUser = () => auth.user.mutate()
  return [onSave, onLeave, onUser]
}
"""


def _calls(root: Path) -> dict[str, set[str]]:
    nodes, edges = CodeGraph.build(root).snapshot()
    short = {i: n.props.get("fqn", n.name) for i, n in nodes.items()}
    out: dict[str, set[str]] = {}
    for e in edges.values():
        if e.type == "CALLS":
            out.setdefault(short[e.src].split("#")[-1], set()).add(short[e.dst].split("#")[-1])
    return out


def _tree(root: Path) -> Path:
    return write_tree(root, {"package.json": '{"name": "web"}', "src/hooks/useAuth.ts": HOOK,
                             "src/hooks/useCart.ts": CART, "src/client.ts": CLIENT, "src/routes/signup.tsx": PAGE})


def test_a_mutation_a_hook_returns_runs_in_the_hook_and_a_returned_function_is_the_hook_s(tmp_path: Path):
    calls = _calls(_tree(tmp_path / "web"))
    assert calls["SignUp.onSubmit"] == {"useAuth"}
    assert calls["useAuth"] >= {"registerUser"}
    assert calls["SignUp.onLeave"] == {"useAuth.logout"}
    assert calls["SignUp.onQuit"] == {"useAuth.logout"}
    assert calls["SignUp.onBuy"] == {"useCart.addItem"}
    # the returned object kept whole: the same calls
    assert calls["Settings.onSave"] == {"useAuth"}
    assert calls["Settings.onLeave"] == {"useAuth.logout"}


def test_a_returned_value_that_is_no_function_or_mutation_draws_nothing(tmp_path: Path):
    calls = _calls(_tree(tmp_path / "web"))
    assert "SignUp.onUser" not in calls and "Settings.onUser" not in calls


CHARGE = """function validate(card) {
  return card
}

module.exports = function charge(request) {
  return validate(request.card)
}
"""

ERRORS = """module.exports = class PaymentError extends Error {
  describe() {
    return this.message
  }
}
"""

HANDLER = """const charge = require('./charge');
const PaymentError = require('./errors');

class Server {
  static ChargeHandler(call, callback) {
    callback(null, charge(call.request));
  }

  static Fail() {
    return new PaymentError('no');
  }
}

module.exports = Server;
"""


def test_a_function_or_class_assigned_to_module_exports_is_what_require_gives(tmp_path: Path):
    root = write_tree(tmp_path / "payment", {"package.json": '{"name": "payment"}', "charge.js": CHARGE,
                                             "errors.js": ERRORS, "server.js": HANDLER})
    calls = _calls(root)
    assert calls["Server.ChargeHandler"] == {"charge"}
    assert calls["charge"] == {"validate"}
    assert calls["Server.Fail"] == {"PaymentError"}


SHADOWED = """import { useAuth, useAdmin } from "../hooks/both"

function other() {
  return 3
}

export function Page(admin: boolean) {
  if (admin) {
    const { logout } = useAdmin()
    logout()
  } else {
    const { logout } = useAuth()
    logout()
  }
}

export function Shadow(xs: Array<() => void>) {
  const { logout } = useAuth()
  function inner(logout: () => void) {
    logout()
  }
  function local() {
    const logout = other
    logout()
  }
  xs.forEach((logout) => logout())
  return [inner, local]
}
"""

BOTH = """export function useAuth() {
  function logout() {
    return 1
  }
  return { logout }
}

export function useAdmin() {
  function logout() {
    return 2
  }
  return { logout }
}
"""


def test_a_returned_function_s_name_taken_twice_or_shadowed_draws_no_edge(tmp_path: Path):
    """Two blocks taking ``logout`` apart from two hooks, or a parameter or local ``logout`` nearer the call: which
    function the call reaches is not read from the destructuring, so no edge to a hook's ``logout`` is drawn."""
    root = write_tree(tmp_path / "web", {"package.json": '{"name": "web"}', "src/hooks/both.ts": BOTH,
                                         "src/routes/page.tsx": SHADOWED})
    calls = _calls(root)
    assert calls["Page"] == {"useAdmin", "useAuth"}
    assert calls["Shadow"] == {"useAuth"}
    assert "Shadow.inner" not in calls and "Shadow.local" not in calls


TWO_RETURNS = """export default function useAuth(guest: boolean) {
  function logout() {
    return 1
  }
  function leave() {
    return 2
  }
  if (guest) {
    return { logout: leave }
  }
  return { logout }
}
"""

TWO_RETURNS_PAGE = """import useAuth from "../hooks/useAuth"

export function Page() {
  const { logout } = useAuth(false)
  logout()
}

export function Whole() {
  const auth = useAuth(true)
  auth.logout()
}
"""


def test_a_name_two_returns_hand_out_two_functions_under_draws_no_edge(tmp_path: Path):
    """``logout`` is ``leave`` for a guest and ``logout`` otherwise: which one runs is not in the code."""
    calls = _calls(write_tree(tmp_path / "web", {"package.json": '{"name": "web"}', "src/hooks/useAuth.ts": TWO_RETURNS,
                                                 "src/routes/page.tsx": TWO_RETURNS_PAGE}))
    assert calls["Page"] == {"useAuth"} and calls["Whole"] == {"useAuth"}
