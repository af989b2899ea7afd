"""Azure Service Bus and Event Hubs as messaging: senders (C# ``CreateSender``, a Java builder's ``.sender()``, the
earlier SDKs' ``QueueClient`` where the service sends on one, Node ``createSender``, Python ``get_queue_sender``,
``EventHubProducerClient``) are producers, processors and receivers listener routes; a producer links to the
listeners of the same queue, topic or hub exactly, and a name that does not fold links to nothing."""

from __future__ import annotations

from helpers.code_graph import render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

POM = """<project><modelVersion>4.0.0</modelVersion><groupId>com.shop</groupId><artifactId>{name}</artifactId>
<version>1</version></project>"""
WORKER = '<Project Sdk="Microsoft.NET.Sdk.Worker"></Project>'

INGEST = """package com.shop.ingest;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.eventhubs.EventHubClientBuilder;
import com.azure.messaging.eventhubs.EventHubProducerClient;

public class Ingest {
    private static final String QUEUE = "deliveries";

    public void accept(String cs, String body) {
        ServiceBusSenderClient sender = new ServiceBusClientBuilder()
            .connectionString(cs)
            .sender()
            .queueName(QUEUE)
            .buildClient();
        sender.sendMessage(new ServiceBusMessage(body));
    }

    public void telemetry(String cs) {
        EventHubProducerClient hub = new EventHubClientBuilder().connectionString(cs, "telemetry").buildProducerClient();
    }

    public void nowhere(String cs, String name) {
        new ServiceBusClientBuilder().connectionString(cs).sender().topicName(name).buildClient();
    }
}
"""

POOL = """package com.shop.ingest;

import com.microsoft.azure.servicebus.QueueClient;
import com.microsoft.azure.servicebus.ReceiveMode;
import com.microsoft.azure.servicebus.primitives.ConnectionStringBuilder;

public class Pool {
    public Sender open(String namespace) throws Exception {
        ConnectionStringBuilder builder = new ConnectionStringBuilder(namespace, "returns");
        return new Sender(new QueueClient(builder, ReceiveMode.PEEKLOCK));
    }
}
"""

SENDER = """package com.shop.ingest;

import com.microsoft.azure.servicebus.IMessage;
import com.microsoft.azure.servicebus.IQueueClient;

public class Sender {
    private final IQueueClient client;

    public Sender(IQueueClient client) { this.client = client; }

    public void send(IMessage message) { this.client.sendAsync(message); }
}
"""

WORKFLOW = """using System.Threading.Tasks;
using Azure.Messaging.ServiceBus;
using Azure.Messaging.EventHubs;

namespace Shop.Workflow;

public class Worker
{
    private readonly ServiceBusClient _client;

    public Worker(ServiceBusClient client) { _client = client; }

    public async Task StartAsync()
    {
        var processor = _client.CreateProcessor("deliveries", new ServiceBusProcessorOptions());
        processor.ProcessMessageAsync += OnDelivery;
        await processor.StartProcessingAsync();
        var returns = _client.CreateReceiver("returns");
        var audit = _client.CreateProcessor("audit", "workflow");
    }

    private Task OnDelivery(ProcessMessageEventArgs args) => Task.CompletedTask;

    public void Hub(BlobContainerClient blobs, string cs)
    {
        var events = new EventProcessorClient(blobs, "$Default", cs, "telemetry");
    }
}
"""

NOTIFY = """import { ServiceBusClient } from "@azure/service-bus";

const client = new ServiceBusClient(process.env.SB_CONNECTION);

export async function notify(body) {
  const sender = client.createSender("audit");
  await sender.sendMessages({ body });
}
"""

REPORT = """from azure.servicebus import ServiceBusClient


def report(conn, body):
    with ServiceBusClient.from_connection_string(conn) as client:
        with client.get_queue_sender(queue_name="reports") as sender:
            sender.send_messages(body)
"""

OTHER = """namespace Shop.Workflow;

public class Mailer
{
    private readonly SmtpPool _pool;

    public void Send() => _pool.CreateSender("deliveries");
}
"""


