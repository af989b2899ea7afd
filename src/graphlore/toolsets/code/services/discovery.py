"""Service discovery names: a client URL that names a logical service instead of a host, and the addresses a
client's own settings give that name.

**Names in a URL** (`logical_host`): ``stork://svc/path`` (SmallRye Stork), ``lb://svc`` (Spring Cloud
LoadBalancer), gRPC's name syntax ``dns:///svc:port``, ``dns://resolver/svc:port``, ``dns:svc:port``,
``xds:///svc``, ``discovery:///svc`` (grpc-spring-boot-starter, Kratos) and ``consul://agent:8500/svc`` (the
service is the path: the authority is the resolver), ``static://host:port``; a Kubernetes DNS name
(``svc.ns.svc.cluster.local``, ``svc.ns.svc``) names the Service ``svc``
(`identity.ServiceNames.host`: not when the project's manifests put ``svc`` in another namespace). The name is looked up among the
project's service names as any host is (`identity.ServiceNames`): a name that is none of them leaves the client
unresolved, saying which name it looked for.

**Stork's addresses** (`stork_url`). A Stork name that is no service name is what the client's settings make of
it: ``quarkus.stork.<name>.service-discovery.address-list`` (``host:port``, comma-separated: each address is one
value of the URL), else the ``application`` (Kubernetes, Consul, Eureka, Knative) or ``hostname`` (DNS) it is
registered under; ``stork.<name>.*`` (Stork without Quarkus) too. The deployment's environment variables count as
Quarkus reads them (``QUARKUS_STORK_<NAME>_SERVICE_DISCOVERY_ADDRESS_LIST``). A URL and its addresses are paired
per configuration profile (``%dev.`` keys are read with the ``%dev.`` URL), as Quarkus resolves them; a profile
that sets any of the name's discovery keys is given those only (not the plain ones, nor the deployment's).
"""

from __future__ import annotations

import re

from ..languages.folding import CHOICE_CLOSE, CHOICE_OPEN, CHOICE_SEP
from .settings import Values, canonical

#: gRPC name-resolver schemes whose authority (if any) is the resolver's own server: the service is the path
RESOLVER_SCHEMES = frozenset({"dns", "xds", "discovery", "consul"})
#: how a URL's scheme names where its host came from (the others: a URL host)
SCHEME_SOURCES = {"lb": "lb:// URI", "stork": "stork:// service name", "static": "static:// address",
                  **{scheme: f"{scheme}: target" for scheme in RESOLVER_SCHEMES}}
_KUBE_DNS = re.compile(r"^([a-z0-9](?:[a-z0-9-]*[a-z0-9])?)\.([a-z0-9-]+)\.svc(?:\.cluster\.local)?\.?$", re.I)
_STORK = re.compile(r"^stork://([^/?#]+)(.*)$", re.S)
#: Stork service-discovery attributes that name what the service is registered under
_REGISTERED = ("application", "hostname")


def resolver_target(rest: str) -> tuple[str, str]:
    """What follows a gRPC resolver scheme's ``:`` taken apart into the service's host and a path: ``///orders:50051``
    and ``//8.8.8.8/orders:50051`` (the authority is the resolver's server) and ``orders:50051`` -> (``orders``,
    ``""``); ``//agent:8500/orders?healthy=true`` -> (``orders``, ``""``)."""
    endpoint = rest.split("/", 3)[3] if rest.startswith("//") and rest.count("/") >= 3 else rest.lstrip("/")
    endpoint = re.sub(r"[?#].*$", "", endpoint, flags=re.S)
    host, _, path = endpoint.partition("/")
    return host.split(":")[0], "/" + path if path else ""


def kubernetes_service(host: str) -> tuple[str, str] | None:
    """``orders.shop.svc.cluster.local`` -> (``orders``, its namespace ``shop``) (None: not a Kubernetes Service's
    DNS name)."""
    found = _KUBE_DNS.match(host)
    return (found.group(1), found.group(2)) if found else None


