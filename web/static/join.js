// The page a seat's QR code opens: take the seat, then go to the game's page.
"use strict";
(() => {
  const { $, api } = TC;
  async function join() {
    const code = $("join").dataset.code;
    try {
      const seat = await api("/api/seats/claim", { code }, { quiet: true });
      $("join-message").textContent = `This phone is ${seat.player}'s now.`;
      window.location.replace(seat.page || "/");
    } catch (err) {
      $("join-message").textContent = (err.data && err.data.error) || "The seat could not be taken.";
    }
  }
  document.addEventListener("DOMContentLoaded", join);
})();
