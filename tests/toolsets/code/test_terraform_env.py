"""Terraform as a deployment file: a container resource's environment (``env`` blocks, a ``dynamic "env"`` over
``concat(local..., var...)``, Lambda's ``environment { variables }``, App Service's ``app_settings``) given to the
service it runs, through a local module called with arguments; a value the files fix is the service's, one they do
not (``module.x.endpoint``, a variable with no default) stays as written and says so (a module output: the
resource it is made of), never a guessed value."""

from __future__ import annotations

from pathlib import Path

from helpers.code_graph import bump
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.deployment import read_deployment
from graphlore.toolsets.code.services.terraform import parse, read_terraform

GO_MAIN = """package main

import "os"

func main() {
	_ = os.Getenv("SERVER_TO_RUN")
}
"""

#: a local module every service goes through (the way real Cloud Run projects write it)
SERVICE_TF = """locals {
  default_envs = [
    {
      name  = "SERVER_TO_RUN"
      value = var.protocol
    },
    {
      name  = "GCP_PROJECT"  # the project: given by whoever applies it
      value = var.project
    }
  ]
}

data "google_container_registry_image" "image" {
  name = var.name
}

resource "google_cloud_run_service" "service" {
  name     = "${var.name}-${var.protocol}"
  location = var.location

  template {
    spec {
      containers {
        image = data.google_container_registry_image.image.image_url

        dynamic "env" {
          for_each = concat(local.default_envs, var.envs)
          content {
            name  = env.value.name
            value = env.value.value
          }
        }
      }
    }
  }
}
"""

VARS_TF = """variable project {}
variable name {}
variable location {}
variable protocol {
  description = "grpc or http"
}
variable envs {
  type = list(object({
    name  = string
    value = string
  }))
  default = []
}
"""

OUTPUTS_TF = """output endpoint {
  value = "${trimprefix(google_cloud_run_service.service.status[0].url, "https://")}:443"
}
"""

ROOT_TF = """/* two deployments of one binary */
module cloud_run_orders_grpc {
  source = "./service"

  project  = var.project
  location = var.region
  name     = "orders"
  protocol = "grpc"
}

module "cloud_run_orders_http" {
  source = "./service"

  project  = var.project
  location = var.region
  name     = "orders"
  protocol = "http"

  envs = [
    {
      name  = "ORDERS_GRPC_ADDR"
      value = module.cloud_run_orders_grpc.endpoint
    },
    {
      name  = "LOG_LEVEL"
      value = "debug"
    }
  ]
}

resource "aws_lambda_function" "billing" {
  function_name = "billing"
  image_uri     = "x"
  environment {
    variables = {
      TABLE = "invoices"
      REGION = var.region
      DSN    = "postgres://app:${var.db_password}@db:5432/app"
    }
  }
}

resource "kubernetes_deployment" "billing" {
  metadata {
    name = "billing"
  }
  spec {
    template {
      spec {
        container {
          image = "registry.example.com/acme/billing:1.0"
          env {
            name  = "DB_HOST"
            value = "billing-db"
          }
        }
      }
    }
  }
}

resource "google_storage_bucket" "orders" {
  name = "orders"
}
"""

ROOT_VARS = """variable "project" {}
variable "db_password" {}
variable "region" {
  default = "europe-west1"
}
"""


def _tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "p", {
        "orders/go.mod": "module orders\n\ngo 1.22\n", "orders/main.go": GO_MAIN, "orders/Dockerfile": "FROM go\n",
        "billing/go.mod": "module billing\n\ngo 1.22\n", "billing/main.go": GO_MAIN,
        "billing/Dockerfile": "FROM go\n",
        "terraform/main.tf": ROOT_TF, "terraform/vars.tf": ROOT_VARS,
        "terraform/service/service.tf": SERVICE_TF, "terraform/service/vars.tf": VARS_TF,
        "terraform/service/outputs.tf": OUTPUTS_TF,
    })


