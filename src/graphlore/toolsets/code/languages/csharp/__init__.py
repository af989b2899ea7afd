"""C#: namespaces, classes, structs, interfaces, records, enums, members, attributes and call sites
(`extract`; Razor ``.razor``/``.cshtml`` files as the class they compile to, `razor`); namespaces, using directives, base types and calls (`resolve`); ``.csproj`` projects; ASP.NET Core
and xUnit/NUnit/MSTest conventions as role and capability tables."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath

from ...model import FileFacts, SymbolFact
from .. import roles
from ..base import BuildFile, BuildInfo, Language, no_module
from . import extract, razor
from .resolve import CSharpResolver
from .usings import shared_imports

_WEB_SDK = re.compile(r"Sdk\s*=\s*\"Microsoft\.NET\.Sdk\.(Web|Worker)", re.I)
#: packages that run a host (a console executable referencing one is a service, not a tool)
_HOSTING = re.compile(r"Include\s*=\s*\"(?:Microsoft\.Extensions\.Hosting|Microsoft\.AspNetCore|Microsoft\.Azure\.Functions|"
                      r"Microsoft\.NET\.Sdk\.Functions|Microsoft\.Azure\.WebJobs|Microsoft\.Orleans|Grpc\.AspNetCore)", re.I)


def read_csproj(path: Path) -> BuildInfo:
    """The project's ``AssemblyName`` (else the file's name); an application when it builds a web or worker
    host or an executable (``OutputType`` ``Exe``; one on the plain SDK referencing no hosting package is a console
    program, `BuildInfo.console`), not when it is a test project; the folders of the projects it
    references (``<ProjectReference>``; none for an Aspire AppHost, which starts them as processes of their own)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        project = ET.fromstring(text)
    except (OSError, ET.ParseError):
        return BuildInfo(path.stem)
    values = {child.tag.rsplit("}", 1)[-1]: (child.text or "").strip() for group in project
              if group.tag.rsplit("}", 1)[-1] == "PropertyGroup" for child in group}
    test = values.get("IsTestProject", "").lower() == "true" or "Microsoft.NET.Test.Sdk" in text
    application = not test and (bool(_WEB_SDK.search(text)) or values.get("OutputType", "").lower() == "exe")
    aspire_host = values.get("IsAspireHost", "").lower() == "true" or "Aspire.AppHost.Sdk" in project.get("Sdk", "")
    references = () if aspire_host else tuple(dict.fromkeys(   # an AppHost starts its references, it runs none
        str(PurePosixPath(ref.get("Include", "").replace("\\", "/")).parent) for ref in project.iter()
        if ref.tag.rsplit("}", 1)[-1] == "ProjectReference" and ref.get("Include")))
    console = application and not _WEB_SDK.search(text) and not aspire_host and not _HOSTING.search(text)
    return BuildInfo(values.get("AssemblyName") or path.stem, application=application, references=references,
                     console=console)


CSPROJ = BuildFile((), read_csproj, "csproj", rank=12, suffixes=(".csproj", ".fsproj", ".vbproj"))


def _extract(path: str, src: bytes) -> FileFacts:
    if path.endswith(razor.SUFFIXES):
        return razor.extract(path, src, extract.extract)
    return extract.extract(path, src)


def _main(sym: SymbolFact) -> bool:
    return sym.name == "Main" and sym.kind == "method" and "static" in sym.modifiers


RULES = roles.Rules(annotation_roles={**roles.ASPNET_ROLES, **roles.DOTNET_TEST_ROLES}, base_roles=roles.ASPNET_BASES,
                    capabilities=roles.ASPNET_CAPABILITIES, entry_point=_main)

LANGUAGE = Language("csharp", {".cs": "csharp", ".razor": "csharp", ".cshtml": "csharp"}, _extract, CSharpResolver,
                    RULES, module_name=no_module, test_files=re.compile(r".*Tests?\.cs$"), packages=True,
                    simple_annotations=True, builds=(CSPROJ,), shared_imports=shared_imports)
