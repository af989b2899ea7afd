"""Protocol Buffers: one ``.proto`` file's facts (its package, services and their rpc methods, messages with
their fields, enums, imports), parsed with proto-schema-parser.

Keys: ``Service``, ``Service.Method``, ``Message``, ``Message.Nested``, ``Message.field``, ``Enum``; the fqn is
the proto package then ``.`` and the key (``shop.v1.Orders.Place``). A service is an ``interface``, an rpc a
``method`` (parameter the request type, result the response type; ``client_streaming`` /
``server_streaming`` among its modifiers) that carries its gRPC name in ``extra["grpc"]``
(``shop.v1.Orders/Place``) and, when its ``option (google.api.http)`` maps it to HTTP for grpc-gateway, the
(method, path) pairs of that rule in ``extra["http"]`` (``get``/``put``/``post``/``delete``/``patch``, ``custom``
kinds, ``additional_bindings``; a ``{name=shelves/*}`` variable written as the path it fits, ``shelves/{name}``), a message a ``record``. Lines come from the source, in declaration order. A file
the parser cannot read still yields its services and rpc methods from a tolerant scan (``syntax_errors``).
"""

from __future__ import annotations

import re
from collections import defaultdict, deque

from antlr4.error.ErrorListener import ErrorListener
from proto_schema_parser import Parser, ast

from ...model import FileFacts, ImportFact, SymbolFact, content_hash
from ..parsing import count_lines

_DECLARATION = re.compile(r"\b(service|rpc|message|enum)\s+([A-Za-z_]\w*)")
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_IMPORT = re.compile(r"^\s*import\s+(?:public\s+|weak\s+)?[\"']([^\"']+)[\"']", re.M)
_RPC = re.compile(r"\brpc\s+(\w+)\s*\(\s*(stream\s+)?([\w.]+)\s*\)\s*returns\s*\(\s*(stream\s+)?([\w.]+)\s*\)")
#: an rpc's head up to its body (``{``) or its end (``;``): every rpc, so each name's queue keeps source order
_RPC_OPEN = re.compile(r"\brpc\s+(\w+)\s*\([^)]*\)\s*returns\s*\([^)]*\)\s*([{;])")
_HTTP_RULE = re.compile(r"option\s*\(\s*google\.api\.http\s*\)\s*=\s*\{")
_HTTP_VERB = re.compile(r"\b(get|put|post|delete|patch)\s*:\s*\"([^\"]*)\"")
_HTTP_CUSTOM = re.compile(r"\bcustom\s*:?\s*\{\s*kind\s*:\s*\"(\w+)\"\s*,?\s*path\s*:\s*\"([^\"]*)\"")
_SEGMENTS_VARIABLE = re.compile(r"\{([\w.]+)=([^{}]*)\}")
_COMMENTS = re.compile(r"//[^\n]*|/\*[\s\S]*?\*/|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")


class _Errors(ErrorListener):
    def __init__(self) -> None:
        self.count = 0

    def syntaxError(self, recognizer, offending, line, column, msg, e):  # noqa: N802 (ANTLR's name)
        self.count += 1


def _blank(match: re.Match) -> str:
    """A comment (or string) replaced by spaces, line breaks kept: declarations keep their lines."""
    return re.sub(r"[^\n]", " ", match.group()) if not match.group().startswith(("\"", "'")) else match.group()


class _Lines:
    """The line of each declaration, handed out in source order per (kind, name)."""

    def __init__(self, code: str) -> None:
        self.found: dict[tuple[str, str], deque[int]] = defaultdict(deque)
        for match in _DECLARATION.finditer(code):
            self.found[(match.group(1), match.group(2))].append(code.count("\n", 0, match.start()) + 1)

    def take(self, kind: str, name: str) -> int:
        queue = self.found.get((kind, name))
        return queue.popleft() if queue else 1


def http_rules(code: str) -> dict[str, deque[list[list[str]]]]:
    """Each rpc's grpc-gateway HTTP bindings (see the module docstring), in source order per rpc name."""
    out: dict[str, deque[list[list[str]]]] = defaultdict(deque)
    for match in _RPC_OPEN.finditer(code):
        body = _block(code, match.end()) if match.group(2) == "{" else ""
        rule = _HTTP_RULE.search(body)
        found: list[list[str]] = []
        if rule:
            text = _block(body, rule.end())
            pairs = [(m.start(), m.group(1).upper(), m.group(2)) for m in _HTTP_VERB.finditer(text)]
            pairs += [(m.start(), m.group(1).upper(), m.group(2)) for m in _HTTP_CUSTOM.finditer(text)]
            found = [[verb, _SEGMENTS_VARIABLE.sub(_segments, path)] for _, verb, path in sorted(pairs)]
        out[match.group(1)].append(found)
    return out


def _segments(variable: re.Match[str]) -> str:
    """``{name=shelves/*}`` as the path it fits: ``shelves/{name}`` (its literal segments kept; each ``*`` one
    segment, the first named after the variable; ``**`` the rest)."""
    name, out, stars = variable.group(1), [], 0
    for segment in variable.group(2).split("/"):
        if segment == "*":
            stars += 1
            out.append("{" + name + ("" if stars == 1 else f"_{stars}") + "}")
        else:
            out.append(segment)
    return "/".join(out)


def _block(text: str, start: int) -> str:
    depth = 1
    for index in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start:index]
    return text[start:]


