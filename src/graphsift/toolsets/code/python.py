"""TypeScript / JavaScript extractor (stub until written)."""
from .model import FileFacts
from .parsing import content_hash, count_lines


def extract(path: str, src: bytes) -> FileFacts:
    return FileFacts(path=path, language="javascript" if path.endswith(("js", "jsx")) else "typescript",
                     content_hash=content_hash(src), loc=count_lines(src))
