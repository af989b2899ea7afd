"""The facts toolset: a dated knowledge graph of entities, topics, documents and facts."""

from __future__ import annotations

from graphlore.tools import Arg, Cli, CommandTool, StoreKind, Toolset, ToolSpec
from graphlore.toolsets.facts import (
    cli,
    contradictions,
    examples,
    links,
    merge,
    models,
    render,
    retract,
    split,
    tools,
    validity,
    write,
)
from graphlore.toolsets.facts.graph import store_label

INSTRUCTIONS = """\
A dated knowledge graph of what documents say: entities (companies, people, places...), topics,
documents and facts (subject ──[relationship]──▶ object, with the sentence and the document date).
Typical flow: find (name + definition -> node ids), then search around or between those nodes
(optionally with a query and dates; current / as_of keep what still holds, or held on a day), then
cat N to read a result's chunk. info NAME summarises a
node; ls and stats list and count. Write with add_document (you extract) or extract_document (an
LLM extracts). Every tool takes graph (default "default").
Two ways in, same rules and answers: the typed tools find, search, cat, info, ls, stats (plus
add_document, extract_document), or one tool kg_execute(command) taking the command strings of
the original facts server, e.g. kg_execute(command='find --entity {"name":"Apple","definition":"US
technology company"}'), kg_execute(command='search -entity "Apple Inc" -q acquired --from 2024-10'),
kg_execute(command="cat 1"); kg_execute(command="help") lists the commands."""

