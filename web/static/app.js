// Shared by every page: the live state (server-sent events with catch-up), requests with the
// security token and the game master's PIN, the alerts panel, undo/redo, and small SVG charts.
// No framework and no build step: the Pi serves these files as they are.
"use strict";

const TC = (() => {
  const SVG_NS = "http://www.w3.org/2000/svg";
  const listeners = [];
  let snapshot = JSON.parse(document.getElementById("initial").textContent);
  let csrf = document.querySelector('meta[name="csrf-token"]').content;
  const gamesNode = document.getElementById("games");
  // The games the companion knows ({name, title, page, ...}): pages never keep their own list.
  const games = gamesNode ? JSON.parse(gamesNode.textContent) : [];
  const gameInfo = (name) => games.find((g) => g.name === name) || { name, title: name, page: null };

  // -- DOM helpers (text is always set as text: names typed by players can never become markup) --
  function build(node, attrs, children) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "class") node.setAttribute("class", value);
      else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
      else if (key === "dataset") Object.assign(node.dataset, value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const el = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);
  const svg = (tag, attrs, ...children) => build(document.createElementNS(SVG_NS, tag), attrs, children);
  const $ = (id) => document.getElementById(id);

  // Rebuild part of a page without losing what a player is doing there: every element marked
  // data-keep="KEY" gets back its typed value, its open state (details) and the focus with the caret.
  function keeping(container, rebuild) {
    const kept = new Map();
    let focused = null;
    for (const node of container.querySelectorAll("[data-keep]")) {
      kept.set(node.dataset.keep, { value: node.value, open: node.open });
      if (node === document.activeElement) focused = { key: node.dataset.keep, start: node.selectionStart, end: node.selectionEnd };
    }
    rebuild();
    for (const node of container.querySelectorAll("[data-keep]")) {
      const was = kept.get(node.dataset.keep);
      if (!was) continue;
      if (node.tagName === "DETAILS") node.open = was.open;
      else if (typeof was.value === "string" && was.value !== node.value) node.value = was.value;
      if (focused && focused.key === node.dataset.keep) {
        node.focus({ preventScroll: true });
        if (focused.start !== null && node.setSelectionRange) node.setSelectionRange(focused.start, focused.end);
      }
    }
  }

  // -- messages --
  let toastTimer = null;
  function say(text, kind = "info") {
    const toast = $("toast");
    toast.textContent = text;
    toast.className = `toast ${kind}`;
    toast.hidden = !text;
    clearTimeout(toastTimer);
    if (text) toastTimer = setTimeout(() => { toast.hidden = true; }, kind === "error" ? 8000 : 3000);
  }

  // -- the state --
  function publish(snap, force = false) {
    if (!snap) return;
    if (!force && snapshot && typeof snapshot.version === "number" && snap.version < snapshot.version) return;
    snapshot = snap;
    for (const fn of listeners) {
      try { fn(snap); } catch (err) { console.error(err); }
    }
  }
  // A patch from the event stream (web/patch.py): set, del and splice operations on paths.
  // Only the objects on a changed path are copied: every untouched part keeps its identity, so a
  // page can tell at once that e.g. the game did not change when only the camera's health did.
  function applyPatch(doc, ops) {
    const shallow = (value) => (Array.isArray(value) ? value.slice() : { ...value });
    let root = doc;
    for (const op of ops) {
      const [kind, path] = op;
      if (!path.length) {
        if (kind === "set") root = op[2];
        else if (kind === "splice") root = root.slice(op[2]).concat(op[3]);
        continue;
      }
      root = shallow(root);
      let parent = root;
      for (const key of path.slice(0, -1)) {
        parent[key] = shallow(parent[key]);
        parent = parent[key];
      }
      const last = path[path.length - 1];
      if (kind === "set") parent[last] = op[2];
      else if (kind === "del") delete parent[last];
      else if (kind === "splice") parent[last] = parent[last].slice(op[2]).concat(op[3]);
    }
    return root;
  }

  // Which player this phone is (a claimed seat), shown in the header on every page.
  function renderMe(snap) {
    const me = $("me");
    if (!me) return;
    me.hidden = !snap.viewer;
    me.textContent = snap.viewer ? `${snap.viewer}'s phone` : "";
  }

  // Call fn(snapshot) now and after every change; with parts ("game", "alerts", ...), only when one
  // of those parts of the state changed: a page is not rebuilt for a camera or LED update, so an
  // open form, a focused input and the scroll position stay as they are.
  function onState(fn, ...parts) {
    let seen = null;
    const listener = !parts.length ? fn : (snap) => {
      const key = JSON.stringify(parts.map((part) => snap[part]));
      if (key === seen) return;
      seen = key;
      fn(snap);
    };
    listeners.push(listener);
    try { listener(snapshot); } catch (err) { console.error(err); }
  }

  // -- requests --
  async function refreshSession() {
    const response = await fetch("/api/session", { credentials: "same-origin" });
    const data = await response.json();
    csrf = data.csrf;
    return data;
  }

  async function api(path, body, { method = "POST", retried = false, quiet = false } = {}) {
    const options = { method, credentials: "same-origin", headers: { "X-CSRF-Token": csrf } };
    if (method !== "GET" && body instanceof Blob) {  // a file as it is (a photo from a phone)
      options.headers["Content-Type"] = body.type || "application/octet-stream";
      options.body = body;
    } else if (method !== "GET" && body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, options);
    } catch (err) {
      say("No connection to the companion: check the Wi-Fi and try again.", "error");
      throw err;
    }
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      if (data.reason === "csrf" && !retried) {
        await refreshSession();
        return api(path, body, { method, retried: true, quiet });
      }
      if (data.reason === "pin" && !retried && await askPin()) {
        return api(path, body, { method, retried: true, quiet });
      }
      // A game is in play: the players say whether to replace it (it stays among the stored games).
      if (data.reason === "game_in_play" && body && !body.replace) {
        if (window.confirm(`${data.error}.`)) return api(path, { ...body, replace: true }, { method, retried, quiet });
        say("Nothing changed: the game in play goes on.");
        const error = new Error(data.error);
        error.status = response.status;
        error.data = data;
        throw error;
      }
      if (!quiet) say(data.error || `The companion answered ${response.status}.`, "error");
      const error = new Error(data.error || String(response.status));
      error.status = response.status;
      error.data = data;
      throw error;
    }
    if (data.state) publish(data.state);
    return data;
  }

  // A button's action: shows the refusal and never throws (the reason is on screen).
  async function act(path, body, options) {
    try {
      return await api(path, body, options);
    } catch (err) {
      return null;
    }
  }
  const getJSON = (path) => api(path, undefined, { method: "GET" });
  const newEventId = () => (crypto.randomUUID ? crypto.randomUUID().replace(/-/g, "") : `${Date.now()}${Math.random()}`.replace(".", ""));

  // -- the game master's PIN --
  function askPin() {
    const dialog = $("pin-dialog");
    const input = $("pin-input");
    const message = $("pin-message");
    message.textContent = "";
    input.value = "";
    return new Promise((resolve) => {
      const finish = (ok) => {
        $("pin-form").onsubmit = null;
        $("pin-cancel").onclick = null;
        if (dialog.open) dialog.close();
        resolve(ok);
      };
      $("pin-cancel").onclick = () => finish(false);
      $("pin-form").onsubmit = async (ev) => {
        ev.preventDefault();
        try {
          await api("/api/unlock", { pin: input.value }, { retried: true, quiet: true });
          finish(true);
        } catch (err) {
          message.textContent = err.data && err.data.error ? err.data.error : "The PIN could not be checked.";
          input.select();
        }
      };
      dialog.showModal();
      input.focus();
    });
  }

  // -- the live connection: events, reconnects, and polling while the streams are full --
  let source = null;
  let backoff = 2000;
  let pollTimer = null;
  function setConn(text, kind) {
    const badge = $("conn");
    badge.textContent = text;
    badge.dataset.state = kind;
  }
  async function poll() {
    try {
      const response = await fetch("/api/state", { credentials: "same-origin" });
      if (response.ok) publish(await response.json(), true);
    } catch (err) { /* offline: the badge says so */ }
  }
  function connect() {
    if (source) source.close();
    source = new EventSource("/api/stream");
    let fresh = true;
    source.addEventListener("open", () => {
      fresh = true;
      backoff = 2000;
      clearInterval(pollTimer);
      pollTimer = null;
      setConn("live", "live");
    });
    source.addEventListener("state", (ev) => {
      // The first state after (re)connecting is the catch-up: take it even if the companion restarted.
      publish(JSON.parse(ev.data), fresh);
      fresh = false;
    });
    source.addEventListener("patch", (ev) => {
      const change = JSON.parse(ev.data);
      if (snapshot && snapshot.version >= change.version) return;  // an answer already brought it
      if (!snapshot || snapshot.version !== change.from) {
        // This page's copy is not the one the patch starts from (an answer overtook the stream):
        // ask for the whole state again.
        poll();
        return;
      }
      publish(applyPatch(snapshot, change.ops), true);
    });
    source.addEventListener("bye", () => { source.close(); setTimeout(connect, 100); });
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) {
        // Refused (all live connections busy) or the server went away: poll meanwhile, retry later.
        setConn("updating every 5 s", "polling");
        if (!pollTimer) pollTimer = setInterval(poll, 5000);
        poll();
        setTimeout(connect, backoff + Math.random() * 1000);
        backoff = Math.min(backoff * 2, 30000);
      } else {
        setConn("reconnecting…", "reconnecting");
      }
    });
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && source && source.readyState === EventSource.CLOSED) connect();
  });

  // -- alerts, shown on every page --
  // The same alert said again arrives merged, with its count. The panel shows the newest few; the
  // rest wait under "older alerts". Cards are kept by alert and updated in place, so a correction
  // being typed survives new alerts arriving.
  const ALERTS_SHOWN = 3;
  const alertCards = new Map();
  let olderBox = null;
  function renderAlerts(snap) {
    const box = $("alerts");
    const alerts = (snap.alerts || []).slice().reverse();  // newest first
    box.hidden = alerts.length === 0;
    if (!alerts.length) { box.replaceChildren(); alertCards.clear(); olderBox = null; return; }
    if (!box.querySelector("h2")) {
      olderBox = el("details", { class: "older-alerts" }, el("summary"), el("div", { class: "older-list" }));
      box.replaceChildren(
        el("div", { class: "row alerts-head" }, el("h2"),
          el("button", { type: "button", class: "secondary small", id: "dismiss-all", text: "Dismiss all", onclick: () =>
            act("/api/alerts/dismiss-all", { event_id: newEventId() }) })),
        el("div", { class: "newest-alerts" }), olderBox);
    }
    const total = alerts.reduce((n, a) => n + (a.count || 1), 0);
    box.querySelector("h2").textContent = alerts.length === 1 ? "1 thing needs a person" : `${alerts.length} things need a person`;
    box.querySelector("#dismiss-all").hidden = total < 2;
    const keep = new Set();
    const newest = box.querySelector(".newest-alerts");
    const older = olderBox.querySelector(".older-list");
    const keyOf = (alert) => (alert.ids ? alert.ids[0] : alert.event_id);
    // In sight: the alerts being corrected, then the newest ones.
    const busy = alerts.filter((a) => alertCards.has(keyOf(a)) && alertCards.get(keyOf(a)).busy());
    const inSight = new Set(busy.concat(alerts.filter((a) => !busy.includes(a)).slice(0, Math.max(0, ALERTS_SHOWN - busy.length))));
    let shownAt = 0, olderAt = 0;
    for (const alert of alerts) {
      const key = keyOf(alert);
      keep.add(key);
      let card = alertCards.get(key);
      if (!card) { card = alertCard(); alertCards.set(key, card); }
      card.update(alert);
      if (inSight.has(alert)) place(newest, card.node, shownAt++);
      else place(older, card.node, olderAt++);
    }
    for (const [key, card] of alertCards) if (!keep.has(key)) { card.node.remove(); alertCards.delete(key); }
    olderBox.hidden = olderAt === 0;
    olderBox.querySelector("summary").textContent = `${olderAt} older alert${olderAt === 1 ? "" : "s"}`;
  }
  // Put node at index in parent, moving it only if it is elsewhere (a moved node loses the focus).
  function place(parent, node, index) {
    if (parent.children[index] !== node) parent.insertBefore(node, parent.children[index] || null);
  }
  function alertCard() {
    let alert = null;
    const resolve = (body) => act(`/api/alerts/${encodeURIComponent(alert.event_id)}/resolve`, { ...body, event_id: newEventId() });
    const text = el("p", { class: "alert-text" });
    const meta = el("p", { class: "meta" });
    // The dice as the camera read them: a glance at the die it could not read says more than its words.
    const picture = el("img", { class: "alert-picture", alt: "The dice as the camera read them", hidden: true });
    // What the camera knew of its reading then (a tray darker than the dice were taught in): why, and what to do.
    const note = el("p", { class: "alert-note", hidden: true });
    const accept = el("button", { type: "button", class: "accept", text: "Accept", onclick: () => resolve({ resolution: "accept" }) });
    const chooser = moveChooser();
    const correctRow = el("form", { class: "correct-row", hidden: true, onsubmit: (ev) => {
      ev.preventDefault();
      if (chooser.value()) resolve({ resolution: "correct", move: chooser.value() });
    } }, chooser.node, el("button", { type: "submit", text: "Apply" }));
    const node = el("article", { class: "alert" }, text, note, meta,
      el("div", { class: "row" }, accept,
        el("button", { type: "button", class: "secondary", text: "Correct", onclick: () => {
          correctRow.hidden = !correctRow.hidden;
          if (!correctRow.hidden) chooser.load({ proposed: alert.payload && alert.payload.move });
        } }),
        el("button", { type: "button", class: "secondary", text: "Dismiss", onclick: () => resolve({ resolution: "dismiss" }) })),
      correctRow, picture);  // below the buttons: a phone shows Accept without scrolling past it
    function update(next) {
      alert = next;
      const proposed = alert.payload && alert.payload.move;
      const count = alert.count || 1;
      node.dataset.id = alert.event_id;
      text.textContent = alert.text;
      const said = alert.payload && alert.payload.note;
      note.textContent = sentence(said);
      note.hidden = !said;
      meta.textContent = [alert.source, count > 1 ? `${count} times, ${clock(alert.first_time)}–${clock(alert.time)}` : clock(alert.time),
        proposed ? `proposed: ${proposed}` : ""].filter(Boolean).join(" · ");
      accept.hidden = !proposed;
      const shown = alert.payload && alert.payload.picture;
      const src = shown ? `/api/roll/${encodeURIComponent(shown)}.jpg` : null;
      if (src && picture.getAttribute("src") !== src) picture.setAttribute("src", src);  // set once: no reload
      picture.hidden = !src;
    }
    return { node, update, busy: () => !correctRow.hidden };
  }

  // A correction's choices: the moves the game allows there (the engine lists them), picked from a
  // list; only a game that cannot list its moves gets a text field for the move's written form.
  function moveChooser({ insteadOf = null, label = "What really happened" } = {}) {
    const select = el("select", { "aria-label": label, hidden: true });
    const input = el("input", { type: "text", "aria-label": `${label} (a move as written in the log)`, autocapitalize: "off", hidden: true });
    const node = el("span", { class: "move-chooser" }, select, input);
    let loaded = false;
    async function load({ proposed = null, current = null } = {}) {
      if (loaded) return;
      loaded = true;
      let legal = null;
      try {
        legal = await api(`/api/game/legal${insteadOf ? `?instead_of=${encodeURIComponent(insteadOf)}` : ""}`, undefined, { method: "GET", quiet: true });
      } catch (err) { legal = null; }
      const moves = legal && legal.moves ? legal.moves.filter((m) => m !== current) : null;
      if (moves && moves.length) {
        select.replaceChildren(...moves.map((m) => el("option", { value: m, text: m, selected: m === proposed })));
        select.hidden = false;
        select.focus();
      } else {
        input.value = proposed || "";
        input.hidden = false;
        input.focus();
      }
    }
    const value = () => (select.hidden ? input.value.trim() : select.value);
    return { node, load, value };
  }

  // -- undo / redo --
  function renderUndo(snap) {
    const game = snap.game;
    const undo = $("undo");
    const redo = $("redo");
    if (!undo) return;
    undo.disabled = !(game && game.can_undo);
    redo.disabled = !(game && game.can_redo);
    const moves = game ? game.log.filter((e) => e.kind === "move") : [];
    undo.textContent = "Undo";
    redo.textContent = "Redo";
    undo.title = moves.length ? `Take back: ${moves[moves.length - 1].text}` : "";
  }

  // -- formatting --
  function clock(seconds) {
    if (!seconds) return "";
    return new Date(seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  }
  // How a game ended, in words: a cooperative game is won or lost by everyone together.
  function outcomeText(game) {
    const o = game.outcome;
    if (!o) return "";
    if (o.lost) return `You all lost: ${o.reason}`;
    if (game.cooperative) return `You all won: ${o.reason}`;
    return `${o.winners.join(" and ")} won: ${o.reason}`;
  }
  const percent = (p) => `${(100 * p).toFixed(p < 0.1 ? 1 : 0)}%`;

  // -- charts: inline SVG, drawn here (no library, no network) --
  const PALETTE = ["#2d6a4f", "#e76f51", "#264653", "#e9c46a", "#9b5de5", "#00a6a6", "#f15bb5", "#8d6e63"];
  function lineChart(series, { width = 640, height = 220, yLabel = "", xLabel = "", step = false } = {}) {
    width = Math.max(300, Math.round(width));
    const pad = { left: 44, right: 12, top: 12, bottom: 34 };
    const xs = series.flatMap((s) => s.points.map((p) => p[0]));
    const ys = series.flatMap((s) => s.points.map((p) => p[1]));
    const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-label": yLabel });
    if (!xs.length) return chart;
    const xMin = Math.min(...xs), xMax = Math.max(...xs, xMin + 1);
    const yMin = Math.min(0, ...ys), yMax = Math.max(...ys, yMin + 1);
    const X = (x) => pad.left + (x - xMin) / (xMax - xMin) * (width - pad.left - pad.right);
    const Y = (y) => height - pad.bottom - (y - yMin) / (yMax - yMin) * (height - pad.top - pad.bottom);
    for (const tick of niceTicks(yMin, yMax, 5)) {
      chart.append(svg("line", { x1: pad.left, x2: width - pad.right, y1: Y(tick), y2: Y(tick), stroke: "#ddd" }));
      chart.append(svg("text", { x: pad.left - 6, y: Y(tick) + 5, "text-anchor": "end", "font-size": 14, fill: "#555", text: tick }));
    }
    chart.append(svg("text", { x: width / 2, y: height - 6, "text-anchor": "middle", "font-size": 14, fill: "#555", text: xLabel }));
    series.forEach((s, i) => {
      const colour = s.colour || PALETTE[i % PALETTE.length];
      const pts = [];
      s.points.forEach((p, j) => {
        if (step && j > 0) pts.push(`${X(p[0])},${Y(s.points[j - 1][1])}`);
        pts.push(`${X(p[0])},${Y(p[1])}`);
      });
      chart.append(svg("polyline", { points: pts.join(" "), fill: "none", stroke: colour, "stroke-width": 3, "stroke-linejoin": "round" }));
      const last = s.points[s.points.length - 1];
      if (last) chart.append(svg("circle", { cx: X(last[0]), cy: Y(last[1]), r: 5, fill: colour }));
    });
    return chart;
  }
  function barChart(groups, names, { width = 640, height = 220, yLabel = "" } = {}) {
    // groups: [{label, values: {name: number}}]; one bar per name in each group.
    width = Math.max(300, Math.round(width));
    const pad = { left: 40, right: 8, top: 12, bottom: 40 };
    const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-label": yLabel });
    const values = groups.flatMap((g) => names.map((n) => g.values[n] || 0));
    if (!groups.length) return chart;
    const yMax = Math.max(1, ...values);
    const Y = (y) => height - pad.bottom - y / yMax * (height - pad.top - pad.bottom);
    for (const tick of niceTicks(0, yMax, 4)) {
      chart.append(svg("line", { x1: pad.left, x2: width - pad.right, y1: Y(tick), y2: Y(tick), stroke: "#ddd" }));
      chart.append(svg("text", { x: pad.left - 6, y: Y(tick) + 5, "text-anchor": "end", "font-size": 14, fill: "#555", text: tick }));
    }
    const groupWidth = (width - pad.left - pad.right) / groups.length;
    const barWidth = Math.max(2, groupWidth * 0.8 / Math.max(1, names.length));
    groups.forEach((g, gi) => {
      const x0 = pad.left + gi * groupWidth + groupWidth * 0.1;
      names.forEach((n, ni) => {
        const v = g.values[n] || 0;
        chart.append(svg("rect", { x: x0 + ni * barWidth, y: Y(v), width: barWidth - 1, height: Y(0) - Y(v), fill: PALETTE[ni % PALETTE.length] },
          svg("title", { text: `${g.label}: ${n} ${v}` })));
      });
      chart.append(svg("text", { x: x0 + groupWidth * 0.4, y: height - pad.bottom + 18, "text-anchor": "middle", "font-size": 13, fill: "#555", text: g.label }));
    });
    return chart;
  }
  function legend(names) {
    return el("ul", { class: "legend" }, names.map((n, i) =>
      el("li", {}, svg("svg", { viewBox: "0 0 10 10", width: 14, height: 14 }, svg("rect", { width: 10, height: 10, rx: 2, fill: PALETTE[i % PALETTE.length] })), ` ${n}`)));
  }
  function niceTicks(lo, hi, count) {
    const span = hi - lo || 1;
    const raw = span / count;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= count) || raw;
    const ticks = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) ticks.push(Math.round(t * 100) / 100);
    return ticks;
  }

  // The database banner: what the start found wrong and what to do (the steps the doctor and README name).
  // Also a game that could not be resumed at start, with the reason.
  function renderBanner(snap) {
    const database = (snap.health || {}).database || {};
    const broken = database.status && database.status !== "ok";
    const problems = snap.problems || [];
    $("banner").hidden = !broken && !problems.length;
    $("banner-title").textContent = broken ? "The database needs attention" : "A game could not be resumed";
    $("banner-text").textContent = [broken ? database.detail : "", ...problems.map((p) => p.text)].filter(Boolean).join(" ");
  }

  // -- start --
  function start() {
    onState(renderMe, "viewer");
    onState(renderBanner, "health", "problems");
    onState(renderAlerts, "alerts");
    if ($("undo")) {
      onState(renderUndo, "game");
      $("undo").addEventListener("click", () => act("/api/undo", { event_id: newEventId() }));
      $("redo").addEventListener("click", () => act("/api/redo", { event_id: newEventId() }));
    }
    connect();
  }

  // Where ``player`` enters their choices, said on another player's phone (which offers no button for them).
  function whereChooses(game, player) {
    const seat = (game.seats || []).find((s) => s.player === player);
    return seat && seat.claimed ? "on their phone" : "on the shared screen";
  }

  // A table of players (or games) that its box shows row by row when its columns do not fit, each cell under its
  // column's name, where it would hide its last columns off to the side (style.css, table.stacked). Cell ``lead``
  // (the name) heads its row.
  function stacked(table, lead = 0) {
    const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.cells].forEach((cell, i) => {
        if (i === lead) cell.classList.add("lead");
        else if (heads[i]) cell.dataset.label = heads[i];
        // A date, or a column's name longer than "Winners", takes two of a row's places; a list of names the whole row.
        const length = Math.max(cell.textContent.length, (heads[i] || "").length - 1);
        if (i !== lead && length > 6) cell.classList.add(length > 16 ? "wide" : "pair");
      });
    }
    table.classList.add("stackable");
    return table;
  }
  // Whether such a table fits is measured when it is shown and whenever its box changes width (a screen turned,
  // a section opened): no page calls this itself.
  function fitTables(box) {
    for (const table of box.querySelectorAll(":scope > table.stackable")) {
      table.classList.remove("stacked");
      if (box.scrollWidth > box.clientWidth + 1) table.classList.add("stacked");
    }
  }
  const boxWidths = new WeakMap();
  const refit = (entries) => {
    for (const { target, contentRect } of entries) {
      const width = Math.round(contentRect.width);  // its height follows the table: only a new width is news
      if (boxWidths.get(target) !== width) { boxWidths.set(target, width); fitTables(target); }
    }
  };
  // A browser older than ResizeObserver (2020) measures again when its window is resized.
  const watched = new WeakSet();
  const resized = typeof ResizeObserver === "function" ? new ResizeObserver(refit) : { observe: (box) => {
    if (watched.has(box)) return;
    watched.add(box);
    window.addEventListener("resize", () => refit([{ target: box, contentRect: box.getBoundingClientRect() }]));
  } };
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        if (node.nodeType !== 1) continue;
        for (const table of node.matches("table.stackable") ? [node] : node.querySelectorAll("table.stackable")) {
          fitTables(table.parentElement);
          resized.observe(table.parentElement);
        }
      }
    }
  }).observe(document.documentElement, { childList: true, subtree: true });

  // The corners tapped on a still from the camera (Setup: the table, the dice tray), drawn over it in ``marks``
  // (an svg laid on ``img``): the one in use dashed yellow (``inUse``, in pixels of the camera's working picture,
  // ``pictureWidth`` wide, which the still shows smaller), the taps in green, each named.
  const CORNERS = ["NW", "NE", "SE", "SW"];
  function drawCorners(marks, img, taps, inUse, pictureWidth) {
    const w = img.naturalWidth || 640, h = img.naturalHeight || 360, r = w / 90;
    marks.setAttribute("viewBox", `0 0 ${w} ${h}`);
    marks.setAttribute("preserveAspectRatio", "none");
    marks.replaceChildren();
    if (inUse && inUse.length === 4 && pictureWidth) {
      const k = w / pictureWidth;
      marks.append(svg("polygon", { points: inUse.map(([x, y]) => `${x * k},${y * k}`).join(" "), fill: "none", stroke: "#ffd84d", "stroke-width": r / 2, "stroke-dasharray": `${r} ${r}` }));
    }
    if (taps.length > 1) marks.append(svg("polyline", { points: taps.concat(taps.length === 4 ? [taps[0]] : []).map((p) => p.join(",")).join(" "), fill: "none", stroke: "#00e0a0", "stroke-width": r / 2 }));
    taps.forEach(([x, y], i) => {
      marks.append(svg("circle", { cx: x, cy: y, r, fill: "#00e0a0", stroke: "#000", "stroke-width": r / 5 }));
      marks.append(svg("text", { x: x + r * 1.3, y: y - r * 1.3, fill: "#fff", stroke: "#000", "stroke-width": r / 8, "font-size": r * 3, "font-weight": 700, text: CORNERS[i] }));
    });
  }

  // The companion's words (a health detail, a note: lower-case, no full stop) as a sentence of their own on a page.
  const sentence = (words) => (words ? `${words[0].toUpperCase()}${words.slice(1)}.` : "");

  // A die's face as a coloured square (style.css .face-*): ``name`` its words, none for a face the page cannot name
  // (drawn as an unknown face, with ``face`` itself or "?" written on it). A pip die's face 1 to 6 with no words of
  // its own is drawn with its pips, as it lies in the tray: compared with the roll's picture at a glance.
  const PIPS = { 1: [[50, 50]], 2: [[28, 28], [72, 72]], 3: [[28, 28], [50, 50], [72, 72]],
                 4: [[28, 28], [72, 28], [28, 72], [72, 72]], 5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
                 6: [[28, 25], [72, 25], [28, 50], [72, 50], [28, 75], [72, 75]] };
  const dieFace = (face, name, small = false) => (PIPS[face] && (!name || name === face)
    ? el("span", { class: `die pips${small ? " small" : ""}`, title: face, role: "img", "aria-label": face },
         svg("svg", { viewBox: "0 0 100 100", "aria-hidden": "true" },
             ...PIPS[face].map(([cx, cy]) => svg("circle", { cx, cy, r: 10 }))))
    : el("span", { class: `die face-${name ? face : "unknown"}${small ? " small" : ""}`, title: name || face || "",
                   text: name || face || "?" }));

  // The camera's live view in ``img`` (MJPEG): while on, it holds one of the companion's few camera streams; off, or
  // while the page is hidden, none (replacing the source ends the stream and frees its slot at once). A stream
  // refused (other phones watching) or cut (the companion restarted) is tried again every 10 s; ``busy(true)`` is
  // told meanwhile, ``busy(false)`` when it is tried again.
  function liveStream(img, busy = () => {}) {
    let on = false, retry = null;
    const shown = () => on && document.visibilityState !== "hidden";
    const follow = () => {
      clearTimeout(retry);
      if (shown()) { busy(false); img.src = `/api/live.mjpg?t=${Date.now()}`; } else img.src = "/static/blank.svg";
    };
    img.addEventListener("error", () => {
      if (!shown() || !img.src.includes("/api/live.mjpg")) return;
      busy(true);
      clearTimeout(retry);
      retry = setTimeout(follow, 10000);
    });
    document.addEventListener("visibilitychange", () => { if (on) follow(); });
    return {
      get on() { return on; },
      set(want) { if (Boolean(want) !== on) { on = Boolean(want); follow(); } },
    };
  }

  document.addEventListener("DOMContentLoaded", start);

  return { el, svg, $, say, api, act, getJSON, onState, publish, newEventId, askPin, refreshSession,
           lineChart, barChart, legend, percent, clock, outcomeText, get snapshot() { return snapshot; }, PALETTE,
           games, gameInfo, applyPatch, moveChooser, keeping, whereChooses, stacked, CORNERS, drawCorners, liveStream, dieFace,
           sentence };
})();
