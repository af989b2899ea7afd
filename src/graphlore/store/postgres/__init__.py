"""The PostgreSQL + pgvector backend: selected for every namespace by a ``postgresql://`` database URL."""

from graphlore.store.postgres.connection import Database, database
from graphlore.store.postgres.store import PostgresStore

__all__ = ["Database", "PostgresStore", "database"]
