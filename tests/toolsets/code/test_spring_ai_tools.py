"""Spring AI: a chat client given a tool object (``defaultTools(tools)`` on its builder, ``tools(tools)`` on one
prompt) calls the object's ``@Tool`` methods when the model asks: the method that sends the prompt triggers each."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

POM = "<project><artifactId>assistant</artifactId></project>"
ROOT = "assistant/src/main/java/shop/ai"
TOOLS = """package shop.ai;

import org.springframework.ai.tool.annotation.Tool;

public class ShopTools {
    @Tool(description = "List the owners")
    public String listOwners() { return ""; }

    @Tool(description = "Add a pet")
    public String addPet(int ownerId, String name) { return helper(); }

    private String helper() { return ""; }
}
"""
VET_TOOLS = """package shop.ai;

import org.springframework.ai.tool.annotation.Tool;

public class VetTools {
    @Tool(description = "List the vets")
    public String listVets() { return ""; }
}
"""
CHAT = """package shop.ai;

import org.springframework.ai.chat.client.ChatClient;

public class ChatController {
    private final ChatClient chatClient;

    public ChatController(ChatClient.Builder builder, ShopTools shopTools) {
        this.chatClient = builder.defaultSystem("You help").defaultTools(shopTools).build();
    }

    public String exchange(String query) {
        return this.chatClient.prompt().user(query).call().content();
    }

    public String vets(String query) {
        return this.chatClient.prompt().user(query).tools(new VetTools()).call().content();
    }

    public String status() { return "up"; }
}
"""
#: not Spring AI: a method named tools on something else
OTHER = """package shop.ai;

public class Toolbox {
    public void fill(Drawer drawer, ShopTools shopTools) { drawer.tools(shopTools); }
}
"""


def _triggers(root: Path, files: dict[str, str]) -> set[tuple[str, str]]:
    nodes, edges = CodeGraph.build(write_tree(root, files)).snapshot()
    short = {i: n.props.get("fqn", "").rsplit(".", 1)[-1] for i, n in nodes.items()}
    return {(short[e.src], short[e.dst]) for e in edges.values()
            if e.type == "TRIGGERS" and e.props.get("kind") == "ai_tool"}


def test_the_method_that_sends_a_prompt_triggers_the_tool_methods_its_client_was_given(tmp_path: Path):
    triggers = _triggers(tmp_path, {"assistant/pom.xml": POM, f"{ROOT}/ShopTools.java": TOOLS,
                                    f"{ROOT}/VetTools.java": VET_TOOLS, f"{ROOT}/ChatController.java": CHAT,
                                    f"{ROOT}/Toolbox.java": OTHER})
    # the builder's tools serve every prompt of the class's client; one prompt's tools that prompt only; a method
    # without @Tool, a method sending no prompt and a tools(..) call outside a prompt chain are no part of it
    assert triggers == {("ChatController#exchange(String)", "ShopTools#listOwners()"),
                        ("ChatController#exchange(String)", "ShopTools#addPet(int,String)"),
                        ("ChatController#vets(String)", "ShopTools#listOwners()"),
                        ("ChatController#vets(String)", "ShopTools#addPet(int,String)"),
                        ("ChatController#vets(String)", "VetTools#listVets()")}


def test_the_tool_class_is_the_one_javac_finds_and_none_when_two_are_found_at_one_place(tmp_path: Path):
    other = TOOLS.replace("package shop.ai;", "package shop.other;")
    third = TOOLS.replace("package shop.ai;", "package shop.third;")
    files = {"assistant/pom.xml": POM, "assistant/src/main/java/shop/other/ShopTools.java": other,
             "assistant/src/main/java/shop/third/ShopTools.java": third}

    def tools_of(chat: str, *, own: bool) -> set[str]:
        tree = {**files, f"{ROOT}/ChatController.java": chat, **({f"{ROOT}/ShopTools.java": TOOLS} if own else {})}
        nodes, edges = CodeGraph.build(write_tree(tmp_path / str(len(list(tmp_path.iterdir()))), tree)).snapshot()
        return {nodes[e.dst].props["fqn"].rsplit("#", 1)[0] for e in edges.values()
                if e.type == "TRIGGERS" and e.props.get("kind") == "ai_tool"}

    spring = "import org.springframework.ai.chat.client.ChatClient;"
    # the file's own package before an on-demand import; a single-type import before both
    assert tools_of(CHAT.replace(spring, spring + "\nimport shop.other.*;"), own=True) == {"shop.ai.ShopTools"}
    assert tools_of(CHAT.replace(spring, spring + "\nimport shop.other.ShopTools;"), own=True) == {
        "shop.other.ShopTools"}
    # two on-demand imports that both have it (javac: ambiguous): none
    assert not tools_of(CHAT.replace(spring, spring + "\nimport shop.other.*;\nimport shop.third.*;"), own=False)
