// The daily page's friends' board, beside the global leaderboard: the same day (the date box),
// among the player and their friends (GET /api/v1/daily/{date}/leaderboard/friends/).

import { request } from "scorpion/api.js";
import { friendsBoardTable } from "scorpion/boards.js";
import { h, redraw } from "scorpion/ui.js";

const box = document.getElementById("friends-board");
const dayInput = document.getElementById("day");

async function load() {
  if (!box || !dayInput?.value) return;
  try {
    const { data } = await request("GET", `/api/v1/daily/${dayInput.value}/leaderboard/friends/`);
    if (!data.results.length) {
      redraw(box, h("p", { class: "muted" }, `${gettext("No win among you and your friends that day.")} `, h("a", { href: "/friends/" }, gettext("Your friends"))));
      return;
    }
    redraw(box, friendsBoardTable(data.results, "daily-friends-table"));
  } catch (error) {
    redraw(box, h("p", { class: "muted" }, error.detail));
  }
}

dayInput?.addEventListener("change", load);
load();
