"""python -m essence2.web in a real headless Chromium (selenium): the page connects over WebRTC, the video plays
at about 25 frames a second, and the mouth moves while typed text is spoken. Saves build/web-screenshot.png (the
copy in docs/ is one of these)."""

from __future__ import annotations

import os
import queue
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("aiortc", reason="aiortc is not installed (pip install aiortc aiohttp)")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER and shutil.which("espeak-ng")),
                                reason="needs Debian's chromium, chromium-driver and espeak-ng")

# Mean luma of the mouth region (grace-hopper, 512x600) of the playing video, every 100 ms for `ms`.
SAMPLE_MOUTH = """
const [ms, done] = [arguments[0], arguments[arguments.length - 1]];
const v = document.getElementById('video'), c = document.createElement('canvas');
c.width = v.videoWidth; c.height = v.videoHeight;
const g = c.getContext('2d'), out = [];
const timer = setInterval(() => {
  g.drawImage(v, 0, 0);
  const d = g.getImageData(225, 262, 90, 40).data;
  let s = 0; for (let i = 0; i < d.length; i += 4) s += 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
  out.push(s / (d.length / 4));
}, 100);
setTimeout(() => { clearInterval(timer); done(out); }, ms);
"""

FPS = """
const done = arguments[arguments.length - 1];
async function frames() {
  const stats = await pc.getStats();
  let n = 0; stats.forEach((r) => { if (r.type === 'inbound-rtp' && r.kind === 'video') n = r.framesDecoded; });
  return n;
}
(async () => { const a = await frames(), t = performance.now();
  await new Promise((ok) => setTimeout(ok, 3000));
  done((await frames() - a) / ((performance.now() - t) / 1000)); })();
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_page(*args: str):
    """Starts ``python -m essence2.web`` on a free port; (process, the address it printed with its token)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "essence2.web", "--port", str(port), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline() if proc.stdout else ""), daemon=True).start()
    try:
        line = lines.get(timeout=30)
    except queue.Empty:
        proc.kill()
        pytest.fail("the page printed nothing")
    found = re.search(r"http://\S+", line)
    if not found:
        proc.kill()
        pytest.fail(f"the page printed no address: {line!r}")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("the page did not start: " + line)
    return proc, found.group(0)


