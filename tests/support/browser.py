"""A real headless Chromium driven over the Chrome DevTools Protocol, as the browser tests use
it: pages found and pressed by their accessible names and roles (the accessibility tree the
browser builds, as a screen reader reads it), screenshots, and every console error kept.

Chromium is Debian's `chromium` (`.ci/run` installs it); `CHROMIUM` names another binary.
Tests that need it skip where there is none (`needs_chromium`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ctypes
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

WAIT_S = 30.0
CHROMIUM = (
    os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt install chromium)")

AXE_PATHS = (
    os.environ.get("AXE_CORE", ""),
    "node_modules/axe-core/axe.min.js",
    ".ci/node_modules/axe-core/axe.min.js",
)
"""Where axe-core (npm's `axe-core`, `.ci/run` installs it) may be; its check skips without it."""


def axe_source() -> str | None:
    for path in AXE_PATHS:
        if path and Path(path).is_file():
            return Path(path).read_text()
    return None


PRESS_POINT = """async function () {
    const box = () => {
        const r = this.getClientRects()[0] || this.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2, r.width, r.height];
    };
    const pause = () => new Promise((done) => setTimeout(done, 50));
    const deadline = Date.now() + WAIT_MS;
    let before = null;
    while (Date.now() < deadline) {
        this.scrollIntoView({block: 'center'});
        const now = box();
        const hit = document.elementFromPoint(now[0], now[1]);
        const still = before && now.every((v, i) => v === before[i]);
        if (still && hit && (hit === this || this.contains(hit))) return now.slice(0, 2);
        before = now;
        await pause();
    }
    throw new Error('it kept moving or something covered it');
}""".replace("WAIT_MS", str(int(WAIT_S * 1000)))
"""Where to click an element: the middle of its first box (a link's first line), once it has
stayed put for 50 ms and is what a click there reaches (run in the page, on the element)."""


class BrowserError(AssertionError):
    pass


class Chromium:
    """One headless browser process and its DevTools connection."""

    def __init__(self, process: subprocess.Popen[bytes], ws: ClientConnection, profile: str):
        self.process = process
        self.ws = ws
        self.profile = profile
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.pages: dict[str, Page] = {}
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for raw in self.ws:
            message = json.loads(raw)
            if "id" in message and message["id"] in self.waiting:
                future = self.waiting.pop(message["id"])
                if not future.done():
                    future.set_result(message)
            elif "sessionId" in message and message["sessionId"] in self.pages:
                self.pages[message["sessionId"]].on_event(message["method"], message["params"])

    async def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        number = next(self.ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[number] = future
        message: dict[str, Any] = {"id": number, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        await self.ws.send(json.dumps(message))
        answer = await asyncio.wait_for(future, WAIT_S)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer["result"]
        return result

    async def close_pages(self) -> None:
        """Close every page opened so far, with its browser context (its storage)."""
        pages, self.pages = list(self.pages.values()), {}
        for page in pages:
            await self.call("Target.disposeBrowserContext", browserContextId=page.context)

    async def page(self, width: int = 1280, height: int = 800, dark: bool = False) -> Page:
        """A new window of the given size and colour scheme, in a browser context of its own:
        another person, whose storage no other page shares."""
        context = await self.call("Target.createBrowserContext")
        target = await self.call(
            "Target.createTarget",
            url="about:blank",
            width=width,
            height=height,
            browserContextId=context["browserContextId"],
        )
        attached = await self.call(
            "Target.attachToTarget", targetId=target["targetId"], flatten=True
        )
        page = Page(self, attached["sessionId"], context["browserContextId"])
        self.pages[page.session] = page
        for domain in ("Page", "Runtime", "Log", "DOM", "Accessibility"):
            await page.call(f"{domain}.enable")
        await page.size(width, height, dark)
        return page


class Page:
    """One tab: navigation, the accessibility tree, input as a user gives it."""

    def __init__(self, browser: Chromium, session: str, context: str) -> None:
        self.browser = browser
        self.session = session
        self.context = context
        self.errors: list[str] = []
        self.loaded = asyncio.Event()

    def on_event(self, method: str, params: dict[str, Any]) -> None:
        if method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            self.errors.append(
                " ".join(str(a.get("value", a.get("description"))) for a in params["args"])
            )
        elif method == "Runtime.exceptionThrown":
            self.errors.append(
                str(params["exceptionDetails"].get("exception", {}).get("description"))
            )
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append(params["entry"]["text"])
        elif method == "Page.loadEventFired":
            self.loaded.set()

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        return await self.browser.call(method, self.session, **params)

    async def size(self, width: int, height: int, dark: bool = False) -> None:
        await self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=width < 600,
        )
        scheme = "dark" if dark else "light"
        await self.call(
            "Emulation.setEmulatedMedia",
            features=[{"name": "prefers-color-scheme", "value": scheme}],
        )

    async def goto(self, url: str) -> None:
        self.loaded.clear()
        await self.call("Page.navigate", url=url)
        await asyncio.wait_for(self.loaded.wait(), WAIT_S)

    async def evaluate(self, expression: str) -> Any:
        answer = await self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    async def accessible(self) -> list[tuple[str, str, int]]:
        """The accessibility tree's nodes: (role, name, backend DOM node), ignored ones left out."""
        tree = await self.call("Accessibility.getFullAXTree")
        nodes = []
        for node in tree["nodes"]:
            if node.get("ignored") or "backendDOMNodeId" not in node:
                continue
            role = node.get("role", {}).get("value", "")
            name = node.get("name", {}).get("value", "")
            nodes.append((str(role), str(name), int(node["backendDOMNodeId"])))
        return nodes

    async def find_all(self, role: str, name: str) -> list[tuple[str, int]]:
        """Nodes of `role` whose accessible name matches the regular expression `name`."""
        pattern = re.compile(name)
        return [
            (n, node) for r, n, node in await self.accessible() if r == role and pattern.search(n)
        ]

    async def wait_for(self, role: str, name: str, timeout: float = WAIT_S) -> tuple[str, int]:
        """The first node of `role` named like `name`, once there is one."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            found = await self.find_all(role, name)
            if found:
                return found[0]
            if loop.time() > deadline:
                names = sorted({n for r, n, _ in await self.accessible() if r == role})
                where = await self.evaluate("location.href")
                raise BrowserError(
                    f"no {role} named like {name!r}; there are {names[:40]} "
                    f"(at {where}, the status says {await self.status()!r})"
                )
            await asyncio.sleep(0.1)

    async def status(self) -> str:
        """What the live status region says now."""
        text = await self.evaluate("document.querySelector('[role=status]').textContent")
        return str(text)

    async def wait_status(self, pattern: str, timeout: float = WAIT_S) -> str:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not re.search(pattern, text := await self.status()):
            if loop.time() > deadline:
                raise BrowserError(f"the status says {text!r}, not {pattern!r}")
            await asyncio.sleep(0.1)
        return text

    async def press(self, role: str, name: str) -> str:
        """Click, with the mouse, the control of `role` named like `name`; its full name.
        As a person waits for a page to settle before clicking, the click waits until the
        control has stopped moving and nothing covers its middle: a lobby list filled in
        above a button must not turn a click on it into a click on nothing."""
        found, node = await self.wait_for(role, name)
        element = await self.call("DOM.resolveNode", backendNodeId=node)
        answer = await self.call(
            "Runtime.callFunctionOn",
            objectId=element["object"]["objectId"],
            functionDeclaration=PRESS_POINT,
            awaitPromise=True,
            returnByValue=True,
        )
        if "exceptionDetails" in answer:
            raise BrowserError(f"cannot press {role} {found!r}: {answer['exceptionDetails']}")
        x, y = answer["result"]["value"]
        for kind in ("mousePressed", "mouseReleased"):
            await self.call(
                "Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1
            )
        return found

    async def focus(self, role: str, name: str) -> str:
        found, node = await self.wait_for(role, name)
        await self.call("DOM.focus", backendNodeId=node)
        return found

    async def key(self, key: str) -> None:
        """Press and release one key on what has the focus ("Enter", "ArrowLeft", "a")."""
        codes = {
            "Enter": 13,
            "ArrowLeft": 37,
            "ArrowUp": 38,
            "ArrowRight": 39,
            "ArrowDown": 40,
            "Tab": 9,
            " ": 32,
        }
        code = codes.get(key, ord(key.upper()[0]))
        text = {"Enter": "\r", " ": " "}.get(key, key if len(key) == 1 else "")
        down: dict[str, Any] = {"type": "keyDown", "key": key, "windowsVirtualKeyCode": code}
        if text:
            down["text"] = text
        await self.call("Input.dispatchKeyEvent", **down)
        await self.call("Input.dispatchKeyEvent", type="keyUp", key=key, windowsVirtualKeyCode=code)

    async def type(self, text: str) -> None:
        await self.call("Input.insertText", text=text)

    async def screenshot(self, path: Path) -> None:
        shot = await self.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
        path.write_bytes(base64.b64decode(shot["data"]))

    async def layout_problems(self) -> list[str]:
        """What a person would see wrong in the layout: a page wider than its window, a board
        wider than its box, controls that overlap."""
        return list(await self.evaluate(LAYOUT_CHECK))

    async def axe(self, source: str) -> list[str]:
        """axe-core run in the page: its serious and critical violations."""
        await self.evaluate(source)
        found = await self.evaluate(
            "axe.run(document, {resultTypes: ['violations']}).then(r => r.violations"
            ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
            ".map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', ')))"
        )
        return list(found)


LAYOUT_CHECK = (Path(__file__).parent / "layout_check.js").read_text()
"""What a person would see wrong in a page's layout, as a script run in it."""


def die_with_parent() -> None:
    """In the child: end with the test run, however it ends (a killed pytest too), by Linux's
    parent-death signal; elsewhere nothing."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


PR_SET_PDEATHSIG = 1


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Chromium]:
    """A headless Chromium of its own profile, ended on leaving."""
    assert CHROMIUM is not None
    profile = tempfile.mkdtemp(prefix="ubao-chromium-")
    process = subprocess.Popen(
        [
            CHROMIUM,
            "--headless=new",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "--no-sandbox",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-gpu",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--mute-audio",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent,
    )
    try:
        port_file = Path(profile) / "DevToolsActivePort"
        for _ in range(300):
            if port_file.exists() and len(port_file.read_text().split()) >= 2:
                break
            await asyncio.sleep(0.05)
        port, path = port_file.read_text().split()[:2]
        async with connect(f"ws://127.0.0.1:{port}{path}", max_size=None) as ws:
            browser = Chromium(process, ws, profile)
            try:
                yield browser
            finally:
                browser.reader.cancel()
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(profile, ignore_errors=True)


# -- what a person does on ubao's page --------------------------------------------------------

GAME_OVER = r"^Game over"
YOUR_TURN = r"Your turn"


async def choose(page: Page, label: str, option: str) -> None:
    """Pick `option` (its text) in the drop-down named `label`, as a person would."""
    _, node = await page.wait_for("combobox", f"^{label}$")
    element = await page.call("DOM.resolveNode", backendNodeId=node)
    await page.call(
        "Runtime.callFunctionOn",
        objectId=element["object"]["objectId"],
        functionDeclaration="""function (text) {
            const option = [...this.options].find((o) => o.textContent === text);
            if (!option) throw new Error(`no option ${text}`);
            this.focus();
            this.value = option.value;
            this.dispatchEvent(new Event('change', {bubbles: true}));
        }""",
        arguments=[{"value": option}],
    )


async def claim_name(page: Page, port: int, name: str) -> None:
    """In the lobby, play under `name` and claim it: an account, its key kept in the page."""
    await page.goto(f"http://127.0.0.1:{port}/")
    await page.focus("textbox", "^Your name$")
    await page.evaluate("document.activeElement.select()")
    await page.type(name)
    await page.press("button", "^Use this name$")
    await page.wait_for("StaticText", f"^You play as {name}, a guest")
    await page.press("button", "^Claim this name$")
    await page.wait_status(f"^{name} is your account now")
    await page.wait_for("StaticText", f"^You play as {name}, an account")


async def create_game(
    page: Page,
    port: int,
    game: str,
    speed: str = "off",
    tick: str = "",
    **choices: str,
) -> None:
    """From the lobby, the new-game form filled in (`choices`: label -> option; the check box
    named like `tick`, if given, ticked) and sent; the game's page then shows moves at `speed`
    (the tests that do not look at the animation skip it)."""
    await page.goto(f"http://127.0.0.1:{port}/")
    await choose(page, "Game", game)
    for label, option in choices.items():
        await choose(page, label.replace("_", " "), option)
    if tick:
        await page.press("checkbox", tick)
    await page.press("button", "^Create game$")
    await page.wait_for("group", "board")
    await choose(page, "Animation speed", speed)


async def moves_shown(page: Page) -> int:
    """How many moves the page's move list holds (read from the page: the tests poll it)."""
    return int(await page.evaluate("document.querySelectorAll('.moves li').length"))


async def play_one(page: Page) -> str:
    """Press the first legal hole (answering a direction or safari question with its first
    answer); its name. Returns once the move is in the move list."""
    before = await moves_shown(page)
    name = await page.press("button", "legal move$|legal move, |^Play pass$")
    while await page.find_all("button", "^Sow to the|^Yes, go"):
        await page.press("button", "^Sow to the|^Yes, go")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while await moves_shown(page) <= before and not re.search(GAME_OVER, await page.status()):
        if loop.time() > deadline:
            raise BrowserError(f"{name} was not played: {await page.status()}")
        await asyncio.sleep(0.05)
    return name


async def play_to_end(page: Page, most: int = 400) -> str:
    """Play legal moves whenever it is this page's turn, until the game is over; the status."""
    for _ in range(most):
        text = await page.wait_status(f"{GAME_OVER}|{YOUR_TURN}")
        if re.search(GAME_OVER, text):
            return text
        if await page.find_all("button", "legal move|^Play pass$"):
            await play_one(page)
        else:
            await asyncio.sleep(0.05)
    raise BrowserError("the game did not end")
