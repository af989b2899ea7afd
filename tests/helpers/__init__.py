"""Test helpers shared by every toolset's tests: the MCP harness, a fake OpenAI-compatible endpoint and
the SKILL.md table reader (``pythonpath = ["tests"]`` makes them importable as ``helpers``)."""