class _Extractor:
    def __init__(self, path: str, src: bytes):
        self.src = src.decode("utf-8", errors="replace")
        self.code = _COMMENTS.sub(_blank, self.src)
        self.lines = _Lines(self.code)
        self.http = http_rules(self.code)
        self.facts = FileFacts(path=path, language="proto", content_hash=content_hash(src), loc=count_lines(src))
        self.package = ""

    def run(self) -> FileFacts:
        errors = _Errors()

        def quiet(recognizer) -> None:
            recognizer.removeErrorListeners()
            recognizer.addErrorListener(errors)

        try:
            parsed = Parser(setup_lexer=quiet, setup_parser=quiet).parse(self.src)
        except Exception:   # noqa: BLE001 (the parser fails with arbitrary errors on input it cannot read)
            parsed = None
        if parsed is None or errors.count:
            self.facts.syntax_errors = 1
        if parsed is None:
            self.tolerant()
        else:
            for element in parsed.file_elements:
                self.element(element, None)
        self.facts.package = self.package
        return self.facts

    def add(self, sym: SymbolFact) -> SymbolFact:
        self.facts.symbols.append(sym)
        return sym

    def element(self, element, parent: str | None) -> None:
        if isinstance(element, ast.Package):
            self.package = element.name
        elif isinstance(element, ast.Import):
            self.facts.imports.append(ImportFact(element.name, ((element.name, element.name),),
                                                 _line_of(self.code, _IMPORT, element.name)))
        elif isinstance(element, ast.Service):
            self.service(element)
        elif isinstance(element, ast.Message):
            self.message(element, parent)
        elif isinstance(element, ast.Enum):
            key = f"{parent}.{element.name}" if parent else element.name
            line = self.lines.take("enum", element.name)
            self.add(SymbolFact(key, element.name, "enum", parent, line, line, f"enum {element.name}"))

    def service(self, service: ast.Service) -> None:
        line = self.lines.take("service", service.name)
        self.add(SymbolFact(service.name, service.name, "interface", None, line, line, f"service {service.name}",
                            modifiers=("grpc_service",)))
        last = line
        for element in service.elements:
            if isinstance(element, ast.Method):
                last = self.method(service.name, element.name, element.input_type.type, element.input_type.stream,
                                   element.output_type.type, element.output_type.stream)
        self.facts.symbols[-1 - sum(isinstance(e, ast.Method) for e in service.elements)].line_end = last

    def method(self, service: str, name: str, request: str, client_stream: bool, response: str,
               server_stream: bool) -> int:
        line = self.lines.take("rpc", name)
        grpc = f"{self.package + '.' if self.package else ''}{service}/{name}"
        queue = self.http.get(name)
        http = queue.popleft() if queue else []
        modifiers = (*(("client_streaming",) if client_stream else ()), *(("server_streaming",) if server_stream else ()))
        self.add(SymbolFact(
            f"{service}.{name}", name, "method", service, line, line,
            f"rpc {name}({'stream ' if client_stream else ''}{request}) returns "
            f"({'stream ' if server_stream else ''}{response})",
            modifiers=("abstract", *modifiers), type=response, params=(("request", request),),
            extra={"grpc": grpc, **({"http": http} if http else {})}))
        return line

    def message(self, message: ast.Message, parent: str | None) -> None:
        key = f"{parent}.{message.name}" if parent else message.name
        line = self.lines.take("message", message.name)
        self.add(SymbolFact(key, message.name, "record", parent, line, line, f"message {message.name}"))
        for element in message.elements:
            if isinstance(element, ast.Field | ast.MapField):
                type_ = element.type if isinstance(element, ast.Field) else \
                    f"map<{element.key_type}, {element.value_type}>"
                repeated = isinstance(element, ast.Field) and element.cardinality == ast.FieldCardinality.REPEATED
                self.add(SymbolFact(f"{key}.{element.name}", element.name, "field", key, line, line,
                                    f"{'repeated ' if repeated else ''}{type_} {element.name} = {element.number}",
                                    type=type_))
            elif isinstance(element, ast.Message | ast.Enum):
                self.element(element, key)

    def tolerant(self) -> None:
        """Services and rpc methods read with patterns, for a file the parser rejects."""
        found = _PACKAGE.search(self.code)
        self.package = found.group(1) if found else ""
        for target in _IMPORT.findall(self.code):
            self.facts.imports.append(ImportFact(target, ((target, target),), _line_of(self.code, _IMPORT, target)))
        for match in re.finditer(r"\bservice\s+(\w+)\s*\{", self.code):
            body_end = self.code.find("\n}", match.end())
            body = self.code[match.end(): body_end if body_end > 0 else len(self.code)]
            self.service(ast.Service(match.group(1), [
                ast.Method(m.group(1), ast.MessageType(m.group(3), bool(m.group(2))),
                           ast.MessageType(m.group(5), bool(m.group(4)))) for m in _RPC.finditer(body)]))


def _line_of(code: str, pattern: re.Pattern[str], value: str) -> int:
    for match in pattern.finditer(code):
        if match.group(1) == value:
            return code.count("\n", 0, match.start()) + 1
    return 1


def extract(path: str, src: bytes) -> FileFacts:
    """The facts of one ``.proto`` file (pure: depends only on ``path`` and ``src``)."""
    return _Extractor(path, src).run()