def _env_name(key: str) -> str:
    """Quarkus's (MicroProfile Config's) environment variable for a key: ``a.b-c`` -> ``A_B_C``."""
    return re.sub(r"[^A-Za-z0-9]", "_", key).upper()


def values_in(values: Values, key: str, profile: str | None) -> list[str]:
    """The values ``key`` takes in ``profile`` (None: no profile): the profile's own, else the plain settings' and
    the deployment's environment variables' (each a value: where the service runs decides)."""
    if profile is not None:
        own = values.profiles.get(profile, {}).get(canonical(key))
        if own is not None:
            return [own]
    found = values.entries.get(key)
    if found is None:
        found = values._canonical.get(canonical(key))
    out = [found] if found is not None else []
    for name in (key, _env_name(key)):
        out += values.env.get(name, [])
    return list(dict.fromkeys(v.strip() for v in out if v and v.strip()))


def _addresses(values: Values, name: str, profile: str | None) -> list[tuple[str, str]]:
    """(address, the key that gives it) of a Stork service name in ``profile``."""
    out: list[tuple[str, str]] = []
    for prefix in ("quarkus.stork.", "stork."):
        base = f"{prefix}{name}.service-discovery."
        own = values.profiles.get(profile, {}) if profile is not None else {}
        if any(canonical(base + a) in own for a in ("address-list", "type", *_REGISTERED)):
            profile_only = {a: own.get(canonical(base + a)) for a in ("address-list", "type", *_REGISTERED)}
            out += [(one.strip(), base + "address-list") for one in (profile_only["address-list"] or "").split(",")
                    if one.strip()]
            out += [(profile_only[a], base + a) for a in _REGISTERED if profile_only[a]]
            continue   # a profile that sets the name's discovery is paired with its own settings only
        for value in values_in(values, base + "address-list", profile):
            out += [(one.strip(), base + "address-list") for one in value.split(",") if one.strip()]
        for attribute in _REGISTERED:
            out += [(value, base + attribute) for value in values_in(values, base + attribute, profile)]
        if not out and any(t.lower() != "static" for t in values_in(values, base + "type", profile)):
            out.append((name, base + "type"))   # registered under the Stork name itself
    return list(dict.fromkeys(out))


def stork_url(values: Values, key: str) -> tuple[str, list[str]] | None:
    """The values of the URL setting ``key`` with each ``stork://name`` replaced by the addresses the settings
    give ``name`` (``http://host:port`` + the URL's path), as one value (a choice when several), and the keys that
    gave addresses; None when no value of ``key`` is a Stork URL."""
    urls: list[str] = []
    keys: list[str] = []
    stork = False
    for profile in [None, *values.profiles]:
        for url in values_in(values, key, profile):
            found = _STORK.match(url)
            if found is None:
                urls.append(url)
                continue
            stork = True
            name, rest = found.groups()
            addresses = _addresses(values, name, profile)
            urls += [f"http://{address}{rest}" for address, _ in addresses] or [url]
            keys += [k for _, k in addresses]
    if not stork:
        return None
    urls = list(dict.fromkeys(urls))
    text = urls[0] if len(urls) == 1 else CHOICE_OPEN + CHOICE_SEP.join(urls) + CHOICE_CLOSE
    return text, list(dict.fromkeys(keys))


_PLACEHOLDER = re.compile(r"\$\{([^{}:]+)(?::[^{}]*)?\}")


def stork_placeholders(text: str, values: Values) -> str:
    """``text`` with each placeholder of a setting whose value is a Stork URL replaced by `stork_url`'s value."""
    def replace(match: re.Match) -> str:
        found = stork_url(values, match.group(1).strip())
        return found[0] if found is not None else match.group(0)

    return _PLACEHOLDER.sub(replace, text)


__all__ = ["RESOLVER_SCHEMES", "SCHEME_SOURCES", "kubernetes_service", "resolver_target", "stork_placeholders",
           "stork_url", "values_in"]
