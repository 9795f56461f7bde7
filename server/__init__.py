"""ubao's game server: a sans-I/O session core (`core`, `room`, `clock`) under a thin asyncio
WebSocket layer (`app`), SQLite persistence (`store`) and engine subprocesses for bot seats
(`bots`)."""
