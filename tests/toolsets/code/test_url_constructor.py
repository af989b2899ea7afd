"""``java.net.URL(protocol, host, port, file)`` folds to ``protocol://host:port`` + ``file``, as the constructor
documents (Kotlin ``URL(..)``, Java ``new URL(..)``), with a port converted to a number (``port.toInt()``,
``Integer.parseInt(port)``) written as it was: a Micronaut ``HttpClient.create(URL(..))`` built from ``@Value``
settings reaches the service the settings name."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

GRADLE = 'plugins { kotlin("jvm") version "1.9.0"; id("io.micronaut.application") version "4.0.0" }\n'

KOTLIN = """package com.acme.documents

import io.micronaut.context.annotation.Value
import io.micronaut.http.HttpRequest
import io.micronaut.http.client.HttpClient
import java.net.URL
import jakarta.inject.Singleton

@Singleton
class ReportGenerator {

    private val uri: String = "/api/report"

    @Value("\\${reports.host}")
    private lateinit var host: String

    @Value("\\${reports.port}")
    private lateinit var port: String

    fun generate(body: Any): String {
        val client = HttpClient.create(URL("http", host, port.toInt(), ""))
        return client.toBlocking().retrieve(HttpRequest.POST(uri, body))
    }
}
"""

JAVA = """package com.acme.documents;

import io.micronaut.context.annotation.Value;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import java.net.URL;
import jakarta.inject.Singleton;

@Singleton
public class Archiver {

    @Value("${reports.host}")
    String host;

    @Value("${reports.port}")
    String port;

    public String archive(Object body) throws Exception {
        HttpClient client = HttpClient.create(new URL("http", host, Integer.parseInt(port), "/archive"));
        return client.toBlocking().retrieve(HttpRequest.POST("/items", body));
    }
}
"""

REPORTS = '''from flask import Flask

app = Flask(__name__)


@app.post("/api/report")
def report():
    return {}


@app.post("/archive/items")
def archive():
    return {}
'''


def test_a_url_built_from_protocol_host_and_port_reaches_the_named_service(tmp_path: Path):
    root = write_tree(tmp_path / "shop", {
        "documents/build.gradle.kts": GRADLE,
        "documents/src/main/kotlin/com/acme/documents/ReportGenerator.kt": KOTLIN,
        "documents/src/main/java/com/acme/documents/Archiver.java": JAVA,
        "documents/src/main/resources/application.yml":
            "micronaut:\n  application:\n    name: documents\nreports:\n  host: reports\n  port: 8000\n",
        "reports/Dockerfile": "FROM python:3.12\n", "reports/requirements.txt": "flask\n", "reports/app.py": REPORTS})
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = sorted((n.props["file"].rsplit("/", 1)[-1], n.props["label"], n.props["match"])
                     for n in nodes.values() if n.kind == "client")
    assert clients == [("Archiver.java", "POST reports /archive/items", "cross_service"),
                       ("ReportGenerator.kt", "POST reports /api/report", "cross_service")]


THREE = """package com.acme.documents;

import io.micronaut.context.annotation.Value;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import java.net.URL;
import jakarta.inject.Singleton;

@Singleton
public class %s {

    @Value("${reports.host}")
    String host;

    public String send(Object body) throws Exception {
        HttpClient client = HttpClient.create(%s);
        return client.toBlocking().retrieve(HttpRequest.POST("/items", body));
    }
}
"""


def test_the_three_argument_forms_are_not_taken_for_a_port(tmp_path: Path):
    """``URL(protocol, host, file)`` has no port (before: ``http://reports:/archive``, the file read as the port);
    ``URL(context, spec, handler)`` is not a protocol and a host (before: ``{?}:///archive:{null}``): not folded."""
    root = write_tree(tmp_path / "shop", {
        "documents/build.gradle.kts": GRADLE.replace('kotlin("jvm") version "1.9.0"; ', ""),
        "documents/src/main/java/com/acme/documents/Files.java":
            THREE % ("Files", 'new URL("http", host, "/archive")'),
        "documents/src/main/java/com/acme/documents/Handled.java":
            THREE % ("Handled", 'new URL(new URL("http://reports:8000/"), "/archive", null)'),
        "documents/src/main/resources/application.yml":
            "micronaut:\n  application:\n    name: documents\nreports:\n  host: reports\n",
        "reports/Dockerfile": "FROM python:3.12\n", "reports/requirements.txt": "flask\n", "reports/app.py": REPORTS})
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = {n.props["file"].rsplit("/", 1)[-1]: n.props for n in nodes.values() if n.kind == "client"}
    assert (clients["Files.java"]["label"], clients["Files.java"]["target_url"]) == \
        ("POST reports /archive/items", "http://reports/archive/items")
    assert clients["Handled.java"]["match"] == "unresolved"
    assert "the result of URL(...)" in clients["Handled.java"]["match_detail"], clients["Handled.java"]


def test_a_url_given_as_its_text_is_followed(tmp_path: Path):
    """``new URL(..).toString()`` (a client that takes a string) is the URL's text (before: "not a constant
    expression")."""
    root = write_tree(tmp_path / "shop", {
        "documents/build.gradle.kts": GRADLE.replace('kotlin("jvm") version "1.9.0"; ', ""),
        "documents/src/main/java/com/acme/documents/Text.java":
            THREE % ("Text", 'new URL("http", host, 8000, "/archive").toString()'),
        "documents/src/main/resources/application.yml":
            "micronaut:\n  application:\n    name: documents\nreports:\n  host: reports\n",
        "reports/Dockerfile": "FROM python:3.12\n", "reports/requirements.txt": "flask\n", "reports/app.py": REPORTS})
    nodes, _ = CodeGraph.build(root).snapshot()
    [client] = [n.props for n in nodes.values() if n.kind == "client"]
    assert (client["label"], client["match"]) == ("POST reports /archive/items", "cross_service"), client