TOOLSET = Toolset(
    name="facts",
    summary="A dated knowledge graph of entities, topics, documents and facts.",
    instructions=INSTRUCTIONS,
    commands=cli.commands,
    examples=examples.examples,
    stores=StoreKind(label=store_label),
    unknown_tool_hint='the original facts server\'s command strings go through {kg_execute}(command="..."); '
                      '{kg_execute}(command="help") lists its commands',
    tools=[
        ToolSpec(
            name="find",
            description=(
                "Resolve what you mean to canonical nodes before searching. Each selector is an object "
                '{"name": ..., "definition": ..., "id"?: ...}; entity selectors are searched among entities, '
                "topic selectors among topics, by the cosine of '{name}: {definition}' (top 5 each, score 0..1). "
                "No facts are retrieved. Names-only strings and 'name: definition' strings are rejected."
            ),
            request=models.FindRequest, response=models.FindResponse, run=tools.find, render=render.find,
            cli=Cli(examples=("graphlore facts find --entity 'Apple: company that makes the iPhone'",), help="Resolve selectors to canonical entities and topics (top 5 each).",
                    args={"entity": cli.NAMED, "topic": cli.NAMED, "graph": cli.GRAPH},
                    refused=cli.FIND_REFUSED),
        ),
        ToolSpec(
            name="search",
            description=(
                "Facts around (subject or object selected; default) or between (both selected) the given "
                "entities and topics, named by canonical name, alias or node id (an unknown name is an error "
                "listing the nearest nodes). from / to_date filter on the document date (inclusive); current keeps "
                "the facts that still hold, as_of those that held on a day (a fact of a functional relationship "
                "such as 'has CEO' ends when a later fact names another object; results show valid_to and what "
                "ended it). Without query: newest first; with query: the whole filtered set ranked by relevance "
                "of each fact's sentence (its words and its meaning), then cut to limit (default 20). Results "
                "are numbered; cat N expands them."
            ),
            request=models.SearchRequest, response=models.SearchResponse, run=tools.search, render=render.search,
            context=True, on_failure=tools.search_failed,
            cli=Cli(examples=('graphlore facts search --entity Apple --entity Microsoft --mode between',), help="Facts around or between entities and topics, newest first or by relevance to --query.",
                    args={"entity": cli.node("An entity"), "topic": cli.node("A topic"),
                          "from": Arg(metavar="DATE"), "to_date": Arg(flags=("--to",), metavar="DATE"),
                          "as_of": Arg(metavar="DATE"), "query": Arg(short="-q", metavar="TEXT"),
                          "limit": Arg(metavar="N"), "graph": cli.GRAPH}),
        ),
        ToolSpec(
            name="cat",
            description=(
                "Expand numbered results of this session's latest search (or of search_id): the fact, its "
                "chunk text, document name and date, and a one-line summary of both ends. No prior search, or "
                "a number out of range, is an error."
            ),
            request=models.CatRequest, response=models.CatResponse, run=tools.cat, render=render.cat, context=True,
            cli=Cli(examples=('graphlore facts cat 1',), help="Expand results N... of the latest search: fact, chunk, document, both ends.",
                    args={"numbers": Arg(positional=True, metavar="N..."), "search_id": Arg(metavar="ID"),
                          "graph": cli.GRAPH}),
        ),
        ToolSpec(
            name="info",
            description=(
                "Summarise one entity or topic (canonical name, alias or id): type, definition, aliases, fact "
                "count, first and last fact dates, most connected neighbours, latest facts, possible duplicates."
            ),
            request=models.InfoRequest, response=models.InfoResponse, run=tools.info, render=render.info,
            cli=Cli(examples=('graphlore facts info Apple',), help="Summarise an entity or topic (canonical name, alias or id).",
                    args={"name": Arg(positional=True), "graph": cli.GRAPH}),
        ),
        ToolSpec(
            name="ls",
            description=(
                "List entities or topics (most facts first) or documents (newest first) with counts, one page at "
                "a time: limit rows (default 50) after offset (default 0); total and has_more say what is left."
            ),
            request=models.LsRequest, response=models.LsResponse, run=tools.ls, render=render.ls,
            cli=Cli(examples=('graphlore facts ls entities -n 5',), help="List entities, topics or documents with counts (a page: --limit, --offset).",
                    args={"what": Arg(positional=True), "type": Arg(metavar="TYPE"), "limit": Arg(metavar="N"),
                          "offset": Arg(metavar="N"), "graph": cli.GRAPH}),
        ),
        ToolSpec(
            name="stats",
            description="Totals of the graph: entities, topics, documents, chunks, facts, possible duplicates, dates.",
            request=models.StatsRequest, response=models.StatsResponse, run=tools.stats, render=render.stats,
            cli=Cli(examples=('graphlore facts stats',), help="Totals of the graph.", args={"graph": cli.GRAPH}),
        ),
        ToolSpec(
            name="split",
            description=(
                "Undo a merge: the given mentions of an entity or topic (mention ids or names, as info lists them) "
                "leave it for a new node. Both nodes are rebuilt from their own mentions (names, aliases, "
                "definition, type), the facts those mentions brought move to the new node, and a mention with a "
                "name only the other side holds never merges into either again."
            ),
            request=models.SplitRequest, response=models.SplitResponse, run=split.split, render=render.split,
            read_only=False, idempotent=False,
            cli=Cli(examples=('graphlore facts split "Amazon Web Services" --mentions Amazon',), help="Undo a merge: mentions (ids or names from info) leave a node for a new one.",
                    args={"name": Arg(positional=True), "mentions": Arg(metavar="ID_OR_NAME"), "graph": cli.GRAPH}),
        ),
        ToolSpec(
            name="merge",
            description=(
                "Join two entities or topics you know are one (the inverse of split): the second (other) joins the "
                "first (name) with every mention, alias, lookup key, fact and possible-duplicate link; the first is "
                "rebuilt from both nodes' mentions and the second's id is gone. split with exactly the mentions "
                "that came with it (the answer lists them) restores both nodes as they were."
            ),
            request=models.MergeRequest, response=models.MergeResponse, run=merge.merge, render=render.merge,
            read_only=False, idempotent=False,
            cli=Cli(examples=('graphlore facts merge "Amazon Web Services" Amazon',), help="Join two nodes that are one (the inverse of split): OTHER joins NAME.",
                    args={"name": Arg(positional=True), "other": Arg(positional=True), "graph": cli.GRAPH}),
        ),
        ToolSpec(
            name="retract",
            description=(
                "Take one document back (by name or id, as ls documents lists them): its chunks, facts, mentions "
                "and their vectors go; an entity or topic goes only when no other document mentions it; a merge "
                "that rested only on this document comes apart; validity this document's facts ended is restored. "
                "The graph is then what it would be had the document never been added. One transaction."
            ),
            request=models.RetractRequest, response=models.RetractResponse, run=retract.retract,
            render=render.retract, read_only=False, idempotent=False,
            cli=Cli(examples=('graphlore facts retract "Apple buys Beats"',), help="Take one document back: the graph becomes what it was without it.",
                    args={"document": Arg(positional=True, metavar="DOCUMENT"), "graph": cli.GRAPH}),
        ),
        ToolSpec(
            name="relation_set",
            description=(
                "Declare a relationship functional in a graph (a subject has one object at a time: a later fact "
                "naming another object ends the earlier one) or not; every fact of it gets its validity again. "
                "Functional by default: " + ", ".join(repr(r) for r in validity.DEFAULT_FUNCTIONAL) + "."
            ),
            request=models.RelationSetRequest, response=models.RelationSetResponse, run=tools.relation_set,
            render=render.relation_set, read_only=False, surfaces=frozenset({"mcp"}),
        ),
        ToolSpec(
            name="add_document",
            description=(
                "Add one document you have extracted yourself: name, date (YYYY-MM-DD), source, chunks, "
                "entities (name, type, definition, aliases), topics (name, definition, aliases) and facts "
                "(subject, relationship, object, sentence, date_context, chunk index), subject/object naming "
                "entities or topics of the same record. Each entity and topic is resolved against the graph: "
                "the answer says what was created, what was merged into which node and why. One transaction; "
                "the same document again changes nothing."
            ),
            request=models.AddDocumentRequest, response=models.AddDocumentResponse, run=tools.add_document,
            render=render.add_document, read_only=False, surfaces=frozenset({"mcp"}),
        ),
        ToolSpec(
            name="ingest",
            description=(
                "Add the document records of a JSONL file (one add_document record per line), validated in full "
                "before anything is written, then written in transactions of at most "
                f"{write.INGEST_BATCH_DOCUMENTS} documents."
            ),
            request=models.IngestRequest, response=models.IngestResponse, run=tools.ingest, render=render.ingest,
            read_only=False, progress=True, progress_unit="documents written", surfaces=frozenset({"cli"}),
            cli=Cli(examples=('graphlore facts ingest examples/facts/news.jsonl',), help="Add the document records of a JSONL file (validated in full before anything is written).",
                    args={"file": Arg(positional=True), "graph": cli.GRAPH}),
        ),
        ToolSpec(
            name="extract_document",
            description=(
                "Have an LLM extract a document's entities, topics, then facts, and add it like add_document. "
                "Uses the configured OpenAI-compatible endpoint, else this client's model (sampling). Without "
                "either it fails and points to add_document."
            ),
            request=models.ExtractDocumentRequest, response=models.ExtractDocumentResponse,
            run=tools.extract_document, render=render.add_document, read_only=False, idempotent=False,
            context=True, surfaces=frozenset({"mcp"}),
        ),
        ToolSpec(
            name="resolve_links",
            description=(
                "Have an LLM decide open possible-duplicate links (the ones info lists as open), strongest first: "
                "same -> the two nodes merge (split with the mentions the answer lists undoes it); different -> "
                "the link stays, marked, and is not asked again (merge undoes it). Every decision is recorded on "
                "the link with the model's reason. Uses the configured OpenAI-compatible endpoint, else this "
                "client's model (sampling); without either it fails and the links stay as they are."
            ),
            request=models.ResolveLinksRequest, response=models.ResolveLinksResponse, run=links.resolve_links,
            render=render.resolve_links, read_only=False, idempotent=False, context=True,
            cli=Cli(examples=('graphlore facts resolve-links -n 5',), help="Have the configured LLM decide open possible-duplicate links (recorded, undoable).",
                    args={"limit": Arg(metavar="N"), "graph": cli.GRAPH}),
        ),
        ToolSpec(
            name="check_contradictions",
            description=(
                "Have an LLM look for facts a later fact contradicts (beyond the functional-relationship rule): each "
                "fact still held is shown with the later facts of its subject that share its relationship or its "
                "object; a fact the judge says a later one contradicts ends at that fact's valid_from, the verdict "
                "recorded on it (evidence fact, judge, reason). It never deletes a fact; retracting the evidence's "
                "document undoes an ending. Uses the configured OpenAI-compatible endpoint, else this client's "
                "model (sampling); without either it fails and nothing changes."
            ),
            request=models.CheckContradictionsRequest, response=models.CheckContradictionsResponse,
            run=contradictions.check_contradictions, render=render.check_contradictions, read_only=False,
            idempotent=False, context=True,
            cli=Cli(examples=("graphlore facts check-contradictions -n 5",),
                    help="Have the configured LLM end facts a later fact contradicts (recorded, undoable).",
                    args={"limit": Arg(metavar="N"), "graph": cli.GRAPH}),
        ),
    ],
    command_tool=CommandTool(
        name="kg_execute",
        description=(
            "Run one command string of the original facts server: find, search, cat, info, ls, stats, retract, "
            "merge or help "
            '(e.g. find --entity {"name":"Apple","definition":"US technology company"}; search -entity '
            '"Apple Inc, Microsoft Corp" --mode between -q acquired --from 2024-10; cat 1 2; info Apple Inc; '
            "ls entities -type company). The string is split as that server did (find takes raw JSON); its words "
            "are the flags of the typed tool of the same name, validated by the same model, so the same rules and "
            "errors apply; the answer is that tool's text. help lists the commands and the workflow "
            "find -> search -> cat -> info. Shares the session of search and cat."
        ),
        request=models.ExecuteRequest, response=models.ExecuteResponse,
        commands=("find", "search", "cat", "info", "ls", "stats", "retract", "merge"), guide=cli.GUIDE,
        examples=cli.EXAMPLES,
        grammar=cli.ORIGINAL,
        cli=Cli(examples=('graphlore facts exec \'search -entity "Apple, Microsoft" --mode between\'',), command="exec", help="Run one command string of the original facts server (`exec help` lists the commands).",
                args={"command": Arg(positional=True, metavar="COMMAND")}),
    ),
)
