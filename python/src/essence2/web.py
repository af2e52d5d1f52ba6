"""A local page where the avatar speaks, live over WebRTC: ``python -m essence2.web [--avatar A] [--port 8080]``.

Type text (spoken by espeak-ng), drop an audio file, or speak into the microphone, and watch and hear the
avatar in the browser: one video and one audio track (aiortc), timestamped from the same frame count, so the
browser plays them in step. The interrupt button eases the face to rest. Needs the ``web`` extra
(``pip install 'essence2[web]'``: aiohttp, aiortc, PyAV) and the ``espeak-ng`` command for typed text;
``ffmpeg`` decodes other files than WAV.

Serves on 127.0.0.1 unless ``--host`` says otherwise. Each run makes a random token and prints the page's
address with it (``http://127.0.0.1:8080/?token=...``): every request must carry it (the page in its address,
the page's own requests in the ``X-Essence2-Token`` header), its Host must be the address the page is served on
and its Origin, when it has one, the page's own; anything else gets 403. So other web pages open in the same
browser can neither use the page nor post to it.
"""

from __future__ import annotations

import argparse
import asyncio
import fractions
import hmac
import logging
import secrets
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from ._extras import needs_extra

with needs_extra("web", __name__):
    from aiohttp import web
    from aiortc import MediaStreamTrack, RTCPeerConnection, RTCSessionDescription
    from av import AudioFrame, VideoFrame

from . import _native as N
from ._audio import decode_audio, mono
from .engine import Essence2
from .expression2 import open_avatar

