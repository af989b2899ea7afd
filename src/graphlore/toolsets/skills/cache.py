"""The one cache of the skills toolset: passage vectors of the skills a search has read, per process.

``search_skills`` judges its 5 candidates from the query's cosine to each of their
passages, so it needs their vectors; reading them from the store is a few hundred
blobs per search (an imported intent has 100 passages) from PostgreSQL (the SQLite
store answers from its in-memory vector snapshot once a search has loaded it). This
cache keeps them in memory, keyed by ``(namespace, skill_id, text_hash)``. The text hash covers the
passages and the routing version (:func:`library.passages_hash`), and a library
only ever holds vectors of one embedder (``check_embedder`` refuses another until
the library is re-embedded; re-embedding with the same model gives the same
vectors), so a key names exactly one set of vectors: a changed skill has another
hash and misses. Vectors are cached only when the skill's hash read after them is
the hash read before them (no write landed in between).

Bounded: at most :data:`MAX_SKILLS` skills, least recently used dropped first
(~100 MB for skills of 100 passages at 384 dimensions; each entry is a copy of its
skill's rows, never a view that keeps a store's snapshot alive). One instance per runtime
(``runtime.state(PassageCache)``), emptied when the runtime closes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from graphlore.store import Node, Store

#: Skills whose vectors are kept.
MAX_SKILLS = 2048


class PassageCache:
    def __init__(self, max_skills: int = MAX_SKILLS) -> None:
        self.max_skills = max_skills
        self._rows: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._rows)

    def fill(self, store: Store, nodes: Sequence[Node]) -> None:
        """Set ``vectors`` of each node (read without them), from the cache or the store."""
        missing = []
        with self._lock:
            for node in nodes:
                key = (store.namespace, node.id, node.text_hash)
                if key in self._rows:
                    self._rows.move_to_end(key)
                    node.vectors = self._rows[key]
                else:
                    missing.append(node)
        if not missing:
            return
        vectors = store.node_vectors([n.id for n in missing])
        again = {n.id: n.text_hash for n in store.get_nodes([n.id for n in missing])}
        with self._lock:
            for node in missing:
                node.vectors = vectors.get(node.id)
                if node.vectors is not None and again.get(node.id) == node.text_hash:
                    # a copy: the SQLite store's rows are views of its whole snapshot matrix, which a cached
                    # view would keep alive (after the snapshot is rebuilt, an old copy of it)
                    node.vectors = np.array(node.vectors)
                    node.vectors.flags.writeable = False
                    self._rows[(store.namespace, node.id, node.text_hash)] = node.vectors
            while len(self._rows) > self.max_skills:
                self._rows.popitem(last=False)

    def close(self) -> None:
        """Drop every row (the runtime closes its states)."""
        with self._lock:
            self._rows.clear()
