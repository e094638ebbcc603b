// The table page: renders the runtime's snapshot and keeps it live through server-sent events.
"use strict";

const $ = (id) => document.getElementById(id);
let snapshot = JSON.parse($("initial").textContent);

function render(snap) {
  snapshot = snap;
  const game = snap.game;
  $("game-title").textContent = game ? `${game.game} — ${game.title || "game"}` : "No game in play";
  const state = game ? game.state : null;
  $("turn").textContent = !state ? "" : state.over
    ? `Game over — ${state.winners.join(" and ")} won`
    : `${state.current}'s turn`;
  const players = $("players");
  players.replaceChildren();
  if (state && state.players) {
    const table = document.createElement("table");
    for (const p of state.players) {
      const row = table.insertRow();
      if (p.name === state.current) row.className = "current";
      row.insertCell().textContent = p.name;
      const extra = Object.entries(p).filter(([k]) => k !== "name" && k !== "seat");
      row.insertCell().textContent = extra.map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(" ") : v}`).join(", ");
    }
    players.append(table);
  }
  const facts = state ? Object.fromEntries(Object.entries(state).filter(([k]) => !["players", "game"].includes(k))) : {};
  $("facts").textContent = state ? JSON.stringify(facts, null, 1) : "";
  const log = $("log");
  log.replaceChildren();
  for (const e of (game ? game.log : []).slice().reverse()) {
    const li = document.createElement("li");
    li.className = `kind-${e.kind}`;
    li.textContent = `${e.text}  (${e.source})`;
    log.append(li);
  }
  $("undo").disabled = !(game && game.can_undo);
  $("redo").disabled = !(game && game.can_redo);
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body || {}),
  });
  const data = await response.json().catch(() => ({}));
  $("message").textContent = response.ok ? "" : (data.error || `error ${response.status}`);
  if (response.ok && data.state) render(data.state);
  return response.ok;
}

$("move-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (await post("/api/move", { move: $("move").value, event_id: crypto.randomUUID ? crypto.randomUUID() : undefined })) $("move").value = "";
});
$("undo").addEventListener("click", () => post("/api/undo"));
$("redo").addEventListener("click", () => post("/api/redo"));
$("new-game").addEventListener("submit", (ev) => {
  ev.preventDefault();
  post("/api/games", { game: $("game-name").value, players: $("players-input").value });
});

function connect() {
  const source = new EventSource("/api/stream");
  source.addEventListener("open", () => { $("conn").textContent = "live"; });
  source.addEventListener("state", (ev) => render(JSON.parse(ev.data)));
  source.addEventListener("error", () => { $("conn").textContent = "reconnecting…"; });
}

render(snapshot);
connect();
