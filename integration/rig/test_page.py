"""The rig editor's page (`essence2 avatar rig`) in a real headless Chromium (selenium): the page shows the
proposed points over the picture, a point dragged with the mouse and one with a finger (touch) move, an eye's
radius set, the mouth set to "open" and the previews (rest, blink, mouth open) refreshed, Save writes X.imx and
X.points.json that hold the drag, and the editor exits 0. The fast path: one click on Accept saves the proposal as it
is; a dropped eye snaps onto the drawn eye; three clicks (the eyes, then the mouth) place a whole rig, measured
(the eyes' extents, the rest face) under the previews. A picture with two faces: both are offered, the finder's
answer first, and choosing the other one starts from its points.

    build/venv-python/bin/python -m pytest -q integration/rig/test_page.py   (make test-rig)

The essence2 command: $ESSENCE2_CLI, else build/essence2. Skipped only without Debian's chromium and
chromium-driver."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (make test-rig installs it)")

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))  # make_character's geometry
CLI = Path(os.environ.get("ESSENCE2_CLI", REPO / "build" / "essence2"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs Debian's chromium and chromium-driver (make deps installs them)")

# How far (picture pixels) the test drags the left eye with the mouse and the right eye with a finger.
MOUSE_DRAG = (10.0, 12.0)
TOUCH_DRAG = (-8.0, 9.0)


def rig_section(imx: Path) -> str:
    """The sha256 `essence2 avatar inspect` lists for the avatar's rig section."""
    out = subprocess.run([str(CLI), "avatar", "inspect", str(imx)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == "rig":
            return fields[5]
    raise AssertionError(f"no rig section in {imx}:\n{out}")


@pytest.fixture
def picture(tmp_path: Path) -> Path:
    path = tmp_path / "bear.png"
    subprocess.run([sys.executable, str(HERE / "make_character.py"), str(path)], check=True)
    return path


def start_editor(picture: Path, output: Path):
    """The editor on `picture` on any free port: (process, printed address, output path, its stdout lines)."""
    if not CLI.exists():
        pytest.fail(f"{CLI} is missing: run make build")
    proc = subprocess.Popen([str(CLI), "avatar", "rig", str(picture), "-o", str(output), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.put(line)
        lines.put("")

    threading.Thread(target=read, daemon=True).start()
    try:
        first = lines.get(timeout=60)
    except queue.Empty:
        proc.kill()
        pytest.fail("the editor printed no address")
    found = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32})\s*$", first)
    if not found or found.group(1) == "0":
        proc.kill()
        pytest.fail(f"no http://127.0.0.1:PORT/?token=TOKEN in {first!r}")
    return proc, found.group(0).strip(), output, lines


def stop(proc) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(10)


@pytest.fixture
def editor(picture: Path, tmp_path: Path):
    """The editor on the bear: (process, printed address, output path, its stdout lines)."""
    started = start_editor(picture, tmp_path / "bear.imx")
    yield started
    stop(started[0])


@pytest.fixture
def pair_editor(tmp_path: Path):
    """The editor on two bears in one picture (make_character.py --pair), saving bear.imx."""
    picture = tmp_path / "pair.png"
    subprocess.run([sys.executable, str(HERE / "make_character.py"), str(picture), "--pair"], check=True)
    started = start_editor(picture, tmp_path / "bear.imx")
    yield started
    stop(started[0])


@pytest.fixture
def browser():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,900"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield driver
    driver.quit()


def wait_for(browser, script: str, what: str, timeout: float = 30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = browser.execute_script(script)
        if value:
            return value
        time.sleep(0.1)
    status = browser.execute_script("return document.getElementById('status').textContent")
    pytest.fail(f"timed out waiting for {what} (page status: {status!r})")


def test_drag_a_point_open_the_mouth_preview_and_save(editor, browser, picture: Path, tmp_path: Path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    proc, url, output, lines = editor
    browser.get(url)
    wait_for(browser, "return window.rig && rig.points && rig.previews >= 1 && rig.previewed === rig.body()",
             "the first preview")
    # Points dropped exactly where they are dragged (the snap is test_a_dropped_eye_snaps_onto_it's).
    # (clicked from script: Selenium's click would scroll the page, and the touch below aims in the window's pixels)
    browser.execute_script("document.getElementById('snap').click()")
    assert not browser.find_element(By.ID, "snap").is_selected()
    # The starting points: the point finder's proposal, or the default layout without one.
    start = browser.execute_script("return JSON.parse(rig.body())")
    if "default layout" in browser.find_element(By.ID, "note").text:
        assert start["left_eye"] == [84.0, 96.0] and start["mouth"] == "closed"
    labels = browser.execute_script("return [...document.querySelectorAll('#overlay text')].map(t => t.textContent)")
    assert {"left eye", "right eye", "mouth left", "mouth centre", "mouth right"} <= set(labels)
    assert browser.execute_script(f"return document.getElementById('mouth-{start['mouth']}').checked")
    # Picture pixels per CSS pixel, and the mouse's drag in CSS pixels.
    unit = browser.execute_script("return rig.width / document.getElementById('picture').clientWidth")
    dx, dy = round(MOUSE_DRAG[0] / unit), round(MOUSE_DRAG[1] / unit)
    aim = (min(240, start["left_eye"][0] + dx * unit), min(240, start["left_eye"][1] + dy * unit))
    handle = browser.find_element(By.ID, "dot-left_eye")
    ActionChains(browser).click_and_hold(handle).move_by_offset(dx // 2, dy // 2) \
        .move_by_offset(dx - dx // 2, dy - dy // 2).release().perform()
    moved = browser.execute_script("return rig.points.left_eye")
    assert abs(moved[0] - aim[0]) <= unit and abs(moved[1] - aim[1]) <= unit, (moved, aim)
    # A finger drags the right eye's handle (touch pointer events), and the left eye gets a radius of its own.
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput
    finger = ActionBuilder(browser, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    right = browser.find_element(By.ID, "dot-right_eye").rect
    x, y = right["x"] + right["width"] / 2, right["y"] + right["height"] / 2
    tx, ty = round(TOUCH_DRAG[0] / unit), round(TOUCH_DRAG[1] / unit)
    aim = (max(0, start["right_eye"][0] + tx * unit), min(240, start["right_eye"][1] + ty * unit))
    finger.pointer_action.move_to_location(round(x), round(y)).pointer_down() \
        .move_to_location(round(x) + tx // 2, round(y) + ty // 2).move_to_location(round(x) + tx, round(y) + ty).pointer_up()
    finger.perform()
    touched = browser.execute_script("return rig.points.right_eye")
    assert abs(touched[0] - aim[0]) <= unit and abs(touched[1] - aim[1]) <= unit, (touched, aim)
    auto = browser.find_element(By.ID, "left-eye-radius-auto")
    if auto.is_selected():  # measured from the picture (no radius proposed): give it one of its own
        auto.click()
    radius = browser.execute_script("return rig.points.left_eye_radius")
    assert isinstance(radius, (int, float)) and radius > 0
    before = browser.execute_script("return rig.previews")
    browser.find_element(By.ID, "mouth-open").click()
    assert browser.execute_script("return rig.points.mouth") == "open"
    wait_for(browser, f"return rig.previews > {before} && rig.previewed === rig.body()", "the preview after the changes")
    size = browser.execute_script("const p = document.getElementById('preview'); "
                                  "return p.complete ? [p.naturalWidth, p.naturalHeight] : null")
    assert size == [3 * 416, 720]  # the rest face, a blink and the mouth open, side by side
    assert "error" not in browser.find_element(By.ID, "status").get_attribute("class")

    browser.find_element(By.ID, "save").click()
    answer = wait_for(browser, "return rig.saved", "the save's answer")
    assert answer["imx"] == str(output) and answer["keep"] is False
    assert proc.wait(30) == 0
    printed = []
    while True:
        line = lines.get(timeout=10)
        if not line:
            break
        printed.append(line)
    assert any(line.startswith(f"wrote {output}: bear, character") for line in printed), printed
    points_file = tmp_path / "bear.points.json"
    assert any(line.strip() == f"wrote {points_file}" for line in printed), printed

    saved = json.loads(points_file.read_text())
    assert saved["left_eye"] == moved
    assert saved["right_eye"] == touched
    assert saved["left_eye_radius"] == radius and saved.get("right_eye_radius") == start.get("right_eye_radius")
    assert saved["mouth"] == "open"
    for name in ("mouth_left", "mouth_right", "mouth_center"):
        assert saved[name] == start[name], name
    # The avatar holds the saved points: its rig is the one they build, not the starting points'.
    subprocess.run([str(CLI), "avatar", "inspect", str(output)], check=True, stdout=subprocess.DEVNULL)
    rebuilt, default = tmp_path / "rebuilt.imx", tmp_path / "default.imx"
    (tmp_path / "default.points.json").write_text(json.dumps(start))
    for points, imx in ((points_file, rebuilt), (tmp_path / "default.points.json", default)):
        subprocess.run([str(CLI), "avatar", "rig", str(picture), "--points", str(points), "-o", str(imx)],
                       check=True, stdout=subprocess.DEVNULL)
    assert rig_section(output) == rig_section(rebuilt)
    assert rig_section(output) != rig_section(default)


def ready(browser, url: str) -> None:
    browser.get(url)
    wait_for(browser, "return window.rig && rig.points && rig.previews >= 1 && rig.previewed === rig.body()",
             "the first preview")


def saved_points(proc, browser, tmp_path: Path) -> dict:
    answer = wait_for(browser, "return rig.saved", "the save's answer")
    assert answer["keep"] is False
    assert proc.wait(30) == 0
    return json.loads((tmp_path / "bear.points.json").read_text())


def near(p, q, tolerance: float) -> bool:
    return abs(p[0] - q[0]) <= tolerance and abs(p[1] - q[1]) <= tolerance


def test_accept_saves_the_proposal_in_one_click(editor, browser, tmp_path: Path):
    from selenium.webdriver.common.by import By

    proc, url, output, _ = editor
    ready(browser, url)
    start = browser.execute_script("return JSON.parse(rig.body())")
    browser.find_element(By.ID, "accept").click()
    saved = saved_points(proc, browser, tmp_path)
    for name in ("left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center", "mouth"):
        assert saved[name] == start[name], name
    assert output.exists()


def test_a_dropped_eye_snaps_onto_it(editor, browser, tmp_path: Path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from make_character import EYES

    proc, url, _, _ = editor
    ready(browser, url)
    assert browser.find_element(By.ID, "snap").is_selected()  # on by default
    unit = browser.execute_script("return rig.width / document.getElementById('picture').clientWidth")
    start = browser.execute_script("return rig.points.left_eye")
    # Dropped 10 and 8 picture pixels off the drawn eye (a fifth of the eye distance).
    aim = (EYES[0][0] + 10, EYES[0][1] - 8)
    dx, dy = round((aim[0] - start[0]) / unit), round((aim[1] - start[1]) / unit)
    ActionChains(browser).click_and_hold(browser.find_element(By.ID, "dot-left_eye")).move_by_offset(dx // 2, dy // 2) \
        .move_by_offset(dx - dx // 2, dy - dy // 2).release().perform()
    wait_for(browser, "return rig.snaps >= 1", "the snap")
    snapped = browser.execute_script("return rig.points.left_eye")
    assert near(snapped, EYES[0], 3.5), (snapped, EYES[0])
    wait_for(browser, "return rig.previewed === rig.body() && rig.looked === rig.body()", "the preview after the snap")
    browser.find_element(By.ID, "accept").click()
    assert saved_points(proc, browser, tmp_path)["left_eye"] == snapped


def test_three_clicks_place_a_rig(editor, browser, tmp_path: Path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from make_character import EYES, MOUTH

    proc, url, _, _ = editor
    ready(browser, url)
    picture = browser.find_element(By.ID, "picture")
    unit = browser.execute_script("return rig.width / document.getElementById('picture').clientWidth")
    half = (picture.size["width"] / 2, picture.size["height"] / 2)

    def click(x: float, y: float) -> None:  # picture pixels; Selenium's offsets are from the element's centre
        ActionChains(browser).move_to_element_with_offset(picture, round(x / unit - half[0]),
                                                          round(y / unit - half[1])).click().perform()

    browser.find_element(By.ID, "place-three").click()
    assert "eye" in browser.find_element(By.ID, "placing-note").text
    # The right eye first (either order), each a few pixels off, then the mouth.
    click(EYES[1][0] - 5, EYES[1][1] + 4)
    click(EYES[0][0] + 4, EYES[0][1] - 5)
    click(MOUTH["center"][0] + 4, MOUTH["center"][1] - 3)
    wait_for(browser, "return rig.placed === 1", "the placed rig")
    p = browser.execute_script("return JSON.parse(rig.body())")
    assert near(p["left_eye"], EYES[0], 3.5) and near(p["right_eye"], EYES[1], 3.5), p
    assert near(p["mouth_center"], MOUTH["center"], 6), p
    assert p["mouth_left"][0] < p["mouth_center"][0] < p["mouth_right"][0], p
    assert p["mouth"] == "closed"  # the bear's smile is a line
    wait_for(browser, "return rig.previewed === rig.body() && rig.looked === rig.body()", "the previews and the look")
    measured = browser.find_element(By.ID, "measured").text
    assert "left eye: open" in measured and "right eye: open" in measured and "rest face: the picture" in measured, measured
    look = browser.execute_script("return rig.look")
    assert all(e["eye_left"] == 0 for e in look["eyes"]), look
    browser.save_screenshot(str(tmp_path / "rig-editor.png"))
    if os.environ.get("RIG_SCREENSHOT"):
        shutil.copy(tmp_path / "rig-editor.png", os.environ["RIG_SCREENSHOT"])
    browser.find_element(By.ID, "accept").click()
    saved = saved_points(proc, browser, tmp_path)
    assert saved["left_eye"] == p["left_eye"] and saved["mouth_center"] == p["mouth_center"]


def test_two_faces_are_offered_and_the_other_one_chosen(pair_editor, browser, tmp_path: Path):
    from selenium.webdriver.common.by import By
    from make_character import pair_eyes

    proc, url, _, _ = pair_editor
    ready(browser, url)
    faces = browser.execute_script("return rig.faces")
    assert len(faces) == 2, faces
    assert not browser.find_element(By.ID, "faces").get_attribute("hidden")
    # The finder's answer first: the page starts on it.
    start = browser.execute_script("return JSON.parse(rig.body())")
    assert start["left_eye"] == faces[0]["left_eye"]
    # One face on each bear.
    on = [min((0, 1), key=lambda i: abs(f["left_eye"][0] - pair_eyes(i)[0][0])) for f in faces]
    assert sorted(on) == [0, 1], (faces, on)
    other = 1
    browser.find_element(By.ID, "face-2").click()
    wait_for(browser, "return rig.face === 1 && rig.previewed === rig.body() && rig.looked === rig.body()",
             "the previews of the second face")
    chosen = browser.execute_script("return JSON.parse(rig.body())")
    eyes = pair_eyes(on[other])
    tolerance = 0.25 * (eyes[1][0] - eyes[0][0])
    assert near(chosen["left_eye"], eyes[0], tolerance) and near(chosen["right_eye"], eyes[1], tolerance), (chosen, eyes)
    assert "chosen" in browser.find_element(By.ID, "face-2").get_attribute("class")
    browser.find_element(By.ID, "accept").click()
    saved = saved_points(proc, browser, tmp_path)
    assert saved["left_eye"] == chosen["left_eye"] and saved["right_eye"] == chosen["right_eye"]