def test_service_bus_and_event_hubs_link_by_queue_topic_and_hub(tmp_path):
    write_tree(tmp_path, {
        "ingest/pom.xml": POM.format(name="ingest"),
        "ingest/src/main/java/com/shop/ingest/Ingest.java": INGEST,
        "ingest/src/main/java/com/shop/ingest/Pool.java": POOL,
        "ingest/src/main/java/com/shop/ingest/Sender.java": SENDER,
        "workflow/workflow.csproj": WORKER, "workflow/Worker.cs": WORKFLOW, "workflow/Mailer.cs": OTHER,
        "notify/package.json": '{"name": "notify", "dependencies": {"@azure/service-bus": "7"}}',
        "notify/index.js": NOTIFY,
        "report/requirements.txt": "azure-servicebus\n", "report/Dockerfile": "FROM python\n",
        "report/report.py": REPORT})
    lines = render(CodeGraph.build(tmp_path))
    links = sorted(line for line in lines if line.startswith("E ASYNC_CALLS"))
    assert links == [
        "E ASYNC_CALLS producer:eventhubs telemetry -> route:eventhubs telemetry [cross_service]",
        "E ASYNC_CALLS producer:servicebus audit -> route:servicebus audit [cross_service]",
        "E ASYNC_CALLS producer:servicebus deliveries -> route:servicebus deliveries [cross_service]",
        "E ASYNC_CALLS producer:servicebus returns -> route:servicebus returns [cross_service]"]
    routes = [line for line in lines if line.startswith("R servicebus") or line.startswith("R eventhubs")]
    # the processor's handler is the method its ProcessMessageAsync is given
    assert any(line.startswith("R servicebus deliveries framework=azure_service_bus "
                               "handler=Shop.Workflow.Worker.OnDelivery ") for line in routes), routes
    producers = [line for line in lines if line.startswith("P ")]
    # a name that does not fold: unresolved, linked to nothing; another type's CreateSender is no producer
    assert any(line.startswith("P servicebus {?} kind=azure_service_bus from=com.shop.ingest.Ingest#nowhere")
               and "match=unresolved" in line for line in producers), producers
    assert not any("Mailer" in line for line in producers)
    # a listener nobody sends to stays a route, unlinked; the Python sender has no listener
    assert any(line.startswith("P servicebus reports kind=azure_service_bus") and "match=unresolved" in line
               for line in producers), producers


LEGACY_SEND = """using Microsoft.Azure.ServiceBus;

namespace Shop.Orders;

public class Publisher
{
    private readonly TopicClient _topic = new TopicClient("Endpoint=sb://x/", "order-events");
    private readonly QueueClient _queue;

    public Publisher(string connection) { _queue = new QueueClient(connection, "invoices"); }

    public Task Send(Message message) => _queue.SendAsync(message);
}
"""

LEGACY_LISTEN = """using Microsoft.Azure.ServiceBus;

namespace Shop.Billing;

public class Listener
{
    public void Start(string connection)
    {
        var invoices = new QueueClient(connection, "invoices");
        invoices.RegisterMessageHandler(Handle, new MessageHandlerOptions(e => Task.CompletedTask));
        var events = new SubscriptionClient(connection, "order-events", "billing");
    }

    private Task Handle(Message m, CancellationToken t) => Task.CompletedTask;
}
"""

PROCESSOR = """package com.shop.audit;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;

public class Audit {
    public ServiceBusProcessorClient start(String cs) {
        ServiceBusClientBuilder builder = new ServiceBusClientBuilder().connectionString(cs);
        return builder.processor().topicName("order-events")
            .subscriptionName("audit").processMessage(c -> {}).processError(e -> {}).buildProcessorClient();
    }
}
"""

HUB_SEND = """const { EventHubProducerClient } = require("@azure/event-hubs");

const producer = new EventHubProducerClient(process.env.EH_CONNECTION, "clicks");

async function track(event) { await producer.sendBatch([event]); }
"""

HUB_READ = """from azure.eventhub import EventHubConsumerClient


def listen(conn):
    client = EventHubConsumerClient.from_connection_string(conn, consumer_group="$Default", eventhub_name="clicks")
    client.receive(on_event=print)
"""


