"""The index."""
