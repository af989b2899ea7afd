"""Routes, clients and producers, read from the facts by each framework of a language (part 2)."""
