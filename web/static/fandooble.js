// Fandooble: the dice as read, dragons on the table, loot, stashes and pile, the odds of the next roll,
// the steal choice and the bank button, a roll entered by hand, and each player's gold over the game.
"use strict";
(() => {
  const { el, $, act, getJSON, onState, newEventId, percent, lineChart, legend } = TC;
  const FACES = { C: "Chest", G: "Green dragon", R: "Red dragon", F: "Fandooble", K: "Knight", W: "Wizard" };
  const DRAGON_FACES = ["C", "G", "R"];
  const SPECIAL_FACES = ["F", "K", "W"];
  const die = (face, small) => TC.dieFace(face, FACES[face], small);

  function render(snap) {
    const game = snap.game && snap.game.game === "fandooble" ? snap.game : null;
    $("no-game").hidden = !!game;
    $("fandooble").hidden = !game;
    $("actionbar").hidden = !game;
    if (!game) return;
    const s = game.state;
    $("turn").textContent = s.over ? `Game over: ${s.winners.join(" and ")} won` : `${s.current}'s turn`;
    $("status").textContent = `Turn ${s.turn} · ${s.coins} coins in the game · ${statusLine(s)}`;
    $("loot").textContent = s.loot;
    $("pile").textContent = s.pile;
    $("rolls").textContent = s.rolls_this_turn;

    // A new turn has thrown nothing yet: the dice shown are the turn before's, not the current player's.
    $("last-roll-title").textContent = s.last_roll && !s.rolls_this_turn ? "Last roll (the turn before)" : "Last roll";
    $("last-roll").replaceChildren(...(s.last_roll ? [...s.last_roll].map((f) => die(f)) : [el("span", { class: "muted", text: "No roll yet this game." })]));
    $("reading").textContent = readingNote(game);
    $("dragons").replaceChildren(...(s.dragons.length ? s.dragons.map((f) => die(f, true)) : [el("span", { class: "muted", text: "None: every die is thrown." })]));
    $("throws").textContent = s.over ? "" : `${s.current} throws ${s.dice_to_throw - 1} Dragon/Treasure ${s.dice_to_throw - 1 === 1 ? "die" : "dice"} and the Fandooble die.`;

    renderOdds(s);
    renderActions(s, game);
    renderStashes(s);
    renderLog(game);
    refreshChart(game);
  }

  function statusLine(s) {
    const said = { roll: "rolled", bank: "banked", bust: "bust! the loot went back to the pile", wipe: "three red dragons: the stash is wiped", steal: "stole a coin" };
    return s.last_event ? `last: ${said[s.last_event] || s.last_event}` : "nobody has rolled yet";
  }

  // What the camera read for the last roll, when the dice reader sent its confidence with the move.
  function readingNote(game) {
    const moves = game.log.filter((e) => e.kind === "move" && e.text.startsWith("roll"));
    const last = moves[moves.length - 1];
    if (!last) return "";
    const dice = last.payload && Array.isArray(last.payload.dice) ? last.payload.dice : null;
    if (last.source !== "camera" || !dice) return `Entered by ${last.source}.`;
    const named = (d) => `${FACES[d.face || d.guess] || d.face || d.guess}${typeof d.confidence === "number" ? ` ${percent(d.confidence)}` : ""}`;
    // The camera reads every die in the tray, the dragons left lying there too: the roll is the others.
    const rolled = [...last.text.replace(/^roll\s+/, "")];
    const lying = dice.filter((d) => {
      const i = rolled.indexOf(d.face || d.guess);
      if (i < 0) return true;
      rolled.splice(i, 1);
      return false;
    });
    const thrown = dice.filter((d) => !lying.includes(d));
    return `Read by the camera: ${thrown.map(named).join(", ")}${lying.length ? `; lying on the table from before: ${lying.map(named).join(", ")}` : ""}.`;
  }

  function renderOdds(s) {
    const box = $("odds");
    box.replaceChildren();
    if (s.over) { $("odds-card").hidden = true; return; }
    $("odds-card").hidden = false;
    const odds = s.odds;
    if (!odds) {
      $("odds-note").textContent = s.pending_steals ? "Choose whom the Fandooble steals from first: then the odds of the next roll appear." : "No odds for this state.";
      return;
    }
    box.append(
      el("div", { class: "stat" }, el("span", { text: "Bust" }), el("b", { class: odds.bust >= 0.3 ? "high" : "", text: percent(odds.bust) })),
      el("div", { class: "stat" }, el("span", { text: "Stash wiped" }), el("b", { class: odds.wipe >= 0.1 ? "high" : "", text: percent(odds.wipe) })),
      el("div", { class: "stat" }, el("span", { text: "Expected gain" }), el("b", { text: `${odds.expected_gain >= 0 ? "+" : ""}${Number(odds.expected_gain).toFixed(2)}` })));
    const faces = s.faces;
    $("odds-note").textContent = faces && !faces.verified
      ? "From the face counts configured for these dice, which nobody has checked yet: count yours on the Setup page (teach dice)."
      : "Exact, from the face counts of these dice.";
  }

  // Another player's phone (``game.viewer``) shows whose choice it is, not buttons the companion would
  // refuse; a roll may be entered from any phone.
  function renderActions(s, game) {
    const pending = s.pending_steals > 0;
    const theirs = !!game.viewer && game.viewer !== s.current;
    $("actions").hidden = s.over;
    $("actions-title").textContent = `${s.current}'s choice`;
    $("actions-note").hidden = !theirs;
    $("actions-note").textContent = theirs ? `${s.current} ${pending ? "chooses whom the Fandooble steals from" : "banks or throws again"} ${TC.whereChooses(game, s.current)}.` : "";
    $("steal").hidden = !pending || theirs;
    $("bank").hidden = theirs;
    const buttons = $("steal-buttons");
    buttons.replaceChildren();
    if (pending && !theirs) {
      $("steal-title").textContent = s.pending_steals > 1 ? `The Fandooble steals ${s.pending_steals} coins: choose from whom, one at a time` : "The Fandooble steals a coin: from whom?";
      s.players.filter((p) => p.name !== s.current && p.stash > 0).forEach((p) =>
        buttons.append(el("button", { type: "button", text: `${p.name} (${p.stash})`, onclick: () => play(`steal ${p.name}`) })));
    }
    $("bank").disabled = pending || s.rolls_this_turn === 0;
    $("bank").textContent = s.loot ? `Bank ${s.loot} coin${s.loot === 1 ? "" : "s"}` : "Bank (end the turn)";
    renderPickers(s);
  }

  // A roll entered by hand (camera off or misread): one row of faces per die thrown.
  let chosen = [];
  let pickersFor = "";
  function renderPickers(s) {
    const dragonDice = Math.max(0, s.dice_to_throw - 1);
    const key = `${dragonDice}:${JSON.stringify(s.faces)}`;
    if (key === pickersFor) return;
    pickersFor = key;
    chosen = new Array(dragonDice + 1).fill(null);
    const box = $("pickers");
    box.replaceChildren();
    const available = (die, faces) => faces.filter((f) => !s.faces || !s.faces[die] || s.faces[die][f] > 0);
    for (let i = 0; i <= dragonDice; i++) {
      const special = i === dragonDice;
      const faces = special ? available("special", SPECIAL_FACES) : available("dragon", DRAGON_FACES);
      const row = el("div", { class: "dice", role: "group", "aria-label": special ? "Fandooble die" : `Dragon die ${i + 1}` },
        el("span", { class: "muted", text: special ? "Fandooble die" : `Die ${i + 1}` }));
      for (const f of faces) {
        const button = el("button", { type: "button", class: `die small face-${f}`, "aria-pressed": "false", text: FACES[f], onclick: () => {
          chosen[i] = f;
          row.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
          $("play-roll").disabled = chosen.some((c) => c === null);
        } });
        row.append(button);
      }
      box.append(row);
    }
    $("play-roll").disabled = true;
  }
  $("play-roll").addEventListener("click", async () => {
    if (await play(`roll ${chosen.join("")}`)) { pickersFor = ""; $("manual").open = false; }
  });
  $("bank").addEventListener("click", () => play("bank"));

  function renderStashes(s) {
    const rows = s.players.map((p) => el("tr", { class: p.name === s.current ? "current" : "" },
      el("td", { text: p.name }), el("td", { class: "num", text: p.stash })));
    $("stashes").replaceChildren(TC.stacked(el("table", {},
      el("thead", {}, el("tr", {}, el("th", { text: "Player" }), el("th", { class: "num", text: "Gold in stash" }))),
      el("tbody", {}, rows,
        el("tr", {}, el("td", { text: "Dragon's pile" }), el("td", { class: "num", text: s.pile }))))));
  }

  function renderLog(game) {
    $("log").replaceChildren(...game.log.slice().reverse().filter((e) => e.kind !== "alert").slice(0, 40).map((e) =>
      el("li", { class: `kind-${e.kind}` }, el("span", { class: "text", text: e.text }), el("span", { class: `src src-${e.source}`, text: e.source }))));
  }

  let chartFor = "";
  async function refreshChart(game) {
    const key = `${game.session_id}:${game.log.length ? game.log[game.log.length - 1].event_id : ""}`;
    if (key === chartFor) return;
    chartFor = key;
    try {
      const series = await getJSON("/api/game/series");
      const names = series.players;
      const lines = names.map((n) => ({ name: n, points: series.points.map((p) => [p.index, (p.values[n] || {}).stash || 0]) }));
      $("gold-chart").replaceChildren(lineChart(lines, { width: $("gold-chart").clientWidth || 640, yLabel: "Gold in stash", xLabel: "moves", step: true }));
      $("gold-legend").replaceChildren(legend(names));
    } catch (err) { chartFor = ""; }
  }

  async function play(move) {
    return act("/api/move", { move, event_id: newEventId() });
  }

  onState(render, "game");  // not rebuilt for camera, health or LED updates: open forms stay
})();
