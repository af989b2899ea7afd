"""The code graph in memory (built in full or updated incrementally) and in the store."""
