// Setup, dice tray: tap the tray's four corners on a still from the camera. Only dice inside it are read
// (POST /api/tray, applied at once); a new install reads no dice until the tray is marked. The tray in use
// (between the tray's own tags, the marked one, one set in table millimetres, or the demo table's own) is drawn
// dashed.
"use strict";
(() => {
  const { $, act, getJSON, say, onState, CORNERS } = TC;
  const img = $("tray-img");
  let taps = [];
  let stored = [];
  let inUse = null;  // the camera's tray as the pipeline reads it: { corners, source }
  const SOURCES = {
    tags: "The tray between its four tray tags is drawn dashed yellow: it follows the tray wherever it is moved.",
    marked: "The marked tray is drawn dashed yellow.",
    table: "The tray set in table millimetres ([table] tray_mm) is drawn dashed yellow; mark one to use it instead.",
    demo: "No tray is marked: the demo table's own tray, drawn dashed yellow, is read until you mark one.",
  };
  let storedOn = null;  // the width of the camera's picture the stored tray was tapped on (null: not kept)
  let workWidth = null;  // the configured working width: the camera's picture when nothing better is known

  async function load() {
    const config = await getJSON("/api/config");
    const keys = Object.fromEntries(config.sections.flatMap((s) => s.keys.map((k) => [`${s.name}.${k.key}`, k.value])));
    stored = keys["table.tray_px"] || [];
    storedOn = (keys["table.picture_px"] || [])[0] || null;
    workWidth = keys["camera.work_width"] || 2304;
    draw();
  }
  function picture() { taps = []; img.src = `/api/live.jpg?t=${Date.now()}`; }
  img.addEventListener("load", draw);
  img.addEventListener("click", (ev) => {
    if (taps.length >= 4 || !img.naturalWidth) return;
    const box = img.getBoundingClientRect();
    taps.push([Math.round((ev.clientX - box.left) / box.width * img.naturalWidth * 10) / 10,
               Math.round((ev.clientY - box.top) / box.height * img.naturalHeight * 10) / 10]);
    draw();
  });
  function draw() {
    // A tray just marked applies at once; the pipeline's report of it follows with the next frame. The tray's
    // own tags come before a marked tray.
    // A tapped tray the camera cannot place on its picture (another view of the table) is not drawn: why is said.
    const misplaced = inUse && inUse.source === "misplaced" && stored.length === 4;
    const tray = inUse && inUse.source === "tags" ? inUse : misplaced ? null
      : stored.length === 4 ? { corners: stored, source: "marked", picture: [storedOn] } : inUse;
    // Each tray's corners are pixels of the picture it was placed or tapped on (a webcam's may be narrower than
    // the working width asked for); taps kept before that was kept are the camera's picture's own.
    const live = inUse && inUse.picture && inUse.picture[0];
    TC.drawCorners($("tray-marks"), img, taps, tray && tray.corners, (tray && tray.picture && tray.picture[0]) || live || workWidth);
    const tagged = inUse && inUse.source === "tags" && !taps.length;  // nothing to tap: the tags say where it is
    $("tray-status").textContent = tagged ? "The tray's own tags mark it: no need to tap its corners."
      : taps.length < 4 ? `Tap the tray's ${CORNERS[taps.length]} corner (${taps.length + 1} of 4).` : "All four corners marked: save the tray.";
    $("tray-save").disabled = taps.length !== 4;
    $("tray-back").disabled = !taps.length;
    const edge = tray && inUse && inUse.edge ? ` ${TC.sentence(inUse.edge)}` : "";  // lying towards the view's edge
    $("tray-stored").textContent = misplaced ? TC.sentence(inUse.why)
      : tray ? `${SOURCES[tray.source]}${edge}` : "No tray is marked: no dice are read.";
  }
  $("tray-picture").addEventListener("click", picture);
  $("tray-back").addEventListener("click", () => { taps.pop(); draw(); });  // a corner tapped wrong, taken back alone
  $("tray-save").addEventListener("click", async () => {
    const done = await act("/api/tray", { corners: taps, image_size: [img.naturalWidth, img.naturalHeight] });
    if (done) { say("Tray saved: only dice inside it are read."); taps = []; await load(); }
  });
  $("tray-forget").addEventListener("click", async () => {
    if (await act("/api/tray", {}, { method: "DELETE" })) { say("Tray forgotten: no dice are read until it is marked."); await load(); }
  });
  onState((snap) => { inUse = snap.tray || null; draw(); }, "tray");
  load().then(picture).catch(() => {});
})();
