"""What names a service and what is one: ``spring.application.name=${VAR}`` with no default is set where the
service runs, so it names nothing (the service keeps its build's name; ``${VAR:x}`` still gives ``x``); a .NET
console program (plain SDK, ``OutputType`` ``Exe``, no hosting package) inside a folder whose Dockerfile builds
the service beside it is a tool of that service's tree, not a deployable, and does not rename the service."""

from __future__ import annotations

from helpers.code_graph import render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

POM = """<project><modelVersion>4.0.0</modelVersion><groupId>com.shop</groupId><artifactId>{name}</artifactId>
<version>1</version><build><plugins><plugin><groupId>org.springframework.boot</groupId>
<artifactId>spring-boot-maven-plugin</artifactId></plugin></plugins></build></project>"""
JAVA = "package com.shop;\n\npublic class App {\n    public static void main(String[] args) {}\n}\n"
WEB = '<Project Sdk="Microsoft.NET.Sdk.Web"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>'
CONSOLE = """<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputType>Exe</OutputType></PropertyGroup>
<ItemGroup><PackageReference Include="Microsoft.Azure.CosmosDB.BulkExecutor" Version="2.3.0" /></ItemGroup></Project>"""
HOSTED = """<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputType>Exe</OutputType></PropertyGroup>
<ItemGroup><PackageReference Include="Microsoft.Extensions.Hosting" Version="8.0.0" /></ItemGroup></Project>"""
MAIN = "namespace X;\n\npublic static class Program\n{\n    public static async Task Main(string[] args) { }\n}\n"
DOCKERFILE = "FROM mcr.microsoft.com/dotnet/aspnet:8.0\nCOPY Scheduler.Service/. ./\n"


def _services(root) -> dict[str, str]:
    return {line.split()[1]: line for line in render(CodeGraph.build(root)) if line.startswith("S ")}


def test_an_unset_application_name_and_a_console_tool_name_no_service(tmp_path):
    write_tree(tmp_path, {
        "ingestion/pom.xml": POM.format(name="ingestion"), "ingestion/Dockerfile": "FROM eclipse-temurin\n",
        "ingestion/src/main/java/com/shop/App.java": JAVA,
        "ingestion/src/main/resources/application.properties": "spring.application.name=${CONTAINER_NAME}\n",
        "orders/pom.xml": POM.format(name="orders-app"), "orders/src/main/java/com/shop/App.java": JAVA,
        "orders/src/main/resources/application.properties": "spring.application.name=${APP_NAME:orders}\n",
        "scheduler/Dockerfile": DOCKERFILE,
        "scheduler/Scheduler.Service/Scheduler.Service.csproj": WEB,
        "scheduler/Scheduler.Service/Program.cs": MAIN.replace("X", "Scheduler.Service"),
        "scheduler/Scheduler.BulkImport/Scheduler.BulkImport/Scheduler.BulkImport.csproj": CONSOLE,
        "scheduler/Scheduler.BulkImport/Scheduler.BulkImport/Program.cs": MAIN.replace("X", "Scheduler.BulkImport"),
        "seeder/Seeder.csproj": CONSOLE, "seeder/Program.cs": MAIN.replace("X", "Seeder"),
        "worker/Dockerfile": "FROM mcr.microsoft.com/dotnet/runtime:8.0\n",
        "worker/Worker.Host/Worker.Host.csproj": HOSTED, "worker/Worker.Host/Program.cs": MAIN.replace("X", "W"),
    })
    services = _services(tmp_path)
    assert "ingestion" in services and "deployable=True" in services["ingestion"]
    assert not any("${" in name for name in services)
    assert "orders" in services   # a placeholder's default still names it
    # the Dockerfile's folder is the scheduler service; the bulk import tool beside it is none
    assert "scheduler" in services and "deployable=True" in services["scheduler"]
    assert not any("BulkImport" in name for name in services)
    # a console program no Dockerfile surrounds stays what it was: a deployable of its own
    assert "deployable=True" in services["Seeder"]
    # a console program running a host is the service its Dockerfile's folder names
    assert "deployable=True" in services["worker"]


def test_a_console_program_a_dockerfile_around_it_builds_stays_a_service(tmp_path):
    write_tree(tmp_path, {
        "app/Dockerfile": "FROM mcr.microsoft.com/dotnet/sdk:8.0\nCOPY Web Web\nRUN dotnet publish Web/Web.csproj\n",
        "app/Dockerfile.worker": "FROM mcr.microsoft.com/dotnet/sdk:8.0\nCOPY Worker Worker\n"
                                 "RUN dotnet publish Worker/Worker.csproj\n",
        "app/Web/Web.csproj": WEB, "app/Web/Program.cs": MAIN.replace("X", "Web"),
        "app/Worker/Worker.csproj": CONSOLE, "app/Worker/Program.cs": MAIN.replace("X", "Worker"),
        "docker-compose.yml": "services:\n  web:\n    build: ./app\n  worker:\n    build:\n      context: ./app\n"
                              "      dockerfile: Dockerfile.worker\n"})
    services = _services(tmp_path)
    # Dockerfile.worker publishes the console program: a service of its own, beside the web one
    assert "deployable=True" in services["Worker"] and "deployable=True" in services["Web"]
