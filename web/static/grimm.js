// The Grimm Forest: each phone picks its collection card (and Fable) in secret; the table screen shows who
// has chosen, then every pick at once and the split as a picture of the boards; builds, actions and Friends
// are entered here and checked by the companion. The shared screen enters moves for seats without a phone.
"use strict";
(() => {
  const { el, $, act, onState, newEventId } = TC;
  const RES = ["straw", "wood", "brick"];
  const PARTS = { floor: "Floor", walls: "Walls", roof: "Roof" };
  let formsFor = "";

  const play = (move) => act("/api/move", { move, event_id: newEventId() });
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const resText = (r) => RES.filter((k) => r[k]).map((k) => `${r[k]} ${k}`).join(", ") || "nothing";
  const locName = (s, id) => (s.locations.find((l) => l.id === id) || { name: id }).name;

  function render(snap) {
    const game = snap.game && snap.game.game === "grimm" ? snap.game : null;
    $("no-game").hidden = !!game;
    $("grimm").hidden = !game;
    if (!game) return;
    const s = game.state;
    document.body.classList.toggle("grimm-big-screen", !game.viewer);
    renderStatus(game, s);
    renderChoosing(game, s);
    renderActions(game, s);
    renderBoard(s);
    renderPlayers(s);
    renderLog(game);
    $("notes").replaceChildren(...(s.notes.length ? s.notes.slice().reverse() : ["No Friend or Fable effect yet."]).map((t) => el("li", { text: t })));
    $("friends").replaceChildren(...Object.values(s.friends).map((f) => el("li", {}, el("b", { text: `${f.name} ` }),
      `(${f.timing}) ${f.text}`)));
    $("decisions").replaceChildren(...s.decisions.map((t) => el("li", { text: t })));
  }

  function renderStatus(game, s) {
    const outcome = $("outcome");
    outcome.hidden = !game.outcome;
    if (game.outcome) outcome.textContent = TC.outcomeText(game);
    const phase = { prince: "the Prince Regal", collect: "collection", fables: "Fables revealed", before: "before collecting",
      draft: "the Market draft", after: "end of Gather", construction: "construction", cleanup: "cleanup" }[s.phase];
    $("turn").textContent = s.over ? "The game is over" : `Round ${s.round} · ${phase} · first player: ${s.first_player}`;
    $("waiting").textContent = s.over ? "" : `Waiting for ${s.waiting}.`;
    $("who-am-i").textContent = game.viewer
      ? `This phone is ${game.viewer}'s: only you see your collection card before the reveal.`
      : "The shared table screen: it shows who has chosen, never what, until every seat has chosen.";
  }

  // Who has chosen (and, once all are in, what): the heart of the collection phase.
  function renderChoosing(game, s) {
    const collecting = s.phase === "collect";
    $("choosing-card").hidden = !collecting && !s.picks_revealed;
    $("choosing-title").textContent = collecting ? "Collection cards: who has chosen" : `Collection cards of round ${s.round}`;
    $("choosing").replaceChildren(...s.players.map((p) => {
      const state = p.pick && s.picks_revealed ? "revealed" : p.chosen ? "chosen" : "choosing";
      const mine = game.viewer === p.name && p.pick;
      const what = state === "revealed" ? locName(s, p.pick) + (p.fable_played ? " + a Fable" : "")
        : mine ? `you chose ${locName(s, p.pick)}${p.fable_played ? " + a Fable" : ""}`
        : p.chosen ? (p.fable_played ? "chosen, with a Fable" : "chosen") : "choosing…";
      return el("div", { class: "grimm-seat", role: "listitem", dataset: { state, player: p.name } },
        el("b", { text: p.name }), el("span", { class: "what", text: what }));
    }));
  }

  function renderBoard(s) {
    const split = Object.fromEntries(s.split.map((sp) => [sp.location, sp]));
    $("board").replaceChildren(...s.locations.map((loc) => {
      const sp = split[loc.id];
      const tokens = RES.flatMap((r) => Array.from({ length: Math.min(loc.stock[r], 20) }, () => el("span", { class: `grimm-token ${r}`, title: r })));
      return el("div", { class: "grimm-location", dataset: { location: loc.id, monster: String(loc.monster) } },
        el("h3", { text: loc.name }),
        el("div", { class: "grimm-tokens", "aria-label": `${loc.name} holds ${resText(loc.stock)}` }, tokens),
        el("div", { class: "meta", text: `holds ${resText(loc.stock)}${loc.monster ? " · a monster blocks it" : ""}${loc.prince ? " · the Prince Regal came" : ""}` }),
        el("div", { class: "grimm-pigs" }, loc.pigs.map((p) => el("span", { class: "grimm-pig", title: `${p}'s pig`, text: p }))),
        sp && sp.pigs.length ? el("ul", { class: "grimm-took" }, sp.pigs.map((p, i) => el("li", { dataset: { player: p },
          text: sp.blocked ? `${p}: nothing (blocked)` : `${p} took ${resText(sp.took[i])}` })),
          sp.share && !sp.blocked ? el("li", { text: `drafted ${sp.share} each, one at a time in turn order` }) : null) : null);
    }));
    $("split-note").textContent = s.split.length ? "Alone, a pig takes everything; sharing pigs split equally, rounded down, the rest stays." : "";
  }

  function renderPlayers(s) {
    const head = el("tr", {}, el("th", { text: "Player" }), RES.map((r) => el("th", { class: "num", text: r })),
      el("th", { class: "num", text: "Fables" }), el("th", { text: "Friend" }), el("th", { text: "Houses" }), el("th", { text: "Building" }));
    const rows = s.players.map((p) => el("tr", { class: s.to_act.includes(p.name) ? "current" : "", dataset: { player: p.name } },
      el("td", { text: `${p.name}${p.first_player ? " ★" : ""}` }), RES.map((r) => el("td", { class: "num", text: p.resources[r] })),
      el("td", { class: "num", text: p.fables }), el("td", { text: p.friend ? p.friend.name : "—" }),
      el("td", { text: `${p.house_count ? `${p.house_count}: ${resText(p.houses)}` : "0"}${p.first_builder.length ? ` · First Builder: ${p.first_builder.join(", ")}` : ""}` }),
      el("td", { text: RES.filter((r) => p.building[r]).map((r) => `${r} (${p.building[r]})`).join(", ") || "—" })));
    $("players").replaceChildren(TC.stacked(el("table", {}, el("thead", {}, head), el("tbody", {}, rows))));
    $("piles").textContent = `Fable deck ${s.fable_deck}, discarded ${s.fable_discard} · costs: floor ${s.costs.floor}, walls ${s.costs.walls} (+ a Friend), roof ${s.costs.roof}`;
  }

  function renderLog(game) {
    $("log").replaceChildren(...game.log.slice().reverse().filter((e) => ["move", "undo", "redo", "correct"].includes(e.kind)).slice(0, 40).map((e) =>
      el("li", { class: `kind-${e.kind}` }, el("span", { class: "text", text: e.text }), el("span", { class: `src src-${e.source}`, text: e.source }))));
  }

  // -- the forms, rebuilt only when the step changes so a half-filled form survives other updates --

  function renderActions(game, s) {
    const claimed = new Set(game.seats.filter((seat) => seat.claimed).map((seat) => seat.player));
    const viewer = game.viewer;
    let actors = viewer ? s.to_act.filter((p) => p === viewer) : s.to_act.filter((p) => !claimed.has(p));
    const table = !s.over && (s.phase === "prince" || s.phase === "cleanup");
    const mine = viewer && s.phase === "collect" && s.you && s.you.pick;
    const key = JSON.stringify([game.session_id, s.round, s.phase, s.actions_left, s.to_act, actors, table, mine, s.draft_order, game.can_undo]);
    $("actions").hidden = !(actors.length || table || mine) || s.over;
    if (key === formsFor) return;
    formsFor = key;
    const box = $("action-forms");
    box.replaceChildren();
    $("actions-title").textContent = table ? "The table" : viewer ? "Your move" : `Moves for ${actors.join(", ")} (no phone joined)`;
    $("actions-note").textContent = viewer || table ? "" : "Everyone can see this screen: a player without a phone picks here while the others look away, or joins with the seat link on the Table page.";
    if (table) box.append(s.phase === "prince" ? princeForm(s) : cleanupForm(s));
    if (mine) box.append(changeForm(s));
    for (const who of actors) box.append(el("div", { class: "grimm-form", dataset: { player: who, phase: s.phase } }, FORMS[s.phase](s, who)));
  }

  const button = (text, move, attrs = {}) => el("button", { type: "button", text, onclick: () => play(move), ...attrs });
  const select = (name, options) => el("select", { name, "aria-label": name }, options.map(([value, text]) => el("option", { value, text })));
  const me = (s, who) => s.players.find((p) => p.name === who);
  const friendOptions = (s) => [...Object.entries(s.friends).map(([id, f]) => [id, f.name])];

  function princeForm(s) {
    return el("div", { class: "grimm-form" },
      el("p", { text: s.fullest ? `${locName(s, s.fullest)} holds more than 10: the Prince skips his die and goes there.` : "Roll the Prince Regal's resource die:" }),
      el("div", { class: "wrap" }, RES.map((r) => button(r, `prince ${r}`, { class: "secondary" }))));
  }

  function cleanupForm(s) {
    const inputs = ["fields", "forest", "brickyard"].map((loc) => el("input", { type: "number", min: s.mega[0], max: s.mega[1], value: s.mega[0], name: loc, "aria-label": `${loc} token`, inputmode: "numeric" }));
    return el("form", { class: "grimm-form", autocomplete: "off", onsubmit: (ev) => {
      ev.preventDefault();
      play(`cleanup ${inputs.map((i) => `${i.name} ${i.value}`).join(" ")}`);
    } }, el("p", { text: `Cleanup: the First Player token passes on; lay a mega-resource token (${s.mega[0]}-${s.mega[1]}) on each location${s.locations.length > 3 ? " and one of each resource on the Market" : ""}. Their values:` }),
    el("div", { class: "pick" }, inputs.map((i) => el("label", {}, locName(s, i.name), i))), el("button", { type: "submit", text: "Cleanup done" }));
  }

  function changeForm(s) {
    return el("div", { class: "grimm-form" },
      el("p", { text: `You chose ${locName(s, s.you.pick)}${s.you.fable ? " with a Fable on it" : ""}. The others see only that you have chosen.` }),
      el("button", { type: "button", class: "secondary", text: "Change my card", onclick: () => act("/api/undo", { event_id: newEventId() }) }));
  }

  const FORMS = {
    collect(s, who) {
      const p = me(s, who);
      const fable = el("input", { type: "checkbox", name: "fable", disabled: !p.fables });
      return el("div", {},
        el("p", { text: `${who}: choose your collection card in secret.` }),
        el("label", { class: "check" }, fable, `Lay a Fable face down on it (${plural(p.fables, "Fable")} in hand)`),
        el("div", { class: "wrap" }, s.locations.map((loc) => el("button", { type: "button", class: "pick-location", dataset: { location: loc.id },
          text: loc.name, onclick: () => play(`gather ${who} ${fable.checked ? "fable " : ""}${loc.id}`) }))));
    },
    fables(s, who) {
      const free = s.locations.filter((l) => !l.monster);
      const text = el("input", { name: "fable-text", placeholder: "the card and what it did", "aria-label": "Fable" });
      return el("div", {},
        el("p", { text: `${who}'s Fable is revealed. A monster blocks one location (one monster per location):` }),
        el("div", { class: "wrap" }, free.map((l) => button(`Monster on ${l.name}`, `fable ${who} monster ${l.id}`, { class: "secondary" }))),
        el("form", { autocomplete: "off", onsubmit: (ev) => { ev.preventDefault(); play(`fable ${who} other ${text.value.trim()}`); } },
          el("label", { text: "Another Fable (played at the table, recorded as you say):" }), el("div", { class: "row" }, text, el("button", { type: "submit", text: "Record it" }))));
    },
    before(s, who) {
      const p = me(s, who);
      const here = s.locations.find((l) => l.id === p.pick).stock;
      const picks = [0, 1].map((i) => select(`cinderella-${i + 1}`, [["", "—"], ...RES.filter((r) => here[r]).map((r) => [r, r])]));
      return el("form", { autocomplete: "off", onsubmit: (ev) => {
        ev.preventDefault();
        const chosen = picks.map((x) => x.value).filter(Boolean);
        play(chosen.length ? `friend ${who} take ${chosen.join(" ")}` : `friend ${who} pass`);
      } }, el("p", { text: `${who}'s Cinderella may take 2 resources from the ${locName(s, p.pick)} before anyone collects.` }),
      el("div", { class: "pick" }, picks), el("button", { type: "submit", text: "Take them" }), button("Pass", `friend ${who} pass`, { class: "secondary" }));
    },
    draft(s, who) {
      const market = s.locations.find((l) => l.id === "market").stock;
      return el("div", {}, el("p", { text: `${who}: take one token from the Market.` }),
        el("div", { class: "wrap" }, RES.filter((r) => market[r]).map((r) => button(`Take ${r}`, `draft ${who} ${r}`))));
    },
    after(s, who) {
      const friend = select("new-friend", friendOptions(s).filter(([id]) => id !== "frog-prince"));
      const res = select("frog-resource", RES.map((r) => [r, r]));
      return el("form", { autocomplete: "off", onsubmit: (ev) => { ev.preventDefault(); play(`friend ${who} frog ${friend.value} gain ${res.value}`); } },
        el("p", { text: `${who} was not alone: the Frog Prince is discarded; draw a new Friend and gain 1 resource.` }),
        el("div", { class: "pick" }, el("label", {}, "New Friend", friend), el("label", {}, "Resource", res)), el("button", { type: "submit", text: "Done" }));
    },
    construction(s, who) {
      const p = me(s, who);
      const part = select("part", Object.entries(PARTS));
      const kind = select("kind", RES.map((r) => [r, r]));
      const friend = select("friend", friendOptions(s));
      const to = select("to", s.players.map((x) => [x.name, x.name === who ? `${who} keeps it` : `give to ${x.name}`]));
      const reward = select("reward", [["resources", "1 straw + 1 wood + 1 brick"], ["fables", "2 Fables"], ["friend", "1 Friend"]]);
      const extra = el("div", { class: "pick" });
      const sync = () => {
        const k = kind.value, section = part.value;
        const first = section === "roof" && !s.first_builders[k];
        extra.replaceChildren(...(section === "walls" || (first && reward.value === "friend") ? [el("label", {}, "Friend drawn", friend), to] : []),
          ...(first ? [el("label", {}, `First ${k} house: reward`, reward)] : []));
      };
      [part, kind, reward].forEach((x) => x.addEventListener("change", sync));
      sync();
      const friendText = () => `${friend.value}${to.value !== who ? ` to ${to.value}` : ""}`;
      const build = el("form", { autocomplete: "off", onsubmit: (ev) => {
        ev.preventDefault();
        const k = kind.value, section = part.value;
        let move = `build ${who} ${section} ${k}`;
        if (section === "walls") move += ` friend ${friendText()}`;
        if (section === "roof" && !s.first_builders[k]) move += reward.value === "friend" ? ` reward friend ${friendText()}` : ` reward ${reward.value}`;
        play(move);
      } }, el("div", { class: "pick" }, el("label", {}, "Build", part), el("label", {}, "house", kind)), extra, el("button", { type: "submit", text: "Build" }));
      const special = [];
      if (p.friend && !s.special_used) {
        const f = p.friend.id;
        if (f === "fairy-godmother") {
          const a = select("fairy-1", RES.map((r) => [r, r])), b = select("fairy-2", RES.map((r) => [r, r]));
          special.push(button("Fairy Godmother: 2 Fables", `special ${who} fables`, { class: "secondary" }),
            el("form", { onsubmit: (ev) => { ev.preventDefault(); play(`special ${who} resources ${a.value} ${b.value}`); } }, a, b,
              el("button", { type: "submit", class: "secondary", text: "Discard her + 2 Fables for these" })));
        } else if (!(s.friends[f] && s.friends[f].known)) {
          const text = el("input", { name: "special-text", placeholder: "what it did", "aria-label": "Special action" });
          special.push(el("form", { onsubmit: (ev) => { ev.preventDefault(); play(`special ${who} other ${text.value.trim()}`); } },
            el("label", { text: `${p.friend.name}'s special action (played at the table):` }), text, el("button", { type: "submit", class: "secondary", text: "Record it" })));
        }
      }
      return el("div", {},
        el("p", { class: "turn", text: `${who}: ${plural(s.actions_left, "action")} left this turn.` }),
        el("div", { class: "wrap" }, button("Draw a Fable", `draw ${who} fable`, { class: "secondary" }),
          RES.map((r) => button(`Gain ${r}`, `gain ${who} ${r}`, { class: "secondary" }))),
        build, special);
    },
  };

  $("move-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const text = $("move-text").value.trim();
    if (text && await play(text)) $("move-text").value = "";
  });

  onState(render, "game");  // not rebuilt for camera, health or LED updates: open forms stay
})();