def test_earlier_sdks_processors_and_event_hubs_in_node_and_python(tmp_path):
    write_tree(tmp_path, {
        "orders/orders.csproj": WORKER, "orders/Publisher.cs": LEGACY_SEND,
        "billing/billing.csproj": WORKER, "billing/Listener.cs": LEGACY_LISTEN,
        "audit/pom.xml": POM.format(name="audit"), "audit/src/main/java/com/shop/audit/Audit.java": PROCESSOR,
        "web/package.json": '{"name": "web"}', "web/track.js": HUB_SEND,
        "stats/requirements.txt": "azure-eventhub\n", "stats/Dockerfile": "FROM python\n", "stats/listen.py": HUB_READ})
    lines = render(CodeGraph.build(tmp_path))
    links = sorted(line for line in lines if line.startswith("E ASYNC_CALLS"))
    assert links == [
        "E ASYNC_CALLS producer:eventhubs clicks -> route:eventhubs clicks [cross_service]",
        # the QueueClient that sends is a producer, the one that registers a handler a listener
        "E ASYNC_CALLS producer:servicebus invoices -> route:servicebus invoices [cross_service]",
        # a topic reaches each subscription's listener
        "E ASYNC_CALLS producer:servicebus order-events -> route:servicebus order-events [cross_service]",
        "E ASYNC_CALLS producer:servicebus order-events -> route:servicebus order-events [cross_service]"]


ROOT_BOUND = """using Azure.Messaging.ServiceBus;
using Microsoft.Extensions.Options;

namespace Shop.Workflow;

public class WorkflowOptions { public string QueueName { get; set; } }

public static class Startup
{
    public static void ConfigureServices(HostBuilderContext context, IServiceCollection services)
    {
        services.Configure<WorkflowOptions>(context.Configuration);
    }
}

public class Worker
{
    private readonly IOptions<WorkflowOptions> _options;
    private readonly ServiceBusClient _client;
    private ServiceBusProcessor _processor;

    public Worker(IOptions<WorkflowOptions> options, ServiceBusClient client) { _options = options; _client = client; }

    public async Task StartAsync()
    {
        _processor = _client.CreateProcessor(_options.Value.QueueName);
        _processor.ProcessMessageAsync += OnMessage;
        await _processor.StartProcessingAsync();
    }

    private Task OnMessage(ProcessMessageEventArgs args) => Task.CompletedTask;
}
"""

COMPOSE = """services:
  ingest:
    build: ./ingest
  workflow:
    build: ./workflow
    environment:
      QueueName: deliveries
"""


def test_a_queue_name_from_options_bound_to_the_whole_configuration_takes_the_deployments_value(tmp_path):
    write_tree(tmp_path, {
        "ingest/pom.xml": POM.format(name="ingest"), "ingest/src/main/java/com/shop/ingest/Ingest.java": INGEST,
        "workflow/workflow.csproj": WORKER, "workflow/Worker.cs": ROOT_BOUND, "docker-compose.yml": COMPOSE})
    lines = render(CodeGraph.build(tmp_path))
    assert "E ASYNC_CALLS producer:servicebus deliveries -> route:servicebus deliveries [cross_service]" in lines
    assert any(line.startswith("R servicebus deliveries framework=azure_service_bus "
                               "handler=Shop.Workflow.Worker.OnMessage ") for line in lines)


PY_HUBS = """from azure.eventhub import EventHubConsumerClient, EventHubProducerClient
import azure.eventhub as eh


def listen(namespace, credential):
    clicks = EventHubConsumerClient(namespace, "clicks", "$Default", credential)
    views = eh.EventHubConsumerClient(namespace, "views", consumer_group="$Default", credential=credential)
    clicks.receive(on_event=print)
    views.receive(on_event=print)
"""

PY_SEND = """from azure.eventhub import EventHubProducerClient


def send(namespace, credential):
    EventHubProducerClient(namespace, "clicks", credential)
    EventHubProducerClient(fully_qualified_namespace=namespace, eventhub_name="views", credential=credential)
"""


def test_python_event_hub_clients_made_by_their_constructors_name_the_hub_second(tmp_path):
    write_tree(tmp_path, {
        "stats/requirements.txt": "azure-eventhub\n", "stats/Dockerfile": "FROM python\n", "stats/listen.py": PY_HUBS,
        "web/requirements.txt": "azure-eventhub\n", "web/Dockerfile": "FROM python\n", "web/send.py": PY_SEND})
    lines = render(CodeGraph.build(tmp_path))
    # the consumer group ($Default) is no hub
    assert sorted(line.split(" framework=")[0] for line in lines if line.startswith("R eventhubs")) == [
        "R eventhubs clicks", "R eventhubs views"]
    assert sorted(line for line in lines if line.startswith("E ASYNC_CALLS")) == [
        "E ASYNC_CALLS producer:eventhubs clicks -> route:eventhubs clicks [cross_service]",
        "E ASYNC_CALLS producer:eventhubs views -> route:eventhubs views [cross_service]"]


