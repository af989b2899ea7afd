from fastapi import APIRouter

ITEMS = "/items"
router = APIRouter(prefix=ITEMS)


@router.get("/{item_id:int}")
def get_item(item_id: int):
    return {"id": item_id}


@router.get("/search")
def search(q: str):
    return []


@router.post("")
def create(item: dict):
    return item
