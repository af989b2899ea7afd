CATALOG_URL = "http://catalog:8000"
