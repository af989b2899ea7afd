"""Secrets never reach an agent (`services.secrets`): a secret store's values and credential keys' values are shown
as ``redacted`` with where they are written, URLs lose their userinfo everywhere, and the host of a URL that comes
from a Secret still links the service."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from helpers import backend
from helpers.code_tools import write_tree

from graphlore.contract import parse_request
from graphlore.runtime import Runtime
from graphlore.toolsets.code import TOOLSET
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.query import models
from graphlore.toolsets.code.services import helm
from graphlore.toolsets.code.services.deployment import read_deployment
from graphlore.toolsets.code.services.secrets import (
    is_credential_key,
    redact_text,
    scrubbed,
    secret_store_value,
    shown_value,
    strip_userinfo,
)
from graphlore.toolsets.code.services.settings import Note


def _deployment(root: Path):
    layout = CodeGraph.build(root).layout
    return read_deployment(layout, root, list(layout.deployment_files))


@pytest.mark.parametrize("key", ["DB_PASSWORD", "spring.datasource.password", "db-passwd", "MYSQL_PWD", "DB_PASS",
                                 "jwt.secret", "clientSecret", "GITHUB_TOKEN", "accessToken", "apiKey", "API_KEY",
                                 "private_key", "AWS_SECRET_ACCESS_KEY", "signing-key", "credentials",
                                 "ConnectionStrings:Password", "Ssl__Passphrase", "Jwt:Key", "JWT_KEY", "hmac-key",
                                 "ClientKey", "LICENSE_KEY"])
def test_a_key_whose_last_word_names_a_credential_is_one(key: str) -> None:
    assert is_credential_key(key)


@pytest.mark.parametrize("key", ["TOKEN_URL", "token_endpoint", "PASSWORD_MIN_LENGTH", "SECRET_NAME", "MAX_TOKENS",
                                 "routing.key", "cache-key", "PASSWORD_RESET_PATH", "secretKeyRef", "KEYCLOAK_URL",
                                 "public_key", "partition.key", "SharedAccessKeyName"])
def test_a_credential_word_that_is_not_the_keys_last_is_no_credential(key: str) -> None:
    assert not is_credential_key(key)


def test_a_credential_keys_url_value_is_an_address_its_userinfo_stripped() -> None:
    """``token_url``-like keys aside, a credential key holding a URL (``OAUTH_TOKEN: https://...``) is an address."""
    assert shown_value("DB_PASSWORD", "hunter2") == "redacted"
    assert shown_value("AUTH_TOKEN", "https://auth:8080/token") == "https://auth:8080/token"
    assert shown_value("BROKER_URL", "amqp://guest:guest@rabbit:5672/") == "amqp://rabbit:5672/"
    assert shown_value("DB_PASSWORD", "${DB_PASSWORD}") == "${DB_PASSWORD}"   # only where it comes from


@pytest.mark.parametrize(("written", "shown"), [
    ("postgres://app:pw@db:5432/shop", "postgres://db:5432/shop"),
    ("mongodb://${MONGO_USER}:${MONGO_PASS}@mongo:27017/db", "mongodb://mongo:27017/db"),
    ("redis://:onlypass@cache:6379", "redis://cache:6379"),
    ("postgres://app:p@ss@w0rd@db:5432/x", "postgres://db:5432/x"),   # an unescaped @ in the password
    ("http://host:8080?next=x@y", "http://host:8080?next=x@y"),   # an @ in the query is no userinfo
    ("see http://user@host/x and https://a:b@c.example/y", "see http://host/x and https://c.example/y"),
    ("mail ops@example.com, clone git@github.com:o/r", "mail ops@example.com, clone git@github.com:o/r"),
])
def test_userinfo_is_stripped_from_every_url_in_a_text(written: str, shown: str) -> None:
    assert strip_userinfo(written) == shown


def test_a_note_loses_credential_values_and_connection_string_passwords() -> None:
    assert redact_text("Compose web environment DB_PASSWORD=hunter2 (compose.yml:4)") == \
        "Compose web environment DB_PASSWORD=redacted (compose.yml:4)"
    assert redact_text("ConnectionStrings:Db = Server=sql;User Id=sa;Password=P@ss1;Database=x (appsettings.json:3)") \
        == "ConnectionStrings:Db = Server=sql;User Id=sa;Password=redacted;Database=x (appsettings.json:3)"
    assert redact_text("jwt.secret: abc (application.yml:9)") == "jwt.secret: redacted (application.yml:9)"
    # a colon inside prose is no assignment; a reference is kept as where the value comes from
    kept = "env DB_PASSWORD=var.db_password (the sensitive variable db_password: its value is not shown)"
    assert redact_text(kept) == kept


def test_a_settings_note_of_a_credential_key_is_redacted() -> None:
    assert str(Note("spring.datasource.password", "s3cr3t", "application.yml", 4, None)) == \
        "spring.datasource.password: redacted (application.yml:4)"
    assert str(Note("spring.datasource.url", "jdbc:postgresql://u:p@db/x", "application.yml", 3, None)) == \
        "spring.datasource.url: jdbc:postgresql://db/x (application.yml:3)"


def test_a_secret_stores_value_is_used_only_as_an_address() -> None:
    assert secret_store_value("postgres://u:p@db:5432/app?sslmode=disable&password=x") == "postgres://db:5432/app"
    assert secret_store_value("hunter2") is None
    assert secret_store_value("db.internal") is None


SECRET = '''apiVersion: v1
kind: Secret
metadata:
  name: api-secrets
type: Opaque
stringData:
  DB_URL: postgresql://api:string-pw-1@pg:5432/api
  ADMIN_USER: admin-literal-1
data:
  SIGNING: {token}
'''

DEPLOY = '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  template:
    spec:
      containers:
        - name: api
          image: acme/api:1
          env:
            - name: DATABASE_URL
              valueFrom:
                secretKeyRef:
                  name: api-secrets
                  key: DB_URL
            - name: ADMIN_USER
              valueFrom:
                secretKeyRef:
                  name: api-secrets
                  key: ADMIN_USER
          envFrom:
            - secretRef:
                name: api-secrets
'''


def test_a_kubernetes_secrets_values_are_redacted_and_its_url_keeps_the_host(tmp_path: Path) -> None:
    """``stringData`` as written and ``data`` decoded are never shown nor any variable's value, whatever their key;
    a URL among them gives the variable its host, port and path."""
    token = base64.b64encode(b"b64-literal-2").decode()
    root = write_tree(tmp_path / "p", {
        "api/Dockerfile": "FROM python:3.12\n", "api/app.py": "import os\n", "api/requirements.txt": "flask\n",
        "k8s/secret.yaml": SECRET.replace("{token}", token), "k8s/api.yaml": DEPLOY})
    deployment = _deployment(root)
    assert deployment.env["api"]["DATABASE_URL"] == ["postgresql://pg:5432/api"]
    assert "ADMIN_USER" not in deployment.env["api"]   # no address: the value itself is the secret
    notes = deployment.value_notes["api"]
    assert any("Secret api-secrets stringData ADMIN_USER=redacted (k8s/secret.yaml:8)" in n for n in notes)
    assert any("Secret api-secrets data SIGNING=redacted (k8s/secret.yaml:10)" in n for n in notes)
    every = repr(deployment)
    assert not any(literal in every for literal in ("string-pw-1", "admin-literal-1", token, "b64-literal-2"))


def test_a_set_into_a_secret_shows_where_it_comes_from_never_its_literal() -> None:
    """A Helm value a Secret's template reads: a literal ``--set`` value and a shell assignment of a literal are
    redacted; a ``${VAR}`` and a ``$(command)`` only say where the value comes from, and stay."""
    variant = helm.Variant("v", {}, set_at={"db.password": "ci.sh:3", "queue": "ci.sh:3"}, set_shell={
        "db.password": ("$DB_PW", " (DB_PW: DB_PW=hunter2 (ci.sh:1))"),
        "queue": ("$Q", " (Q: Q=$(az keyvault secret show --name q) (ci.sh:2))")})
    assert variant.origin("db.password", redact=True) == \
        "--set db.password=$DB_PW at ci.sh:3 (DB_PW: DB_PW=redacted (ci.sh:1))"
    assert variant.origin("queue", redact=True) == \
        "--set queue=$Q at ci.sh:3 (Q: Q=$(az keyvault secret show --name q) (ci.sh:2))"
    assert variant.origin("db.password") == "--set db.password=$DB_PW at ci.sh:3 (DB_PW: DB_PW=hunter2 (ci.sh:1))"


SYSTEM = {
    "shop/Dockerfile": "FROM python:3.12\n",
    "shop/requirements.txt": "flask\nrequests\n",
    "shop/app.py": ("import os\n\nimport requests\nfrom flask import Flask\n\napp = Flask(__name__)\n\n\n"
                    "@app.get('/orders')\ndef orders():\n"
                    "    db = 'Server=db;User Id=sa;Password=source-literal-10;'\n"
                    "    password = os.getenv('ADMIN_PASSWORD', 'source-literal-11')\n"
                    "    return requests.get(os.environ['CATALOG_URL'] + '/items', auth=('u', password)).json()\n"),
    "catalog/Dockerfile": "FROM python:3.12\n",
    "catalog/requirements.txt": "flask\n",
    "catalog/app.py": ("from flask import Flask\n\napp = Flask(__name__)\n\n\n"
                       "@app.get('/items')\ndef items():\n    return []\n"),
    "docker-compose.yml": """services:
  shop:
    build: ./shop
    environment:
      CATALOG_URL: http://svc-user:compose-pw-1@catalog:5000
      DB_PASSWORD: compose-literal-2
      API_KEY: compose-literal-3
    secrets:
      - db_pw
  catalog:
    build: ./catalog
    environment:
      - SQL=Server=sql;User Id=sa;Password=conn-literal-4;Database=c
secrets:
  db_pw:
    file: ./db_pw.txt
""",
    "db_pw.txt": "file-literal-5\n",
    ".env": "JWT_SECRET=dotenv-literal-6\nLOG_LEVEL=info\n",
    "k8s/sealed.yaml": """apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata:
  name: shop-sealed
spec:
  encryptedData:
    password: AgBy8sealed-literal-7
""",
    "k8s/external.yaml": """apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata:
  name: shop-external
spec:
  data:
    - secretKey: password
      remoteRef:
        key: prod/shop/db
""",
    "k8s/secret.yaml": """apiVersion: v1
kind: Secret
metadata:
  name: catalog-db
stringData:
  password: k8s-literal-8
""",
    "catalog/settings.yaml": "db:\n  password: yaml-literal-9\n",
}
LITERALS = ("compose-pw-1", "svc-user", "compose-literal-2", "compose-literal-3", "conn-literal-4", "file-literal-5",
            "dotenv-literal-6", "sealed-literal-7", "k8s-literal-8", "yaml-literal-9", "source-literal-10",
            "source-literal-11")


def _tool(runtime: Runtime, tree: Path, name: str, **fields):
    """A tool called as the server calls it (its spec, with the answer's last guard)."""
    spec = next(tool for tool in TOOLSET.tools if tool.name == name)
    request = parse_request(getattr(models, f"{name.capitalize().replace('_m', 'M')}Request"),
                            {"project_path": str(tree), **fields})
    answer = spec.call(runtime, request)
    return answer.model_dump_json() + spec.render(answer)


def test_no_secret_literal_reaches_any_tool_answer(tmp_path: Path, embedder) -> None:
    """A system whose Compose file, ``.env``, Kubernetes Secret, SealedSecret, ExternalSecret and Compose
    ``secrets:`` hold literals: no answer of describe, find, search, neighbors or service_map holds one, and the
    client still reaches the service its URL's host names."""
    tree = write_tree(tmp_path / "system", SYSTEM)
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        out = [_tool(runtime, tree, "index", embed=False), _tool(runtime, tree, "status"),
               _tool(runtime, tree, "service_map")]
        for kind in ("microservice", "client", "route", "symbol"):
            out.append(_tool(runtime, tree, "find", kind=kind, filter={}, limit=50))
            spec = next(tool for tool in TOOLSET.tools if tool.name == "find")
            answer = spec.call(runtime, parse_request(models.FindRequest, {
                "project_path": str(tree), "kind": kind, "filter": {}, "limit": 50}))
            for hit in answer.results:
                out.append(_tool(runtime, tree, "describe", id=hit.id, include_source=True))
                out.append(_tool(runtime, tree, "neighbors", id=hit.id, direction="both"))
        for query in ("password", "secret", "catalog url", "token"):
            out.append(_tool(runtime, tree, "search", query=query))
    finally:
        runtime.close()
    text = "\n".join(out)
    leaked = [literal for literal in LITERALS if literal in text]
    assert leaked == []
    assert "http://catalog:5000" in text   # the settled URL keeps its host
    assert "redacted" in text


def test_userinfo_made_of_a_variable_with_a_message_is_stripped() -> None:
    """``${VAR:?message}`` may hold spaces: the userinfo still ends at its ``@``."""
    assert strip_userinfo("postgresql://app:${DB_PASSWORD:?set it}@db:5432/app (compose.yml:5)") == \
        "postgresql://db:5432/app (compose.yml:5)"


@pytest.mark.parametrize(("written", "shown"), [
    ("12| SQL = 'Server=db;User Id=sa;Password=src-literal-1;'", "12| SQL = 'Server=db;User Id=sa;Password=redacted;'"),
    ('"Data Source=db; Pwd=src-literal-2"', '"Data Source=db; Pwd=redacted"'),
    ("jdbc:mysql://db/x?user=u&password=src-literal-3&ssl=true", "jdbc:mysql://db/x?user=u&password=redacted&ssl=true"),
    ("requests.get(url, password=pw)", "requests.get(url, password=pw)"),   # code's keyword argument: no literal
])
def test_the_last_guard_redacts_a_connection_strings_password_in_any_text(written: str, shown: str) -> None:
    """The answer's last guard (a source line, a search hit's text), as SKILL.md says: everywhere."""
    assert scrubbed(written) == shown
    assert scrubbed([{"text": written}]) == [{"text": shown}]


@pytest.mark.parametrize(("written", "shown"), [
    ("    password = 'src-literal-4'", "    password = 'redacted'"),
    ('"Jwt": {"SigningKey": "src-literal-5", "Issuer": "shop"}', '"Jwt": {"SigningKey": "redacted", "Issuer": "shop"}'),
    ('private val apiKey: String = "src-literal-6"', 'private val apiKey: String = "redacted"'),
    ('clientSecret := "src-literal-7"', 'clientSecret := "redacted"'),
    ("'db_password' => 'src-literal-8',", "'db_password' => 'redacted',"),
    ("DB_PASSWORD = os.getenv('DB_PASSWORD', 'src-literal-9')", "DB_PASSWORD = os.getenv('DB_PASSWORD', 'redacted')"),
])
def test_the_last_guard_redacts_a_literal_a_credential_key_is_given_in_source_text(written: str, shown: str) -> None:
    """A hard-coded credential in a source line (``describe``'s ``include_source``, a search hit) is a secret too."""
    assert scrubbed(written) == shown


@pytest.mark.parametrize("kept", [
    "TOKEN_URL = 'https://auth.example/token'", 'MAX_TOKENS = "512"', "SECRET_NAME = 'shop-secrets'",
    "PASSWORD_MIN_LENGTH = '8'", 'password = os.environ["DB_PASSWORD"]', 'const string Password = "${DB_PASSWORD}";',
    "public_key = 'ssh-ed25519 AAAAC3Nz'", "routing.key = 'orders.created'",
])
def test_the_last_guard_keeps_source_text_that_holds_no_credential(kept: str) -> None:
    """Near misses: a credential word that is not the key's last, a reference, a URL, a public key."""
    assert scrubbed(kept) == kept


def test_an_azure_connection_strings_account_key_is_redacted_in_a_note_and_an_answer() -> None:
    """Storage and Service Bus connection strings carry their secret as ``AccountKey=``/``SharedAccessKey=``."""
    storage = '"DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=az-literal-1==;EndpointSuffix=x.net"'
    assert scrubbed(storage) == '"DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=redacted;EndpointSuffix=x.net"'
    bus = "Bus = Endpoint=sb://bus.example/;SharedAccessKeyName=root;SharedAccessKey=az-literal-2 (appsettings.json:3)"
    assert redact_text(bus) == \
        "Bus = Endpoint=sb://bus.example/;SharedAccessKeyName=root;SharedAccessKey=redacted (appsettings.json:3)"
