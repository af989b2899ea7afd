from fastapi import APIRouter

orphan = APIRouter(prefix="/admin")


@orphan.delete("/cache")
def clear_cache():
    return None
