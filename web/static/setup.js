// Setup: start a game (players by seat), open a stored game, calibrate the table corners on a still
// from the camera, teach the dice's faces to the camera, and the configuration (checked by the
// companion, saved with the game master's PIN).
"use strict";
(() => {
  const { el, $, api, act, getJSON, onState, say, CORNERS } = TC;

  // -- start a game --
  $("new-game").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    // Players sit where they like: each name is written at its seat, and the seat lights follow.
    const filled = [...document.querySelectorAll(".seat")].map((i, n) => [i.value.trim(), n + 1]).filter(([name]) => name);
    const players = filled.map(([name]) => name);
    const seats = filled.map(([, seat]) => seat);
    const options = {};
    for (const line of $("options").value.split("\n")) {
      if (!line.trim()) continue;
      const [key, ...rest] = line.split("=");
      options[key.trim()] = rest.join("=").trim();
    }
    const body = { game: $("game-name").value, players, seats, options };
    const started = await startGame(body);
    if (started) {
      say(`${TC.gameInfo(started.game).title} has started: ${players.join(", ")}.`);
      setTimeout(() => { window.location.href = TC.gameInfo(started.game).page || "/"; }, 600);
    }
  });
  // A Fabled Fruit game belongs to the campaign whose cards are on the table (or is a one-off first game).
  async function startGame(body) {
    const campaign = TC.gameInfo(body.game).campaigns ? $("campaign").value : "";
    if (!campaign) return act("/api/games", body);
    const done = await act(`/api/campaigns/${encodeURIComponent(campaign)}/games`, { players: body.players, seats: body.seats });
    return done ? done.game : null;
  }
  async function showCampaigns() {
    const legacy = Boolean(TC.gameInfo($("game-name").value).campaigns);
    $("campaign-choice").hidden = !legacy;
    if (!legacy) return;
    const campaigns = await getJSON("/api/campaigns");
    $("campaign").replaceChildren(
      el("option", { value: "", text: "none: a one-off first game" }),
      ...campaigns.map((c) => el("option", { value: c.campaign_id, disabled: !c.on_table || c.playing,
        text: `${c.title}${c.playing ? " (a game is being played)" : c.on_table ? "" : " (parked)"}` })));
    const onTable = campaigns.find((c) => c.on_table && !c.playing);
    $("campaign").value = onTable ? onTable.campaign_id : "";
  }
  // The chosen game's seats (as many as it has players at most; a seat already written in stays) and its
  // options, each with what it does and its default; tapping one starts its line in the box.
  function showOptions() {
    const game = TC.gameInfo($("game-name").value);
    const most = game.players ? game.players[1] : Infinity;
    document.querySelectorAll(".seat").forEach((input, n) => {
      const hidden = n >= most && !input.value.trim();
      input.hidden = hidden;
      document.querySelector(`label[for="${input.id}"]`).hidden = hidden;
    });
    const options = Object.entries(game.options || {});
    $("option-help").replaceChildren(...options.map(([name, help]) => el("li", {},
      el("button", { type: "button", class: "small secondary", text: name, "aria-label": `Add the option ${name}`, onclick: () => {
        const box = $("options");
        const lines = box.value.split("\n").filter((line) => line.trim());
        if (!lines.some((line) => line.split("=")[0].trim() === name)) lines.push(`${name}=`);
        box.value = lines.join("\n");
        box.focus();
        box.setSelectionRange(box.value.length, box.value.length);
      } }), ` ${help}`)));
  }
  $("game-name").addEventListener("change", () => { showOptions(); showCampaigns().catch(() => {}); });

  async function loadPast() {
    try {
      const games = await getJSON("/api/games/history");
      // Two columns, the game and what can be done with it, so that "Open" is on a phone's screen whatever the
      // players' names: a third and fourth column pushed it off to the side, to be scrolled to.
      const rows = games.map((g) => el("tr", { class: g.in_play ? "current" : "" },
        el("td", { class: "names" },
          el("div", { text: `${TC.gameInfo(g.game).title}${g.title ? ` · ${g.title}` : ""}` }),
          el("div", { class: "muted", text: `${g.players.join(", ")} · ${new Date(g.created * 1000).toLocaleDateString()}` })),
        el("td", { class: "act" }, g.in_play ? el("span", { class: "muted", text: "in play" }) :
          el("button", { type: "button", class: "small", text: "Open", onclick: async () => {
            if (await act(`/api/games/${encodeURIComponent(g.session_id)}/open`, {})) { say("Game opened."); loadPast(); }
          } }))));
      $("past").replaceChildren(rows.length ? el("table", {}, el("tbody", {}, rows)) : el("p", { class: "muted", text: "No games stored yet." }));
    } catch (err) { /* shown */ }
  }

  // -- calibration --
  let clicks = [];
  let config = null;
  const img = $("cal-img");
  function newPicture() {
    img.src = `/api/live.jpg?t=${Date.now()}`;
  }
  img.addEventListener("load", drawMarks);
  img.addEventListener("click", (ev) => {
    if (clicks.length >= 4 || !img.naturalWidth) return;
    const box = img.getBoundingClientRect();
    const x = (ev.clientX - box.left) / box.width * img.naturalWidth;
    const y = (ev.clientY - box.top) / box.height * img.naturalHeight;
    clicks.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
    drawMarks();
  });
  function drawMarks() {
    TC.drawCorners($("cal-marks"), img, clicks, storedCorners(), clickedOn());
    $("cal-status").textContent = clicks.length < 4 ? `Tap the ${CORNERS[clicks.length]} corner (${clicks.length + 1} of 4).` : "All four corners marked: save them.";
    $("cal-save").disabled = clicks.length !== 4;
    $("cal-back").disabled = !clicks.length;
  }
  // The width of the camera's picture the stored corners were clicked on (kept with them; before, the working width).
  const clickedOn = () => (config && (valueOf("table", "picture_px") || [])[0]) || (config ? valueOf("camera", "work_width") : 2304) || 2304;
  const storedCorners = () => (config ? valueOf("table", "corners_px") : []) || [];
  function valueOf(section, key) {
    const s = config.sections.find((x) => x.name === section);
    const k = s && s.keys.find((x) => x.key === key);
    return k ? k.value : null;
  }
  $("cal-picture").addEventListener("click", () => { clicks = []; newPicture(); });
  // A corner tapped wrong on a small screen is taken back alone, not with the ones tapped right.
  $("cal-back").addEventListener("click", () => { clicks.pop(); drawMarks(); });
  $("cal-save").addEventListener("click", async () => {
    const done = await act("/api/calibration", { corners: clicks, image_size: [img.naturalWidth, img.naturalHeight] });
    if (done) {
      say(done.restart_needed.length ? "Corners saved. The camera uses them after a restart." : "Corners saved.");
      clicks = [];
      await loadConfig();
      drawMarks();
    }
  });
  $("cal-forget").addEventListener("click", async () => {
    if (await act("/api/calibration", {}, { method: "DELETE" })) { say("Stored corners forgotten: the corner tags are used."); await loadConfig(); drawMarks(); }
  });
  function showStored() {
    const stored = storedCorners();
    $("cal-stored").textContent = stored.length === 4
      ? `Stored corners (dashed yellow; pixels of the camera's picture): ${stored.map((p, i) => `${CORNERS[i]} ${p[0]},${p[1]}`).join(" · ")}`
      : "No corners stored: the camera uses the corner tags.";
  }

  // -- configuration --
  const inputs = new Map();
  async function loadConfig() {
    config = await getJSON("/api/config");
    const form = $("config-form");
    const open = new Set([...form.querySelectorAll("details[open]")].map((d) => d.dataset.section));
    form.replaceChildren();
    inputs.clear();
    for (const section of config.sections) {
      const details = el("details", { open: open.has(section.name), dataset: { section: section.name } }, el("summary", { text: `[${section.name}]` }));
      for (const key of section.keys) {
        const id = `cfg-${section.name}-${key.key}`;
        let input;
        if (key.type === "bool") input = el("input", { id, type: "checkbox" });
        else if (key.choices) input = el("select", { id }, key.choices.map((c) => el("option", { value: JSON.stringify(c), text: c === "" ? "(none)" : String(c) })));
        else if (key.secret) input = el("input", { id, type: "password", inputmode: "numeric", autocomplete: "new-password", placeholder: key.is_set ? "set: leave empty to keep it" : "no PIN set" });
        else input = el("input", { id, type: key.type === "int" || key.type === "float" ? "number" : "text", step: key.type === "float" ? "any" : undefined, autocapitalize: "off", spellcheck: "false" });
        if (key.type === "bool") input.checked = key.value;
        else if (key.choices) input.value = JSON.stringify(key.value);
        else if (!key.secret) input.value = format(key.value);
        const extra = key.secret && key.is_set ? el("label", {}, el("input", { type: "checkbox", id: `${id}-remove` }), "remove the PIN") : null;
        details.append(el("div", { class: "config-key" }, el("label", { for: id, text: key.key }), input, extra,
          el("div", { class: "help", text: `${key.help}${key.applies === "restart" ? " (after a restart)" : ""}` })));
        inputs.set(`${section.name}.${key.key}`, { key, input, section: section.name });
      }
      form.append(details);
    }
    showStored();
    await showLock();
  }
  const format = (v) => Array.isArray(v) ? (v.some(Array.isArray) ? JSON.stringify(v) : v.join(", ")) : String(v);
  function parse(key, raw) {
    if (key.choices) return JSON.parse(raw);
    if (key.type === "int" || key.type === "float") return raw.trim() === "" ? NaN : Number(raw);
    if (key.type !== "list") return raw;
    const text = raw.trim();
    if (!text) return [];
    if (text.startsWith("[")) {
      try { return JSON.parse(text); } catch (err) { return text; }
    }
    return text.split(",").map((t) => t.trim()).filter(Boolean).map((t) => /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t);
  }
  $("config-save").addEventListener("click", async () => {
    const changes = {};
    for (const [name, { key, input, section }] of inputs) {
      document.getElementById(input.id).classList.remove("invalid");
      let value;
      if (key.secret) {
        const remove = document.getElementById(`${input.id}-remove`);
        if (remove && remove.checked) value = "";
        else if (input.value) value = input.value;
        else continue;
      } else if (key.type === "bool") value = input.checked;
      else value = parse(key, input.value);
      if (!key.secret && JSON.stringify(value) === JSON.stringify(key.value)) continue;
      (changes[section] = changes[section] || {})[key.key] = Number.isNaN(value) ? input.value : value;
    }
    if (!Object.keys(changes).length) { $("config-result").textContent = "Nothing changed."; return; }
    // Until the form is built again from what was saved, nothing can be typed into it: a value typed
    // meanwhile would go into an input about to be replaced, and be lost.
    const busy = (on) => {
      for (const { input } of inputs.values()) input.disabled = on;
      $("config-save").disabled = on;
    };
    busy(true);
    let done;
    try {
      done = await api("/api/config", { changes });
    } catch (err) {
      busy(false);
      const field = err.data && err.data.field;
      if (field && inputs.has(field)) {
        const { input } = inputs.get(field);
        input.classList.add("invalid");
        input.closest("details").open = true;
        input.focus();
      }
      $("config-result").textContent = err.data && err.data.error ? err.data.error : "Not saved.";
      return;
    }
    try {
      await loadConfig();
    } finally {
      busy(false);
      $("config-result").textContent = done.restart_needed.length
        ? `Saved. Restart the companion for: ${done.restart_needed.join(", ")}.` : "Saved and applied.";
    }
  });
  async function showLock() {
    const session = await getJSON("/api/session");
    $("gm-status").textContent = !session.pin_required
      ? "No PIN is set: anyone at the table can change these settings. Set one in [server] pin."
      : session.unlocked ? "Unlocked on this phone for 30 minutes." : "Locked: saving asks for the game master's PIN.";
    $("gm-lock").hidden = !(session.pin_required && session.unlocked);
  }
  $("gm-lock").addEventListener("click", async () => { await act("/api/lock", {}); showLock(); });

  // -- the dice --
  let diceAsked = 0;
  // A command to type, broken between its words only: a phone would break "--die" after its first dash.
  const command = (text) => el("code", { class: "command" }, text.split(" ").flatMap((word, i) => [i ? " " : "", el("span", { class: "word", text: word })]));

  async function loadDice() {
    const ticket = ++diceAsked;
    let dice;
    try { dice = await getJSON("/api/dice"); } catch (err) {
      // Damaged dice files (a failing card): say so where the dice are set up; teaching below replaces them.
      if (ticket === diceAsked && err.status) $("teach").replaceChildren(el("p", { id: "dice-problem", class: "message", text: `The dice: ${err.message}.` }));
      return;
    }
    if (ticket !== diceAsked) return;  // a later change is on its way: an earlier answer would undo it on the page
    faceNames = dice.face_names;
    faceWords = dice.face_words || {};
    const taught = Object.entries(dice.dice);
    const games = [...new Set(dice.dice_to_teach.map((d) => d.game))];  // the games played with picture dice
    const kind = el("select", { id: "dice-kind", "aria-label": "Which dice the camera reads" },
      dice.kinds.map((k) => el("option", { value: k, selected: k === dice.kind, text: { pips: "standard pip dice (1-6)", taught: `taught picture faces${games.length ? ` (${games.join(", ")})` : ""}`, aruco: "ArUco stickers on the faces" }[k] || k })));
    kind.addEventListener("change", async () => {
      if (await act("/api/dice/kind", { kind: kind.value })) say("The camera reads these dice from now on.");
      loadDice();
    });
    const aruco = el("input", { id: "dice-aruco", value: Object.entries(dice.face_table).map(([k, v]) => `${k}=${v}`).join(" "), placeholder: [...(dice.dice_to_teach.length ? dice.dice_to_teach[0].usual : "123456")].map((f, i) => `${i}=${f}`).join(" "), autocapitalize: "characters", spellcheck: "false" });
    TC.keeping($("teach"), () => $("teach").replaceChildren(
      el("label", { for: "dice-kind", text: "The camera reads" }), kind,
      el("h3", { text: "Taught dice" }),
      taught.length ? el("ul", {}, taught.map(([die, d]) => el("li", {}, `${die}: ${Object.entries(d.counts).map(([f, n]) => `${n}× ${named(f, die)}`).join(", ")}`,
        // The pictures it was last taught from, a row for each face: looked over before a game night depends on them.
        d.pictures_kept ? el("details", { class: "dice-pictures", "data-keep": `pictures-${die}` }, el("summary", { text: "The pictures it was last taught from" }),
          el("img", { loading: "lazy", class: "alert-picture", src: `/api/dice/pictures/${encodeURIComponent(die)}.jpg?v=${d.pictures_kept}`, alt: `The pictures the ${die} die was last taught from, a row for each face` })) : "")))
        : el("p", { class: "muted", text: "No faces taught yet." }),
      dice.problem ? el("p", { id: "dice-problem", class: "message", text: `The dice: ${dice.problem}.` }) : "",
      dice.demo ? el("p", { id: "dice-demo", class: "muted", text: "These are the demo table's rendered dice, kept apart from your table's own: what is taught while the demo camera plays stays with the demo." }) : "",
      dice.advice ? el("p", { id: "dice-advice", class: "message", text: `Dice ${dice.advice}.` }) : "",
      // Pip dice taught as their pips: one tap reads them by their pips instead (the command is for a terminal).
      dice.pip_dice ? el("div", {}, el("p", { id: "dice-pips", class: "message", text: `${dice.pip_dice}.` }),
        el("button", { type: "button", id: "dice-use-pips", class: "secondary", text: "Read them by their pips", onclick: async () => {
          if (await act("/api/dice/kind", { kind: "pips" })) say("The camera reads the dice by their pips from now on.");
          loadDice();
        } })) : "",
      el("p", { class: "muted", text: Object.keys(dice.game_options).length
        ? Object.entries(dice.game_options).map(([game, option]) => `New ${TC.gameInfo(game).title} games (and their odds) use these face counts: ${option}.`).join(" ")
        : "Until every die of a game is taught, its games use the face counts of their options (the rulebook does not give them)." }),
      dice.teach_commands.length ? el("p", { class: "muted" }, `Teach ${dice.teach_commands.length > 1 ? "each die" : "the die"} above, one after the other. From a computer instead, with the companion stopped: `,
        ...dice.teach_commands.flatMap((c, i) => [i ? (i === dice.teach_commands.length - 1 ? " and " : ", ") : "", command(c)]), ".") : "",
      el("label", { for: "dice-aruco", text: "ArUco stickers (number=face)" }), aruco,
      el("button", { type: "button", class: "secondary", text: "Save the sticker table", onclick: async () => {
        const table = {};
        for (const pair of aruco.value.split(/[\s,]+/).filter(Boolean)) {
          const [k, v] = pair.split("=");
          table[k] = v || "";
        }
        if (await act("/api/dice/aruco", { table })) { say("Sticker table saved: the camera reads ArUco stickers."); loadDice(); }
      } })));
  }

  // -- teaching the dice with the camera: the progress comes with the live state, on every phone --
  const TEACH_STATES = {
    waiting_for_motion: "Set the die down with this face up (or turn it), then take your hand away.",
    waiting_for_still: "Hold still: the picture is taken when nothing moves.",
    learned: "Got it. Now the next face.",
    done: "Done: the companion knows this die.",
    failed: "Teaching stopped.",
    cancelled: "Cancelled.",
  };
  // Taught from photos, the states ask for a photo rather than for the die in the tray; once done, the camera
  // has never seen the die: trying it shows whether the camera reads what the photos taught.
  const PHOTO_STATES = {
    waiting_for_motion: "Choose a photo of the die alone, this face up: the whole die, lying flat.",
    learned: "Got it. Now the next photo.",
    done: "Done: the companion knows this die. Throw it into the tray with \u201cTry the dice\u201d below to see the camera read it.",
  };
  let teachingWas = null;
  // Each die offered carries its faces as usually made (the game's data): the starting point for its own.
  $("teach-die").addEventListener("change", () => { $("teach-faces").value = $("teach-die").selectedOptions[0]?.dataset.faces || ""; });
  async function startTeaching(photos) {
    $("teach-start").disabled = $("teach-photos-start").disabled = true;
    const body = { die: $("teach-die").value, faces: $("teach-faces").value.trim(), photos,
                   looks: Number($("teach-looks").value) || Number($("teach-looks").defaultValue), add: $("teach-add").checked,
                   another_light: $("teach-light").checked };
    const started = await act("/api/dice/teach", body);
    $("teach-start").disabled = $("teach-photos-start").disabled = false;
    if (started) {
      watchTray = !photos;
      // The live state may have brought a later status than this answer (the tray's place, once a picture came).
      const latest = TC.snapshot && TC.snapshot.teaching;
      showTeaching(latest && latest.active ? latest : started.teaching);
      $("teach-progress-box").scrollIntoView({ block: "start" });  // the form gave way: what to do now, at the top
    }
  }
  $("teach-form").addEventListener("submit", (ev) => { ev.preventDefault(); startTeaching(false); });
  $("teach-photos-start").addEventListener("click", () => startTeaching(true));
  // Photos chosen together are sent one after the other, each the next picture asked for; a refused one stops
  // the rest, its picture shown, so that the photo for that face is chosen again.
  const PHOTO_NOTE = $("teach-photo-note").textContent;  // the page's own words, shown again after sending
  const CAMERA_SEEN = $("teach-seen-caption").textContent;
  // A phone's photo is 12 MP or more, megabytes, and the companion learns it at most data-side pixels on its longer
  // side: scaled on the phone to twice that first, a fifth of the bytes cross the table's Wi-Fi, and the Pi decodes a
  // quarter of the pixels in a fifth of the time (bench/photo_send_bench.py); the companion's own scaling makes the
  // last step, the same for every phone. A photo the browser cannot open (HEIC on some phones) goes as it is.
  async function scaledPhoto(file) {
    const most = 2 * Number($("teach-photo").dataset.side);
    if (!most || !window.createImageBitmap) return file;
    let picture;
    try { picture = await createImageBitmap(file); } catch (err) { return file; }
    const scale = most / Math.max(picture.width, picture.height);
    if (scale >= 1) { picture.close(); return file; }
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(picture.width * scale);
    canvas.height = Math.round(picture.height * scale);
    const context = canvas.getContext("2d");
    context.imageSmoothingQuality = "high";
    context.drawImage(picture, 0, 0, canvas.width, canvas.height);
    picture.close();
    const scaled = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.92));
    return scaled || file;
  }
  $("teach-photo").addEventListener("change", async () => {
    const files = [...$("teach-photo").files];
    $("teach-photo").value = "";  // the same photo may be chosen again
    for (const [i, file] of files.entries()) {
      $("teach-photo-note").textContent = `Sending photo ${i + 1} of ${files.length}…`;
      const before = teaching;
      const sent = await act("/api/dice/teach/photo", await scaledPhoto(file));
      if (!sent) break;
      showTeaching(sent.teaching);
      if (!sent.teaching.active || (before && sent.teaching.retries > before.retries)) break;
    }
    $("teach-photo-note").textContent = PHOTO_NOTE;
  });
  $("teach-watch").addEventListener("click", () => { watchTray = !watchTray; showTeaching(teaching); });
  const SEEN_LEARNED = "The last picture, as the companion learned it: the box should hold the whole die. Around a drawing on it, or something else? Take the picture back.";
  const SHEET_TEACHING = "Every picture learned so far, a row for each face: each should show the die boxed, that face up. A wrong one? Tap it to take it back.";
  const SHEET_DONE = "Every picture the die was learned from, a row for each face. A wrong one? Tap it to take it back and show that face again.";
  const SHEET_CHANGED = "Every picture the die was learned from, a row for each face. The dice were changed since: to change this die, teach it again.";
  // Every picture learned, a close-up of each die in a row for its face: a batch of photos is looked over at once,
  // and a photo of another face stands out in its row; tapped, it can be taken back, the others kept. Kept once the
  // die is learned, to look over before playing. Built again only when the pictures change, so that a picture
  // tapped stays chosen while the camera's pictures come.
  let sheetShown = "";
  let chosenPicture = null;
  function showSheet(t) {
    const active = Boolean(t.active);
    const pictures = active || t.state === "done" ? t.pictures || [] : [];
    const learned = new Map(pictures.map((p) => [p.step, p]));
    const choosing = Boolean(t.can_take_back);  // also once the die is stored: a picture taken back is taught again
    if (!choosing || !learned.has(chosenPicture)) chosenPicture = null;
    $("teach-sheet-box").hidden = !pictures.length;
    $("teach-sheet-caption").textContent = active ? SHEET_TEACHING : choosing ? SHEET_DONE : SHEET_CHANGED;
    const chosen = chosenPicture && learned.get(chosenPicture);
    $("teach-back-chosen").hidden = !chosen;
    if (chosen) $("teach-back-chosen").textContent = `Take picture ${chosen.step} (${sheetFace(t, chosen.face)}) back`;
    // Pictures the others read as another face (read_by_the_others): framed on the grid, and said here to look at.
    const readAs = pictures.filter((p) => p.read_as);
    $("teach-read-as").hidden = !readAs.length;
    $("teach-read-as").textContent = readAs.length ? `Look at the ${readAs.length > 1 ? "pictures" : "picture"} framed: ${readAs.map((p) => `picture ${p.step}, learned as ${sheetFace(t, p.face)}, reads as ${p.read_as} to the others`).join("; ")}.${choosing ? ` If it shows that, tap it and take it back.` : ""}` : "";
    const shown = JSON.stringify([t.faces, t.looks, pictures, active && t.step, chosenPicture, choosing]);
    if (shown === sheetShown) return;
    sheetShown = shown;
    const place = (face, step) => {
      const picture = learned.get(step);
      if (!picture) {
        return el("span", { class: active && step === t.step ? "sheet-empty next" : "sheet-empty", title: `picture ${step}: not learned yet`, text: String(step) });
      }
      return el("button", { type: "button", disabled: !choosing, class: picture.read_as ? "read-as" : null, dataset: { step: String(step) }, "aria-pressed": String(step === chosenPicture), onclick: () => {
        chosenPicture = chosenPicture === step ? null : step;
        showSheet(teaching);
        // A phone shows a few rows at a time: the button the tap brought is brought into sight with it.
        if (chosenPicture) $("teach-back-chosen").scrollIntoView({ block: "nearest" });
      } }, el("img", { src: `/api/dice/teach/picture/${step}.jpg?n=${encodeURIComponent(picture.name)}`, alt: `picture ${step}, learned as ${sheetFace(t, face)}${picture.read_as ? `, reads as ${picture.read_as} to the others` : ""}` }),
      picture.read_as ? el("span", { class: "read-as-mark", "aria-hidden": "true", text: "?" }) : null);
    };
    $("teach-sheet").replaceChildren(...[...t.faces].map((face, row) => el("div", { class: "sheet-row" },
      el("span", { class: "sheet-face", title: sheetFace(t, face), text: `${row + 1} ${face}` }),
      Array.from({ length: t.looks }, (_, look) => place(face, row * t.looks + look + 1)))));
  }
  function sheetFace(t, face) {
    return t.face_names && t.face_names[face] ? `${face}, ${t.face_names[face]}` : face;
  }
  $("teach-back-chosen").addEventListener("click", async () => {
    const back = await act("/api/dice/teach/back", { step: chosenPicture });
    if (back) showTeaching(back.teaching);
  });
  $("teach-back").addEventListener("click", async () => {
    const back = await act("/api/dice/teach/back", {});
    if (back) showTeaching(back.teaching);
  });
  $("teach-cancel").addEventListener("click", async () => {
    const done = await act("/api/dice/teach/cancel", {});
    if (done) showTeaching(done.teaching);
  });
  // While teaching, the phone that started it shows the tray live (t.view: the tray's place in the camera's
  // picture), so the teacher sees where the die lies and whether a hand is still over it; other phones following
  // the progress watch only when asked, since camera views are few (max_video_streams). The stream is let go
  // when teaching ends.
  let watchTray = false;
  let teaching = null;
  const trayLive = TC.liveStream($("teach-live-img"), (busy) => {
    $("teach-live-img").hidden = busy;
    $("teach-live-note").hidden = !busy;
    $("teach-live-note").textContent = "The camera view is busy (other phones are watching): trying again in 10 s.";
  });
  function showTrayLive(view) {
    $("teach-live-box").hidden = !view;
    trayLive.set(Boolean(view));
    if (!view) return;
    const [left, top, right, bottom] = view.box;
    const ratio = (right - left) * view.aspect / (bottom - top);  // the tray's width over its height
    const box = $("teach-live");
    box.style.aspectRatio = String(ratio);
    box.style.width = `min(100%, ${(45 * ratio).toFixed(2)}vh)`;  // a tall tray stays within a phone's screen
    const img = $("teach-live-img");  // scaled and moved so that the tray fills the box
    img.style.width = `${100 / (right - left)}%`;
    img.style.left = `${-100 * left / (right - left)}%`;
    img.style.top = `${-100 * top / (bottom - top)}%`;
  }
  function showTeaching(t) {
    if (!t || !t.state) return;
    const active = Boolean(t.active);
    teaching = t;
    if (!active) watchTray = false;
    showTrayLive(watchTray ? t.view || { box: [0, 0, 1, 1], aspect: 4 / 3 } : null);
    $("teach-watch").hidden = !active || Boolean(t.photos);
    $("teach-photo-box").hidden = !active || !t.photos;
    $("teach-photos-start").hidden = active;
    $("teach-watch").textContent = watchTray ? "Stop watching the tray" : "Watch the tray";
    $("teach-progress-box").hidden = t.state === "idle";
    $("teach-start").hidden = active;
    $("teach-cancel").hidden = !active;
    $("teach-fields").hidden = active;  // while teaching, the prompt is what matters on a phone
    if (t.state !== "idle") {
      $("teach-progress").max = t.total;
      $("teach-progress").value = t.learned;
      $("teach-count").textContent = `${t.learned} of ${t.total} pictures taken`;
      const face = $("teach-face");
      face.hidden = !active;
      face.className = `die ${t.face_name ? `face-${t.face}` : "face-unknown"}`;
      face.textContent = t.face_name || t.face;
      // While teaching: what to do next, and how the last picture went. After: how it ended.
      $("teach-prompt").textContent = active ? t.prompt : t.message;
      $("teach-state").textContent = (t.photos && PHOTO_STATES[t.state]) || TEACH_STATES[t.state] || "";
      $("teach-state").dataset.state = t.state;
      $("teach-message").textContent = active ? t.message || "" : "";
      // The last picture is shown as the companion saw it: "saw 3 dice" is looked at, not read; and a face learned
      // from a drawing on the die, or a speck, is seen to be wrong and taken back.
      const seen = active && t.seen ? `/api/dice/teach/seen.jpg?n=${encodeURIComponent(t.seen)}` : "";
      $("teach-seen-box").hidden = !seen;
      $("teach-seen-caption").textContent = t.seen_learned ? SEEN_LEARNED
        : t.photos ? "The photo as the companion saw it: each box is something it took for a die." : CAMERA_SEEN;
      $("teach-seen").alt = t.seen_learned ? "The last picture, the die its face was learned from boxed"
        : "The refused picture, each thing taken for a die boxed";
      if (seen && $("teach-seen").getAttribute("src") !== seen) $("teach-seen").src = seen;
      $("teach-back").hidden = !(active && t.can_take_back);
      showSheet(t);
      $("teach-warning").hidden = !t.warning;
      $("teach-warning").textContent = t.warning || "";
    }
    // Finished just now (on this phone or another): show what the camera knows now.
    if (teachingWas && teachingWas !== t.state && t.state === "done") loadDice();
    if (teachingWas && teachingWas !== t.state && t.state === "failed") say(t.message, "error");
    teachingWas = t.state;
  }

  // -- trying the dice: each throw in the tray read and shown here, counted in no game --
  let faceNames = {};
  let faceWords = {};  // each taught die's faces in its own game's words (two games may use one letter)
  const named = (face, die) => (faceWords[die] || {})[face] || faceNames[face] || face;
  let triedShown = null;
  $("try-start").addEventListener("click", async () => {
    const started = await act("/api/dice/try", { on: true });
    if (started) showTrying(started.trying, TC.snapshot && TC.snapshot.vision);
  });
  $("try-stop").addEventListener("click", async () => {
    const stopped = await act("/api/dice/try", { on: false });
    if (stopped) showTrying(stopped.trying);
  });
  function showTrying(trying, vision) {
    const on = Boolean(trying && trying.active);
    $("try-start").hidden = on;
    $("try-box").hidden = !on;
    if (!on) { triedShown = null; return; }
    const tried = vision && vision.tried;
    if (!tried || !tried.throw) {
      const health = TC.snapshot && TC.snapshot.health && TC.snapshot.health.dice;
      $("try-state").textContent = tried ? "Throw the dice into the tray: what the camera reads shows here."
        : `Waiting for the camera to watch the tray${health && health.status !== "ok" ? `: ${health.detail}` : ""}.`;
      return;
    }
    const dice = tried.dice;
    // Over several throws, how many dice read a face: whether to teach again (more pictures a face, other light)
    const tally = tried.throw > 1 ? ` So far ${tried.seen - tried.unread} of ${tried.seen} dice read a face.` : "";
    $("try-state").textContent = `Throw ${tried.throw}: ${dice.length} ${dice.length === 1 ? "die" : "dice"} read.${tally} Throw again, or stop.`;
    // What the throws tell of the dice reading (a tray grown darker than teaching's), where the dice are tried
    const health = TC.snapshot && TC.snapshot.health && TC.snapshot.health.dice;
    const warned = health && health.status !== "ok" ? TC.sentence(health.detail) : "";
    $("try-health").hidden = !warned;
    $("try-health").textContent = warned;
    if (triedShown === tried.throw) return;
    triedShown = tried.throw;
    $("try-dice").replaceChildren(...dice.map((d) => TC.dieFace(d.face, d.face && named(d.face, d.die))));
    $("try-text").textContent = dice.map((d) => d.face ? named(d.face, d.die)
      : `? (${d.reason || "not read"}${d.guess ? `: looks most like ${named(d.guess, d.die)}` : ""})`).join(", ");
    $("try-picture").hidden = !tried.picture;
    if (tried.picture) $("try-picture").src = `/api/roll/${encodeURIComponent(tried.picture)}.jpg`;
  }

  // -- recording the game night (the health line on every page says while it records) --
  let recordingSaid = null;
  async function showRecording(status) {
    if (!status) {
      try { status = await getJSON("/api/recording"); } catch (err) { $("recording").hidden = true; return; }
    }
    $("record-switch").checked = status.recording;
    const dropped = status.pictures_dropped ? `, ${status.pictures_dropped} pictures left out (budget or a slow card)` : "";
    $("record-status").textContent = status.recording ? `Recording: film ${status.folder}, ${status.megabytes} MB so far${dropped}.`
      : status.folder ? `Not recording. The last film: ${status.folder}.` : "Not recording.";
  }
  $("record-switch").addEventListener("change", async () => {
    showRecording(await act("/api/recording", { record: $("record-switch").checked }) || undefined);
  });

  onState((snap) => showTrying(snap.dice_try, snap.vision), "dice_try", "vision", "health");
  onState((snap) => {
    showTeaching(snap.teaching);
    const said = snap.health && snap.health.recording ? snap.health.recording.detail : null;
    if (said !== recordingSaid) { recordingSaid = said; showRecording(); }
  });
  showRecording();
  loadDice();
  showOptions();
  showCampaigns().catch(() => {});
  loadPast();
  loadConfig().then(() => { newPicture(); drawMarks(); }).catch(() => {});
})();