log = logging.getLogger("essence2.web")
VIDEO_CLOCK = 90000
AUDIO_CHUNK = 320  # 20 ms audio packets (two per Essence 2 frame, two and a half per character frame)
TOKEN_HEADER = "X-Essence2-Token"
TOKEN: web.AppKey[str] = web.AppKey("essence2_web_token", str)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>essence2</title>
<style>
 body { font-family: sans-serif; margin: 1.5em; background: #f4f4f4; color: #222 }
 main { display: flex; gap: 1.5em; align-items: flex-start }
 video { background: #000; border-radius: 6px; max-height: 80vh }
 section { display: flex; flex-direction: column; gap: .8em; min-width: 22em }
 textarea { width: 100%; height: 6em; font-size: 1em }
 button { font-size: 1em; padding: .4em .9em }
 #drop { border: 2px dashed #999; padding: 1.2em; text-align: center; border-radius: 6px }
 #status { color: #555; font-size: .9em }
</style></head>
<body>
<h1>essence2</h1>
<main>
 <video id="video" autoplay playsinline></video>
 <section>
  <textarea id="text">Hello! I am an avatar rendered on your own CPU. Bob bought a bright blue map.</textarea>
  <div><button id="say">Say it</button> <button id="interrupt">Interrupt</button>
       <button id="mic">Use the microphone</button></div>
  <div id="drop">Drop an audio file here, or <input id="file" type="file" accept="audio/*"></div>
  <div id="status">connecting...</div>
 </section>
</main>
<script>
const video = document.getElementById('video'), status = document.getElementById('status');
// The run's token, from this page's address: every request to the server carries it.
const TOKEN = new URLSearchParams(location.search).get('token') || '';
let pc = null;
async function connect(withMic) {
  if (pc) pc.close();
  pc = new RTCPeerConnection();
  pc.addTransceiver('video', {direction: 'recvonly'});
  if (withMic) {
    const mic = await navigator.mediaDevices.getUserMedia({audio: true});
    pc.addTransceiver(mic.getAudioTracks()[0], {direction: 'sendrecv'});
  } else {
    pc.addTransceiver('audio', {direction: 'recvonly'});
  }
  const stream = new MediaStream();
  pc.ontrack = (e) => { stream.addTrack(e.track); video.srcObject = stream; };
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((ok) => {
    if (pc.iceGatheringState === 'complete') return ok();
    pc.addEventListener('icegatheringstatechange', () => { if (pc.iceGatheringState === 'complete') ok(); });
  });
  const r = await fetch('/offer', {method: 'POST',
    headers: {'Content-Type': 'application/json', 'X-Essence2-Token': TOKEN},
    body: JSON.stringify({sdp: pc.localDescription.sdp, type: pc.localDescription.type, mic: withMic})});
  if (!r.ok) { status.textContent = 'error: ' + await r.text(); return; }
  await pc.setRemoteDescription(await r.json());
  status.textContent = withMic ? 'connected: speak into the microphone' : 'connected';
}
async function post(path, body, type) {
  const headers = {'X-Essence2-Token': TOKEN};
  if (type) headers['Content-Type'] = type;
  const r = await fetch(path, {method: 'POST', body, headers});
  status.textContent = r.ok ? (await r.text()) : ('error: ' + await r.text());
}
document.getElementById('say').onclick = () =>
  post('/say', JSON.stringify({text: document.getElementById('text').value}), 'application/json');
document.getElementById('interrupt').onclick = () => post('/interrupt', '');
document.getElementById('mic').onclick = () => connect(true).catch((e) => status.textContent = 'error: ' + e);
const send = (f) => post('/audio', f, 'application/octet-stream');
document.getElementById('file').onchange = (e) => send(e.target.files[0]);
const drop = document.getElementById('drop');
drop.ondragover = (e) => e.preventDefault();
drop.ondrop = (e) => { e.preventDefault(); send(e.dataTransfer.files[0]); };
connect(false).catch((e) => status.textContent = 'error: ' + e);
</script>
</body></html>
"""


class _Track(MediaStreamTrack):
    """A track fed from a queue by the session's frame loop."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=50)

    async def recv(self) -> Any:
        return await self.queue.get()

    def offer(self, item: Any) -> None:
        if self.queue.full():  # a receiver that stopped reading: drop the oldest, stay live
            self.queue.get_nowait()
        self.queue.put_nowait(item)


class Session:
    """One browser connection: an engine in realtime pacing, its frames and audio on two tracks."""

    def __init__(self, avatar: str, pc: RTCPeerConnection) -> None:
        self.engine = open_avatar(avatar, pacing="realtime")
        self.pc = pc
        self.video = _Track("video")
        self.audio = _Track("audio")
        self.task: asyncio.Task[None] | None = None
        self.mic_task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.ensure_future(self._frames())

    async def _frames(self) -> None:
        audio_pts = 0
        pending = np.zeros(0, np.int16)
        async for f in self.engine.frames():
            picture = VideoFrame.from_ndarray(f.bgr, format="bgr24")
            picture.pts = f.index * (VIDEO_CLOCK // self.engine.fps)
            picture.time_base = fractions.Fraction(1, VIDEO_CLOCK)
            self.video.offer(picture)
            pending = np.concatenate([pending, f.audio])
            while len(pending) >= AUDIO_CHUNK:
                half, pending = pending[:AUDIO_CHUNK], pending[AUDIO_CHUNK:]
                sound = AudioFrame.from_ndarray(half.reshape(1, -1), format="s16", layout="mono")
                sound.sample_rate = N.SAMPLE_RATE
                sound.pts = audio_pts
                sound.time_base = fractions.Fraction(1, N.SAMPLE_RATE)
                audio_pts += len(half)
                self.audio.offer(sound)

    def listen(self, track: MediaStreamTrack) -> None:
        """Microphone audio from the browser: pushed as speech, a reply ending after 0.6 s of quiet."""
        async def run() -> None:
            while True:
                try:
                    frame = await track.recv()
                except Exception:
                    return
                if not isinstance(frame, AudioFrame):
                    continue
                pcm = np.asarray(frame.to_ndarray().reshape(-1), np.int16)
                level = float(np.sqrt(np.mean(pcm.astype(np.float64) ** 2))) if len(pcm) else 0.0
                if level > 300 or self.engine.reply_pending:  # the library resamples (its filter kept across frames)
                    self.engine.push_audio(mono(pcm, len(frame.layout.channels)), sample_rate=frame.sample_rate)
        self.mic_task = asyncio.ensure_future(run())

    async def close(self) -> None:
        for task in (self.task, self.mic_task):
            if task is not None:
                task.cancel()
        await self.pc.close()
        self.engine.close()


def speak(text: str) -> tuple[np.ndarray, int]:
    """``text`` spoken by espeak-ng.

    The text goes to espeak-ng on its standard input (``--stdin``), never on its command line, so that text
    beginning with ``-`` is spoken, not read as an option (``-f/some/file`` would read a local file aloud).
    """
    if shutil.which("espeak-ng") is None:
        raise ValueError("typed text is spoken by espeak-ng: install it (apt-get install espeak-ng)")
    run = subprocess.run(["espeak-ng", "--stdout", "--stdin"], input=text[:2000].encode("utf-8"),
                         capture_output=True, timeout=60)
    if run.returncode != 0:
        raise ValueError("espeak-ng failed: " + run.stderr.decode("utf-8", "replace").strip())
    return decode_audio(run.stdout)


def _forbidden(reason: str) -> web.HTTPForbidden:
    return web.HTTPForbidden(text="forbidden: " + reason, headers={"Referrer-Policy": "no-referrer"})


def guard(token: str, hosts: Iterable[str] = ()) -> Callable[..., Awaitable[web.StreamResponse]]:
    """The middleware that refuses (403) a request whose Host is not the page's address, whose Origin (when
    present) is not the page's own, or that lacks ``token`` (``?token=`` in the page's address, the
    ``X-Essence2-Token`` header or ``?token=`` on the page's requests).

    The Host must name 127.0.0.1, localhost, [::1], one of ``hosts`` or the address the connection came in
    on, with the port it came in on: a page of another site that makes its own name point to 127.0.0.1 (DNS
    rebinding) is refused.
    """
    names = {n.lower() for n in LOOPBACK_NAMES}
    names.update(h.strip().strip("[]").lower() for h in hosts if h.strip())
    expected = token.encode("utf-8")

    @web.middleware
    async def middleware(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                         ) -> web.StreamResponse:
        host = request.headers.get("Host", "")
        sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
        try:
            parts = urlsplit("http://" + host)
            name, port = (parts.hostname or ""), (parts.port or 80)
        except ValueError:
            name, port = "", 0
        local = sockname[0].lower() if isinstance(sockname, tuple) and sockname else None
        local_port = sockname[1] if isinstance(sockname, tuple) and len(sockname) > 1 else port
        if not host or (name not in names and name != local) or port != local_port:
            raise _forbidden(f"the Host {host!r} is not the address this page is served on")
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"http://{host}":
            raise _forbidden(f"a page of another origin ({origin}) may not use this one")
        given = request.headers.get(TOKEN_HEADER) or request.query.get("token", "")
        if not hmac.compare_digest(given.encode("utf-8"), expected):
            raise _forbidden("this request does not carry the page's token: open the address that "
                             "python -m essence2.web printed when it started (http://HOST:PORT/?token=...)")
        response = await handler(request)
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    return middleware


def make_app(avatar: str = "grace-hopper", *, token: str | None = None,
             hosts: Iterable[str] = ()) -> web.Application:
    """The page's web application (also for embedding in another aiohttp server).

    Every request must carry ``token`` (a random one when None; ``app[TOKEN]`` holds it): open the page as
    ``/?token=TOKEN``. ``hosts`` are names besides the loopback ones that the Host header may give (the name
    the server is reached by); see ``guard``.
    """
    N.avatar_path(avatar)  # a wrong avatar fails here, not at the first connection
    sessions: set[Session] = set()
    token = token or secrets.token_urlsafe(32)
    app = web.Application(client_max_size=64 * 1024 * 1024, middlewares=[guard(token, hosts)])
    app[TOKEN] = token

    def current() -> Session:
        if not sessions:
            raise web.HTTPConflict(text="no browser is connected")
        return next(reversed(list(sessions)))

    async def index(_: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html", headers={"Cache-Control": "no-store"})

    async def offer(request: web.Request) -> web.Response:
        params = await request.json()
        pc = RTCPeerConnection()
        for old in list(sessions):  # one viewer at a time: a new connection replaces the old one
            sessions.discard(old)
            await old.close()
        session = Session(avatar, pc)
        sessions.add(session)

        @pc.on("track")
        def on_track(track: MediaStreamTrack) -> None:
            if track.kind == "audio" and params.get("mic"):
                session.listen(track)

        @pc.on("connectionstatechange")
        async def on_state() -> None:
            if pc.connectionState in ("failed", "closed") and session in sessions:
                sessions.discard(session)
                await session.close()

        await pc.setRemoteDescription(RTCSessionDescription(sdp=params["sdp"], type=params["type"]))
        pc.addTrack(session.video)
        pc.addTrack(session.audio)
        await pc.setLocalDescription(await pc.createAnswer())
        session.start()
        return web.json_response({"sdp": pc.localDescription.sdp, "type": pc.localDescription.type})

    async def push(pcm: np.ndarray, rate: int) -> str:
        engine = current().engine
        engine.push_audio(pcm, sample_rate=rate)
        engine.flush()
        return f"speaking ({len(pcm) / rate:.1f} s)"

    async def speak_decoded(decode: Any, arg: Any) -> web.Response:
        """Decodes (in a worker thread: espeak-ng and ffmpeg take a while) and speaks the result."""
        try:
            pcm, rate = await asyncio.get_running_loop().run_in_executor(None, decode, arg)
        except ValueError as e:
            raise web.HTTPBadRequest(text=str(e)) from e
        return web.Response(text=await push(pcm, rate))

    async def say(request: web.Request) -> web.Response:
        text = str((await request.json()).get("text", "")).strip()
        if not text:
            raise web.HTTPBadRequest(text="type something to say")
        return await speak_decoded(speak, text)

    async def audio(request: web.Request) -> web.Response:
        return await speak_decoded(decode_audio, await request.read())

    async def interrupt(_: web.Request) -> web.Response:
        current().engine.interrupt()
        return web.Response(text="interrupted")

    async def on_shutdown(_: web.Application) -> None:
        for s in list(sessions):
            await s.close()
        sessions.clear()

    app.router.add_get("/", index)
    app.router.add_post("/offer", offer)
    app.router.add_post("/say", say)
    app.router.add_post("/audio", audio)
    app.router.add_post("/interrupt", interrupt)
    app.on_shutdown.append(on_shutdown)
    return app


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m essence2.web", description=__doc__.split("\n\n")[0])
    ap.add_argument("--avatar", default="grace-hopper", help="an .imx path or a shipped avatar's name")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--host", default="127.0.0.1",
                    help="the address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 for every "
                         "interface: anyone who can reach it and has the printed address can use the page)")
    a = ap.parse_args(argv)
    try:
        app = make_app(a.avatar, hosts=[a.host])
    except FileNotFoundError as e:
        print(f"essence2.web: {e}", file=sys.stderr)
        return 2
    shown = "127.0.0.1" if a.host in ("0.0.0.0", "::", "") else (f"[{a.host}]" if ":" in a.host else a.host)
    print(f"essence2: open http://{shown}:{a.port}/?token={app[TOKEN]} in a browser (Ctrl-C stops)", flush=True)
    try:
        web.run_app(app, host=a.host, port=a.port, print=None)
    except OSError as e:
        print(f"essence2.web: cannot serve on {a.host}:{a.port}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
