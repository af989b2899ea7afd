"""Protocol Buffers: the services, rpc methods and messages of ``.proto`` files (`extract`), named in their
proto package; gRPC routes and clients (``frameworks/grpc``) are named by them (``package.Service/Method``)."""

from __future__ import annotations

from typing import Any

from ...model import TYPE_KINDS
from .. import roles
from ..base import Language, no_module
from ..resolver import Resolver
from ..symbols import Bound, EdgeSink
from . import extract


class ProtoResolver(Resolver):
    """A ``.proto`` file declares; it calls nothing. Its imports are kept as written."""

    CLASS_KINDS = TYPE_KINDS
    FILE_KIND = "file"

    def file_props(self, bound: Bound, sink: EdgeSink) -> dict[str, Any]:
        return {"package": bound.facts.package, "imports_external": [i.target for i in bound.facts.imports]}


LANGUAGE = Language("proto", {".proto": "proto"}, extract.extract, ProtoResolver, roles.Rules(),
                    module_name=no_module)
