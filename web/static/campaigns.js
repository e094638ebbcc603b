// Campaigns: every group's Fabled Fruit legacy deck, its games as charts and a table, park and resume
// with the cards to lay out or put back, the next game, export and import.
"use strict";
(() => {
  const { el, $, act, getJSON, onState, say, barChart, lineChart, legend } = TC;
  let selected = new URLSearchParams(window.location.search).get("id");
  let detail = null;

  async function loadList() {
    const campaigns = await getJSON("/api/campaigns");
    if (!selected) {
      const onTable = campaigns.find((c) => c.on_table);
      selected = onTable ? onTable.campaign_id : campaigns.length ? campaigns[campaigns.length - 1].campaign_id : null;
    }
    $("campaign-list").replaceChildren(campaigns.length ? el("table", {}, el("tbody", {}, campaigns.map((c) =>
      el("tr", { class: c.campaign_id === selected ? "current" : "", dataset: { id: c.campaign_id } },
        // What the campaign is and where it stands in one column, its button in the other: a column more took
        // the width a player's name needs on the narrowest phone ("Maximilia / n").
        el("td", { class: "names" }, el("b", { text: c.title }), el("div", { class: "meta", text: c.group.join(", ") }),
          el("div", { class: "meta", text: `${c.games} game${c.games === 1 ? "" : "s"} · ${c.playing ? "playing" : c.on_table ? "on the table" : "parked"}` })),
        el("td", { class: "act" }, el("button", { type: "button", class: "small secondary", text: "Open", onclick: () => choose(c.campaign_id) })))))) :
      el("p", { class: "muted", text: "No campaign yet: create one for your group." }));
  }

  // Another campaign chosen: the last one's "Start the game", with its players, goes until this one's is shown.
  function choose(id) {
    selected = id;
    $("start-game").hidden = true;
    refresh();
  }

  async function loadDetail() {
    if (!selected) { $("campaign").hidden = true; $("campaign-cards").hidden = true; $("campaign-history").hidden = true; return; }
    const asked = selected;
    let answer;
    try {
      answer = await getJSON(`/api/campaigns/${encodeURIComponent(asked)}`);
    } catch (err) {
      if (asked === selected) selected = null;
      return;
    }
    if (asked !== selected) return;  // another campaign was chosen meanwhile: its own answer follows
    detail = answer;
    render(detail);
  }

  function render(c) {
    $("campaign").hidden = false;
    $("campaign-cards").hidden = false;
    $("campaign-history").hidden = false;
    $("campaign-title-shown").textContent = c.title;
    const current = c.games.find((g) => g.session_id === c.current_game);
    $("campaign-status").textContent = current
      ? (c.current_over ? `Game ${current.number} is over: record its result.` : `Game ${current.number} is being played.`)
      : c.on_table ? "Its cards are on the table." : "Parked: its cards are in the box.";
    $("campaign-group-shown").textContent = `Group: ${c.group.join(", ")}${c.resets ? ` · reset ${c.resets}×` : ""}`;
    $("campaign-game").replaceChildren(current && !c.current_over
      ? el("p", {}, c.in_play ? el("a", { href: "/fable", text: "Go to the game →" }) : el("span", { class: "muted", text: "Another game is open on the table." }))
      : "");
    $("next-steps").hidden = !c.next_steps;
    if (c.next_steps) {
      $("next-steps-title").textContent = c.next_steps.title;
      $("next-steps-list").replaceChildren(...c.next_steps.steps.map((step) => el("li", { text: step })));
    }
    renderStart(c, current);
    renderActions(c, current);
    $("scores").replaceChildren(...Object.entries(c.scores).map(([p, n]) => el("span", { class: "chip", text: `${p}: ${n}` })));
    $("campaign-display-text").textContent = `${c.display_count} cards on display in ${c.stacks.length} stacks:`;
    $("campaign-stacks").replaceChildren(...c.stacks.map((s) => el("span", { class: "chip", title: s.cards.join(" "), text: `#${s.number} ×${s.count}` })));
    $("campaign-deck").textContent = `Deck: ${c.deck_size} cards; next ${c.deck_next.join(" ") || "none"}.`;
    $("campaign-bag").textContent = `Bag: ${c.bag_size} juices${c.bag_size ? `: ${c.bag.join(" ")}` : ""}.`;
    const comps = c.components;
    $("campaign-components").textContent = comps.needed.length ? `Extra components: ${comps.needed.join(", ")}.` : "No extra components needed.";
    renderHistory(c);
  }

  function renderStart(c, current) {
    const box = $("start-game");
    box.hidden = !(c.on_table && !current && c.stacks.length);
    if (box.hidden) return;
    const players = $("start-players");
    if (players.dataset.for !== c.campaign_id) {
      players.dataset.for = c.campaign_id;
      players.replaceChildren(...c.group.map((name) => el("button", { type: "button", class: "secondary", "aria-pressed": "true", dataset: { name }, text: name,
        onclick: (ev) => { ev.target.setAttribute("aria-pressed", String(ev.target.getAttribute("aria-pressed") !== "true")); fillStart(c); } })));
    }
    fillStart(c);
  }
  function chosenPlayers() {
    return [...$("start-players").querySelectorAll("button[aria-pressed=true]")].map((b) => b.dataset.name);
  }
  function fillStart(c) {
    const players = chosenPlayers();
    const start = $("start-player");
    const previous = start.value;
    const suggested = c.next_start.filter((p) => players.includes(p));
    start.replaceChildren(...players.map((p) => el("option", { value: p, text: `${p}${suggested.includes(p) ? " (lost the last game)" : ""}` })));
    start.value = players.includes(previous) ? previous : suggested[0] || players[0] || "";
  }
  $("start-button").addEventListener("click", async () => {
    const done = await act(`/api/campaigns/${encodeURIComponent(selected)}/games`, { players: chosenPlayers(), start: $("start-player").value });
    if (done) { say(`${done.game.title} has started.`); setTimeout(() => { window.location.href = "/fable"; }, 600); }
  });

  function renderActions(c, current) {
    const box = $("campaign-actions");
    const id = encodeURIComponent(c.campaign_id);
    const step = (label, path, cls, confirmText) => el("button", { type: "button", class: cls || "secondary", text: label, onclick: async () => {
      if (confirmText && !window.confirm(confirmText)) return;
      const done = await act(`/api/campaigns/${id}/${path}`, {});
      if (done) { showInstructions(done.instructions); refresh(); }
    } });
    const buttons = [];
    if (current && c.current_over) buttons.push(step("Record the result", "finish", ""));
    if (current && !c.current_over) buttons.push(step("Abandon this game", "abandon", "danger", "Stop this game without a result? Its juices still leave the deck."));
    if (c.on_table && !current) buttons.push(step("Park (put the cards away)", "park"));
    if (!c.on_table) buttons.push(step("Resume (lay the cards out)", "resume", ""));
    if (!current) buttons.push(step("Reset to number order", "reset", "danger", "Put every card back in number order? The history and the scores stay."));
    buttons.push(el("a", { class: "button-link", href: `/api/campaigns/${id}/export`, download: "", text: "Export" }));
    box.replaceChildren(...buttons);
  }

  function showInstructions(instructions) {
    $("instructions").hidden = false;
    $("instructions-title").textContent = instructions.title;
    $("instructions-steps").replaceChildren(...instructions.steps.map((s) => el("li", { text: s })));
    $("instructions").scrollIntoView({ behavior: "smooth", block: "start" });
  }

  function renderHistory(c) {
    const finished = c.games.filter((g) => g.status === "finished");
    const width = $("juice-chart").clientWidth || 640;
    $("juice-chart").replaceChildren(barChart(c.games.map((g) => ({ label: `#${g.number}`, values: g.juices })), c.group, { width, yLabel: "juices" }));
    const totals = Object.fromEntries(c.group.map((p) => [p, 0]));
    const points = Object.fromEntries(c.group.map((p) => [p, [[0, 0]]]));
    finished.forEach((g, i) => {
      for (const p of c.group) {
        totals[p] += g.scores[p] || 0;
        points[p].push([i + 1, totals[p]]);
      }
    });
    $("score-chart").replaceChildren(lineChart(c.group.map((p) => ({ name: p, points: points[p] })), { width, yLabel: "session score", xLabel: "games finished" }));
    $("history-legend").replaceChildren(legend(c.group));
    $("games-table").replaceChildren(TC.stacked(el("table", {},
      el("thead", {}, el("tr", {}, ["#", "Date", "Players", "Winners", "Juices", "Scores"].map((h) => el("th", { text: h })))),
      el("tbody", {}, c.games.slice().reverse().map((g) => el("tr", {},
        el("td", { text: `#${g.number}` }),
        el("td", { text: new Date(g.started * 1000).toLocaleDateString() }),
        el("td", { text: g.players.join(", ") }),
        el("td", { text: g.status === "finished" ? g.winners.join(", ") : g.status }),
        el("td", { text: Object.entries(g.juices).map(([p, n]) => `${p} ${n}`).join(", ") }),
        el("td", { text: Object.entries(g.scores).map(([p, n]) => `${p} ${n}`).join(", ") })))))));
  }

  $("new-campaign-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const done = await act("/api/campaigns", { group: $("campaign-group").value, title: $("campaign-title").value });
    if (done) {
      $("new-campaign").open = false;
      showInstructions(done.instructions);
      choose(done.campaign.campaign_id);
    }
  });
  $("campaign-import").addEventListener("change", async () => {
    const file = $("campaign-import").files[0];
    if (!file) return;
    let document_;
    try { document_ = JSON.parse(await file.text()); } catch (err) { say("That file is not JSON: choose a campaign export.", "error"); return; }
    const done = await act("/api/campaigns/import", { document: document_ });
    $("campaign-import").value = "";
    if (done) { say(`Imported '${done.campaign.title}'.`); choose(done.campaign.campaign_id); }
  });

  let timer = null;
  function refresh() {
    clearTimeout(timer);
    timer = setTimeout(() => { loadList().then(loadDetail).catch(() => {}); }, 150);
  }
  let lastVersion = null;
  onState((snap) => { if (snap.version !== lastVersion) { lastVersion = snap.version; refresh(); } });
})();
