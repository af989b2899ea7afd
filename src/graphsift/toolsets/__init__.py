"""Toolsets: each is a self-contained product on top of the shared core; none imports another."""
