"""A field's value is every assignment that can reach its read (initialiser, constructors, methods, with or
without ``this.``/``self.``): one from a value known at run time only makes the field unknown, never its
initialiser by a guess (issue 22, review-s7-ftgo)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

COMPOSE = "services:\n  orders:\n    build: ./orders\n  web:\n    build: ./web\n"
ORDERS = {
    "orders/Dockerfile": "FROM scratch\n", "orders/pom.xml": "<project><artifactId>orders</artifactId></project>\n",
    "orders/src/main/java/o/Api.java": "package o;\nimport org.springframework.web.bind.annotation.*;\n@RestController\n"
    "public class Api {\n  @GetMapping(\"/orders\")\n  public String get() { return \"\"; }\n}\n",
    "docker-compose.yml": COMPOSE, "web/Dockerfile": "FROM scratch\n",
}


def java_client(fields: str) -> dict[str, str]:
    return {**ORDERS, "web/pom.xml": "<project><artifactId>web</artifactId></project>\n",
            "web/src/main/java/w/C.java": "package w;\nimport org.springframework.web.client.RestTemplate;\n"
            "public class C {\n  private RestTemplate rest;\n" + fields +
            "  String get() { return rest.getForObject(base + \"/orders\", String.class); }\n}\n"}


def client(tmp_path: Path, files: dict[str, str]) -> tuple[str, str]:
    nodes, edges = CodeGraph.build(write_tree(tmp_path / "s", files)).snapshot()
    clients = [n for n in nodes.values() if n.kind == "client" and n.props.get("microservice") == "web"]
    assert len(clients) == 1, [c.props for c in clients]
    linked = any(e.type == "HTTP_CALLS" and e.src == clients[0].id for e in edges.values())
    return clients[0].props.get("target_url") or "", "linked" if linked else "unlinked"


def test_java_field_overwritten_by_a_constructor_parameter_is_unknown(tmp_path):
    url, link = client(tmp_path, java_client("  private String base = \"http://orders:8080\";\n"
                                             "  public C(String b) { this.base = b; }\n"))
    assert (url.startswith("http://orders:8080"), link) == (False, "unlinked")


def test_java_static_field_reassigned_without_this_is_unknown(tmp_path):
    url, link = client(tmp_path, java_client("  static String base = \"http://orders:8080\";\n"
                                             "  static void use(String b) { base = b; }\n"))
    assert (url.startswith("http://orders:8080"), link) == (False, "unlinked")


def test_java_field_kept_when_every_assignment_is_known(tmp_path):
    """One initialiser, a constructor setting it from a literal, a parameter or local of the same name
    elsewhere (not the field): the value stays known."""
    one = client(tmp_path / "a", java_client("  private final String base = \"http://orders:8080\";\n"
                                             "  void other(String base) { base = base.trim(); }\n"
                                             "  void local() { String base = \"http://billing\"; base = base + \"/x\"; }\n"))
    ctor = client(tmp_path / "b", java_client("  private String base;\n"
                                              "  public C() { this.base = \"http://orders:8080\"; }\n"))
    assert (one, ctor) == (("http://orders:8080/orders", "linked"), ("http://orders:8080/orders", "linked"))


def test_python_self_field_overwritten_by_a_parameter_is_unknown(tmp_path):
    files = {**ORDERS, "web/requirements.txt": "requests\n", "web/app.py":
             "import requests\n\nclass C:\n    base = \"http://orders:8080\"\n\n    def __init__(self, base):\n"
             "        self.base = base\n\n    def get(self):\n        return requests.get(self.base + \"/orders\")\n"}
    url, link = client(tmp_path, files)
    assert (url.startswith("http://orders:8080"), link) == (False, "unlinked")


def test_typescript_this_field_overwritten_by_a_parameter_is_unknown(tmp_path):
    files = {**ORDERS, "web/package.json": "{\"name\": \"web\", \"dependencies\": {\"axios\": \"1\"}}\n",
             "web/src/c.ts": "import axios from 'axios';\nexport class C {\n  base = 'http://orders:8080';\n"
             "  constructor(b: string) { this.base = b; }\n  get() { return axios.get(this.base + '/orders'); }\n}\n"}
    url, link = client(tmp_path, files)
    assert (url.startswith("http://orders:8080"), link) == (False, "unlinked")


def test_csharp_field_overwritten_without_this_is_unknown_and_a_readonly_one_kept(tmp_path):
    def files(fields: str) -> dict[str, str]:
        return {**ORDERS, "web/web.csproj": "<Project Sdk=\"Microsoft.NET.Sdk.Web\"></Project>\n",
                "web/C.cs": "using System.Net.Http;\nnamespace W;\npublic class C {\n"
                "  private readonly HttpClient _http = new HttpClient();\n" + fields +
                "  public object Get() => _http.GetAsync(_base + \"/orders\");\n}\n"}

    set_later = client(tmp_path / "a", files("  private string _base = \"http://orders:8080\";\n"
                                             "  public C(string b) { _base = b; }\n"))
    readonly = client(tmp_path / "b", files("  private readonly string _base = \"http://orders:8080\";\n"))
    assert (set_later, readonly) == (("{_base}/orders", "unlinked"), ("http://orders:8080/orders", "linked"))


def test_java_field_set_by_a_hook_only_tests_call_keeps_its_initialiser(tmp_path):
    """A setter no deployed code calls (petclinic's ``VisitsServiceClient.setHostname``, a test's hook) does not
    reach the read; once a production class calls it, the field is unknown."""
    fields = "  private String base = \"http://orders:8080\";\n  void setBase(String b) { this.base = b; }\n"
    hook = "package w;\npublic class CTest {\n  void t() { new C().setBase(\"http://localhost:1\"); }\n}\n"
    tests_only = client(tmp_path / "a", {**java_client(fields), "web/src/test/java/w/CTest.java": hook})
    production = client(tmp_path / "b", {**java_client(fields), "web/src/main/java/w/Boot.java":
                                         hook.replace("CTest", "Boot")})
    assert (tests_only, production) == (("http://orders:8080/orders", "linked"), ("{base}/orders", "unlinked"))
