/// The rig editor's page: one self-contained HTML file (inline CSS and JavaScript, nothing loaded from
/// elsewhere). It shows the picture with the points as draggable handles (mouse, pen and touch: pointer events on
/// an SVG over the picture, whose units are the picture's pixels), the mouth's style, the eyes' radii, and a
/// preview the server renders after each change (mouth open, eyes blinking); Save sends the points.
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
  #save { font-size: 15px; padding: 6px 22px; }
  #saved { min-height: 1.4em; }
</style>
</head>
<body>
<h1>essence2 rig editor</h1>
<p id="note">Loading…</p>
<div id="main">
  <div>
    <div id="stage">
      <img id="picture" alt="the character's picture">
      <svg id="overlay" xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="none"></svg>
    </div>
    <p>Drag each point onto the character (left and right are the picture's).</p>
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
    <h2>Preview: mouth open, eyes closing</h2>
    <img id="preview" alt="preview of the character with its mouth open and a blink">
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
                             ended: false };
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
  function endDrag(ev) {
    if (!dragging || ev.pointerId !== dragging.id) return;
    const at = toPicture(ev);
    if (at && ev.type === "pointerup") rig.points[dragging.name] = at;
    dragging = null;
    draw();
    changed();
  }
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
      const response = await call("/preview", JSON.stringify(Object.assign({}, rig.points, { jaw: 0.8, blink: 1 })));
      const blob = await response.blob();
      if (rig.requested !== body) return;  // a newer one is on its way
      const old = preview.src;
      preview.src = URL.createObjectURL(blob);
      if (old.startsWith("blob:")) URL.revokeObjectURL(old);
      rig.previews += 1;
      rig.previewed = body;
      preview.dataset.count = String(rig.previews);
      status.textContent = "preview up to date";
    } catch (error) {
      if (rig.requested !== body) return;
      rig.previewed = "";
      status.className = "error";
      status.textContent = "no preview: " + error.message;
    }
  }

  $("save").addEventListener("click", async () => {
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
  });

  window.addEventListener("resize", () => { if (rig.points) { fit(); draw(); } });

  (async () => {
    try {
      const state = await (await call("/state")).json();
      rig.width = state.width;
      rig.height = state.height;
      rig.points = state.points;
      for (const key of ["left_eye_radius", "right_eye_radius", "left_brow", "right_brow", "mouth_opening"]) {
        if (!(key in rig.points)) rig.points[key] = null;
      }
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
