"""A Helm install whose values file a script variable names (``-f $valuesFile``, ``--values $VALUES``, ``-f %FILE%``)
takes each literal value the script assigns it, from the folder the script changes into (``cd``, ``pushd``,
``Push-Location $(Join-Path .. helm)``), a command written inside a string (``$command = "helm upgrade ..."``) too;
a variable the script computes stays unread (never a guessed file)."""

from __future__ import annotations

import os
from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.services import helm

CHART = {"deploy/helm/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
         "deploy/helm/web/values.yaml": "api:\n  url: http://localhost\n",
         "deploy/helm/web/templates/deployment.yaml": "kind: Deployment\n",
         "deploy/helm/shared.yaml": "api:\n  url: http://api\n"}


def _installs(root: Path) -> list[tuple[str, list[str], str]]:
    paths = [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs]
    charts = helm.find_charts(root, paths)
    commands = [i for rel in helm.command_files(root, paths, charts)
                for i in helm.install_commands((root / rel).read_text(), rel)]
    [web] = charts
    installs = helm.installs_of(web, commands, root)
    return [(v.label, v.files, v.values["api"]["url"]) for v in helm.variants(root, web, installs, charts)][1:]


def test_powershell_values_file_from_a_variable_in_the_folder_it_pushes(tmp_path: Path):
    script = ('param([string]$valuesFile = "")\nif (-not $valuesFile) {\n    $valuesFile="shared.yaml"\n}\n'
              "Push-Location $($MyInvocation.InvocationName | Split-Path)\nPush-Location $(Join-Path .. helm)\n"
              '$command = "helm upgrade --install $name-web web -f $valuesFile --set image.tag=$tag"\n'
              "cmd /c \"$command\"\nPop-Location\n")
    root = write_tree(tmp_path, {**CHART, "deploy/powershell/Deploy-Charts.ps1": script})
    assert _installs(root) == [(
        "deploy/helm/web/values.yaml + deploy/helm/shared.yaml + --set (helm command at "
        "deploy/powershell/Deploy-Charts.ps1:7)", ["deploy/helm/web/values.yaml", "deploy/helm/shared.yaml"],
        "http://api")]


def test_bash_and_cmd_values_files_from_variables_and_a_computed_one_unread(tmp_path: Path):
    bash = ('#!/bin/bash\nVALUES=shared.yaml\ncd "$(dirname "$0")/../helm"\nhelm upgrade web-a web --values $VALUES\n'
            "OTHER=$(ls *.yaml | head -1)\nhelm upgrade web-b web -f $OTHER\n")
    cmd = "set FILE=shared.yaml\npushd ..\\helm\nhelm install web-c web -f %FILE%\npopd\n"
    root = write_tree(tmp_path, {**CHART, "deploy/scripts/deploy.sh": bash, "deploy/scripts/deploy.cmd": cmd})
    found = {label.rsplit(" at ", 1)[1]: url for label, _, url in _installs(root)}
    assert found == {"deploy/scripts/deploy.cmd:3)": "http://api", "deploy/scripts/deploy.sh:4)": "http://api",
                     "deploy/scripts/deploy.sh:6)": "http://localhost"}   # $(ls ...): known when it runs only
