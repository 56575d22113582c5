// "Challenge a friend" on a finished game's page (/play/<id>/): once the game is over and its
// deal may be shown (never a daily still secret), a button makes a challenge and goes to its
// page, which has the link to send. Apart from play.js: it reads the game from the API when
// the page opens and whenever the game's banner changes (shown when a game ends).

import { request } from "scorpion/api.js";
import { h, setBusy, toast, variantInfo, variantTitle } from "scorpion/ui.js";

const root = document.getElementById("play");
const banner = document.getElementById("banner");
const gameId = root?.dataset.gameId;
const box = h("div", { id: "challenge-offer", class: "challenge-offer", hidden: true });
root?.querySelector(".message-line")?.after(box);

async function make(button) {
  setBusy(button, true);
  try {
    const { data } = await request("POST", "/api/v1/challenges/", { game: gameId });
    location.assign(data.url);
  } catch (error) {
    setBusy(button, false);
    toast(error.detail, { kind: "error", ms: 6000 });
  }
}

let shown = false;
async function look() {
  if (!gameId || shown) return;
  try {
    const { data } = await request("GET", `/api/v1/games/${gameId}/`);
    const over = ["won", "resigned", "abandoned"].includes(data.status);
    // The deal shown: finished, and not a daily still secret (the server refuses those too).
    if (!over || data.code === null) return;
    shown = true;
    if (variantInfo(data.variant)?.offered === false) {
      // A challenge deals new games, and a variant kept for the games begun in it begins
      // none: said here rather than refused after a click (the server refuses it too).
      box.replaceChildren(
        h("span", { class: "muted" }, interpolate(gettext("%(variant)s is kept for the games begun in it: its deals make no challenge."), { variant: variantTitle(data.variant) }, true)),
      );
      box.hidden = false;
      return;
    }
    box.replaceChildren(
      h("button", { type: "button", id: "challenge-friend", onclick: (e) => make(e.currentTarget) }, gettext("Challenge a friend")),
      h("span", { class: "muted" }, ` ${gettext("on this deal: they play it afresh, and you compare.")}`),
    );
    box.hidden = false;
  } catch {
    // offline or gone: the button waits for the next change
  }
}

look();
if (banner) new MutationObserver(() => look()).observe(banner, { attributes: true, childList: true });
