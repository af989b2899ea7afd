"""The skills toolset: Do/Check/Say support playbooks that agents search, create, refine and learn from.

Pure modules so far (the store and tool wiring come with the platform):
``playbook`` (the ``resolution_md`` format), ``diff`` (what an update changed), ``outcomes``
(confidence rules), ``imports`` (ABCD procedures and labelled intents to skill fields),
``routing`` (what of a skill is indexed) and ``judge`` (which candidate, if any, a search returns).
"""
