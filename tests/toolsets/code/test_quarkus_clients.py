"""Quarkus clients whose URL is out of a method's sight: the JAX-RS client API on a ``WebTarget`` a constructor
builds into a field (``this.villains = client.target(config.villain().baseUrl()).path("api/villains")``) and a
method narrows into a local (``var target = this.villains.path("random")``), its base URL from a SmallRye
``@ConfigMapping`` interface (kebab-case keys, nested interfaces, ``@WithDefault``) whose setting is a Stork URL."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph


def _pom(name: str) -> str:
    return (f"<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>{name}</artifactId>"
            "<version>1</version></project>\n")


VILLAINS = '''package com.acme.villains;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

@Path("/api/villains")
public class VillainResource {
    @GET
    @Path("/random")
    public String random() { return ""; }

    @GET
    @Path("/hello")
    public String hello() { return ""; }
}
'''

CONFIG = '''package com.acme.fights.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "fight")
public interface FightConfig {
    Villain villain();

    Hero hero();

    interface Villain {
        String clientBaseUrl();
    }

    interface Hero {
        @WithDefault("http://heroes:8080")
        String baseUrl();
    }
}
'''

MODEL = '''package com.acme.fights;

public class Villain {
    private String clientBaseUrl;
}
'''

CLIENT = '''package com.acme.fights;

import com.acme.fights.config.FightConfig;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.WebTarget;

public class VillainClient {
    private final WebTarget villains;
    private final WebTarget heroes;

    public VillainClient(FightConfig config) {
        this.villains = ClientBuilder.newClient()
            .target(config.villain().clientBaseUrl())
            .path("api/villains/");
        this.heroes = ClientBuilder.newClient().target(config.hero().baseUrl());
    }

    public String random() {
        var target = this.villains.path("random");
        return target.request().get(String.class);
    }

    public String hello() {
        return this.villains.path("hello").request().get(String.class);
    }

    public String hero() {
        return heroes.path("api/heroes/random").request().get(String.class);
    }
}
'''

PROPS = '''fight.villain.client-base-url=stork://villain-service
quarkus.stork.villain-service.service-discovery.address-list=villains:8084
'''


def _fights(tmp_path: Path, fights: dict[str, str]) -> Path:
    """The villains service and a fights service of the given files."""
    return write_tree(tmp_path, {
        "villains/pom.xml": _pom("villains"),
        "villains/Dockerfile": "FROM eclipse-temurin:21\n",
        "villains/src/main/java/com/acme/villains/VillainResource.java": VILLAINS,
        "fights/pom.xml": _pom("fights"),
        "fights/Dockerfile": "FROM eclipse-temurin:21\n",
        **fights,
    })


def test_a_webtarget_built_in_a_constructor_from_a_config_mapping(tmp_path: Path):
    root = _fights(tmp_path, {
        "fights/src/main/resources/application.properties": PROPS,
        "fights/src/main/java/com/acme/fights/config/FightConfig.java": CONFIG,
        "fights/src/main/java/com/acme/fights/Villain.java": MODEL,   # a type of the nested interface's name
        "fights/src/main/java/com/acme/fights/VillainClient.java": CLIENT,
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    clients = {p["declaring_fqn"].rsplit("#", 1)[-1]: p for p in (n.props for n in nodes.values() if n.kind == "client")}
    got = {name: (p["target_service"], p["target_path_template"], p["match"]) for name, p in clients.items()}
    assert got == {
        "random()": ("villains", "/api/villains/random", "cross_service"),   # a local narrowed from the field
        "hello()": ("villains", "/api/villains/hello", "cross_service"),     # the field, narrowed in the chain
        "hero()": ("heroes", "/api/heroes/random", "unresolved"),           # @WithDefault: no such service
    }, got
    assert clients["random()"]["target_url"].startswith("http://villains:8084/api/villains/")   # Stork's address
    assert "'heroes' is not a microservice" in clients["hero()"]["match_detail"]
    assert len([e for e in edges.values() if e.type == "HTTP_CALLS"]) == 2


STATS = '''package com.acme.stats;

import org.eclipse.microprofile.reactive.messaging.Incoming;

public class Stats {
    static final String FIGHTS = "fights";

    @Incoming(FIGHTS)
    public void onFight(String fight) { }
}
'''

FIGHT_SERVICE = '''package com.acme.fights;

import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.annotations.Broadcast;
import org.eclipse.microprofile.reactive.messaging.Channel;

public class FightService {
    private final MutinyEmitter<String> emitter;

    public FightService(Object other, @Broadcast @Channel("fights") MutinyEmitter<String> emitter) {
        this.emitter = emitter;
    }

    public Uni<String> perform(Uni<String> fight) {
        return fight.invoke(this.emitter::sendAndForget);
    }
}
'''


def test_an_emitter_injected_by_constructor_and_sent_by_method_reference(tmp_path: Path):
    root = write_tree(tmp_path, {
        "stats/pom.xml": _pom("stats"),
        "stats/Dockerfile": "FROM eclipse-temurin:21\n",
        "stats/src/main/resources/application.properties": (
            "mp.messaging.incoming.fights.connector=smallrye-kafka\nmp.messaging.incoming.fights.topic=fight-log\n"),
        "stats/src/main/java/com/acme/stats/Stats.java": STATS,
        "fights/pom.xml": _pom("fights"),
        "fights/Dockerfile": "FROM eclipse-temurin:21\n",
        "fights/src/main/resources/application.properties": (
            "mp.messaging.outgoing.fights.connector=smallrye-kafka\nmp.messaging.outgoing.fights.topic=fight-log\n"),
        "fights/src/main/java/com/acme/fights/FightService.java": FIGHT_SERVICE,
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    producers = [(p["label"], p["line"], p["match"]) for p in (n.props for n in nodes.values() if n.kind == "producer")]
    assert producers == [("kafka fight-log", 17, "cross_service")]
    by_id = {n.id: n for n in nodes.values()}
    assert [by_id[e.dst].props["handler_fqn"] for e in edges.values() if e.type == "ASYNC_CALLS"] == [
        "com.acme.stats.Stats#onFight(String)"]


NAMED_CONFIG = '''package com.acme.fights.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;

@ConfigMapping(prefix = "fight")
public interface FightConfig {
    String villainURL();

    @WithName("heroes-url")
    String heroes();
}
'''

NAMED_CLIENT = '''package com.acme.fights;

import com.acme.fights.config.FightConfig;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.WebTarget;

public class VillainClient {
    private final WebTarget villains;
    private final WebTarget heroes;

    public VillainClient(FightConfig config) {
        this.villains = ClientBuilder.newClient().target(config.villainURL());
        this.heroes = ClientBuilder.newClient().target(config.heroes());
    }

    public String random() {
        return this.villains.path("api/villains/random").request().get(String.class);
    }

    public String hero() {
        return heroes.path("api/villains/hello").request().get(String.class);
    }
}
'''


def test_a_config_mapping_method_reads_its_with_name_key(tmp_path: Path):
    """``@WithName("heroes-url") heroes()`` reads ``fight.heroes-url`` (never ``fight.heroes``, a key left over);
    ``villainURL()`` reads ``fight.villain-url``."""
    root = _fights(tmp_path, {
        "fights/src/main/resources/application.properties": (
            "fight.villain-url=http://villains:8084\nfight.heroes-url=http://heroes:8080\n"
            "fight.heroes=http://villains:8084\n"),
        "fights/src/main/java/com/acme/fights/config/FightConfig.java": NAMED_CONFIG,
        "fights/src/main/java/com/acme/fights/VillainClient.java": NAMED_CLIENT,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = {p["declaring_fqn"].rsplit("#", 1)[-1]: p for p in (n.props for n in nodes.values() if n.kind == "client")}
    got = {name: (p["target_service"], p["match"]) for name, p in clients.items()}
    assert got == {"random()": ("villains", "cross_service"), "hero()": ("heroes", "unresolved")}, got
    assert clients["random()"]["target_url"] == "http://villains:8084/api/villains/random"


BRANCHED = '''package com.acme.fights;

import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.WebTarget;

public class VillainClient {
    private final Client client = ClientBuilder.newClient();

    public String random(boolean hero) {
        WebTarget target;
        if (hero) {
            target = client.target("http://heroes:8080");
        } else {
            target = client.target("http://villains:8080");
        }
        return target.path("api/villains/random").request().get(String.class);
    }
}
'''


def test_a_webtarget_local_assigned_in_two_branches_is_not_known(tmp_path: Path):
    """Which branch ran is not in the code: the last assignment is no more the value than the first."""
    root = _fights(tmp_path, {
        "fights/src/main/java/com/acme/fights/VillainClient.java": BRANCHED,
    })
    nodes, edges = CodeGraph.build(root).snapshot()
    [client] = [n.props for n in nodes.values() if n.kind == "client"]
    assert (client["target_service"], client["match"]) == (None, "unresolved")
    assert "assignments it may come from differ" in client["match_detail"]
    assert not [e for e in edges.values() if e.type == "HTTP_CALLS"]
