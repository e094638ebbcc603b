// The Table page's seat cards: a QR code and a short link per free seat, who holds the others,
// "leave" for this phone's own seat and "release" for the game master.
"use strict";
(() => {
  const { el, $, act, getJSON, onState, say } = TC;
  let shown = null;  // what the cards show now: rebuilt only when a seat changes hands

  async function refresh(snap) {
    const game = snap.game;
    const key = game ? JSON.stringify([game.session_id, snap.viewer, game.seats]) : "";
    if (key === shown) return;
    shown = key;
    $("seat-cards").hidden = !game || game.outcome !== null;
    if (!game) return;
    const seats = await getJSON("/api/seats").catch(() => null);
    if (!seats || shown !== key) return;
    $("seat-list").replaceChildren(...seats.seats.map((seat) => card(seat, seats.mine)));
  }

  function card(seat, mine) {
    const title = el("h3", { text: `Seat ${seat.seat}: ${seat.player}` });
    if (seat.player === mine) {
      return el("article", { class: "seat-card mine", dataset: { player: seat.player } }, title,
        el("p", { text: "This phone." }),
        el("button", { type: "button", class: "secondary", text: "Leave this seat", onclick: async () => {
          if (await act("/api/seats/leave", {})) say(`This phone is no longer ${seat.player}'s.`);
          shown = null; refresh(TC.snapshot);
        } }));
    }
    if (seat.claimed) {
      return el("article", { class: "seat-card taken", dataset: { player: seat.player } }, title,
        el("p", { text: `${seat.player}'s phone has joined.` }),
        el("button", { type: "button", class: "secondary", text: "Release (game master)", onclick: async () => {
          if (await act(`/api/seats/${encodeURIComponent(seat.player)}/release`, {})) {
            say(`${seat.player}'s seat is free again: scan its code on the phone that should have it.`);
          }
        } }));
    }
    return el("article", { class: "seat-card free", dataset: { player: seat.player } }, title,
      el("img", { src: `/api/seats/${encodeURIComponent(seat.code)}/qr.svg`, alt: `QR code to join as ${seat.player}`, width: 160, height: 160 }),
      el("p", {}, el("a", { href: seat.link, class: "seat-link", text: seat.link })));
  }

  document.addEventListener("DOMContentLoaded", () => onState(refresh));
})();
