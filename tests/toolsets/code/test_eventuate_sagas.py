"""Eventuate Tram sagas: ``SagaInstanceFactory.create(saga, data)`` triggers the symbols that define the saga's steps,
and a step's ``invokeParticipant``/``withCompensation``/``notifyParticipant`` of a ``CommandEndpoint`` field
triggers that field (which declares the command's producer), so a trace runs from the code that starts a saga to
the participant's command handler; never a guess (a saga type a subclass may stand for, a receiver of another
type, a field of another type: no edge)."""

from __future__ import annotations

from helpers.code_graph import edit, render
from helpers.code_tools import node, run, write_tree

from graphlore.toolsets.code.index.graph import CodeGraph


def _java(package: str, body: str, *imports: str) -> str:
    return f"package {package};\n\n" + "".join(f"import {i};\n" for i in imports) + "\n" + body


SAGAS = "shop.orders.sagas"
TREE = {
    "kitchen-api/build.gradle": "apply plugin: 'java-library'\n",
    "kitchen-api/src/main/java/shop/kitchen/api/KitchenChannels.java": _java(
        "shop.kitchen.api", "public class KitchenChannels {\n  public static final String COMMANDS = \"kitchen\";\n}\n"),
    "orders/Dockerfile": "FROM scratch\n",
    "orders/src/main/java/shop/orders/sagas/KitchenProxy.java": _java(SAGAS, """public class KitchenProxy {
  public final CommandEndpoint<OpenTicket> open = CommandEndpointBuilder
          .forCommand(OpenTicket.class)
          .withChannel(KitchenChannels.COMMANDS)
          .build();
  public final CommandEndpoint<DropTicket> drop = CommandEndpointBuilder
          .forCommand(DropTicket.class)
          .withChannel(KitchenChannels.COMMANDS)
          .build();
  public final String name = "kitchen";
}
""", "io.eventuate.tram.sagas.simpledsl.CommandEndpoint", "io.eventuate.tram.sagas.simpledsl.CommandEndpointBuilder",
        "shop.kitchen.api.KitchenChannels"),
    # the definition built in the constructor from a participant proxy handed in
    "orders/src/main/java/shop/orders/sagas/PlaceOrderSaga.java": _java(SAGAS, """public class PlaceOrderSaga implements SimpleSaga<PlaceOrderState> {
  private SagaDefinition<PlaceOrderState> definition;

  public PlaceOrderSaga(KitchenProxy kitchen) {
    this.definition = step()
        .invokeParticipant(kitchen.open, PlaceOrderState::openTicket)
        .withCompensation(kitchen.drop, PlaceOrderState::dropTicket)
        .build();
  }

  public SagaDefinition<PlaceOrderState> getSagaDefinition() { return definition; }
}
""", "io.eventuate.tram.sagas.orchestration.SagaDefinition", "io.eventuate.tram.sagas.simpledsl.SimpleSaga"),
    # the definition built in a method, from a proxy held in a field
    "orders/src/main/java/shop/orders/sagas/RefundSaga.java": _java(SAGAS, """public class RefundSaga implements SimpleSaga<RefundState> {
  private final KitchenProxy kitchen = new KitchenProxy();

  public SagaDefinition<RefundState> getSagaDefinition() {
    return step().invokeParticipant(this.kitchen.drop, RefundState::dropTicket).build();
  }
}
""", "io.eventuate.tram.sagas.orchestration.SagaDefinition", "io.eventuate.tram.sagas.simpledsl.SimpleSaga"),
    # a saga type a subclass extends: which class the object is, is not known
    "orders/src/main/java/shop/orders/sagas/BaseSaga.java": _java(SAGAS, """public class BaseSaga implements SimpleSaga<Object> {
  public SagaDefinition<Object> getSagaDefinition() { return step().build(); }
}
class AuditedSaga extends BaseSaga { }
""", "io.eventuate.tram.sagas.orchestration.SagaDefinition", "io.eventuate.tram.sagas.simpledsl.SimpleSaga"),
    "orders/src/main/java/shop/orders/OrderService.java": _java("shop.orders", """public class OrderService {
  private SagaInstanceFactory sagaInstanceFactory;
  private PlaceOrderSaga placeOrderSaga;
  private BaseSaga baseSaga;
  private Registry registry;

  public void place(PlaceOrderState data) {
    sagaInstanceFactory.create(placeOrderSaga, data);
  }

  public void refund(RefundSaga saga, RefundState data) {
    sagaInstanceFactory.create(saga, data);
  }

  public void other(Object data) {
    sagaInstanceFactory.create(baseSaga, data);
    registry.create(placeOrderSaga, data);
  }
}
""", "io.eventuate.tram.sagas.orchestration.SagaInstanceFactory", "shop.orders.sagas.PlaceOrderSaga",
        "shop.orders.sagas.RefundSaga", "shop.orders.sagas.BaseSaga"),
    "kitchen/Dockerfile": "FROM scratch\n",
    "kitchen/src/main/java/shop/kitchen/KitchenCommandHandler.java": _java("shop.kitchen", """public class KitchenCommandHandler {
  public CommandHandlers commandHandlers() {
    return SagaCommandHandlersBuilder
            .fromChannel(KitchenChannels.COMMANDS)
            .onMessage(OpenTicket.class, this::openTicket)
            .build();
  }

  Object openTicket(Object cm) { return null; }
}
""", "io.eventuate.tram.commands.consumer.CommandHandlers", "io.eventuate.tram.sagas.participant.SagaCommandHandlersBuilder",
        "shop.kitchen.api.KitchenChannels"),
}


