// Fabled Fruit: the display as stacks, the deck and the bag, the players, the end of the game, the
// moves in their text form, and every input of a turn (move the animal, use the action or buy, draw).
"use strict";
(() => {
  const { el, $, act, say, onState, newEventId } = TC;
  let current = null; // the Fabled Fruit state shown

  function render(snap) {
    const game = snap.game && snap.game.game === "fable" ? snap.game : null;
    $("no-game").hidden = !!game;
    $("fable").hidden = !game;
    $("actionbar").hidden = !game;
    if (!game) return;
    const s = game.state;
    current = s;
    $("turn").textContent = s.over ? `Game over: ${s.winners.join(" and ")} won` : `${s.current}'s turn`;
    $("phase").textContent = phaseText(s);
    $("ending").hidden = !s.final_round;
    $("ending").textContent = s.final_round ? `Last round: ${s.ending}. ${s.last_turn} has the last turn.` : "";
    renderResult(s);
    renderCampaign(game, s);
    $("round").textContent = s.round;
    $("goal").textContent = s.goal;
    $("display-count").textContent = s.display_count;
    $("fruit-stack").textContent = s.fruit_stack;
    renderChoices(s, game);
    renderStacks(s);
    renderPlayers(s);
    $("deck-size").textContent = s.deck_size;
    $("deck-next").replaceChildren(...(s.deck_next.length ? s.deck_next.map((n) => el("span", { class: "chip", text: n })) : [el("span", { class: "muted", text: "the deck is empty" })]));
    $("bag").textContent = s.bag_size ? `${s.bag_size} cards: ${s.bag.join(" ")}` : "Empty: this is the campaign's first game.";
    const comps = s.components || { needed: [], unknown: [] };
    $("components").textContent = [
      comps.needed.length ? `Put out: ${comps.needed.join(", ")}.` : "None needed.",
      comps.unknown.length ? `Location${comps.unknown.length > 1 ? "s" : ""} ${comps.unknown.join(", ")} do${comps.unknown.length > 1 ? "" : "es"} not say yet (fill in their cards).` : "",
    ].join(" ");
    $("log").replaceChildren(...game.log.slice().reverse().slice(0, 60).map((e) =>
      el("li", { class: `kind-${e.kind}` }, el("span", { class: "text", text: e.text }), el("span", { class: `src src-${e.source}`, text: e.source }))));
  }

  function phaseText(s) {
    if (s.over) return s.reason;
    const here = s.players.find((p) => p.name === s.current);
    const last = s.last ? `${s.last.replace(/[.!]?$/, ".")} ` : "";
    if (s.phase === "move") return `${last}${s.current} moves their animal${s.can_pass ? " (or passes: no other location is left)" : ""}.`;
    if (s.phase === "act") return `${last}${s.current} uses the action of location ${here.location} or buys its juice.`;
    if (s.phase === "draw") return `${last}Draw the top card of the deck (${s.deck_top}): the camera sees it, or tap Draw.`;
    return last;
  }

  function renderResult(s) {
    const box = $("result");
    box.hidden = !s.over;
    if (!s.over) { box.replaceChildren(); return; }
    box.replaceChildren(TC.stacked(el("table", {},
      el("thead", {}, el("tr", {}, el("th", { text: "Player" }), el("th", { class: "num", text: "Juices" }), el("th", { class: "num", text: "Fruits" }), el("th", { class: "num", text: "Session score" }))),
      el("tbody", {}, s.players.map((p) => el("tr", { class: s.winners.includes(p.name) ? "current" : "" },
        el("td", { text: p.name }), el("td", { class: "num", text: p.juices }), el("td", { class: "num", text: p.fruits }), el("td", { class: "num", text: s.scores[p.name] ?? "" })))))));
  }

  // A campaign game: where it belongs and, once it is over, what the players do before the next game
  // (the end reaches the campaign with the last move; a game that ended elsewhere is recorded here).
  let stepsFor = "";
  function renderCampaign(game, s) {
    const id = game.campaign_id;
    $("campaign-link").replaceChildren(id ? el("a", { href: `/campaigns?id=${encodeURIComponent(id)}`, text: `Campaign: ${game.title.split(": game")[0]} →` }) : "");
    $("campaign-finish").hidden = !(id && s.over);
    if (!id || !s.over || stepsFor === game.session_id) return;
    stepsFor = game.session_id;
    TC.getJSON(`/api/campaigns/${encodeURIComponent(id)}`).then((c) => {
      $("finish-game").hidden = !c.current_over;
      if (c.next_steps) showSteps(c.next_steps);
    }).catch(() => { stepsFor = ""; });
  }
  function showSteps(instructions) {
    $("finish-title").textContent = instructions.title;
    $("finish-steps").replaceChildren(...instructions.steps.map((step) => el("li", { text: step })));
  }
  $("finish-game").addEventListener("click", async () => {
    const game = TC.snapshot.game;
    const done = await act(`/api/campaigns/${encodeURIComponent(game.campaign_id)}/finish`, {});
    if (done) {
      $("finish-game").hidden = true;
      showSteps(done.instructions);
    }
  });

  const stackOf = (s, n) => s.stacks.find((x) => x.number === n);
  const locationLabel = (stack) => `${stack.number}${stack.location.name ? ` · ${stack.location.name}` : ""}`;

  // The open form (an action being written, a price, the entry fee) stays open while the decision
  // is the same one: only a new player, phase or turn closes it.
  let decision = null;
  // Another player's phone (``game.viewer``) says whose choice it is instead of offering buttons the
  // companion would refuse; the deck's card is the table's.
  function renderChoices(s, game) {
    const viewer = game.viewer;
    const box = $("choice-buttons");
    box.replaceChildren();
    const now = JSON.stringify([s.current, s.phase, s.round, s.players.map((p) => p.turns)]);
    if (now !== decision) {
      decision = now;
      $("action-form").hidden = true;
      $("buy-form").hidden = true;
      $("fee-choice").hidden = true;
    }
    $("choices").hidden = s.over;
    if (s.over) return;
    $("choices-title").textContent = `${s.current}'s choice`;
    const me = s.players.find((p) => p.name === s.current);
    if (viewer && viewer !== s.current && s.phase !== "draw") {
      $("choices-help").textContent = `${s.current} chooses ${TC.whereChooses(game, s.current)}.`;
    } else if (s.phase === "move") {
      $("choices-help").textContent = "Where does the animal go?";
      for (const n of s.destinations) {
        const stack = stackOf(s, n);
        box.append(el("button", { type: "button", class: "secondary", dataset: { location: n }, text: `Move to ${locationLabel(stack)}`, onclick: () => moveTo(s, stack) }));
      }
      if (s.can_pass) box.append(el("button", { type: "button", text: "Pass", onclick: () => play(`pass ${s.current}`) }));
    } else if (s.phase === "act") {
      const stack = stackOf(s, me.location);
      const loc = stack.location;
      $("choices-help").textContent = `At ${locationLabel(stack)}: action ${loc.action === "unknown" ? "not known yet" : `“${loc.action}”`}; juice ${loc.price_text || "price not known yet"}.`;
      box.append(el("button", { type: "button", id: "use-action", text: "Use the action", onclick: () => useAction(s, stack) }));
      box.append(el("button", { type: "button", id: "buy-juice", text: `Buy the juice${loc.price_text ? ` (${loc.price_text})` : ""}`, onclick: () => buyJuice(s, stack) }));
    } else if (s.phase === "draw") {
      $("choices-help").textContent = `Next card: ${s.deck_top}. It goes onto its stack, or starts a new one.`;
      box.append(el("button", { type: "button", id: "draw-card", text: `Draw ${s.deck_top}`, onclick: () => play("draw") }));
    }
  }

  // Entering a location: one fruit to every other animal there; with too few fruits, the mover chooses.
  function moveTo(s, stack) {
    const me = s.players.find((p) => p.name === s.current);
    const others = stack.animals.filter((name) => name !== s.current);
    if (others.length === 0 || me.fruits >= others.length) return play(`move ${s.current} ${stack.number}`);
    if (me.fruits === 0) return play(`move ${s.current} ${stack.number} pay nobody`);
    const chosen = new Set();
    $("fee-choice").hidden = false;
    $("fee-help").textContent = `${s.current} has ${me.fruits} fruit${me.fruits === 1 ? "" : "s"} for ${others.length} animals at ${stack.number}: choose who gets one.`;
    $("fee-players").replaceChildren(...others.map((name) => el("button", { type: "button", class: "secondary", "aria-pressed": "false", text: name, onclick: (ev) => {
      if (chosen.has(name)) chosen.delete(name); else if (chosen.size < me.fruits) chosen.add(name);
      ev.target.setAttribute("aria-pressed", String(chosen.has(name)));
    } })));
    $("fee-ok").onclick = () => {
      if (chosen.size !== me.fruits) { say(`Choose ${me.fruits} player${me.fruits === 1 ? "" : "s"}.`, "error"); return; }
      play(`move ${s.current} ${stack.number} pay ${[...chosen].join(", ")}`);
    };
  }

  function useAction(s, stack) {
    const rule = stack.location.rule;
    if (rule === "draw2") return play(`action ${s.current}`);
    const examples = {
      banana_for_two: "give NAME banana take NAME 2 fruits (no banana: draw 1 fruit)",
      draw_and_swap3: "draw 1 take NAME 3 give NAME 3",
    };
    $("action-form").hidden = false;
    $("buy-form").hidden = true;
    $("action-text").placeholder = examples[rule] || "what moved: draw 2, give Paul banana, take Anne 1 …";
    $("action-text").focus();
  }
  $("action-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (await play(`action ${current.current} ${$("action-text").value.trim()}`.trim())) $("action-text").value = "";
  });

  // A price nobody has entered yet: the buyer reads it from the card; the purchase is checked against
  // it and it is stored as card data, so later games know it.
  function buyJuice(s, stack) {
    const price = stack.location.price;
    if (price && !price.special) return play(`buy ${s.current} ${stack.number}`);
    $("buy-form").hidden = false;
    $("action-form").hidden = true;
    $("buy-price-row").hidden = !!price;
    $("buy-pay-label").textContent = price ? "Paid (e.g. 4, or 3 grapes banana)" : "Paid, if not the printed price (optional: e.g. 3 grapes banana)";
    $("buy-pay").placeholder = price && price.special ? `the card says: ${price.special}` : "";
    (price ? $("buy-pay") : $("buy-price")).focus();
  }
  $("buy-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const me = current.players.find((p) => p.name === current.current);
    const printed = $("buy-price-row").hidden ? "" : $("buy-price").value.trim();
    const paid = $("buy-pay").value.trim();
    if (!$("buy-price-row").hidden && !printed) { say("Enter the price printed on the card.", "error"); return; }
    const move = `buy ${current.current} ${me.location}${printed ? ` price ${printed}` : ""}${paid ? ` pay ${paid}` : ""}`;
    if (!await play(move)) return;
    $("buy-pay").value = "";
    $("buy-price").value = "";
    if (printed) {
      const saved = await act(`/api/cards/fable/${me.location}`, { fields: { price: printed } });
      if (saved) say(`Location ${me.location}'s price is kept for every later game.`);
    }
  });

  // -- the display --
  function renderStacks(s) {
    const me = s.players.find((p) => p.name === s.current);
    TC.keeping($("stacks"), () => $("stacks").replaceChildren(...s.stacks.map((stack) => {
      const loc = stack.location;
      const here = me && me.location === stack.number;
      return el("article", { class: `stack${here ? " here" : ""}${loc.verified ? "" : " unverified"}`, dataset: { location: stack.number } },
        el("span", { class: "num", text: stack.number }),
        el("span", { class: "copies", title: "copies left", text: `×${stack.count}` }),
        el("div", { class: loc.name ? "" : "unknown", text: loc.name || "name: unknown" }),
        el("div", { class: loc.price_text ? "" : "unknown", text: loc.price_text ? `Juice: ${loc.price_text}` : "price: unknown" }),
        el("div", { class: loc.action !== "unknown" ? "action" : "action unknown", title: loc.action, text: loc.action !== "unknown" ? loc.action : "action: unknown",
          onclick: (ev) => ev.currentTarget.classList.toggle("open") }),
        el("div", { class: "who", text: stack.animals.length ? `here: ${stack.animals.join(", ")}` : "" }),
        el("div", { class: "meta", text: `top ${stack.cards[0]}` }),
        loc.missing && loc.missing.some((f) => ["name", "price", "action"].includes(f)) ? fillIn(stack) : null);
    })));
  }

  function fillIn(stack) {
    const missing = stack.location.missing.filter((f) => ["name", "price", "action"].includes(f));
    const inputs = {};
    const hints = { name: "as printed on the card", price: "e.g. 3 grapes + 1 smoothie", action: "what the card says" };
    const form = el("form", { class: "fill-in", autocomplete: "off", onsubmit: async (ev) => {
      ev.preventDefault();
      const fields = {};
      for (const [f, input] of Object.entries(inputs)) if (input.value.trim()) fields[f] = input.value.trim();
      if (!Object.keys(fields).length) return;
      const done = await act(`/api/cards/fable/${stack.number}`, { fields });
      if (done) say(done.applies === "next_game" ? `Location ${stack.number} saved: this game keeps the facts it started with; the next game uses yours.` : `Location ${stack.number} saved.`);
    } });
    for (const f of missing) {
      inputs[f] = el("input", { "aria-label": `${f} of location ${stack.number}`, placeholder: `${f}: ${hints[f]}`, name: f, autocapitalize: "off",
        dataset: { keep: `fill-${stack.number}-${f}` } });
      form.append(inputs[f]);
    }
    form.append(el("button", { type: "submit", class: "small", text: "Save" }));
    return el("details", { dataset: { keep: `fill-${stack.number}` } }, el("summary", { text: "unknown: fill in" }), form);
  }

  function renderPlayers(s) {
    $("players").replaceChildren(TC.stacked(el("table", {},
      el("thead", {}, el("tr", {}, el("th", { text: "Player" }), el("th", { class: "num", text: "At" }), el("th", { class: "num", text: "Juices" }), el("th", { class: "num", text: "Fruits" }), el("th", { class: "num", text: "Turns" }))),
      el("tbody", {}, s.players.map((p) => el("tr", { class: p.name === s.current ? "current" : "" },
        el("td", { text: `${p.name}${p.name === s.start_player ? " ★" : ""}${s.final_round && p.name === s.last_turn ? " (last turn)" : ""}` }),
        el("td", { class: "num", text: p.location ?? "–" }),
        el("td", { class: "num", text: p.juices }),
        el("td", { class: "num", text: p.fruits }),
        el("td", { class: "num", text: p.turns })))))));
  }

  async function play(move) {
    return act("/api/move", { move, event_id: newEventId() });
  }
  $("move-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if ($("move").value.trim() && await play($("move").value.trim())) $("move").value = "";
  });

  onState(render, "game");  // not rebuilt for camera, health or LED updates: open forms stay
})();
