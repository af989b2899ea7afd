"""MicroProfile Reactive Messaging: a channel one application both writes (``@Outgoing``, an ``Emitter``) and reads
(``@Incoming``, a ``@Channel`` stream) with no connector configured is wired in memory, so neither end is a
producer or a listener; a channel with a connector, or whose other end is in another service, stays a topic."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

STATS = '''package com.acme.stats;

import io.smallrye.mutiny.Multi;
import io.smallrye.reactive.messaging.MutinyEmitter;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Outgoing;

public class Stats {
    static final String WINNERS = "winner-stats";
    private final MutinyEmitter<String> teams;

    public Stats(@Channel("team-stats") MutinyEmitter<String> teams) {
        this.teams = teams;
    }

    @Incoming("fights")
    @Outgoing(WINNERS)
    public Multi<String> process(Multi<String> fights) {
        return fights;
    }

    @Incoming("fights")
    public void count(String fight) {
        teams.sendAndForget(fight);
    }

    @Outgoing("audit")
    public Multi<String> audit() {
        return Multi.createFrom().empty();
    }

    @Outgoing("ranking")
    public Multi<String> ranking() {
        return Multi.createFrom().empty();
    }
}
'''

HOLDERS = '''package com.acme.stats;

import io.smallrye.mutiny.Multi;
import jakarta.inject.Inject;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Incoming;

class Holders {
    @Inject
    @Channel("winner-stats")
    Multi<String> winners;

    @Inject
    @Channel("team-stats")
    Multi<String> teams;

    @Incoming("ranking")
    void ranked(String r) {}
}
'''

SETTINGS = '''mp.messaging.incoming.fights.connector=smallrye-kafka
mp.messaging.incoming.fights.topic=fights
mp.messaging.outgoing.ranking.connector=smallrye-kafka
'''


def test_a_channel_both_ends_of_which_are_in_the_application_is_no_topic(tmp_path: Path):
    root = write_tree(tmp_path, {
        "stats/pom.xml": "<project><artifactId>stats</artifactId></project>\n",
        "stats/Dockerfile": "FROM scratch\n",
        "stats/src/main/resources/application.properties": SETTINGS,
        "stats/src/main/java/com/acme/stats/Stats.java": STATS,
        "stats/src/main/java/com/acme/stats/Holders.java": HOLDERS})
    nodes, _ = CodeGraph.build(root).snapshot()
    found = sorted((n.kind, n.props["topic"], n.props["line"]) for n in nodes.values()
                   if n.props.get("framework") == "smallrye_messaging" or n.props.get("producer_kind") == "smallrye_messaging")
    assert found == [
        # audit: no connector and no reader here (Quarkus binds it to its one connector, or another service reads it)
        ("producer", "audit", 28),
        # ranking: a connector for the outgoing side, so a topic although Holders reads it too
        ("producer", "ranking", 33),
        ("route", "fights", 17), ("route", "fights", 23),
        ("route", "ranking", 17)]
