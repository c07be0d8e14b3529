"""The stand-in's Foundry server: serves the pages and the module, and relays between the clients of a world.

Each user's page runs in its own browser context (its own localStorage, like a separate browser) and holds
one websocket to this server, as Foundry's clients hold one socket.io connection. The server keeps each
world's documents (chat messages, actors, world settings), decides who is connected, and relays the module
socket and user queries. It records every frame it delivers to each user, so tests can check what a
page could ever have received.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import WSMsgType, web
from sanitiser import clean_html

# Foundry's CONST.USER_ROLES: PLAYER 1, TRUSTED 2, ASSISTANT 3, GAMEMASTER 4.
USERS = [
    {"id": "gm1", "name": "Gamemaster", "role": 4, "character": None},
    {"id": "gm2", "name": "Assistant", "role": 3, "character": None},
    {"id": "p1", "name": "Ayla", "role": 1, "character": "actorAyla"},
    {"id": "p2", "name": "Bram", "role": 1, "character": "actorBram"},
]
# Simple Worldbuilding keeps a character's attributes under `system.attributes` (each a value and a label).
ACTORS = [
    {
        "id": "actorAyla",
        "name": "Ayla Thorn",
        "owner": "p1",
        "system": {
            "attributes": {
                "rank": {"value": 2, "label": "Rank"},
                "ability": {"value": 3, "label": "Ability"},
                "athletics": {"value": 3, "label": "Athletics"},
            },
            "skills": {"athletics": {"value": 3, "label": "Athletics"}, "stealth": {"value": 1, "label": "Stealth"}},
        },
    },
    {"id": "actorBram", "name": "Bram Ashdown", "owner": "p2", "system": {"attributes": {}, "skills": {}}},
    # A base actor the GM owns, placed as several unlinked tokens (each token's actor is synthetic).
    {"id": "actorGoblin", "name": "Goblin", "owner": None},
]
# The tokens of the first scene: the characters linked to their actors (TokenDocument#actorLink), three goblins
# unlinked, each with its own ActorDelta over the one base actor.
TOKENS = [
    {
        "id": "tokAyla",
        "scene": "scene1",
        "actorId": "actorAyla",
        "actorLink": True,
        "name": "Ayla Thorn",
        "x": 360,
        "y": 220,
    },
    {
        "id": "tokBram",
        "scene": "scene1",
        "actorId": "actorBram",
        "actorLink": True,
        "name": "Bram Ashdown",
        "x": 500,
        "y": 220,
    },
    {
        "id": "tokGob1",
        "scene": "scene1",
        "actorId": "actorGoblin",
        "actorLink": False,
        "name": "Goblin Ears",
        "x": 360,
        "y": 380,
    },
    {
        "id": "tokGob2",
        "scene": "scene1",
        "actorId": "actorGoblin",
        "actorLink": False,
        "name": "Goblin Nose",
        "x": 500,
        "y": 380,
    },
    {
        "id": "tokGob3",
        "scene": "scene1",
        "actorId": "actorGoblin",
        "actorLink": False,
        "name": "Goblin Teeth",
        "x": 640,
        "y": 380,
    },
]
ROLE = {u["id"]: u["role"] for u in USERS}
TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".hbs": "text/plain",
    ".json": "application/json",
    ".css": "text/css",
    ".html": "text/html",
    ".woff2": "font/woff2",
}


def _is_gm(user: str) -> bool:
    """Foundry's User#isGM: the assistant and the full gamemaster roles."""
    return ROLE.get(user, 0) >= 3


def _merge(a: dict, b: dict) -> dict:
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            _merge(a[k], v)
        else:
            a[k] = v
    return a


