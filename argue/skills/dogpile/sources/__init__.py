"""One adapter per research source, each ``async def search(query, *, client, limit)``."""
