// Card data: every game's card table (the game in play's first), unverified entries marked,
// each editable with the text printed on the card; export and import of the players' entries.
"use strict";
(() => {
  const { el, $, act, getJSON, say } = TC;
  let data = null;

  async function loadTables() {
    const tables = await getJSON("/api/cards");
    $("card-game").replaceChildren(...tables.map((t) => el("option", { value: t.game, text: `${TC.gameInfo(t.game).title}: ${t.entries} (${t.unverified} with unknown facts)` })));
    if (!tables.length) {
      $("card-summary").textContent = "No game with a card table is installed.";
      return;
    }
    // The game in play first: its cards are the ones on the table.
    const playing = TC.snapshot.game && tables.find((t) => t.game === TC.snapshot.game.game);
    if (playing) $("card-game").value = playing.game;
    await load();
  }

  async function load() {
    const game = $("card-game").value;
    data = await getJSON(`/api/cards/${encodeURIComponent(game)}`);
    $("card-export").href = `/api/cards/${encodeURIComponent(game)}/export`;
    const total = Object.keys(data.entries).length;
    $("card-summary").textContent = `${total - data.unverified.length} of ${total} complete · ${data.entered.length} filled in by you`;
    render();
  }

  // A field an entry does not have (a table with several kinds of card) is null: nothing to show or fill in.
  const text = (field, entry) => {
    if (!(field in entry)) return null;
    const value = entry[field];
    if (`${field}_text` in entry) return entry[`${field}_text`] || "";
    if (field === "components") return value ? (value.length ? value.join(", ") : "none") : "";
    if (field === "signpost") return value === true ? "yes" : value === false ? "no" : "";
    if (field === "action") return value === "unknown" ? "" : value || "";
    return value ?? "";
  };

  function render() {
    const only = $("only-unverified").checked;
    const fields = data.fields;
    const rows = [];
    const order = new Intl.Collator(undefined, { numeric: true });
    for (const [key, entry] of Object.entries(data.entries).sort((a, b) => order.compare(a[0], b[0]))) {
      if (only && entry.verified) continue;
      const entered = data.entered.includes(key);
      rows.push(el("tr", { class: entry.verified ? "" : "unverified", dataset: { key } },
        el("td", {}, el("b", { text: key }), entry.copies ? el("div", { class: "meta", text: `${entry.copies} copies` }) : null,
          entry.about ? el("div", { class: "meta", text: entry.about }) : null),
        fields.map((f) => text(f, entry) === null ? el("td", { class: "na", text: "" }) : el("td", { text: text(f, entry) || "?" })),
        el("td", {},
          entry.verified ? el("span", { text: "✓" }) : el("span", { class: "tag-unverified", text: `unverified: ${(entry.missing || []).join(", ")}` }),
          entered ? el("div", { class: "tag-entered", text: "filled in by you" }) : null,
          el("button", { type: "button", class: "small secondary", text: "Edit", onclick: (ev) => edit(key, entry, ev.target.closest("tr")) }))));
    }
    $("card-table").replaceChildren(el("table", {},
      el("thead", {}, el("tr", {}, el("th", { text: "#" }), fields.map((f) => el("th", { text: f })), el("th", { text: "" }))),
      el("tbody", {}, rows)));
  }

  function edit(key, entry, row) {
    if (row.nextSibling && row.nextSibling.classList && row.nextSibling.classList.contains("edit-row")) { row.nextSibling.remove(); return; }
    const inputs = {};
    const form = el("form", { autocomplete: "off", onsubmit: async (ev) => {
      ev.preventDefault();
      const fields = {};
      for (const [f, input] of Object.entries(inputs)) {
        if (input.value.trim() !== text(f, entry)) fields[f] = input.value.trim() || "unknown";
      }
      if (!Object.keys(fields).length) { say("Nothing changed."); return; }
      const done = await act(`/api/cards/${encodeURIComponent(data.game)}/${encodeURIComponent(key)}`, { fields });
      if (done) { say(`${key} saved${done.applies === "next_game" ? ": the next game uses it" : ""}.`); await load(); }
    } });
    for (const f of data.fields.filter((name) => name in entry)) {
      inputs[f] = el("input", { name: f, value: text(f, entry), placeholder: { price: "3 grapes + 1 smoothie", signpost: "yes or no", components: "none, or names separated by commas", cost: "2 stone + 1 wood", details: "statue, doors (or none)", count: "a whole number" }[f] || "", autocapitalize: "off" });
      form.append(el("label", { text: f }), inputs[f]);
    }
    form.append(el("div", { class: "row" }, el("button", { type: "submit", text: "Save" }),
      el("button", { type: "button", class: "secondary", text: "Forget my entries", onclick: async () => {
        if (await act(`/api/cards/${encodeURIComponent(data.game)}/${encodeURIComponent(key)}`, {}, { method: "DELETE" })) { say(`${key}: your entries are forgotten.`); await load(); }
      } })));
    row.after(el("tr", { class: "edit-row" }, el("td", { colspan: data.fields.length + 2 }, form)));
    form.querySelector("input").focus();
  }

  $("card-import").addEventListener("change", async () => {
    const file = $("card-import").files[0];
    if (!file) return;
    let document_;
    try { document_ = JSON.parse(await file.text()); } catch (err) { say("That file is not JSON: choose an export of card facts.", "error"); return; }
    const done = await act(`/api/cards/${encodeURIComponent($("card-game").value)}/import`, { document: document_, replace: $("import-replace").checked });
    $("card-import").value = "";
    if (done) { say(`Imported ${done.imported} entries.`); await load(); }
  });
  $("card-game").addEventListener("change", load);
  $("only-unverified").addEventListener("change", render);
  loadTables().catch(() => {});
})();
