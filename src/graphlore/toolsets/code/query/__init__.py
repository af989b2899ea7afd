"""The tools."""