@dataclass
class World:
    id: str
    settings: dict
    generation: int = 13
    system: str = "standin"
    # The scene the GM activated for everyone (Scene#active), or None: a world with no active scene.
    active_scene: str | None = "scene1"
    messages: list[dict] = field(default_factory=list)
    actors: dict[str, dict] = field(default_factory=dict)
    clients: dict[str, web.WebSocketResponse] = field(default_factory=dict)
    # Every frame delivered to each user, as sent (for secrecy checks).
    delivered: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    # Every module-socket frame each user emitted, with its sender as the server saw it.
    emitted: list[dict] = field(default_factory=list)
    queries: dict[str, tuple[str, str]] = field(default_factory=dict)  # query id -> (asking user, asked user)
    # Every User#query the server received: who asked whom, and the query's name.
    asked: list[dict] = field(default_factory=list)
    # Users whose connection has stalled: frames to them are held back (a network that stops delivering).
    stalled: set[str] = field(default_factory=set)
    tokens: dict[str, dict] = field(default_factory=dict)
    # Who created each chat message (the author may be another user): the server knows, clients do not.
    creators: dict[str, str] = field(default_factory=dict)
    macros: list[dict] = field(default_factory=list)
    # Modules active in the world besides Verdict (e.g. "dice-so-nice": the stand-in's double of it).
    modules: list[str] = field(default_factory=list)
    # The least role that may create script macros (Foundry's MACRO_SCRIPT permission; PLAYER by default).
    macro_script_role: int = 1
    # What the world's own scripts set in CONFIG before the modules' `init` (a system or a world script does,
    # e.g. `{"verdict": {"timings": {...}}}`): merged into each page's CONFIG before the module loads.
    config: dict = field(default_factory=dict)
    # Where the world's pages reached a place in which generations 13 and 14 differ (the stand-in's own
    # instrument, not Foundry's: the browser suite runs a test in both generations when its pages reach one).
    reached: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        for a in ACTORS:
            self.actors[a["id"]] = {**a, "flags": {}, "statuses": []}
        for t in TOKENS:
            self.tokens[t["id"]] = {**t, "delta": {"flags": {}, "statuses": []}}

    def settings_for(self, user: str) -> dict:
        """World settings and this user's own user-scope settings (stored per world and user, as v13's `user`
        scope): never another user's."""
        return {k: v for k, v in self.settings.items() if ":" not in k or k.startswith(f"{user}:")}

    def active(self) -> list[str]:
        return [u for u, ws in self.clients.items() if not ws.closed]


