// Bable: the Idea-deck clock against the tower (large on the shared screen), each phone's own hand and
// face-down buildings, and the forms for the move the game waits for from this phone: the deal, the
// overseer's actions, the answer to a command, a Confusion card, a discard down to 7, the Idea card.
// The shared screen enters moves for players whose phone has not joined (everyone can see it).
"use strict";
(() => {
  const { el, $, act, onState, newEventId } = TC;
  const NAMES = { build: "Build", gather: "Gather", give: "Give", reveal: "Reveal" };
  const EFFECT_NAMES = {
    "return-building": "C1 Return a building", "discard-resources": "C2 Discard for Doors/Stairs",
    "redraw-word": "C3 Draw from the discard pile", "buildings-left": "C4 Buildings to the left",
    "resources-right": "C5 Resources to the right", "drop-word": "C6 Hand of three", "words-down": "C7 Words face down",
  };
  let formsFor = "";

  const play = (move) => act("/api/move", { move, event_id: newEventId() });
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

  function render(snap) {
    const game = snap.game && snap.game.game === "bable" ? snap.game : null;
    $("no-game").hidden = !!game;
    $("bable").hidden = !game;
    $("actionbar").hidden = !game;
    if (!game) return;
    const s = game.state;
    const viewer = game.viewer;
    document.body.classList.toggle("bable-big-screen", !viewer);
    renderStatus(game, s, viewer);
    renderClock(s);
    renderMine(s);
    renderActions(game, s, viewer);
    renderSupplies(s);
    renderPiles(s);
    renderConfusion(s);
    renderLog(game);
    $("unknown-facts").replaceChildren(...(s.unknown_facts.length ? s.unknown_facts : ["nothing: every card fact is entered"]).map((t) => el("li", { text: t })));
    $("trusted-box").hidden = !s.trusted.length;
    $("trusted").replaceChildren(...s.trusted.slice().reverse().map((t) => el("li", { text: t })));
    $("decisions").replaceChildren(...s.decisions.map((t) => el("li", { text: t })));
  }

  const label = (s, card) => {
    const b = s.buildings[card];
    return b && b.name ? `${card} ${b.name}` : card;
  };
  const costOf = (s, card) => (s.buildings[card] && s.buildings[card].cost_text) || "cost not entered";

  function renderStatus(game, s, viewer) {
    const outcome = $("outcome");
    outcome.hidden = !game.outcome;
    if (game.outcome) {
      outcome.textContent = TC.outcomeText(game);
      outcome.className = `bable-outcome ${game.outcome.lost ? "lost" : "won"}`;
    }
    if (s.phase === "deal") $("turn").textContent = "Setup: each player enters the cards they were dealt";
    else if (s.over) $("turn").textContent = "The game is over";
    else $("turn").textContent = `Turn ${s.turn}: ${s.overseer} is the overseer · ${plural(s.actions_left, "action")} left`;
    $("waiting").textContent = s.over ? "" : `Waiting: ${s.waiting}.`;
    $("who-am-i").textContent = viewer
      ? `This phone is ${viewer}'s: only you see your hand and your face-down buildings here.`
      : "The shared table screen: nobody's hand is shown here. Open your seat's link (Table page) on your phone to see your cards.";
  }

  function renderClock(s) {
    const rows = s.clock.slice().reverse().map((row) => {
      const layer = s.tower[row.layer - 1];
      const slots = [];
      for (let i = 0; i < row.size; i++) {
        const card = layer.buildings[i];
        slots.push(el("span", { class: `slot${card ? " built" : ""}`, title: card ? `${label(s, card)}: ${costOf(s, card)}` : "still to build", text: card ? label(s, card) : "" }));
      }
      const deadline = row.level === "done" ? "finished" : row.level === "lost" ? "lost" : `${plural(row.draws_left, "draw")} left`;
      return el("div", { class: "bable-layer", dataset: { level: row.level, layer: row.layer } },
        el("div", {}, el("span", { class: "name", text: `Layer ${row.layer}` }),
          el("div", { class: "meta", text: row.missing ? `${row.missing} of ${row.size} missing` : `${row.size} of ${row.size} built` })),
        el("div", { class: "slots" }, slots),
        el("div", { class: "deadline" }, el("b", { text: row.level === "done" ? "✓" : String(row.draws_left) }),
          el("span", { class: "meta", text: row.level === "done" || row.level === "lost" ? `${deadline} · deck ${row.deck}: ${plural(row.deck_cards, "card")}`
            : `draws left · deck ${row.deck}: ${plural(row.deck_cards, "card")}` })));
    });
    $("clock").replaceChildren(...rows);
    // The headline: the next layer whose deadline is running (the lowest unfinished one).
    const next = s.clock.find((row) => row.missing);
    const line = $("deadline");
    line.dataset.level = next ? next.level : "done";
    line.textContent = !next ? "The tower is finished."
      : next.level === "lost" ? `Layer ${next.layer} was not finished in time.`
      : `Layer ${next.layer}: ${plural(next.missing, "building")} to place in ${plural(next.draws_left, "Idea draw")}`
        + (next.level === "red" ? " — the next Idea card is the deadline!" : next.level === "amber" ? " — less than a round left" : "");
  }

  function renderMine(s) {
    const me = s.you;
    $("mine").hidden = !me;
    if (!me) return;
    $("hand").replaceChildren(...me.hand.map((slot) => el("div", { class: `bable-word ${slot.card === null ? "missing" : slot.card}` },
      el("b", { text: NAMES[slot.symbol] }),
      el("span", { class: "meta", text: slot.card === null ? "no card (Confusion): until you draw this symbol" : slot.card === "start" ? "your starting word" : "a new word" }))));
    const mine = s.players.find((p) => p.name === me.name);
    $("my-buildings").replaceChildren(
      el("p", {}, `Resources: ${resourcesText(mine.resources)} (${mine.resource_total} of ${s.limits.supply})`),
      me.buildings.length ? el("ul", {}, me.buildings.map((b) => el("li", {},
        `${label(s, b.card)} · ${b.face_up ? "face up" : "face down"} · costs ${costOf(s, b.card)}`,
        b.affordable === true ? " · you can pay for it" : b.affordable === false ? "" : ""))) : el("p", { class: "muted", text: "No Building card in your supply." }));
  }

  const resourcesText = (counts) => Object.entries(counts).filter(([, n]) => n).map(([r, n]) => `${n} ${r}`).join(", ") || "none";

  function renderSupplies(s) {
    const head = el("tr", {}, el("th", { text: "Player" }), s.resource_types.map((r) => el("th", { class: "num", text: r })),
      el("th", { class: "num", text: "total" }), el("th", { text: "buildings" }), el("th", { class: "num", text: "hand" }), el("th", { text: "" }));
    const rows = s.players.map((p) => el("tr", { class: p.name === s.overseer ? "current" : "" },
      el("td", { text: p.name }), s.resource_types.map((r) => el("td", { class: "num", text: p.resources[r] })),
      el("td", { class: "num", text: `${p.resource_total}/${s.limits.supply}` }),
      el("td", { text: [...p.face_up.map((c) => label(s, c)), p.face_down ? `${p.face_down} face down` : ""].filter(Boolean).join(", ") || "—" }),
      el("td", { class: "num", text: p.hand_size, title: shownText(p) }),
      el("td", { text: [p.words_down ? "words face down" : "", p.to_discard ? `discards ${p.to_discard}` : "", !p.dealt ? "not dealt yet" : "", shownText(p)].filter(Boolean).join("; ") })));
    $("supplies").replaceChildren(TC.stacked(el("table", {}, el("thead", {}, head), el("tbody", {}, rows))));
  }

  // The Word cards a player has shown to everyone (an answer, a Reveal), with the turn: the table's memory.
  const shownText = (p) => Object.entries(p.shown).map(([sym, turn]) => `${NAMES[sym]} shown in turn ${turn}`).join(", ");

  function renderPiles(s) {
    const decks = s.idea_decks.map((d) => el("li", { class: d.deck === s.current_deck ? "current" : "" },
      `Idea deck ${d.deck}: ${plural(d.cards, "card")} (${d.words} Word, ${d.buildings} Building)${d.deck === s.current_deck ? " ← next draw" : ""}`));
    const r = s.resources;
    $("piles").replaceChildren(el("ul", {}, decks,
      el("li", { text: `Resource deck: ${plural(r.deck, "card")}${r.deck_mix ? ` (${resourcesText(r.deck_mix)})` : ""}; discard pile: ${resourcesText(r.discard)}` }),
      el("li", { text: `Word discard pile (face down): ${plural(s.word_discard, "card")}` }),
      el("li", { text: `Building cards nobody has seen: ${s.buildings_unseen}` }),
      el("li", { text: `Doors/Stairs in the tower: ${s.doors_stairs.counted}${s.doors_stairs.unknown_buildings ? ` (and ${s.doors_stairs.unknown_buildings} buildings whose details are not entered)` : ""}` })));
  }

  function renderConfusion(s) {
    $("confusion-card").hidden = !s.confusion;
    if (!s.confusion) return;
    $("confusion").replaceChildren(el("p", { text: `${plural(s.confusion.deck, "card")} left in the Confusion deck (used ones are shuffled again when it runs out).` }),
      el("ul", { class: "muted" }, s.confusion.cards.map((c) => el("li", {}, el("b", { text: `${c.card} ` }),
        `${c.text} (${c.count === null ? "count not entered" : `${c.count} in the box`}, ${s.confusion.used[c.effect]} used)`))));
  }

  function renderLog(game) {
    $("log").replaceChildren(...game.log.slice().reverse().filter((e) => ["move", "undo", "redo", "correct"].includes(e.kind)).slice(0, 40).map((e) =>
      el("li", { class: `kind-${e.kind}` }, el("span", { class: "text", text: e.text }), el("span", { class: `src src-${e.source}`, text: e.source }))));
  }

  // -- the forms: rebuilt only when the step changes, so a half-filled form survives other updates --

  function renderActions(game, s, viewer) {
    const claimed = new Set(game.seats.filter((seat) => seat.claimed).map((seat) => seat.player));
    const actors = viewer ? game.to_act.filter((p) => p === viewer) : game.to_act.filter((p) => !claimed.has(p));
    const key = JSON.stringify([game.session_id, s.phase, s.turn, s.actions_left, game.to_act, actors, s.you, s.players.map((p) => [p.resources, p.face_up, p.face_down, p.words_down])]);
    $("actions").hidden = !actors.length || s.over;
    if (key === formsFor) return;
    formsFor = key;
    const box = $("action-forms");
    box.replaceChildren();
    if (!actors.length) return;
    $("actions-title").textContent = viewer ? "Your move" : `Moves for ${actors.join(", ")} (no phone joined)`;
    $("actions-note").textContent = viewer ? "" : "Everyone can see this screen: a player whose phone has not joined enters secret cards here only when the others look away, or joins with the seat link on the Table page.";
    for (const who of actors) box.append(form(s, who, viewer === who ? s.you : null));
  }

  function form(s, who, me) {
    const builders = { deal: dealForm, act: actForm, answer: answerForm, confusion: confusionForm, discard: discardForm, idea: ideaForm };
    const build = builders[s.phase];
    return el("div", { class: "bable-form", dataset: { player: who, phase: s.phase } }, build ? build(s, who, me) : null);
  }

  const select = (name, options, attrs = {}) => el("select", { name, "aria-label": attrs.label || name, ...attrs },
    options.map(([value, text]) => el("option", { value, text })));
  const symbolSelect = (name, symbols) => select(name, symbols.map((sym) => [sym, NAMES[sym]]), { label: name });
  const resourceSelect = (name, s) => select(name, s.resource_types.map((r) => [r, r]), { label: name });
  const heldSymbols = (s, me) => me ? me.hand.filter((slot) => slot.card !== null).map((slot) => slot.symbol) : s.symbols;
  // Buildings this viewer might have drawn: every card whose place they do not know.
  const drawable = (s, me) => me ? me.could_draw : Object.keys(s.buildings).filter((c) => !s.public_buildings.includes(Number(c.slice(1))));
  const blankLeft = (s, me) => drawable(s, me).some((c) => { const b = s.buildings[c]; return !b.name && !b.cost_text && !b.details; });

  function buildingPicker(s, me, name) {
    const options = [];
    if (blankLeft(s, me)) options.push(["B?", "a Building card whose facts are not entered"]);
    for (const card of drawable(s, me)) {
      const b = s.buildings[card];
      if (b.name || b.cost_text || b.details) options.push([card, `${label(s, card)} (${costOf(s, card)})`]);
    }
    return options.length ? select(name, options, { label: "Building card" }) : el("input", { name, placeholder: "B7", "aria-label": "Building card", autocapitalize: "characters" });
  }

  // Four counters (stone, cement, tools, wood): the resources named, repeated by count.
  function counters(s, name, max) {
    const inputs = s.resource_types.map((r) => el("input", { type: "number", min: 0, max, value: 0, name: `${name}-${r}`, "aria-label": r, inputmode: "numeric" }));
    const box = el("div", { class: "pick" }, s.resource_types.map((r, i) => el("label", {}, r, inputs[i])));
    box.names = () => s.resource_types.flatMap((r, i) => Array(Math.max(0, Number(inputs[i].value) || 0)).fill(r));
    return box;
  }
  const names = (list) => list.length ? list.join(" ") : "nothing";

  function dealForm(s, who, me) {
    const resources = [1, 2, 3].map((n) => resourceSelect(`resource-${n}`, s));
    const word = symbolSelect("word", s.symbols);
    const building = buildingPicker(s, me, "building");
    return el("form", { autocomplete: "off", onsubmit: (ev) => {
      ev.preventDefault();
      play(`deal ${who} ${resources.map((r) => r.value).join(" ")} word ${word.value} ${building.value || "B?"}`);
    } },
      el("p", { text: `${who}: the three Resource cards dealt face up, the dealt Word card's symbol (it replaces your starting card with that symbol) and your face-down Building card.` }),
      el("div", { class: "pick" }, resources), el("label", { text: "Word card" }), word, el("label", { text: "Building card" }), building,
      el("button", { type: "submit", text: "Enter my deal" }));
  }

  function actForm(s, who, me) {
    const others = s.players.filter((p) => p.name !== who);
    const mineFaceDown = me ? me.buildings.filter((b) => !b.face_up).map((b) => b.card) : [];
    const reveals = [...heldSymbols(s, me).map((sym) => [`word ${sym}`, `${NAMES[sym]} Word card`]), ...mineFaceDown.map((c) => [c, `${label(s, c)} (face down)`])];
    const canAct = others.some((p) => !p.words_down) || reveals.length || (!me && true);
    return el("div", {},
      el("p", { text: `${who}, action ${3 - s.actions_left} of 2: speak a word to another player, or reveal a card to all.` }),
      el("div", { class: "wrap" }, others.map((p) => el("button", { type: "button", class: "command", disabled: p.words_down,
        title: p.words_down ? "their Word cards lie face down until their next turn" : "", text: `Command ${p.name}`,
        onclick: () => play(`command ${who} ${p.name}`) }))),
      el("div", { class: "wrap" }, reveals.map(([card, text]) => el("button", { type: "button", class: "secondary", text: `Reveal: ${text}`,
        onclick: () => play(`reveal ${who} ${card}`) }))),
      canAct ? null : el("button", { type: "button", text: "Pass (nothing to reveal, nobody to command)", onclick: () => play(`pass ${who}`) }));
  }

  function answerForm(s, who, me) {
    const held = heldSymbols(s, me);
    const detail = el("div", { class: "answer-detail" });
    const pick = (symbol) => detail.replaceChildren(ANSWERS[symbol](s, who, me));
    return el("div", {},
      el("p", { class: "turn", text: me ? `${s.overseer} commands you: is the word on one of your cards?` : `${s.overseer} commands ${who}: is the word on one of ${who}'s cards?` }),
      el("div", { class: "wrap" },
        el("button", { type: "button", class: "danger", text: "No (shake head)", onclick: () => play(`answer ${who} no`) }),
        held.map((sym) => el("button", { type: "button", class: "understood", dataset: { symbol: sym }, text: `Yes: ${NAMES[sym]}`, onclick: () => pick(sym) }))),
      detail);
  }

  const ANSWERS = {
    build(s, who, me) {
      const own = me ? me.buildings : [];
      const building = own.length ? select("building", own.map((b) => [b.card, `${label(s, b.card)} (${costOf(s, b.card)})`]), { label: "Building to build" })
        : el("input", { name: "building", placeholder: "B7", "aria-label": "Building to build" });
      const pay = counters(s, "pay", s.limits.supply);
      const note = el("p", { class: "muted" });
      const sync = () => {
        const facts = s.buildings[String(building.value).toUpperCase()];
        pay.hidden = !!(facts && facts.cost);
        note.textContent = facts && facts.cost ? `You pay ${facts.cost_text}.` : "The cost of this card is not entered: say what you pay.";
      };
      building.addEventListener("change", sync);
      building.addEventListener("input", sync);
      sync();
      return el("form", { autocomplete: "off", onsubmit: (ev) => {
        ev.preventDefault();
        const card = String(building.value).toUpperCase();
        const facts = s.buildings[card];
        const paid = facts && facts.cost ? Object.entries(facts.cost).flatMap(([r, n]) => Array(n).fill(r)) : pay.names();
        play(`answer ${who} build ${card} pay ${names(paid)}`);
      } }, el("label", { text: "Build which card?" }), building, note, pay,
        el("div", { class: "row" }, el("button", { type: "submit", text: "Build it" }),
          el("button", { type: "button", class: "secondary", text: "Nothing I can build", onclick: () => play(`answer ${who} build nothing`) })));
    },
    gather(s, who) {
      const left = s.resources.deck + s.resources.discard_total;
      const drawn = Array.from({ length: Math.min(s.limits.gather, left) }, (_, i) => resourceSelect(`drawn-${i + 1}`, s));
      return el("form", { autocomplete: "off", onsubmit: (ev) => { ev.preventDefault(); play(`answer ${who} gather ${names(drawn.map((d) => d.value))}`); } },
        el("p", { text: `Draw ${plural(drawn.length, "Resource card")} from the deck${s.resources.deck < drawn.length ? " (shuffle the discard pile when it runs out)" : ""}: which?` }),
        el("div", { class: "pick" }, drawn), el("button", { type: "submit", text: "Gathered" }));
    },
    give(s, who, me) {
      const mine = s.players.find((p) => p.name === who);
      const cards = [...Object.entries(mine.resources).filter(([, n]) => n).map(([r]) => [r, r]),
        ...(me ? me.buildings.map((b) => [b.card, `${label(s, b.card)}${b.face_up ? "" : " (face down)"}`]) : [])];
      const others = s.players.filter((p) => p.name !== who).map((p) => [p.name, p.name]);
      const rows = Array.from({ length: s.limits.give }, (_, i) => ({ card: select(`give-card-${i + 1}`, [["", "—"], ...cards], { label: `card ${i + 1}` }), to: select(`give-to-${i + 1}`, others, { label: `to (card ${i + 1})` }) }));
      return el("form", { autocomplete: "off", onsubmit: (ev) => {
        ev.preventDefault();
        const groups = {};
        for (const row of rows) if (row.card.value) (groups[row.to.value] = groups[row.to.value] || []).push(row.card.value);
        const parts = Object.entries(groups).map(([to, list]) => `${list.join(" ")} to ${to}`);
        play(`answer ${who} give ${parts.length ? parts.join(", ") : "nothing"}`);
      } }, el("p", { text: `Give up to ${s.limits.give} cards from the supply, to one player or split between them (buildings keep their side up).` }),
        rows.map((row) => el("div", { class: "row" }, row.card, row.to)), el("button", { type: "submit", text: "Give" }));
    },
    reveal(s, who, me) {
      const cards = [...heldSymbols(s, me).map((sym) => [`word ${sym}`, `${NAMES[sym]} Word card`]),
        ...(me ? me.buildings.filter((b) => !b.face_up).map((b) => [b.card, `${label(s, b.card)} (turn it face up)`]) : [])];
      const boxes = cards.map(([value, text]) => el("label", { class: "check" }, el("input", { type: "checkbox", value }), text));
      return el("form", { autocomplete: "off", onsubmit: (ev) => {
        ev.preventDefault();
        const chosen = boxes.map((b) => b.querySelector("input")).filter((i) => i.checked).map((i) => i.value);
        play(`answer ${who} reveal ${chosen.length ? chosen.join(", ") : "nothing"}`);
      } }, el("p", { text: `Show up to ${s.limits.reveal} cards to everyone (Word cards go back to the hand).` }), boxes, el("button", { type: "submit", text: "Reveal" }));
    },
  };

  function confusionForm(s, who, me) {
    const effect = select("effect", s.confusion.cards.map((c) => [c.effect, `${EFFECT_NAMES[c.effect]}: ${c.text}`]), { label: "Confusion card drawn" });
    const detail = el("div");
    const current = s.tower.find((layer) => layer.buildings.length < layer.size);
    let read = () => "";
    const sync = () => {
      detail.replaceChildren();
      read = () => "";
      const kind = effect.value;
      if (kind === "return-building") {
        const choice = select("taken", [["nothing", "none with a Statue/Relief"], ...(current ? current.buildings.map((c) => [c, label(s, c)]) : [])], { label: "Building taken" });
        detail.append(el("label", { text: `From layer ${current ? current.layer : "?"}:` }), choice);
        read = () => ` ${choice.value}`;
      } else if (kind === "discard-resources") {
        const pay = counters(s, "lose", s.limits.supply);
        detail.append(el("p", { text: `The tower shows ${s.doors_stairs.counted} Doors/Stairs${s.doors_stairs.unknown_buildings ? " (some buildings' details are not entered)" : ""}: discard that many.` }), pay);
        read = () => ` ${names(pay.names())}`;
      } else if (kind === "redraw-word" || kind === "drop-word") {
        const symbols = kind === "drop-word" ? heldSymbols(s, me) : s.symbols;
        const sym = symbolSelect("symbol", symbols);
        detail.append(el("label", { text: kind === "drop-word" ? "The Word card you discard" : "The symbol of the Word card drawn" }), sym);
        read = () => ` ${sym.value || "nothing"}`;
      }
    };
    effect.addEventListener("change", sync);
    sync();
    return el("form", { autocomplete: "off", onsubmit: (ev) => { ev.preventDefault(); play(`confusion ${who} ${effect.value}${read()}`); } },
      el("p", { class: "turn", text: `${who} did not understand: draw the top Confusion card.` }), effect, detail,
      el("button", { type: "submit", text: "Carry it out" }));
  }

  function discardForm(s, who) {
    const owed = s.players.find((p) => p.name === who).to_discard;
    const pay = counters(s, "discard", owed);
    return el("form", { autocomplete: "off", onsubmit: (ev) => { ev.preventDefault(); play(`discard ${who} ${names(pay.names())}`); } },
      el("p", { class: "turn", text: `${who} holds more than ${s.limits.supply} resources: discard ${owed}.` }), pay,
      el("button", { type: "submit", text: "Discard" }));
  }

  function ideaForm(s, who, me) {
    const deck = s.idea_decks[s.current_deck - 1];
    const building = buildingPicker(s, me, "idea-building");
    return el("div", {},
      el("p", { class: "turn", text: `${who}: draw the top Idea card of deck ${deck.deck} (${deck.words} Word, ${deck.buildings} Building).` }),
      deck.words ? el("div", { class: "wrap" }, s.symbols.map((sym) => el("button", { type: "button", class: "idea-word", dataset: { symbol: sym }, text: `Word card: ${NAMES[sym]}`,
        onclick: () => play(`idea ${who} word ${sym}`) }))) : null,
      deck.buildings ? el("form", { autocomplete: "off", onsubmit: (ev) => { ev.preventDefault(); play(`idea ${who} ${building.value || "B?"}`); } },
        el("label", { text: "Or a Building card (it goes face down into your supply):" }), building,
        el("button", { type: "submit", class: "secondary", text: "Building card drawn" })) : null);
  }

  $("move-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const text = $("move-text").value.trim();
    if (text && await play(text)) $("move-text").value = "";
  });

  onState(render, "game");  // not rebuilt for camera, health or LED updates: open forms stay
})();
