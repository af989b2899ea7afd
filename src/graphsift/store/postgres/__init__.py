"""The PostgreSQL + pgvector backend: selected for every namespace by a ``postgresql://`` database URL."""

from graphsift.store.postgres.connection import Database, database
from graphsift.store.postgres.store import PostgresStore

__all__ = ["Database", "PostgresStore", "database"]
