import httpx

from .settings import CATALOG_URL

API = CATALOG_URL + "/api"


def item(item_id: int):
    return httpx.get(f"{API}/items/{item_id}").json()


async def search(q: str):
    async with httpx.AsyncClient(base_url=API) as client:
        response = await client.get("/items/search", params={"q": q})
        return response.json()


def create(data: dict):
    return httpx.post(f"{API}/items", json=data)


def rates():
    return httpx.get("https://api.example.com/rates").json()
