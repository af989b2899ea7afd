"""Where a trace ends: `paths` to an abstract method goes on to the one method that implements it (the code the
call on the interface runs), and says so; with two implementations it stops there (which one runs is the
wiring's choice, never a guess)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import node, run, write_tree

JAVA_LISTENER = """package docs;

public class PolicyListener {
    private final ReportGenerator generator;

    public PolicyListener(ReportGenerator generator) { this.generator = generator; }

    public void onPolicyRegistered(String policy) {
        generator.generate(policy);
    }
}
"""
JAVA_PORT = """package docs;

public interface ReportGenerator {
    byte[] generate(String policy);
}
"""
JAVA_ADAPTER = """package docs;

public class PdfReportGenerator implements ReportGenerator {
    @Override
    public byte[] generate(String policy) {
        return render(policy);
    }

    private byte[] render(String policy) { return policy.getBytes(); }
}
"""
JAVA_SECOND = """package docs;

public class HtmlReportGenerator implements ReportGenerator {
    @Override
    public byte[] generate(String policy) { return policy.getBytes(); }
}
"""

CS_HANDLER = """namespace Billing;

public class InvoiceHandler
{
    private readonly IInvoiceStore _store;

    public InvoiceHandler(IInvoiceStore store) { _store = store; }

    public void Handle(string invoice)
    {
        _store.Save(invoice);
    }
}

public interface IInvoiceStore
{
    void Save(string invoice);
}

public class SqlInvoiceStore : IInvoiceStore
{
    public void Save(string invoice) { Write(invoice); }

    private void Write(string invoice) { }
}
"""


def _short(label: str) -> str:
    """``Type.method`` of a label (Java's ``pkg.Type#method(Args)``, C#'s ``Ns.Type.Method``)."""
    return ".".join(label.split("(")[0].replace("#", ".").split(".")[-2:])


def _hops(out) -> list[tuple[str, str, str]]:
    return [(_short(h.source.label), h.edge, _short(h.target.label)) for h in out.paths[0].hops]


def _java_trace(tmp_path: Path, runtime, implementations: dict[str, str]):
    """The listener, the port and ``implementations`` (class name -> source); paths from the listener to the port."""
    files = {"pom.xml": "<project><artifactId>docs</artifactId></project>",
             "src/main/java/docs/PolicyListener.java": JAVA_LISTENER,
             "src/main/java/docs/ReportGenerator.java": JAVA_PORT,
             **{f"src/main/java/docs/{name}.java": text for name, text in implementations.items()}}
    project = (runtime, write_tree(tmp_path / "docs", files))
    out = run(*project, "paths", from_id=node(project, "PolicyListener.onPolicyRegistered"),
              to_id=node(project, "ReportGenerator.generate"))
    return project, out


def test_a_trace_to_a_java_interface_method_goes_on_to_its_one_implementation(tmp_path: Path, runtime):
    project, out = _java_trace(tmp_path, runtime, {"PdfReportGenerator": JAVA_ADAPTER})
    assert _hops(out) == [("PolicyListener.onPolicyRegistered", "CALLS", "ReportGenerator.generate"),
                          ("ReportGenerator.generate", "OVERRIDDEN_BY", "PdfReportGenerator.generate")]
    assert out.paths[0].length == 2
    assert "one implementation" in out.note and "PdfReportGenerator" in out.note
    # without OVERRIDDEN_BY among the keys the path ends where it was asked to
    calls = run(*project, "paths", from_id=node(project, "PolicyListener.onPolicyRegistered"),
                to_id=node(project, "ReportGenerator.generate"), edge_types=["CALLS"])
    assert _hops(calls) == [("PolicyListener.onPolicyRegistered", "CALLS", "ReportGenerator.generate")]
    assert calls.note is None


def test_with_two_implementations_the_trace_stops_at_the_interface(tmp_path: Path, runtime):
    _, out = _java_trace(tmp_path, runtime, {"PdfReportGenerator": JAVA_ADAPTER, "HtmlReportGenerator": JAVA_SECOND})
    assert _hops(out) == [("PolicyListener.onPolicyRegistered", "CALLS", "ReportGenerator.generate")]
    assert out.note is None


def test_a_trace_to_a_csharp_interface_method_goes_on_to_its_one_implementation_a_class_to_its_members(tmp_path: Path, runtime):
    tree = write_tree(tmp_path / "billing", {"Billing.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>',
                                              "InvoiceHandler.cs": CS_HANDLER})
    project = (runtime, tree)
    out = run(*project, "paths", from_id=node(project, "InvoiceHandler.Handle"),
              to_id=node(project, "IInvoiceStore.Save"))
    assert _hops(out) == [("InvoiceHandler.Handle", "CALLS", "IInvoiceStore.Save"),
                          ("IInvoiceStore.Save", "OVERRIDDEN_BY", "SqlInvoiceStore.Save")]
    # a concrete end (a method with a body) is where the path stops, even with one override
    concrete = run(*project, "paths", from_id=node(project, "InvoiceHandler.Handle"),
                   to_id=node(project, "SqlInvoiceStore.Save"))
    assert _hops(concrete)[-1][2] == "SqlInvoiceStore.Save" and concrete.note is None
    # a class as an end stands for its members, and the note says so
    out = run(*project, "paths", from_id=node(project, "InvoiceHandler"), to_id=node(project, "SqlInvoiceStore.Write"))
    assert _hops(out)[0][0] == "InvoiceHandler.Handle"
    assert out.note == "Billing.InvoiceHandler stands for the 3 symbols it declares"  # a field, a constructor, a method
    down = run(*project, "impact", id=node(project, "InvoiceHandler"), direction="out")
    assert down.note == "Billing.InvoiceHandler stands for the 3 symbols it declares"  # a field, a constructor, a method
    # a method is itself: nothing to say
    assert run(*project, "impact", id=node(project, "InvoiceHandler.Handle"), direction="out").note is None
