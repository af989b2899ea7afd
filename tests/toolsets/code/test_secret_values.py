"""Values a service reads from a Kubernetes Secret, and the shell variables a guide's ``helm install --set`` fills
them from: an agent asking "where does the service get its queue name" needs the whole chain (the env entry's
``secretKeyRef``, the Secret's key and the Helm value it is written from, the ``--set`` and the ``export`` that
gives it), each link with its ``file:line``; several assignments of one variable are several candidates."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services import helm, shell_values
from graphlore.toolsets.code.services.deployment import read_deployment


@pytest.mark.parametrize(("line", "name", "written"), [
    ("export QUEUE=orders", "QUEUE", "QUEUE=orders"),
    ("QUEUE=orders", "QUEUE", "QUEUE=orders"),
    ("  declare -x QUEUE='orders'", "QUEUE", "QUEUE='orders'"),
    ("typeset -x QUEUE=orders", "QUEUE", "QUEUE=orders"),
    ("readonly QUEUE=orders; echo done", "QUEUE", "QUEUE=orders"),
    ("local QUEUE=\"a b\"", "QUEUE", "QUEUE=\"a b\""),
    ("export QUEUE=$(az show -n x --query 'outputs.queue.value' -o tsv) && \\", "QUEUE",
     "QUEUE=$(az show -n x --query 'outputs.queue.value' -o tsv)"),
    ("set -gx QUEUE orders", "QUEUE", "QUEUE=orders"),
    ("$env:QUEUE = \"orders\"", "QUEUE", "QUEUE=\"orders\""),
    ("$QUEUE = (az show --query outputs.queue.value)", "QUEUE", "QUEUE=(az show --query outputs.queue.value)"),
    ("set QUEUE=orders", "QUEUE", "QUEUE=orders"),
    ("set \"QUEUE=orders\"", "QUEUE", "QUEUE=orders"),
])
def test_each_way_a_script_assigns_a_variable_is_read(line: str, name: str, written: str) -> None:
    """sh/bash/zsh (plain, ``export``, ``declare -x``, ``typeset -x``, ``readonly``, ``local``), fish ``set -gx``,
    PowerShell ``$env:X =`` and ``$X =``, cmd ``set X=`` and ``set "X="``: the value as written, to its quote's or
    its ``$(``'s end."""
    assert shell_values.assignments(f"# setup\n{line}\n", "setup.sh") == {name: [f"{written} (setup.sh:2)"]}


@pytest.mark.parametrize("line", ["QUEUE=test ./run-tests.sh", "  QUEUE=test DEBUG=1 make check",
                                  "QUEUE=$(pick queue) helm install shop ./chart --set q=$QUEUE"])
def test_an_assignment_written_before_a_command_sets_no_variable_of_the_script(line: str) -> None:
    """``QUEUE=test ./run.sh`` sets QUEUE for that one command (not even for its own ``$QUEUE``, which the shell
    reads first): it is no candidate for what a later ``--set x=$QUEUE`` reads."""
    text = f"export QUEUE=orders\n{line}\n"
    assert shell_values.assignments(text, "deploy.sh")["QUEUE"] == ["QUEUE=orders (deploy.sh:1)"]
    assigned = shell_values.assignments("A=1 B=2; echo\nC=3 # note\n", "x.sh")   # ended by ; or a comment
    assert (assigned["A"], assigned["C"]) == (["A=1 (x.sh:1)"], ["C=3 (x.sh:2)"])


def test_every_assignment_is_a_candidate_and_each_read_is_named() -> None:
    """A guide that sets a variable twice (two environments) shows both; ``${X}``, ``$X``, ``${X:-d}``, ``$env:X``
    and ``%X%`` are reads; a variable the file never assigns is set where the command runs."""
    text = "export REGION=westeurope\n\nexport REGION=eastus\n"
    assigned = shell_values.assignments(text, "guide.md")
    assert assigned == {"REGION": ["REGION=westeurope (guide.md:1)", "REGION=eastus (guide.md:3)"]}
    assert shell_values.variables_read("${A}-$B-${C:-x}-$env:D-%E%") == ["A", "B", "C", "D", "E"]
    assert shell_values.origins("rg-${REGION}-$ENV", assigned) == (
        " (REGION: REGION=westeurope (guide.md:1); REGION=eastus (guide.md:3); ENV: not assigned in that file "
        "(set where the command runs))")


DEPLOY = '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  template:
    spec:
      containers:
        - name: worker
          image: acme/worker:1
          env:
            - name: QUEUE_NAME
              valueFrom:
                secretKeyRef:
                  name: {{ .Release.Name }}-secrets
                  key: queue_name
            - name: DB_URL
              valueFrom:
                secretKeyRef:
                  name: worker-store
                  key: db-url
            - name: API_KEY
              valueFrom:
                secretKeyRef:
                  name: made-by-hand
                  key: api-key
            - name: EMPTY
              valueFrom:
                secretKeyRef:
                  name: worker-token
                  key: token
'''

SECRET = '''apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-secrets
type: Opaque
data:
  queue_name: {{ required "secrets.queue.name is required" .Values.secrets.queue.name | b64enc }}
---
apiVersion: v1
kind: Secret
metadata:
  name: worker-token
data:
  {{- if .Values.token }}
  token: {{ .Values.token | b64enc }}
  {{- end }}
'''

PROVIDER = '''apiVersion: secrets-store.csi.x-k8s.io/v1
kind: SecretProviderClass
metadata:
  name: worker-vault
spec:
  provider: azure
  secretObjects:
    - secretName: worker-store
      type: Opaque
      data:
        - objectName: Database--Url
          key: db-url
'''

GUIDE = '''# Deploy the worker

```bash
export WORKER_QUEUE=$(az deployment group show -n stamp --query properties.outputs.workQueueName.value -o tsv)

helm install worker-dev ./charts/worker \\
     --set secrets.queue.name=${WORKER_QUEUE} \\
     --namespace backend
```
'''


def _deployment(root: Path):
    layout = CodeGraph.build(root).layout
    return read_deployment(layout, root, list(layout.deployment_files))


def test_a_secret_key_shows_the_helm_value_the_set_and_the_export_behind_it(tmp_path: Path) -> None:
    """``secretKeyRef`` -> the chart's Secret key -> ``.Values.secrets.queue.name`` -> the guide's ``--set`` with
    ``${WORKER_QUEUE}`` -> its ``export``: one note, every link with its line; a key a CSI SecretProviderClass
    syncs names the store's object; a Secret nothing in the project writes says so. The value stays unknown."""
    root = write_tree(tmp_path / "p", {
        "worker/Dockerfile": "FROM python:3.12\n", "worker/app.py": "import os\nQUEUE = os.environ['QUEUE_NAME']\n",
        "worker/requirements.txt": "requests\n",
        "charts/worker/Chart.yaml": "apiVersion: v2\nname: worker\nversion: 0.1.0\n",
        "charts/worker/values.yaml": "secrets:\n  queue:\n    name:\n",
        "charts/worker/templates/deploy.yaml": DEPLOY, "charts/worker/templates/secret.yaml": SECRET,
        "charts/worker/templates/provider.yaml": PROVIDER, "deployment.md": GUIDE})
    deployment = _deployment(root)
    notes = {n.split(" env ", 1)[1].split(" ", 1)[0]: n for n in deployment.value_notes["worker"] if " env " in n}
    assert notes["QUEUE_NAME"] == (
        "Kubernetes Deployment worker-dev env QUEUE_NAME from Secret worker-dev-secrets key queue_name "
        "(charts/worker/templates/deploy.yaml:12); Secret worker-dev-secrets data queue_name={?} "
        "(charts/worker/templates/secret.yaml:7) with the Helm values charts/worker/values.yaml + --set (helm command "
        "at deployment.md:6); .Values.secrets.queue.name from --set secrets.queue.name=${WORKER_QUEUE} at "
        "deployment.md:7 (WORKER_QUEUE: WORKER_QUEUE=$(az deployment group show -n stamp --query "
        "properties.outputs.workQueueName.value -o tsv) (deployment.md:4))")
    assert notes["DB_URL"].endswith(
        "; Secret worker-store key db-url synced by the SecretProviderClass worker-vault from the azure secret "
        "store's object Database--Url (charts/worker/templates/provider.yaml:11)")
    assert notes["API_KEY"].endswith("; no Secret of that name is written in the project (made at deploy time)")
    assert notes["EMPTY"].endswith("; the Secret written in charts/worker/templates/secret.yaml gives no key token with "
                                   "the values it is rendered with")
    assert "QUEUE_NAME" not in deployment.env["worker"]   # its value is the shell's: never guessed


MANIFEST = '''apiVersion: v1
kind: Secret
metadata:
  name: shop-db
stringData:
  url: postgresql://shop:pw@shop-db:5432/shop
data:
  user: {user}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  template:
    spec:
      containers:
        - name: shop
          image: acme/shop:1
          env:
            - name: DATABASE_URL
              valueFrom:
                secretKeyRef:
                  name: shop-db
                  key: url
          envFrom:
            - secretRef:
                name: shop-db
'''


def test_a_literal_secret_gives_its_value_and_env_from_gives_every_key(tmp_path: Path) -> None:
    """A plain manifest's Secret: a URL in ``stringData`` (or decoded ``data``) is the env's value without its
    userinfo (the host links the service); every other value is shown as ``redacted`` with where it is written;
    ``envFrom`` a ``secretRef`` lists each key of the Secret."""
    encoded = base64.b64encode(b"shop").decode()
    root = write_tree(tmp_path / "p", {
        "shop/Dockerfile": "FROM python:3.12\n", "shop/app.py": "import os\n", "shop/requirements.txt": "flask\n",
        "k8s/shop.yaml": MANIFEST.replace("{user}", encoded)})
    deployment = _deployment(root)
    assert deployment.env["shop"]["DATABASE_URL"] == ["postgresql://shop-db:5432/shop"]
    notes = deployment.value_notes["shop"]
    assert ("Kubernetes Deployment shop env DATABASE_URL from Secret shop-db key url (k8s/shop.yaml:21); Secret "
            "shop-db stringData url=postgresql://shop-db:5432/shop (k8s/shop.yaml:6)") in notes
    assert "Kubernetes Deployment shop envFrom Secret shop-db: Secret shop-db data user=redacted (k8s/shop.yaml:8)" \
           in notes
    assert not any(encoded in note or "pw@" in note or "shop:" in note for note in notes)


def test_a_set_the_shell_fills_says_its_value_as_written() -> None:
    """A ``--set`` whose value is literal keeps its short origin; one the shell fills shows what it reads."""
    [install] = helm.install_commands("export TAG=1.2\nhelm install web ./chart --set image.tag=$TAG --set a=b\n",
                                      "ci.sh")
    assert install.shell == {"image.tag": ("$TAG", " (TAG: TAG=1.2 (ci.sh:1))")}
    variant = helm.Variant("v", {}, set_at={"image.tag": "ci.sh:2", "a": "ci.sh:2"}, set_shell=install.shell)
    assert variant.origin("image.tag") == "--set image.tag=$TAG at ci.sh:2 (TAG: TAG=1.2 (ci.sh:1))"
    assert variant.origin("a") == "--set a at ci.sh:2"
