"""python -m essence2.web in a real headless Chromium (selenium): the page connects over WebRTC, the video plays
at about 25 frames a second, and the mouth moves while typed text is spoken. Saves build/web-screenshot.png (the
copy in docs/ is one of these)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
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


@pytest.fixture
def server():
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "essence2.web", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("the page did not start: " + (proc.stdout.read() if proc.stdout else ""))
    yield f"http://127.0.0.1:{port}/"
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


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


def test_bad_requests_get_a_reason_not_a_crash(server):
    import urllib.error
    import urllib.request

    def post(path, body, ctype="application/json"):
        req = urllib.request.Request(server + path.lstrip("/"), data=body, headers={"Content-Type": ctype})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    assert post("/say", b'{"text": "  "}') == (400, "type something to say")
    assert post("/interrupt", b"") == (409, "no browser is connected")
    status, text = post("/audio", b"this is not audio", "application/octet-stream")
    assert status == 400 and "audio" in text
    with urllib.request.urlopen(server, timeout=30) as r:
        assert r.status == 200 and "RTCPeerConnection" in r.read().decode()


def test_text_beginning_with_a_dash_is_spoken_not_read_as_an_option(tmp_path):
    """The text goes to espeak-ng on its standard input: "-f/path" is spoken as typed, the file is not read."""
    from essence2.web import speak

    secret = tmp_path / "secret.txt"
    secret.write_text("This file must never be read aloud by the page. " * 40)
    pcm, rate = speak(f"-f{secret}")
    assert len(pcm) / rate < 20, f"{len(pcm) / rate:.0f} s: espeak-ng read the file aloud"
    pcm, rate = speak("--version")  # an option as text: spoken, not espeak-ng's version on stdout
    assert 0.3 < len(pcm) / rate < 10