def _triggers(graph: CodeGraph) -> set[tuple[str, str, str]]:
    nodes, edges = graph.snapshot()
    simple = {i: n.props.get("fqn", "").split("(")[0].rsplit(".", 1)[-1] for i, n in nodes.items()}
    return {(e.props["kind"], simple[e.src], simple[e.dst]) for e in edges.values()
            if e.type == "TRIGGERS" and e.props.get("kind", "").startswith("saga_")}


def test_a_saga_start_triggers_its_steps_and_a_step_triggers_the_endpoint_it_sends(tmp_path):
    graph = CodeGraph.build(write_tree(tmp_path, TREE))
    assert _triggers(graph) == {
        ("saga_start", "OrderService#place", "PlaceOrderSaga#PlaceOrderSaga"),   # a field of the saga's class
        ("saga_start", "OrderService#refund", "RefundSaga#getSagaDefinition"),   # a parameter of it
        ("saga_step", "PlaceOrderSaga#PlaceOrderSaga", "KitchenProxy#open"),     # a proxy handed to the constructor
        ("saga_step", "PlaceOrderSaga#PlaceOrderSaga", "KitchenProxy#drop"),     # a compensation sends one too
        ("saga_step", "RefundSaga#getSagaDefinition", "KitchenProxy#drop"),      # a proxy held in a field
    }   # not BaseSaga (a subclass may be the object), not Registry.create (not the saga factory)
    # the saga's class gains a subclass: which class the object is, is no longer known; an update equals a build
    edit(tmp_path, "orders/src/main/java/shop/orders/sagas/BaseSaga.java", "class AuditedSaga extends BaseSaga { }",
         "class AuditedSaga extends BaseSaga { }\nclass LoudRefund extends RefundSaga { }")
    graph.update()
    assert ("saga_start", "OrderService#refund", "RefundSaga#getSagaDefinition") not in _triggers(graph)
    assert render(graph) == render(CodeGraph.build(tmp_path))


def test_a_trace_runs_from_the_saga_start_to_the_participants_command_handler(tmp_path, runtime):
    project = (runtime, write_tree(tmp_path, TREE))
    out = run(*project, "paths", from_id=node(project, "OrderService.place"),
              to_id=node(project, "KitchenCommandHandler.openTicket"))
    hops = [(h.edge, h.target.label.rsplit(".", 1)[-1]) for h in out.paths[0].hops]
    # both endpoints the saga sends go to the kitchen channel: either is a way there
    assert hops[1] in {("TRIGGERS", "KitchenProxy#open"), ("TRIGGERS", "KitchenProxy#drop")}
    assert hops[:1] + hops[2:] == [
        ("TRIGGERS", "PlaceOrderSaga#PlaceOrderSaga(KitchenProxy)"), ("DECLARES_PRODUCER", "eventuate kitchen"),
        ("ASYNC_CALLS", "eventuate kitchen"), ("EXPOSED_BY", "KitchenCommandHandler#commandHandlers()"),
        ("CALLS", "KitchenCommandHandler#openTicket(Object)")]
