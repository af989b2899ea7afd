"""The code tools: models, strict filters, traversal, rendering."""