def test_hcl_reader_keeps_expressions_as_written_with_their_lines() -> None:
    body = parse('# c\nresource "a" "b" {\n  x = "${f("q")}:1" // note\n  y = [1, 2]\n  z = <<-EOT\n  hi\n  EOT\n'
                 '  w = a.b[0].c\n}\n')
    block = body.blocks[0]
    assert (block.type, block.labels, block.line) == ("resource", ["a", "b"], 2)
    assert block.attrs["x"].text == '${f("q")}:1' and block.attrs["x"].line == 3
    assert [i.raw for i in block.attrs["y"].items] == ["1", "2"]
    assert block.attrs["z"].text.strip() == "hi"
    assert block.attrs["w"].raw == "a.b[0].c" and block.attrs["w"].kind == "other"


def test_module_calls_settle_what_the_files_fix(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    paths = [str(p.relative_to(root)) for p in root.rglob("*.tf")]
    found = {(r.address, tuple(r.names)): {e.name: (e.written, e.value, e.needs) for e in r.env}
             for r in read_terraform(root, paths)}
    grpc = found[("google_cloud_run_service.service (module cloud_run_orders_grpc)", ("orders-grpc",))]
    assert grpc == {"SERVER_TO_RUN": ("var.protocol", "grpc", None), "GCP_PROJECT": ("var.project", None, "project")}
    http = found[("google_cloud_run_service.service (module cloud_run_orders_http)", ("orders-http",))]
    assert http["ORDERS_GRPC_ADDR"] == ("module.cloud_run_orders_grpc.endpoint", None, None)
    assert http["LOG_LEVEL"] == ("debug", "debug", None) and http["SERVER_TO_RUN"][1] == "http"
    lam = found[("aws_lambda_function.billing", ("billing",))]
    assert lam == {"TABLE": ("invoices", "invoices", None), "REGION": ("var.region", "europe-west1", None),
                   "DSN": ('"postgres://app:${var.db_password}@db:5432/app"', None, "db_password")}
    assert not any("google_storage_bucket" in address for address, _ in found)   # no container: no service


def test_terraform_values_reach_the_service_they_run(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    graph = CodeGraph.build(root)
    deployment = read_deployment(graph.layout, root, list(graph.layout.deployment_files))
    assert "terraform/main.tf" in graph.layout.deployment_files
    orders = deployment.env["orders"]
    assert sorted(orders["SERVER_TO_RUN"]) == ["grpc", "http"] and orders["LOG_LEVEL"] == ["debug"]
    assert "ORDERS_GRPC_ADDR" not in orders and "GCP_PROJECT" not in orders   # not fixed by the files: not guessed
    notes = deployment.value_notes["orders"]
    assert ("Terraform google_cloud_run_service.service (module cloud_run_orders_http) env "
            "ORDERS_GRPC_ADDR=module.cloud_run_orders_grpc.endpoint (known when Terraform applies it: output endpoint "
            "of module cloud_run_orders_grpc: google_cloud_run_service.service orders-grpc) (terraform/main.tf:22)") in notes
    assert ("Terraform google_cloud_run_service.service (module cloud_run_orders_grpc) env SERVER_TO_RUN=var.protocol "
            "(= grpc) (terraform/service/service.tf:5)") in notes
    assert any("GCP_PROJECT=var.project (the Terraform variable project, given when it is applied)" in n for n in notes)
    assert deployment.names["orders"]["orders-grpc"] == "Terraform google_cloud_run_service"
    billing = deployment.env["billing"]   # a Kubernetes deployment by its image's name and its metadata name
    assert billing["DB_HOST"] == ["billing-db"]


MAP_MODULE = """variable "service_name" {}
variable "image" {}
variable "env_vars" {
  type    = map(string)
  default = {}
}

resource "google_cloud_run_v2_service" "service" {
  name = var.service_name
  template {
    containers {
      image = var.image
      dynamic "env" {
        for_each = merge({ LOG_LEVEL = "info" }, var.env_vars)
        content {
          name  = env.key
          value = env.value
        }
      }
      env {
        name = "DB_PASS"
        value_source {
          secret_key_ref {
            secret  = "db-pass"
            version = "latest"
          }
        }
      }
    }
  }
}
"""

MAP_ROOT = """module "billing" {
  source       = "../../modules/cloudrun"
  service_name = "billing-api"
  image        = "europe-docker.pkg.dev/acme/apps/billing:1.2"
  env_vars = {
    LOG_LEVEL   = "debug"
    ORDERS_URL  = "https://orders.example.com"
  }
}
"""


def test_a_dynamic_env_over_a_map_and_a_secrets_value(tmp_path: Path) -> None:
    """``for_each`` over a map (``name = env.key``, ``value = env.value``; ``merge`` later wins) from a module
    argument in another folder (``../../modules/cloudrun``), and an ``env`` whose value is a secret (``value_source``):
    named, its value known at run time only."""
    root = write_tree(tmp_path / "p", {"infra/envs/prod/main.tf": MAP_ROOT, "infra/modules/cloudrun/main.tf": MAP_MODULE})
    [resource] = read_terraform(root, ["infra/envs/prod/main.tf", "infra/modules/cloudrun/main.tf"])
    assert (resource.names, resource.images) == (["billing-api"], ["europe-docker.pkg.dev/acme/apps/billing:1.2"])
    assert {e.name: (e.written, e.value, e.file) for e in resource.env} == {
        "LOG_LEVEL": ("debug", "debug", "infra/envs/prod/main.tf"),
        "ORDERS_URL": ("https://orders.example.com", "https://orders.example.com", "infra/envs/prod/main.tf"),
        "DB_PASS": ("value_source secret_key_ref", None, "infra/modules/cloudrun/main.tf")}


ECS = """resource "aws_ecs_task_definition" "orders" {
  family = "orders"
  container_definitions = jsonencode([
    {
      name  = "orders"
      image = "${var.registry}/orders:latest"
      environment = [
        { name = "DB_HOST", value = "orders-db" },
        { name = "REGION", value = var.region }
      ]
    }
  ])
}

resource "aws_ecs_task_definition" "legacy" {
  family                = "legacy"
  container_definitions = <<EOF
[{"name": "billing", "image": "acme/billing:2", "environment": [{"name": "MODE", "value": "batch"}]}]
EOF
}

variable "region" {
  default = "eu-west-1"
}
"""


def test_an_ecs_task_definitions_containers_are_read(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"deploy/ecs.tf": ECS})
    found = {r.address: (r.names, r.images, {e.name: (e.value, e.line) for e in r.env})
             for r in read_terraform(root, ["deploy/ecs.tf"])}
    assert found["aws_ecs_task_definition.orders container orders"] == (
        ["orders"], [], {"DB_HOST": ("orders-db", 8), "REGION": ("eu-west-1", 9)})   # the image waits for a variable
    assert found["aws_ecs_task_definition.legacy container billing"] == (["billing"], ["acme/billing:2"], {"MODE": ("batch", 17)})


def test_a_terraform_edit_updates_the_describe_like_a_full_build(tmp_path: Path) -> None:
    """A ``.tf`` file is a layout file: its edit reaches the service's listed values on an update."""
    root = _tree(tmp_path)
    graph = CodeGraph.build(root)
    main = root / "terraform/main.tf"
    main.write_text(main.read_text().replace('value = "debug"', 'value = "trace"'))
    bump(main)
    graph.update()

    def orders(of: CodeGraph) -> list[str]:
        return next(n.props["config"] for n in of.layout_nodes if n.kind == "microservice" and n.name == "orders")
    assert any("LOG_LEVEL=trace" in line for line in orders(graph))
    assert orders(graph) == orders(CodeGraph.build(root))


def test_a_file_that_does_not_close_its_brackets_ends_its_reading() -> None:
    """A bracket that closes something else ends a list or an object (it looped for ever: every ``.tf`` file of a
    project is read, so one broken file stalled the index)."""
    for text in ("locals { a = { b = [ } }", "a = [ ) ]", "a = { ] }", 'x = [\n', "b = { x = [1, 2 }"):
        parse(text)
    assert parse("locals { a = { b = [ } }\nz = 1\n").blocks[0].type == "locals"


class _Scanned(str):
    """A file's text that tallies the characters ``count`` scans (the reader once counted newlines from the start
    of the file for every line number it took: quadratic, minutes for a file of a few megabytes)."""

    scanned = 0

    def count(self, sub, start=0, end=None):  # noqa: ANN001, ANN201
        _Scanned.scanned += (len(self) if end is None else end) - start
        return super().count(sub, start, end)

    def replace(self, old, new, count=-1):  # noqa: ANN001, ANN201
        return _Scanned(super().replace(old, new, count))


def test_line_numbers_do_not_rescan_the_file() -> None:
    one = 'resource "google_cloud_run_service" "s" {\n  name = "s"\n  template {\n    env {\n      name = "A"\n' \
          '      value = "b"\n    }\n  }\n}\n'
    text = one * 400
    _Scanned.scanned = 0
    body = parse(_Scanned(text))
    assert len(body.blocks) == 400 and body.blocks[-1].line == 399 * one.count("\n") + 1
    assert body.blocks[-1].blocks[0].blocks[0].attrs["value"].line == 399 * one.count("\n") + 6
    assert _Scanned.scanned <= 4 * len(text)


def test_a_crlf_files_heredoc_is_one_value() -> None:
    """A file saved with Windows line ends: a heredoc's lines (a ``}`` among them) stay its text, not blocks."""
    text = ('resource "kubernetes_deployment" "web" {\n  metadata {\n    name = "web"\n  }\n  script = <<-EOT\n'
            '    if x {\n}\n    EOT\n  spec {\n    container {\n      env {\n        name  = "A"\n'
            '        value = "b"\n      }\n    }\n  }\n}\n')
    lf, crlf = parse(text).blocks, parse(text.replace("\n", "\r\n")).blocks
    assert [b.type for b in crlf[0].blocks] == [b.type for b in lf[0].blocks] == ["metadata", "spec"]
    assert crlf[0].attrs["script"].text == lf[0].attrs["script"].text
    assert crlf[0].blocks[1].blocks[0].blocks[0].attrs["value"].line == 13


def test_an_ecs_tasks_sidecar_is_not_the_application(tmp_path: Path) -> None:
    """Two containers of one task: each its own name, image and environment (the sidecar's image named another
    service, and its name and values were given to the first container's service)."""
    root = _tree(tmp_path)
    (root / "terraform/main.tf").write_text("""resource "aws_ecs_task_definition" "orders" {
  family = "orders"
  container_definitions = jsonencode([
    {
      name  = "orders"
      image = "acme/orders:1"
      environment = [{ name = "MODE", value = "app" }]
    },
    {
      name  = "billing-agent"
      image = "acme/billing:1"
      environment = [{ name = "AGENT", value = "yes" }]
    }
  ])
}
""")
    graph = CodeGraph.build(root)
    deployment = read_deployment(graph.layout, root, list(graph.layout.deployment_files))
    assert deployment.env["orders"].get("MODE") == ["app"] and "AGENT" not in deployment.env["orders"]
    assert not {"billing", "billing-agent"} & set(deployment.names["orders"])
    assert deployment.env["billing"].get("AGENT") == ["yes"]


def test_a_lambdas_function_name_and_image_uri_name_its_service(tmp_path: Path) -> None:
    """A Lambda has no ``name`` or ``image``: its environment reached no service."""
    root = _tree(tmp_path)
    (root / "terraform/main.tf").write_text("""resource "aws_lambda_function" "fn" {
  function_name = "billing"
  environment {
    variables = {
      TABLE = "invoices"
    }
  }
}
resource "aws_lambda_function" "img" {
  function_name = "orders-worker"
  package_type  = "Image"
  image_uri     = "123.dkr.ecr.us-east-1.amazonaws.com/orders:latest"
  environment {
    variables = {
      QUEUE = "jobs"
    }
  }
}
""")
    graph = CodeGraph.build(root)
    deployment = read_deployment(graph.layout, root, list(graph.layout.deployment_files))
    assert deployment.env["billing"].get("TABLE") == ["invoices"]
    assert deployment.env["orders"].get("QUEUE") == ["jobs"]


def test_a_sensitive_variables_value_is_not_shown(tmp_path: Path) -> None:
    """``sensitive = true``: neither its default nor a module call's argument is the service's value or its note."""
    root = _tree(tmp_path)
    (root / "terraform/main.tf").write_text("""variable "db_password" {
  default   = "hunter2"
  sensitive = true
}
locals {
  dsn = "postgres://app:${var.db_password}@db/app"
}
resource "kubernetes_deployment" "billing" {
  metadata {
    name = "billing"
  }
  spec {
    container {
      image = "acme/billing:1"
      env {
        name  = "DB_PASSWORD"
        value = var.db_password
      }
      env {
        name  = "DSN"
        value = local.dsn
      }
    }
  }
}
""")
    graph = CodeGraph.build(root)
    deployment = read_deployment(graph.layout, root, list(graph.layout.deployment_files))
    assert "DB_PASSWORD" not in deployment.env["billing"] and "DSN" not in deployment.env["billing"]
    notes = deployment.value_notes["billing"]
    assert not any("hunter2" in note for note in notes)
    assert any("DB_PASSWORD=var.db_password (the sensitive Terraform variable db_password: its value is not shown)"
               in note for note in notes)


def test_a_strings_escapes_are_its_value(tmp_path: Path) -> None:
    """``$${`` is a literal ``${`` (it was read as the variable's value), ``\\"`` a quote."""
    root = write_tree(tmp_path / "p", {"main.tf": """variable "region" {
  default = "eu-west-1"
}
resource "aws_lambda_function" "fn" {
  function_name = "fn"
  environment {
    variables = {
      TEMPLATE = "$${var.region}/x"
      QUOTED   = "say \\"hi\\""
      MIXED    = "${var.region}-$${HOME}"
    }
  }
}
"""})
    [fn] = read_terraform(root, ["main.tf"])
    assert {e.name: (e.value, e.needs) for e in fn.env} == {
        "TEMPLATE": ("${var.region}/x", None), "QUOTED": ('say "hi"', None), "MIXED": ("eu-west-1-${HOME}", None)}


def test_a_root_variables_tfvars_value_wins_over_its_default(tmp_path: Path) -> None:
    """``terraform.tfvars`` and ``*.auto.tfvars`` (loaded by Terraform itself) set a root variable over its
    ``default``; one another ``.tfvars`` file sets is picked when it is applied (``-var-file``): not fixed, never the
    default."""
    root = _tree(tmp_path)
    (root / "terraform/terraform.tfvars").write_text('region = "us-central1"\nproject = "acme-prod"\n')
    (root / "terraform/envs").mkdir()
    (root / "terraform/envs/staging.tfvars").write_text('protocol_default = "x"\nlog_level = "warn"\n')
    (root / "terraform/main.tf").write_text((root / "terraform/main.tf").read_text().replace(
        'value = "debug"', "value = var.log_level") + 'variable "log_level" {\n  default = "debug"\n}\n')
    graph = CodeGraph.build(root)
    assert "terraform/terraform.tfvars" in graph.layout.deployment_files
    deployment = read_deployment(graph.layout, root, list(graph.layout.deployment_files))
    billing, orders = deployment.env["billing"], deployment.env["orders"]
    assert billing["REGION"] == ["us-central1"] and orders["GCP_PROJECT"] == ["acme-prod"]
    assert "LOG_LEVEL" not in orders
    assert any("LOG_LEVEL=var.log_level (the Terraform variable log_level, given when it is applied)" in note
               for note in deployment.value_notes["orders"])


def test_an_object_inside_an_interpolation_does_not_end_its_string() -> None:
    """``"${merge({a = 1}, {b = "}"})["a"]}"``: the object's ``}`` ended the interpolation, the string ended at the
    next quote, and the next line was read into the string (its attribute lost)."""
    block = parse('resource "a" "b" {\n  x = "${merge({a = 1}, {b = "}"})["a"]}"\n  y = 1\n}\n').blocks[0]
    assert set(block.attrs) == {"x", "y"} and block.attrs["x"].kind == "string"
    assert block.attrs["x"].text == '${merge({a = 1}, {b = "}"})["a"]}'


def test_locals_that_name_each_other_end_their_reading(tmp_path: Path) -> None:
    """Twelve locals each made of all twelve (a cycle Terraform refuses): each name is read once, and the value is
    not fixed (this stalled for minutes: every reference was read again at every depth)."""
    refs = "".join(f"${{local.l{j}}}" for j in range(12))
    text = "locals {\n" + "".join(f'  l{i} = "{refs}"\n' for i in range(12)) + "}\n" + (
        'resource "kubernetes_deployment" "w" {\n  metadata {\n    name = "w"\n  }\n  spec {\n    container {\n'
        '      image = "a/w:1"\n      env {\n        name = "A"\n        value = local.l0\n      }\n'
        '      env {\n        name = "B"\n        value = "${local.ok}-${local.ok}"\n      }\n    }\n  }\n}\n'
        'locals {\n  ok = "x"\n}\n')
    root = write_tree(tmp_path / "p", {"main.tf": text})
    [w] = read_terraform(root, ["main.tf"])
    assert {e.name: (e.value, e.needs) for e in w.env} == {"A": (None, None), "B": ("x-x", None)}


def test_a_module_that_calls_its_own_folder_is_read_once(tmp_path: Path) -> None:
    """``source = "./"`` (a cycle Terraform refuses): ten such calls made 111,111 copies of the one resource."""
    text = "".join(f'module "m{i}" {{\n  source = "./"\n}}\n' for i in range(10)) + (
        'resource "kubernetes_deployment" "w" {\n  metadata {\n    name = "w"\n  }\n  spec {\n    container {\n'
        '      image = "a/w:1"\n    }\n  }\n}\n')
    root = write_tree(tmp_path / "p", {"infra/main.tf": text})
    assert [r.address for r in read_terraform(root, ["infra/main.tf"])] == ["kubernetes_deployment.w"]


def test_a_heredoc_inside_a_call_is_text() -> None:
    """``base64encode(<<EOT`` with a shell ``case`` (an unclosed ``)``) or a lone quote in its text: the call ended
    there (or the quote ran on), and the resource's next attributes and the next resource were lost."""
    for script in ('case "$1" in\n  start) run ;;\nesac', 'say "hi'):
        text = (f'resource "aws_instance" "a" {{\n  user_data = base64encode(<<-EOT\n{script}\n  EOT\n  )\n'
                '  ami = "x"\n}\nresource "aws_instance" "b" {\n  ami = "y"\n}\n')
        body = parse(text)
        assert [(b.labels[1], sorted(b.attrs)) for b in body.blocks] == [("a", ["ami", "user_data"]), ("b", ["ami"])]
        assert script in body.blocks[0].attrs["user_data"].raw


def test_lambda_variables_and_app_settings_from_a_variable_or_merge(tmp_path: Path) -> None:
    """``variables = var.environment_variables`` (how the Lambda modules write it) and ``app_settings = merge(...)``
    were read only as an object literal: nothing else gave a value."""
    module = """variable "function_name" {}
variable "environment_variables" {
  default = {}
}
resource "aws_lambda_function" "this" {
  function_name = var.function_name
  environment {
    variables = var.environment_variables
  }
}
"""
    root_tf = """locals {
  common = { LOG_LEVEL = "info" }
}
module "billing" {
  source                = "./modules/lambda"
  function_name         = "billing"
  environment_variables = { TABLE = "invoices" }
}
resource "azurerm_linux_web_app" "web" {
  name         = "web"
  app_settings = merge(local.common, { API_URL = "https://api.example.com" })
}
"""
    root = write_tree(tmp_path / "p", {"main.tf": root_tf, "modules/lambda/main.tf": module})
    found = {tuple(r.names): {e.name: (e.value, e.file) for e in r.env}
             for r in read_terraform(root, ["main.tf", "modules/lambda/main.tf"])}
    assert found[("billing",)] == {"TABLE": ("invoices", "main.tf")}
    assert found[("web",)] == {"LOG_LEVEL": ("info", "main.tf"), "API_URL": ("https://api.example.com", "main.tf")}


def test_a_file_that_leaves_a_block_open_gives_nothing_and_is_said(tmp_path: Path) -> None:
    """As every configuration reader does with a file it cannot parse (`services.unreadable`): a block never
    closed would take the resources after it in as nested blocks, so the file gives no resource and is listed."""
    from graphlore.toolsets.code.services.unreadable import unreadable_files

    write_tree(tmp_path, {
        "ok.tf": 'resource "aws_lambda_function" "a" {\n  function_name = "billing"\n'
                 '  environment {\n    variables = { TABLE = "invoices" }\n  }\n}\n',
        "broken/main.tf": 'resource "aws_lambda_function" "b" {\n  function_name = "orders"\n'
                          '  environment {\n    variables = { QUEUE = "jobs" }\n  }\n',
    })
    assert [r.names for r in read_terraform(tmp_path, ["ok.tf", "broken/main.tf"])] == [["billing"]]
    assert unreadable_files(tmp_path, {"": ["ok.tf"], "broken": ["main.tf"]}) == {
        "broken/main.tf": "Terraform: the block opened at line 1 is not closed at the end of the file"}
