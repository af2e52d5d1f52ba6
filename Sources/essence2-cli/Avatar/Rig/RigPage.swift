/// The rig editor's page: one self-contained HTML file (inline CSS and JavaScript, nothing loaded from
/// elsewhere). It shows the picture with the points as draggable handles (mouse, pen and touch: pointer events on
/// an SVG over the picture, whose units are the picture's pixels), the mouth's style, the eyes' radii, the eyes
/// and rest face as measured on the avatar the points make, and previews the server renders after each change
/// (the rest face, a blink, the mouth open). Accept (or Save) sends the points; a dropped eye or mouth point snaps
/// onto its feature (the refinement network, unless turned off); "Place in three clicks" makes a rig from the two
/// eyes and the mouth.
enum RigPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>essence2 rig editor</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 12px 16px; background: #f3f3f5; color: #222; }
  h1 { font-size: 18px; margin: 0 0 4px; }
  h2 { font-size: 15px; margin: 12px 0 6px; }
  #note { margin: 0 0 10px; color: #555; }
  #main { display: flex; gap: 20px; flex-wrap: wrap; align-items: flex-start; }
  #stage { position: relative; display: inline-block; line-height: 0; background: #fff;
           box-shadow: 0 1px 4px rgba(0,0,0,.25); }
  #picture { display: block; user-select: none; -webkit-user-drag: none; pointer-events: none; }
  #overlay { position: absolute; left: 0; top: 0; width: 100%; height: 100%; touch-action: none; overflow: visible; }
  .handle { cursor: grab; }
  .handle.dragging { cursor: grabbing; }
  .handle .dot { fill: #ffd400; stroke: #111; }
  .handle.mouth .dot { fill: #ff5a7a; }
  .handle.brow .dot { fill: #5ad1ff; }
  .handle .ring { fill: transparent; }
  .handle text { fill: #111; stroke: #fff; paint-order: stroke; font-family: system-ui, sans-serif;
                 pointer-events: none; user-select: none; }
  .radius { fill: none; stroke: #ffd400; }
  .radius.auto { stroke-dasharray: 4 3; opacity: .7; }
  #mouth-line { fill: none; stroke: #ff5a7a; }
  #outline { fill: none; stroke: #5ad1ff; opacity: .8; }
  #side { min-width: 260px; max-width: 440px; }
  fieldset { border: 1px solid #ccc; margin: 0 0 10px; padding: 6px 10px 8px; background: #fff; }
  fieldset label { margin-right: 12px; white-space: nowrap; }
  .radius-row { display: grid; grid-template-columns: 70px 1fr 44px; gap: 6px; align-items: center; }
  #preview { display: block; max-width: 100%; max-height: 56vh; background: #ddd; box-shadow: 0 1px 4px rgba(0,0,0,.25); }
  #status { min-height: 1.4em; color: #555; }
  #status.error, #saved.error { color: #b00020; }
  #save, #accept { font-size: 15px; padding: 6px 22px; }
  #accept { background: #1f7a3a; color: #fff; border: 1px solid #145226; border-radius: 3px; margin: 0 0 10px; }
  #tools { margin: 8px 0; }
  #tools button { margin-right: 10px; }
  #stage.placing #overlay { cursor: crosshair; }
  #measured { margin: 4px 0 8px; color: #333; }
  #measured.error { color: #b00020; }
  #saved { min-height: 1.4em; }
  #faces button { margin: 0 6px 8px 0; }
  #faces button.chosen { font-weight: bold; border: 2px solid #1f7a3a; }
</style>
</head>
<body>
<h1>essence2 rig editor</h1>
<p id="note">Loading…</p>
<div id="faces" hidden></div>
<button id="accept" type="button">Accept these points</button>
<div id="main">
  <div>
    <div id="stage">
      <img id="picture" alt="the character's picture">
      <svg id="overlay" xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="none"></svg>
    </div>
    <p>Drag each point onto the character (left and right are the picture's).</p>
    <div id="tools">
      <button id="place-three" type="button">Place in three clicks</button>
      <label><input type="checkbox" id="snap" checked> snap a dropped eye or mouth point onto the picture</label>
    </div>
    <p id="placing-note"></p>
  </div>
  <div id="side">
    <fieldset id="mouth-style">
      <legend>The mouth in the picture is drawn</legend>
      <label><input type="radio" name="mouth" value="open" id="mouth-open"> open</label>
      <label><input type="radio" name="mouth" value="closed" id="mouth-closed"> closed</label>
      <label><input type="radio" name="mouth" value="absent" id="mouth-absent"> absent (none drawn)</label>
    </fieldset>
    <fieldset>
      <legend>Eye radius (picture pixels)</legend>
      <div class="radius-row"><span>left eye</span><input type="range" id="left-eye-radius" min="1" step="0.5">
        <span id="left-eye-radius-value"></span></div>
      <label><input type="checkbox" id="left-eye-radius-auto"> measure from the picture</label>
      <div class="radius-row"><span>right eye</span><input type="range" id="right-eye-radius" min="1" step="0.5">
        <span id="right-eye-radius-value"></span></div>
      <label><input type="checkbox" id="right-eye-radius-auto"> measure from the picture</label>
    </fieldset>
    <h2>As measured on the avatar</h2>
    <p id="measured">…</p>
    <h2>Preview: at rest, blinking, mouth open</h2>
    <img id="preview" alt="previews of the character at rest, blinking, and with its mouth open">
    <p id="status"></p>
    <button id="save" type="button">Save</button>
    <p id="saved"></p>
  </div>
</div>
<script>
"use strict";
(() => {
  const token = new URLSearchParams(location.search).get("token") || "";
  const SVG = "http://www.w3.org/2000/svg";
  const POINTS = [["left_eye", "left eye", "eye"], ["right_eye", "right eye", "eye"], ["left_brow", "left brow", "brow"],
                  ["right_brow", "right brow", "brow"], ["mouth_left", "mouth left", "mouth"],
                  ["mouth_center", "mouth centre", "mouth"], ["mouth_right", "mouth right", "mouth"]];
  const $ = (id) => document.getElementById(id);
  const picture = $("picture"), svg = $("overlay"), preview = $("preview"), status = $("status");
  const rig = window.rig = { points: null, width: 0, height: 0, previews: 0, previewed: "", requested: "", saved: null,
                             ended: false, snaps: 0, placing: null, placed: 0, look: null, looked: "", face: 0 };
  let timer = null, dragging = null, unit = 1;

  async function call(path, body) {
    const init = { method: body === undefined ? "GET" : "POST", cache: "no-store",
                   headers: { "X-Essence2-Token": token } };
    if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = body; }
    const response = await fetch(path, init);
    if (!response.ok) throw new Error((await response.text()).trim() || ("HTTP " + response.status));
    return response;
  }

  const round = (v) => Math.round(v * 100) / 100;
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
  rig.body = () => JSON.stringify(rig.points);

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function eyeDistance() {
    const a = rig.points.left_eye, b = rig.points.right_eye;
    return Math.hypot(b[0] - a[0], b[1] - a[1]);
  }

  // The picture as large as the window allows (small pictures enlarged), at most 720 pixels wide.
  function fit() {
    const room = Math.max(200, document.documentElement.clientWidth - (window.innerWidth > 900 ? 520 : 40));
    const scale = Math.min(720 / rig.width, room / rig.width, 0.8 * window.innerHeight / rig.height);
    picture.style.width = Math.round(rig.width * scale) + "px";
    picture.style.height = Math.round(rig.height * scale) + "px";
  }

  // Where each point's label goes: eyes and brows above, the mouth's left and right beside it, its centre below.
  function labelAt(name, q) {
    if (name === "mouth_left") return { x: q[0] - 10 * unit, y: q[1] + 4 * unit, anchor: "end" };
    if (name === "mouth_right") return { x: q[0] + 10 * unit, y: q[1] + 4 * unit, anchor: "start" };
    if (name === "mouth_center") return { x: q[0], y: q[1] + 22 * unit, anchor: "middle" };
    return { x: q[0], y: q[1] - 11 * unit, anchor: "middle" };
  }

  // Draws the points' handles, the mouth's line, the eyes' circles and the outline (when there is one).
  function draw() {
    unit = rig.width / Math.max(1, picture.clientWidth);  // picture pixels per screen pixel
    svg.replaceChildren();
    const p = rig.points;
    if (p.outline && p.outline.length) {
      el("polygon", { id: "outline", points: p.outline.map((q) => q.join(",")).join(" "), "stroke-width": 1.5 * unit }, svg);
    }
    el("polyline", { id: "mouth-line", points: [p.mouth_left, p.mouth_center, p.mouth_right].map((q) => q.join(",")).join(" "),
                     "stroke-width": 1.5 * unit, "stroke-dasharray": p.mouth === "absent" ? `${4 * unit} ${3 * unit}` : "none" }, svg);
    for (const side of ["left", "right"]) {
      const eye = p[side + "_eye"], r = p[side + "_eye_radius"];
      el("circle", { id: side + "-eye-circle", class: "radius" + (r == null ? " auto" : ""), cx: eye[0], cy: eye[1],
                     r: r == null ? 0.15 * eyeDistance() : r, "stroke-width": 1.5 * unit }, svg);
    }
    for (const [name, label, kind] of POINTS) {
      if (!p[name]) continue;
      const g = el("g", { class: "handle " + kind, id: "handle-" + name, "data-name": name }, svg);
      el("circle", { class: "ring", cx: p[name][0], cy: p[name][1], r: 14 * unit }, g);
      el("circle", { class: "dot", id: "dot-" + name, cx: p[name][0], cy: p[name][1], r: 6 * unit, "stroke-width": 1.5 * unit }, g);
      const at = labelAt(name, p[name]);
      const t = el("text", { x: at.x, y: at.y, "text-anchor": at.anchor, "font-size": 12 * unit,
                             "stroke-width": 3 * unit }, g);
      t.textContent = label;
      g.addEventListener("pointerdown", startDrag);
    }
    if (dragging) { const g = $("handle-" + dragging.name); if (g) g.classList.add("dragging"); }
  }

  // The pointer in picture pixels.
  function pointerAt(ev) {
    const m = svg.getScreenCTM();
    if (!m) return null;
    const pt = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
    return [pt.x, pt.y];
  }

  // Where the dragged point goes: it keeps its offset from the pointer (a handle grabbed off its centre does
  // not jump), inside the picture.
  function toPicture(ev) {
    const at = pointerAt(ev);
    if (!at) return null;
    return [round(clamp(at[0] + dragging.grab[0], 0, rig.width)), round(clamp(at[1] + dragging.grab[1], 0, rig.height))];
  }

  function startDrag(ev) {
    if (rig.ended || (ev.pointerType === "mouse" && ev.button !== 0)) return;
    const name = ev.currentTarget.dataset.name, at = pointerAt(ev);
    if (!at) return;
    ev.preventDefault();
    dragging = { name, id: ev.pointerId, grab: [rig.points[name][0] - at[0], rig.points[name][1] - at[1]] };
    try { svg.setPointerCapture(ev.pointerId); } catch (e) { /* a synthetic pointer */ }
    ev.currentTarget.classList.add("dragging");
  }
  svg.addEventListener("pointermove", (ev) => {
    if (!dragging || ev.pointerId !== dragging.id) return;
    ev.preventDefault();
    const at = toPicture(ev);
    if (!at) return;
    rig.points[dragging.name] = at;
    draw();
  });
  const SNAPPED = ["left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center"];
  function endDrag(ev) {
    if (!dragging || ev.pointerId !== dragging.id) return;
    const at = toPicture(ev), name = dragging.name;
    if (at && ev.type === "pointerup") rig.points[name] = at;
    dragging = null;
    draw();
    if (ev.type === "pointerup" && $("snap").checked && SNAPPED.includes(name)) snap(name); else changed();
  }

  // The dropped point onto its feature, as the server's refinement network sees it (kept where it sees none).
  async function snap(name) {
    const body = rig.body();
    try {
      const answer = await (await call("/snap", JSON.stringify(Object.assign({}, rig.points, { snap: name })))).json();
      if (rig.body() !== body) return;  // moved again meanwhile
      rig.points[name] = answer[name];
      rig.snaps += 1;
      draw();
    } catch (error) {
      status.className = "error";
      status.textContent = "no snap: " + error.message;
    }
    changed();
  }

  // Three clicks: the two eyes, then the mouth; the server places the rest.
  const PROMPTS = ["Click the centre of one eye.", "Click the centre of the other eye.", "Click the middle of the mouth."];
  $("place-three").addEventListener("click", () => {
    if (rig.ended) return;
    rig.placing = [];
    $("stage").classList.add("placing");
    $("placing-note").textContent = PROMPTS[0];
  });
  svg.addEventListener("pointerdown", async (ev) => {
    if (!rig.placing || rig.ended) return;
    ev.preventDefault();
    ev.stopPropagation();
    const at = pointerAt(ev);
    if (!at) return;
    rig.placing.push([round(clamp(at[0], 0, rig.width)), round(clamp(at[1], 0, rig.height))]);
    if (rig.placing.length < 3) { $("placing-note").textContent = PROMPTS[rig.placing.length]; return; }
    const [a, b, m] = rig.placing;
    rig.placing = null;
    $("stage").classList.remove("placing");
    $("placing-note").textContent = "placing…";
    try {
      const placed = await (await call("/place", JSON.stringify({ left_eye: a, right_eye: b, mouth_center: m }))).json();
      for (const key of ["left_eye_radius", "right_eye_radius", "left_brow", "right_brow", "mouth_opening"]) {
        if (!(key in placed)) placed[key] = null;
      }
      rig.points = placed;
      rig.placed += 1;
      $("placing-note").textContent = "Placed from three clicks: check the points, then accept.";
      draw(); showControls(); changed();
    } catch (error) {
      $("placing-note").textContent = "not placed: " + error.message;
    }
  }, true);
  svg.addEventListener("pointerup", endDrag);
  svg.addEventListener("pointercancel", endDrag);

  // The radius controls follow the points; "measure from the picture" sends null.
  function showControls() {
    const p = rig.points;
    for (const r of document.querySelectorAll("input[name=mouth]")) r.checked = r.value === p.mouth;
    for (const side of ["left", "right"]) {
      const key = side + "_eye_radius", slider = $(side + "-eye-radius"), auto = $(side + "-eye-radius-auto");
      slider.max = Math.max(8, Math.ceil(Math.max(rig.width, rig.height) / 4));
      const value = p[key] == null ? round(0.15 * eyeDistance()) : p[key];
      slider.value = value;
      slider.disabled = p[key] == null;
      auto.checked = p[key] == null;
      $(side + "-eye-radius-value").textContent = p[key] == null ? "auto" : String(value);
    }
  }
  for (const r of document.querySelectorAll("input[name=mouth]")) {
    r.addEventListener("change", () => { if (r.checked) { rig.points.mouth = r.value; draw(); changed(); } });
  }
  for (const side of ["left", "right"]) {
    const key = side + "_eye_radius", slider = $(side + "-eye-radius"), auto = $(side + "-eye-radius-auto");
    slider.addEventListener("input", () => { rig.points[key] = Number(slider.value); showControls(); draw(); changed(); });
    auto.addEventListener("change", () => {
      rig.points[key] = auto.checked ? null : Number(slider.value);
      showControls(); draw(); changed();
    });
  }

  // A new preview shortly after the last change; only the newest answer is shown.
  function changed() {
    if (rig.ended) return;
    clearTimeout(timer);
    timer = setTimeout(refresh, 150);
  }
  async function refresh() {
    const body = rig.body();
    rig.requested = body;
    status.className = "";
    status.textContent = "rendering the preview…";
    try {
      const response = await call("/previews", body);
      const blob = await response.blob();
      if (rig.requested !== body) return;  // a newer one is on its way
      const old = preview.src;
      preview.src = URL.createObjectURL(blob);
      if (old.startsWith("blob:")) URL.revokeObjectURL(old);
      rig.previews += 1;
      rig.previewed = body;
      preview.dataset.count = String(rig.previews);
      status.textContent = "preview up to date";
      measure(body);
    } catch (error) {
      if (rig.requested !== body) return;
      rig.previewed = "";
      status.className = "error";
      status.textContent = "no preview: " + error.message;
    }
  }

  // The eyes and the rest face as the engine will draw them, in words.
  async function measure(body) {
    const measured = $("measured");
    try {
      const look = await (await call("/look", body)).json();
      if (rig.requested !== body) return;
      rig.look = look;
      rig.looked = body;
      const eye = (side, e) => e.drawing === "open"
        ? `${side} eye: open, ${Math.round(e.extent[0])} × ${Math.round(e.extent[1])} pixels of the frame; a blink leaves ${e.eye_left} of its pixels`
        : `${side} eye: drawn ${e.drawing} (no lid)`;
      measured.className = "";
      measured.textContent = [eye("left", look.eyes[0]), eye("right", look.eyes[1]),
        look.rest_differing === 0 ? "rest face: the picture" : `rest face: ${look.rest_differing} pixels differ from the picture`,
        `mouth: ${rig.points.mouth}`].join("; ") + ".";
    } catch (error) {
      if (rig.requested !== body) return;
      measured.className = "error";
      measured.textContent = "not measured: " + error.message;
    }
  }

  async function save() {
    const saved = $("saved");
    saved.className = "";
    saved.textContent = "saving…";
    try {
      const answer = await (await call("/save", rig.body())).json();
      rig.saved = answer;
      saved.textContent = `Saved ${answer.imx} and ${answer.points}.` +
        (answer.keep ? "" : " The editor has ended; you can close this page.");
      if (!answer.keep) {
        rig.ended = true;
        for (const input of document.querySelectorAll("input, button")) input.disabled = true;
      }
    } catch (error) {
      saved.className = "error";
      saved.textContent = "not saved: " + error.message;
    }
  }
  // Points as the page keeps them: every optional key present (null when not given).
  function adopt(points) {
    rig.points = JSON.parse(JSON.stringify(points));
    for (const key of ["left_eye_radius", "right_eye_radius", "left_brow", "right_brow", "mouth_opening"]) {
      if (!(key in rig.points)) rig.points[key] = null;
    }
  }

  // More than one face found: a button for each (the finder's answer first, then the others largest first);
  // choosing one starts again from its points.
  function offerFaces(faces) {
    const row = $("faces");
    rig.faces = faces;
    if (faces.length < 2) return;
    row.hidden = false;
    row.textContent = `The picture holds ${faces.length} faces: `;
    faces.forEach((face, i) => {
      const button = document.createElement("button");
      button.type = "button";
      button.id = `face-${i + 1}`;
      button.textContent = i === 0 ? "face 1 (the finder's answer)" : `face ${i + 1}`;
      if (i === 0) button.className = "chosen";
      button.addEventListener("click", () => {
        if (rig.ended) return;
        adopt(face);
        rig.face = i;
        for (const other of row.querySelectorAll("button")) other.className = other === button ? "chosen" : "";
        draw();
        showControls();
        changed();
      });
      row.appendChild(button);
    });
  }

  $("save").addEventListener("click", save);
  $("accept").addEventListener("click", save);

  window.addEventListener("resize", () => { if (rig.points) { fit(); draw(); } });

  (async () => {
    try {
      const state = await (await call("/state")).json();
      rig.width = state.width;
      rig.height = state.height;
      adopt(state.points);
      offerFaces(state.faces || []);
      $("note").textContent = state.note + ` Save writes ${state.output} and ${state.points_output}.`;
      svg.setAttribute("viewBox", `0 0 ${state.width} ${state.height}`);
      picture.addEventListener("load", () => { fit(); draw(); showControls(); changed(); }, { once: true });
      picture.src = "/picture?token=" + encodeURIComponent(token);
    } catch (error) {
      $("note").textContent = "The editor cannot start: " + error.message;
    }
  })();
})();
</script>
</body>
</html>
"""#
}