TWO_QUEUES = """using Microsoft.Azure.ServiceBus;

namespace Shop.Orders;

public class Orders
{
    private readonly IQueueClient _out = new QueueClient("cs", "orders");
    private readonly IQueueClient _in;

    public Orders() { _in = new QueueClient("cs", "replies"); }

    public void Start() { _in.RegisterMessageHandler(Handle, new MessageHandlerOptions(null)); }
    public Task Send(Message m) => _out.SendAsync(m);
    private Task Handle(Message m, CancellationToken t) => Task.CompletedTask;
}
"""

ORDERS_TOO = """using Microsoft.Azure.ServiceBus;

namespace Shop.Billing;

public class Billing
{
    private readonly IQueueClient _out = new QueueClient("cs", "orders");
    private readonly IQueueClient _replies = new QueueClient("cs", "replies");
    public Task Send(Message m) => _out.SendAsync(m);
    public Task Reply(Message m) => _replies.SendAsync(m);
}
"""


def test_a_queue_client_is_what_its_holder_is_used_for_not_all_its_service_does(tmp_path):
    write_tree(tmp_path, {"orders/orders.csproj": WORKER, "orders/Orders.cs": TWO_QUEUES,
                          "billing/billing.csproj": WORKER, "billing/Billing.cs": ORDERS_TOO})
    lines = render(CodeGraph.build(tmp_path))
    # orders sends on "orders" and listens on "replies": it does not listen on "orders"
    assert [line.split(" service=")[0] for line in lines if line.startswith("R servicebus")] == [
        "R servicebus replies framework=azure_service_bus handler=Shop.Orders.Orders.Orders"]   # where it is made
    assert sorted(line for line in lines if line.startswith("E ASYNC_CALLS")) == [
        "E ASYNC_CALLS producer:servicebus replies -> route:servicebus replies [cross_service]"]


TWO_CHAINS = """package com.shop.ingest;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusSenderClient;

public class Ingest {
    public void start(String cs) {
        ServiceBusClientBuilder builder = new ServiceBusClientBuilder().connectionString(cs);
        ServiceBusSenderClient a = builder.sender().queueName("alpha").buildClient();
        ServiceBusSenderClient b = builder.sender().queueName("beta").buildClient();
        ServiceBusSenderClient c = new ServiceBusClientBuilder().connectionString(cs).sender().queueName("gamma")
            .buildClient();
        ServiceBusSenderClient d = new ServiceBusClientBuilder().connectionString(cs).sender().queueName("delta")
            .buildClient();
    }
}
"""


def test_two_builder_chains_alike_in_one_method_keep_their_own_queues(tmp_path):
    write_tree(tmp_path, {"ingest/pom.xml": POM.format(name="ingest"),
                          "ingest/src/main/java/com/shop/ingest/Ingest.java": TWO_CHAINS})
    queues = sorted(line.split()[2] for line in render(CodeGraph.build(tmp_path)) if line.startswith("P servicebus"))
    assert queues == ["alpha", "beta", "delta", "gamma"]


HUB_OPTIONS = """using Azure.Messaging.EventHubs;
using Azure.Messaging.EventHubs.Producer;

namespace Shop.Telemetry;

public class Sender
{
    public void Start(string cs)
    {
        var producer = new EventHubProducerClient(cs, new EventHubProducerClientOptions());
    }
}
"""


def test_an_options_object_in_the_hubs_place_is_no_hub_name(tmp_path):
    write_tree(tmp_path, {"telemetry/telemetry.csproj": WORKER, "telemetry/Sender.cs": HUB_OPTIONS})
    [line] = [line for line in render(CodeGraph.build(tmp_path)) if line.startswith("P eventhubs")]
    # (connection string, options): the hub is the connection string's EntityPath, not the options
    assert "match=unresolved" in line and "names no event hub here" in line, line