def stop_page(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture
def server():
    proc, url = start_page()
    yield url
    stop_page(proc)


@pytest.fixture
def browser():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--use-fake-ui-for-media-stream",
                "--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required",
                "--window-size=1100,800"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_script_timeout(30)
    yield driver
    driver.quit()


def test_the_page_streams_the_avatar_and_the_mouth_moves_when_text_is_spoken(server, browser):
    browser.get(server)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if browser.execute_script("const v = document.getElementById('video'); "
                                  "return v.readyState >= 2 && v.videoWidth > 0 && !v.paused"):
            break
        time.sleep(0.2)
    else:
        pytest.fail("the video never played: " + browser.find_element("id", "status").text)
    assert browser.execute_script("return [document.getElementById('video').videoWidth, "
                                  "document.getElementById('video').videoHeight]") == [512, 600]
    fps = browser.execute_async_script(FPS)
    assert 20 <= fps <= 30, f"{fps:.1f} frames a second"
    idle = browser.execute_async_script(SAMPLE_MOUTH, 1500)
    browser.find_element("id", "say").click()
    time.sleep(0.3)
    speaking = browser.execute_async_script(SAMPLE_MOUTH, 3000)
    spread = lambda xs: max(xs) - min(xs)  # noqa: E731
    assert spread(speaking) > 2 * max(spread(idle), 1.0), (idle, speaking)
    assert "speaking" in browser.find_element("id", "status").text
    shot = REPO / "build" / "web-screenshot.png"
    shot.parent.mkdir(exist_ok=True)
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    browser.find_element("id", "interrupt").click()
    time.sleep(0.5)
    assert "interrupted" in browser.find_element("id", "status").text


def request(url: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None,
            token: str | None = None) -> tuple[int, str]:
    """(status, text) of a request to the page's server; ``token`` is sent in the header when given."""
    base = urllib.parse.urlsplit(url)
    headers = dict(headers or {})
    if token is not None:
        headers["X-Essence2-Token"] = token
    req = urllib.request.Request(f"{base.scheme}://{base.netloc}{path}", data=body, headers=headers,
                                 method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def token_of(url: str) -> str:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).get("token", [""])[0]


def test_bad_requests_get_a_reason_not_a_crash(server):
    token, json = token_of(server), {"Content-Type": "application/json"}
    assert request(server, "/say", b'{"text": "  "}', json, token) == (400, "type something to say")
    assert request(server, "/interrupt", b"", token=token) == (409, "no browser is connected")
    status, text = request(server, "/audio", b"this is not audio", {"Content-Type": "application/octet-stream"},
                           token)
    assert status == 400 and "audio" in text
    with urllib.request.urlopen(server, timeout=30) as r:
        assert r.status == 200 and "RTCPeerConnection" in r.read().decode()


def test_the_address_carries_a_token_of_this_run_and_the_page_listens_on_loopback(server):
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{40,}", server), server
    proc, other = start_page()
    try:
        assert token_of(other) != token_of(server)
    finally:
        stop_page(proc)
    port = urllib.parse.urlsplit(server).port
    listening = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True).stdout \
        if shutil.which("ss") else ""
    if listening:
        assert all(line.split()[3].startswith(("127.0.0.1:", "[::1]:")) for line in listening.splitlines())


@pytest.mark.parametrize("path", ["/say", "/audio", "/offer", "/interrupt"])
def test_requests_without_the_token_are_refused(server, path):
    body = b'{"text": "-f/etc/passwd", "sdp": "", "type": "offer"}'
    for token in (None, "", "wrong", token_of(server)[:-1]):
        status, text = request(server, path, body, {"Content-Type": "application/json"}, token)
        assert status == 403 and "token" in text, (token, status, text)
    status, text = request(server, path + "?token=wrong", body, {"Content-Type": "application/json"})
    assert status == 403 and "token" in text
    # The page itself needs it too, in its address.
    status, text = request(server, "/")
    assert status == 403 and "token" in text
    # With it, in the header or the query, the request is handled.
    assert request(server, "/interrupt", b"", token=token_of(server))[0] == 409
    assert request(server, "/interrupt?token=" + token_of(server), b"")[0] == 409


def test_other_origins_and_hosts_are_refused_even_with_the_token(server):
    token, port = token_of(server), urllib.parse.urlsplit(server).port
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{port + 1}", f"https://127.0.0.1:{port}"):
        status, text = request(server, "/interrupt", b"", {"Origin": origin}, token)
        assert status == 403 and "origin" in text, (origin, status, text)
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}", "127.0.0.1"):
        status, text = request(server, "/interrupt", b"", {"Host": host}, token)
        assert status == 403 and "Host" in text, (host, status, text)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):  # the page's own names
        assert request(server, "/interrupt", b"", {"Host": host, "Origin": f"http://{host}"}, token)[0] == 409


def test_text_beginning_with_a_dash_is_spoken_not_read_as_an_option(tmp_path):
    """The text goes to espeak-ng on its standard input: "-f/path" is spoken as typed, the file is not read."""
    from essence2.web import speak

    secret = tmp_path / "secret.txt"
    secret.write_text("This file must never be read aloud by the page. " * 40)
    pcm, rate = speak(f"-f{secret}")
    assert len(pcm) / rate < 20, f"{len(pcm) / rate:.0f} s: espeak-ng read the file aloud"
    pcm, rate = speak("--version")  # an option as text: spoken, not espeak-ng's version on stdout
    assert 0.3 < len(pcm) / rate < 10
