// The table page: the game in play, whose turn, the seat lights, the camera and its live view, the log.
"use strict";
(() => {
  const { el, $, act, getJSON, onState, newEventId } = TC;


  // The game's parts are rebuilt only when the game changed; the camera, health and LED parts on
  // their own (they change often while the camera runs, and would close an open correction).
  function renderMachine(snap) {
    renderLeds(snap.leds, snap.game ? snap.game.state : null);
    renderHealth(snap.health || {});
    renderVision(snap.vision);
  }

  function render(snap) {
    const game = snap.game;
    const state = game ? game.state : null;
    $("game-title").textContent = game ? `${game.title || titleOf(game.game)}` : "No game in play";
    $("turn").textContent = !state ? "Start a game on the Setup page." : state.over ? "Game over" : (state.current ? `${state.current}'s turn` : "");
    const outcome = $("outcome");
    outcome.hidden = !(game && game.outcome);
    if (game && game.outcome) outcome.textContent = TC.outcomeText(game);
    const page = game ? TC.gameInfo(game.game).page : null;
    $("game-link").replaceChildren(page ? el("a", { href: page, text: `Open the ${titleOf(game.game)} page →` }) : "");
    renderPlayers(state);
    renderLeds(snap.leds, state);
    renderLog(game);
    refreshQuickMoves(game);
  }

  const titleOf = (name) => TC.gameInfo(name).title;

  function renderPlayers(state) {
    const box = $("players");
    box.replaceChildren();
    if (!state || !Array.isArray(state.players)) return;
    // The game's own page shows everything; here only the short facts (no per-kind hands and such).
    const short = (v) => v === null || typeof v !== "object" || (Array.isArray(v) && v.length <= 6);
    const keys = [...new Set(state.players.flatMap((p) => Object.keys(p)))]
      .filter((k) => !["name", "seat"].includes(k) && state.players.every((p) => short(p[k])));
    const table = el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "Seat" }), el("th", { text: "Player" }),
      keys.map((k) => el("th", { class: "num", text: k.replace(/_/g, " ") })))));
    const body = el("tbody");
    state.players.forEach((p, i) => {
      body.append(el("tr", { class: p.name === state.current ? "current" : "" },
        el("td", { text: (p.seat ?? i) + 1 }), el("td", { text: p.name }),
        keys.map((k) => el("td", { class: "num", text: show(p[k]) }))));
    });
    table.append(body);
    box.append(el("div", { class: "scroll-x" }, TC.stacked(table, 1)));
  }
  const show = (v) => v === undefined || v === null ? "" : Array.isArray(v) ? v.join(" ") : typeof v === "object" ? Object.entries(v).map(([a, b]) => `${a} ${b}`).join(", ") : String(v);

  let ledsSeenAt = { version: null, time: 0 };
  // The seat lights as the LED driver shows them (snapshot "leds": seats 1-based with their mode).
  function renderLeds(leds, state) {
    const box = $("leds");
    box.replaceChildren();
    if (!leds || leds.error || !Array.isArray(leds.seats)) { box.hidden = true; return; }
    box.hidden = false;
    const names = state && Array.isArray(state.players) ? state.players.map((p) => p.name) : [];
    // A flash lasts a moment on the table; the mirror shows it for a few seconds, then the steady light.
    const flashFresh = ledsSeenAt.version === TC.snapshot.version ? Date.now() - ledsSeenAt.time < 3000 : true;
    if (ledsSeenAt.version !== TC.snapshot.version) {
      ledsSeenAt = { version: TC.snapshot.version, time: Date.now() };
      if (leds.seats.some((s) => s.flashing)) setTimeout(() => renderLeds(leds, state), 3100);
    }
    leds.seats.forEach((s, i) => {
      const mode = s.flashing && flashFresh ? "blink" : String(s.mode || "off");
      box.append(el("div", { class: "led", dataset: { mode } },
        el("span", { class: `lamp ${mode}`, title: mode }),
        el("span", { text: names[i] || `Seat ${s.seat ?? i + 1}` })));
    });
    if (leds.status) {
      box.append(el("div", { class: "led", dataset: { mode: leds.status } },
        el("span", { class: `lamp status-${leds.status}${leds.status_flash ? " blink" : ""}`, title: `status ${leds.status}` }),
        el("span", { text: leds.simulated ? "status (simulated)" : "status" })));
    }
  }

  function renderHealth(health) {
    const box = $("health");
    box.replaceChildren();
    const parts = Object.entries(health);
    if (!parts.length) {
      box.append(el("span", { class: "unknown", text: "No camera reported yet: moves are entered here." }));
      return;
    }
    for (const [name, h] of parts) {
      box.append(el("span", { class: h.status || "unknown", title: h.detail || "", text: `${name}: ${h.status}${h.detail ? ` — ${h.detail}` : ""}` }));
    }
  }

  // What the camera reads right now: how many tags, and anything odd it saw (counted, never played).
  function renderVision(vision) {
    const line = $("vision");
    const warnings = $("vision-warnings");
    warnings.replaceChildren();
    line.hidden = warnings.hidden = !vision || vision.error !== undefined;
    if (line.hidden) return;
    const parts = [`${vision.tags_seen} tags in view`,
      vision.table ? `table from ${vision.table}` : "no table outline",
      `${vision.ignored} other codes ignored`];
    if (vision.stable_stacks !== null) parts.push(`${vision.stable_stacks} stacks settled`);
    line.textContent = parts.join(" · ");
    const found = [...(vision.duplicates || []).map((p) => `Two stickers both say ${p}: one of them is on the wrong card.`),
      ...(vision.problems || [])];
    warnings.hidden = !found.length;
    for (const text of found) warnings.append(el("li", { text }));
  }

  // A move being corrected keeps its open form through every update (the node is put back in place).
  let correcting = null;  // { eventId, form }
  function renderLog(game) {
    const log = $("log");
    log.replaceChildren();
    if (!game) return;
    for (const e of game.log.slice().reverse()) {
      const correct = e.kind === "move" ? el("button", { type: "button", class: "small secondary", text: "Correct", onclick: () => correctMove(e, item) }) : null;
      const item = el("li", { class: `kind-${e.kind}`, dataset: { id: e.event_id } },
        el("span", { class: "text", text: e.text }),
        el("span", { class: `src src-${e.source}`, text: e.source }),
        el("span", { class: "meta", text: TC.clock(e.time) }), correct,
        correcting && correcting.eventId === e.event_id ? correcting.form : null);
      log.append(item);
    }
  }

  // What really happened instead of a move: chosen among the moves the game allowed in its place.
  function correctMove(event, item) {
    if (correcting && correcting.eventId === event.event_id) { correcting.form.remove(); correcting = null; return; }
    if (correcting) correcting.form.remove();
    const chooser = TC.moveChooser({ insteadOf: event.event_id, label: `What really happened instead of ${event.text}` });
    const form = el("form", { class: "correct-row", onsubmit: async (ev) => {
      ev.preventDefault();
      const move = chooser.value();
      if (!move || move === event.text) return;
      if (await act("/api/correct", { target: event.event_id, move, event_id: newEventId() })) {
        form.remove();
        correcting = null;
      }
    } }, el("span", { class: "meta", text: "Instead of this move:" }), chooser.node,
      el("button", { type: "submit", class: "small", text: "Apply" }),
      el("button", { type: "button", class: "small secondary", text: "Cancel", onclick: () => { form.remove(); correcting = null; } }));
    correcting = { eventId: event.event_id, form };
    item.append(form);
    chooser.load({ current: event.text });
  }

  // Quick buttons for the moves allowed now, when the game can list a handful of them.
  let quickFor = null;
  async function refreshQuickMoves(game) {
    const key = game ? `${game.session_id}:${game.log.length ? game.log[game.log.length - 1].event_id : ""}` : "";
    if (key === quickFor) return;
    quickFor = key;
    const box = $("quick");
    if (!game || (game.state && game.state.over)) { box.replaceChildren(); $("end-turn").hidden = true; return; }
    try {
      const legal = await getJSON("/api/game/legal");
      box.replaceChildren();
      $("end-turn").hidden = !legal.end_turn;
      $("end-turn").textContent = legal.end_turn ? `End the turn (${legal.end_turn})` : "End the turn";
      if (legal.moves && legal.count <= 12) {
        for (const move of legal.moves) box.append(el("button", { type: "button", class: "secondary", text: move, onclick: () => play(move) }));
      }
    } catch (err) { /* the message is shown */ }
  }

  async function play(move) {
    const done = await act("/api/move", { move, event_id: newEventId() });
    if (done) $("move").value = "";
  }
  $("end-turn").addEventListener("click", () => act("/api/end-turn", { event_id: newEventId() }));
  $("move-form").addEventListener("submit", (ev) => { ev.preventDefault(); if ($("move").value.trim()) play($("move").value.trim()); });

  // The live view holds one of the companion's few camera streams: off until asked, off when hidden.
  const live = TC.liveStream($("live-img"), (busy) => {
    $("live-img").hidden = busy;
    $("live-note").hidden = !busy;
    $("live-note").textContent = "The camera view is busy (other phones are watching) or the companion restarted: trying again in 10 s.";
  });
  function setLive(on) {
    $("live-toggle").textContent = on ? "Stop watching" : "Watch the camera";
    $("live-img").hidden = !on;
    $("live-note").hidden = on;
    $("live-note").textContent = "The live view is off to save the companion's work.";
    live.set(on);
  }
  $("live-toggle").addEventListener("click", () => setLive(!live.on));

  onState(render, "game");
  onState(renderMachine, "leds", "health", "vision");
})();