class StandinServer:
    """An aiohttp app in a thread of its own: static routes plus the world relay at /ws."""

    def __init__(self, routes: dict[str, Path], index: Path) -> None:
        self.routes = routes
        self.index = index
        self.worlds: dict[str, World] = {}
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._files: dict[Path, tuple[tuple[int, int], bytes]] = {}

    # --- lifecycle ------------------------------------------------------------------------------------
    def start(self) -> str:
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), daemon=True).start()
        if not ready.wait(10):
            raise RuntimeError("the stand-in server did not start")
        return f"http://127.0.0.1:{self.port}"

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        app.router.add_get("/ws", self._ws)
        app.router.add_get("/{tail:.*}", self._static)
        self._runner = web.AppRunner(app, access_log=None)
        self.loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        ready.set()
        self.loop.run_forever()

    def stop(self) -> None:
        async def down() -> None:
            if self._runner:
                await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(down(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)

    def world(
        self,
        settings: dict,
        generation: int = 13,
        system: str = "standin",
        active_scene: str | None = "scene1",
        modules: list[str] | None = None,
        macro_script_role: int = 1,
        config: dict | None = None,
    ) -> World:
        w = World(
            id=secrets.token_hex(6),
            settings=dict(settings),
            generation=generation,
            system=system,
            active_scene=active_scene,
            modules=list(modules or []),
            macro_script_role=macro_script_role,
            config=dict(config or {}),
        )
        self.worlds[w.id] = w
        return w

    def call(self, fn, *args):
        """Run ``fn(*args)`` on the server's loop (world state is only touched there)."""

        async def run():
            return fn(*args)

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)

    # --- static files ---------------------------------------------------------------------------------
    async def _static(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if path in ("/", "/index.html"):
            return self._file(self.index, request)
        for prefix, base in self.routes.items():
            if path.startswith(prefix):
                target = (base / path[len(prefix) :]).resolve()
                if base.resolve() in target.parents and target.is_file():
                    return self._file(target, request)
        raise web.HTTPNotFound()

    def _file(self, path: Path, request: web.Request) -> web.Response:
        """The file's bytes, read once per version of it (a page load asks for some sixty files; an aiohttp
        FileResponse hops to a thread for each, which a loaded machine turned into a waterfall of slow answers).
        The page itself must be asked for each time (`no-cache`); every other file a browser may keep for the
        run (`max-age`), as it keeps a server's static files, so a page loaded again in a browser lent before
        takes its scripts from the cache with the code compiled then, and asks nothing of the server: a page
        load cost about 1,050 ms of CPU across Chromium, Playwright and this server when each file was asked
        again and answered 304, and 775 ms so. The files do not change during a run; a file asked for anyway
        (a new browser) is answered 304 when the browser sends the ETag of the version it holds."""
        stat = path.stat()
        key = (stat.st_mtime_ns, stat.st_size)
        cached = self._files.get(path)
        if cached is None or cached[0] != key:
            cached = (key, path.read_bytes())
            self._files[path] = cached
        headers = {
            "Cache-Control": "no-cache" if path == self.index else "max-age=86400",
            "ETag": f'"{key[0]:x}-{key[1]:x}"',
        }
        if request.headers.get("If-None-Match") == headers["ETag"]:
            return web.Response(status=304, headers=headers)
        if path.suffix in TYPES:
            headers["Content-Type"] = TYPES[path.suffix]
        return web.Response(body=cached[1], headers=headers)

    # --- the relay ------------------------------------------------------------------------------------
    async def _send(self, world: World, user: str, frame: dict) -> None:
        ws = world.clients.get(user)
        if ws is None or ws.closed or user in world.stalled:
            return
        text = json.dumps(frame)
        world.delivered[user].append(text)
        try:
            await ws.send_str(text)
        except ConnectionError:
            pass

    async def _broadcast(self, world: World, frame: dict, *, exclude: str | None = None) -> None:
        for user in world.active():
            if user != exclude:
                await self._send(world, user, frame)

    async def _ws(self, request: web.Request) -> web.WebSocketResponse:
        world = self.worlds.get(request.query.get("world", ""))
        user = request.query.get("user", "")
        ws = web.WebSocketResponse(heartbeat=None)
        await ws.prepare(request)
        if world is None or user not in ROLE:
            await ws.close(code=4404, message=b"no such world or user")
            return ws
        old = world.clients.get(user)
        if old is not None and not old.closed:
            # Foundry lets a user be connected once: a second login ends the first connection.
            await old.close(code=4409, message=b"logged in elsewhere")
        world.clients[user] = ws
        await self._send(
            world,
            user,
            {
                "op": "init",
                "users": USERS,
                "active": world.active(),
                "messages": world.messages,
                "actors": list(world.actors.values()),
                "tokens": list(world.tokens.values()),
                "macros": world.macros,
                "modules": world.modules,
                "macroScriptRole": world.macro_script_role,
                "settings": world.settings_for(user),
                "generation": world.generation,
                "system": world.system,
                "activeScene": world.active_scene,
                "config": world.config,
            },
        )
        # Foundry's server tells every other client that this user connected (hook `userConnected`).
        await self._broadcast(world, {"op": "presence", "user": user, "active": True}, exclude=user)
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                try:
                    frame = json.loads(msg.data)
                except ValueError:
                    continue
                await self._handle(world, user, frame)
        finally:
            if world.clients.get(user) is ws:
                del world.clients[user]
                await self._broadcast(world, {"op": "presence", "user": user, "active": False})
                world.stalled.discard(user)
                # A query the user who left was asked fails for its asker; their own questions are dropped.
                for qid, (asker, asked) in list(world.queries.items()):
                    if asker == user or asked == user:
                        world.queries.pop(qid, None)
                    if asked == user and asker != user:
                        await self._send(
                            world, asker, {"op": "queryResult", "qid": qid, "error": f"User {user} is no longer active"}
                        )
        return ws

    async def _handle(self, world: World, user: str, f: dict) -> None:
        op = f.get("op")
        rid = f.get("rid")
        if op == "reached":
            world.reached.add(str(f.get("where")))
        elif op == "emit":
            # A module socket message: relayed to every other connected client, never echoed to its sender,
            # with the sender's user id as the server knows it (not as the sender claims).
            world.emitted.append({"sender": user, "name": f.get("name"), "data": f.get("data")})
            await self._broadcast(
                world, {"op": "socket", "name": f.get("name"), "data": f.get("data"), "sender": user}, exclude=user
            )
        elif op == "query":
            # User#query: delivered to the one user named, answered to the asker only.
            to = f.get("to")
            world.asked.append({"from": user, "to": to, "name": f.get("name")})
            if to not in world.active():
                await self._send(
                    world, user, {"op": "queryResult", "qid": f.get("qid"), "error": f"User {to} is not active"}
                )
                return
            world.queries[f["qid"]] = (user, to)
            await self._send(world, to, {"op": "query", "qid": f["qid"], "name": f.get("name"), "data": f.get("data")})
        elif op == "queryReply":
            asker, _ = world.queries.pop(f.get("qid"), (None, None))
            if asker is not None:
                await self._send(
                    world,
                    asker,
                    {"op": "queryResult", "qid": f.get("qid"), "result": f.get("result"), "error": f.get("error")},
                )
        elif op == "create":
            # ChatMessage creation: the server sets the id and the time; the author is the creating user, except
            # that a GM may create a message for another author (BaseChatMessage's create permission).
            data = dict(f.get("data") or {})
            author = data.get("author") or user
            if author != user and (not _is_gm(user) or author not in ROLE):
                await self._send(
                    world, user, {"op": "ack", "rid": rid, "error": "You may not create a ChatMessage for another user"}
                )
                return
            data.update(_id=secrets.token_hex(8), author=author, timestamp=len(world.messages) + 1)
            world.creators[data["_id"]] = user
            data.setdefault("whisper", [])
            data.setdefault("blind", False)
            data.setdefault("flags", {})
            # ChatMessage#content is an HTMLField: the server stores it cleaned (foundry.utils.cleanHTML).
            data["content"] = clean_html(str(data.get("content") or ""))
            world.messages.append(data)
            # Every client receives every message, whispered or not: `ChatMessage#visible` hides it on the client.
            await self._broadcast(world, {"op": "created", "data": data, "rid": None})
            await self._send(world, user, {"op": "ack", "rid": rid, "data": data})
        elif op == "updateMessage":
            msg = next((m for m in world.messages if m["_id"] == f.get("id")), None)
            # A chat message may be changed by its author or a GM (BaseChatMessage's update permission).
            if msg is None or not (msg["author"] == user or _is_gm(user)):
                await self._send(
                    world,
                    user,
                    {"op": "ack", "rid": rid, "error": "You do not have permission to update this ChatMessage"},
                )
                return
            changes = f.get("changes") or {}
            changes.pop("author", None)
            changes.pop("_id", None)
            if "content" in changes:
                changes["content"] = clean_html(str(changes["content"] or ""))
            _merge(msg, changes)
            await self._broadcast(world, {"op": "updatedMessage", "id": msg["_id"], "changes": changes})
            await self._send(world, user, {"op": "ack", "rid": rid})
        elif op == "updateActor":
            actor = world.actors.get(f.get("id"))
            token = world.tokens.get(f.get("token") or "")
            # An actor may be changed by its owner or a GM (Actor ownership levels).
            if actor is None or not (actor["owner"] == user or _is_gm(user)):
                await self._send(
                    world, user, {"op": "ack", "rid": rid, "error": "You do not have permission to update this Actor"}
                )
                return
            # A synthetic actor's changes go to its token's ActorDelta, never to the base actor.
            target = token["delta"] if token is not None and not token["actorLink"] else actor
            if "flags" in f:
                _merge(target["flags"], f["flags"])
            if "status" in f:
                sid, on = f["status"]["id"], bool(f["status"]["active"])
                target["statuses"] = [s for s in target["statuses"] if s != sid] + ([sid] if on else [])
            await self._broadcast(
                world,
                {
                    "op": "updatedActor",
                    "id": actor["id"],
                    "token": token["id"] if target is not actor and token is not None else None,
                    "flags": f.get("flags"),
                    "status": f.get("status"),
                    "by": user,
                },
            )
            await self._send(world, user, {"op": "ack", "rid": rid})
        elif op == "setting":
            key = str(f.get("key"))
            owner = key.split(":", 1)[0] if ":" in key else None
            if owner is not None:
                # A user-scope setting: written by that user only, stored per world and user, sent to that user only.
                if owner != user:
                    await self._send(world, user, {"op": "ack", "rid": rid, "error": "Another user's setting"})
                    return
                world.settings[key] = f.get("value")
                await self._send(world, user, {"op": "setting", "key": key, "value": f.get("value")})
                await self._send(world, user, {"op": "ack", "rid": rid})
                return
            # World settings: only a GM may write them; every client receives the new value.
            if not _is_gm(user):
                await self._send(world, user, {"op": "ack", "rid": rid, "error": "Only a GM may change world settings"})
                return
            world.settings[key] = f.get("value")
            await self._broadcast(world, {"op": "setting", "key": key, "value": f.get("value")})
            await self._send(world, user, {"op": "ack", "rid": rid})
        elif op == "createMacro":
            # Macro creation: a script macro needs the MACRO_SCRIPT permission (a least role the world sets).
            data = dict(f.get("data") or {})
            if data.get("type") == "script" and ROLE.get(user, 0) < world.macro_script_role and not _is_gm(user):
                await self._send(
                    world,
                    user,
                    {"op": "ack", "rid": rid, "error": "You do not have permission to create script macros"},
                )
                return
            data.update(_id=secrets.token_hex(8), author=user)
            world.macros.append(data)
            await self._broadcast(world, {"op": "createdMacro", "data": data})
            await self._send(world, user, {"op": "ack", "rid": rid, "data": data})
