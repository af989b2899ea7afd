"""The Spring profiles a module's deployment runs, when its evidence names them.

A service's ``application-<profile>`` files declare settings of that profile only (`settings.Values.profiles`);
which profile runs is said, if anywhere, by how the service is deployed or started:

* an environment variable the deployment gives it (Compose ``environment``, a Kubernetes container's ``env``, Helm
  values, a Dockerfile ``ENV``): ``SPRING_PROFILES_ACTIVE=prod``, or a JVM option in any variable's value
  (``JAVA_OPTS=-Dspring.profiles.active=prod``, ``JAVA_TOOL_OPTIONS``);
* the image's command (``ENTRYPOINT``/``CMD`` with ``-Dspring.profiles.active=prod`` or
  ``--spring.profiles.active=prod``: read into the environment as ``SPRING_PROFILES_ACTIVE``, `deployment`);
* else the base settings' ``spring.profiles.active`` (what runs when nothing overrides it).

To those, ``spring.profiles.include`` (base settings, ``SPRING_PROFILES_INCLUDE``, or a running profile's own file, as
Spring Boot before 2.4 reads it) adds profiles, and a ``spring.profiles.group.<name>`` expands a named profile into its
members (as Spring does); a value naming profiles that is not known leaves them all unknown. When no evidence names a
profile, None: every profile may run (each route stays marked with its profile, and is linked).

Several deployments that give different values are each one way the service runs: the profiles are the union of
what they name (a route of a profile none of them names is not run by any of them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .settings import Values, canonical

_FLAG = re.compile(r"(?:-D|--)spring\.profiles\.active=(?:\"([^\"]*)\"|'([^']*)'|([^\s\"']+))")


@dataclass(frozen=True)
class ActiveProfiles:
    """The profiles the deployment runs, and where that was read (shown to an agent)."""

    names: frozenset[str]
    evidence: str

    def reason(self, profile: str) -> str:
        """Why a route only ``profile`` declares is not linked."""
        shown = ", ".join(sorted(self.names)) or "none"
        return (f"declared by profile {profile} only, which this deployment does not run (active: {shown}, "
                f"from {self.evidence}); not linked")

    def replaced(self, profiles: list[str]) -> str:
        """Why a route of the base settings' list is not linked: a running profile writes a list in its place."""
        return (f"the base settings' route list, which the list of profile {', '.join(profiles)} replaces as a whole "
                f"(Spring binds a list from one source; active: {', '.join(sorted(self.names))}, from "
                f"{self.evidence}); not linked")


class _Unknown(Exception):
    """A value naming profiles is not known here (a placeholder, a shell variable): any profile may run."""


def _names(text: str) -> list[str]:
    """The profiles a value names (``a,b``); `_Unknown` when a part is not known (``${EXTRA},prod``: the known
    part is not every profile that runs)."""
    names = [one.strip() for one in re.split(r"[,\s]+", text) if one.strip()]
    if any("${" in one or "{?" in one for one in names):
        raise _Unknown
    return names


def _base(values: Values, key: str) -> list[str]:
    """A base-settings list value (``a,b`` or a YAML list ``key[0]``, ``key[1]``)."""
    return _listed(values.entries, key)


def _listed(entries: dict[str, str], key: str) -> list[str]:
    """The profiles a settings list value names (``a,b`` or a YAML list ``key[0]``, ``key[1]``)."""
    wanted = canonical(key)
    found = [v for k, v in entries.items() if canonical(k) == wanted]
    found += [v for k, v in sorted(entries.items()) if re.fullmatch(re.escape(wanted) + r"\[\d+\]", canonical(k))]
    return [name for value in found for name in _names(value)]


def active_profiles(values: Values) -> ActiveProfiles | None:
    """The profiles the module's deployment runs (see the module docstring); None when nothing names one, or a value
    that names them is not known (a deployment variable whose value is a shell's overrides the base settings with
    something unknown: never the base settings' then)."""
    try:
        return _active(values)
    except _Unknown:
        return None


def _active(values: Values) -> ActiveProfiles | None:
    named: list[str] = []
    evidence = ""
    given = values.env.get("SPRING_PROFILES_ACTIVE") or []
    for value in given:
        named += _names(value)
    if named:
        evidence = "the deployment's SPRING_PROFILES_ACTIVE"
    for name, options in sorted(values.env.items()):
        for value in options:
            for found in _FLAG.finditer(value):
                named += _names(next(g for g in found.groups() if g is not None))
                evidence = evidence or f"the deployment's {name}"
    if not named and not given:
        named = _base(values, "spring.profiles.active")
        evidence = "spring.profiles.active of the base settings"
    if not named:
        return None
    named += _base(values, "spring.profiles.include")
    for value in values.env.get("SPRING_PROFILES_INCLUDE") or []:
        named += _names(value)
    out: list[str] = []
    pending = list(named)
    while pending:   # a group expands into its members (themselves perhaps groups), a profile into what its own
        one = pending.pop(0)   # file includes (Spring Boot before 2.4 reads that)
        if one in out:
            continue
        out.append(one)
        pending += _base(values, f"spring.profiles.group.{one}")
        pending += _listed(values.profiles.get(one, {}), "spring.profiles.include")
    return ActiveProfiles(frozenset(out), evidence)
