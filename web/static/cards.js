// Card data: every game's card table (the game in play's first), unverified entries marked,
// each editable with the text printed on the card; export and import of the players' entries.
"use strict";
(() => {
  const { el, $, act, getJSON, say } = TC;
  let data = null;
  let asked = 0;  // the latest request for a game's cards: an earlier answer arriving late is not shown

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
    const ticket = ++asked;
    const answer = await getJSON(`/api/cards/${encodeURIComponent(game)}`);
    if (ticket !== asked) return;  // another game was chosen meanwhile: its cards are the ones to show
    data = answer;
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

  // Words for the fields (a game's own fields show as they are named, underscores as spaces).
  const LABELS = { name: "Name", price: "Juice price", action: "Action", signpost: "Signpost", components: "Components",
    cost: "Cost", details: "Details", count: "How many" };
  const label = (field) => LABELS[field] || field.replace(/_/g, " ");
  // The engine's rule for an action is not a fact from the card: shown as whether the companion plays it.
  const shown = (field, entry) => field === "rule" ? (entry.rule ? "the companion plays this action" : "enter what moved by hand") : text(field, entry);
  const PLACEHOLDERS = { price: "3 grapes + 1 smoothie", signpost: "yes or no", components: "none, or names separated by commas",
    cost: "2 stone + 1 wood", details: "statue, doors (or none)", count: "a whole number" };

  // A list of cards, one under the other (readable at 390 px), each with its own Edit; one form open at a time.
  function render() {
    const only = $("only-unverified").checked;
    const fields = data.fields;
    const items = [];
    const order = new Intl.Collator(undefined, { numeric: true });
    for (const [key, entry] of Object.entries(data.entries).sort((a, b) => order.compare(a[0], b[0]))) {
      if (only && entry.verified) continue;
      const entered = data.entered.includes(key);
      const item = el("article", { class: `card-entry${entry.verified ? "" : " unverified"}`, dataset: { key } },
        el("div", { class: "entry-head" },
          el("b", { class: "entry-key", text: key }),
          entry.copies ? el("span", { class: "meta", text: `${entry.copies} copies` }) : null,
          entry.about ? el("span", { class: "meta", text: entry.about }) : null,
          el("button", { type: "button", class: "small secondary", text: "Edit", onclick: () => edit(key, entry, item) })),
        el("dl", { class: "entry-facts" }, fields.filter((f) => shown(f, entry) !== null).flatMap((f) => [
          el("dt", { text: label(f) }), el("dd", { text: shown(f, entry) || "?" })])),
        entry.verified ? el("span", { class: "tag-verified", text: "✓ complete" })
          : el("span", { class: "tag-unverified", text: `unknown: ${(entry.missing || []).map(label).join(", ")}` }),
        entered ? el("div", { class: "tag-entered", text: "filled in by you" }) : null);
      items.push(item);
    }
    $("card-table").replaceChildren(el("div", { class: "card-list" }, items));
  }

  function edit(key, entry, item) {
    const open = document.querySelector("#card-table .edit-row");
    if (open) open.remove();
    if (open && open.parentNode === null && open.dataset.key === key) return;  // Edit again closes it
    const inputs = {};
    const form = el("form", { autocomplete: "off", class: "edit-row", dataset: { key }, onsubmit: async (ev) => {
      ev.preventDefault();
      const fields = {};
      for (const [f, input] of Object.entries(inputs)) {
        if (input.value.trim() !== text(f, entry)) fields[f] = input.value.trim() || "unknown";
      }
      if (!Object.keys(fields).length) { say("Nothing changed."); return; }
      const done = await act(`/api/cards/${encodeURIComponent(data.game)}/${encodeURIComponent(key)}`, { fields });
      if (done) { say(`${key} saved${done.applies === "next_game" ? ": the next game uses it" : ""}.`); await load(); }
    } });
    for (const f of data.fields.filter((name) => name in entry && name !== "rule")) {
      inputs[f] = el("input", { name: f, id: `edit-${f}`, value: text(f, entry), placeholder: PLACEHOLDERS[f] || "", autocapitalize: "off" });
      form.append(el("label", { for: `edit-${f}`, text: label(f) }), inputs[f]);
    }
    form.append(el("div", { class: "row" }, el("button", { type: "submit", text: "Save" }),
      el("button", { type: "button", class: "secondary", text: "Forget my entries", onclick: async () => {
        if (await act(`/api/cards/${encodeURIComponent(data.game)}/${encodeURIComponent(key)}`, {}, { method: "DELETE" })) { say(`${key}: your entries are forgotten.`); await load(); }
      } })));
    item.append(form);
    const first = form.querySelector("input");
    if (first) first.focus({ preventScroll: true });
    form.scrollIntoView({ block: "nearest" });
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
