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


JAVA_SUBCLASS = """package docs;

public class SignedPdfReportGenerator extends PdfReportGenerator {
    @Override
    public byte[] generate(String policy) { return sign(super.generate(policy)); }

    private byte[] sign(byte[] bytes) { return bytes; }
}
"""


def test_an_implementation_overridden_again_is_not_the_one_that_runs(tmp_path: Path, runtime):
    """The interface's one direct implementation is overridden in a subclass: either may be wired in, so the trace
    stops at the interface (an override of an override is an implementation too)."""
    _, out = _java_trace(tmp_path, runtime, {"PdfReportGenerator": JAVA_ADAPTER, "SignedPdfReportGenerator": JAVA_SUBCLASS})
    assert _hops(out) == [("PolicyListener.onPolicyRegistered", "CALLS", "ReportGenerator.generate")]
    assert out.note is None


JAVA_FEIGN = """package docs;

import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.web.bind.annotation.PostMapping;

@FeignClient(name = "reports", fallback = ReportGeneratorFallback.class)
public interface ReportGenerator {
    @PostMapping("/reports")
    byte[] generate(String policy);
}
"""
JAVA_FALLBACK = """package docs;

public class ReportGeneratorFallback implements ReportGenerator {
    @Override
    public byte[] generate(String policy) { return new byte[0]; }
}
"""


def test_a_declarative_client_method_is_not_carried_on_to_its_fallback(tmp_path: Path, runtime):
    """A Feign interface's method runs the framework's proxy (the HTTP call); its one written implementation is the
    fallback, run only when the call fails (piggymetrics' ``StatisticsServiceClientFallback``, micronaut-poc's
    ``ProductGatewayClientFallback``): the trace stops at the client method."""
    files = {"pom.xml": "<project><artifactId>docs</artifactId></project>",
             "src/main/java/docs/PolicyListener.java": JAVA_LISTENER,
             "src/main/java/docs/ReportGenerator.java": JAVA_FEIGN,
             "src/main/java/docs/ReportGeneratorFallback.java": JAVA_FALLBACK}
    project = (runtime, write_tree(tmp_path / "docs", files))
    assert run(*project, "find", kind="client").total == 1
    out = run(*project, "paths", from_id=node(project, "PolicyListener.onPolicyRegistered"),
              to_id=node(project, "ReportGenerator.generate"))
    assert _hops(out) == [("PolicyListener.onPolicyRegistered", "CALLS", "ReportGenerator.generate")]
    assert out.note is None


CS_CALLER = """namespace Billing;

public class Caller
{
    private readonly IInvoiceStore _store;

    public void Go() { _store.Save("x"); }
}
"""


def test_an_end_that_holds_the_implementation_too_shows_each_path_once(tmp_path: Path, runtime):
    """A file that declares the interface and its implementation stands for both: the path to the interface method
    carried on is the path to the implementation, found as it is, and shown once."""
    tree = write_tree(tmp_path / "billing", {
        "Billing.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>', "InvoiceHandler.cs": CS_HANDLER,
        "Caller.cs": CS_CALLER})
    project = (runtime, tree)
    files = run(*project, "find", kind="symbol", filter={"symbol_kind": "file"}).results
    out = run(*project, "paths", from_id=node(project, "Caller.Go"),
              to_id=next(f.id for f in files if f.label == "InvoiceHandler.cs"))
    drawn = [[(h.source.id, h.edge, h.target.id) for h in p.hops] for p in out.paths]
    assert len(drawn) == len(set(map(tuple, drawn))) == 2   # to SqlInvoiceStore.Save, and on to its Write
    assert _hops(out) == [("Caller.Go", "CALLS", "IInvoiceStore.Save"),
                          ("IInvoiceStore.Save", "OVERRIDDEN_BY", "SqlInvoiceStore.Save")]
