// The player's games, newest first, filtered by status and kind of deal.

import { games, pathOf, request } from "scorpion/api.js";
import { followFeed } from "scorpion/live.js";
import {
  drawFailure,
  formatDate,
  formatDuration,
  h,
  isOver,
  modeLabel,
  movesText,
  redraw,
  STATUS_LABELS,
  wireHeader,
} from "scorpion/ui.js";

const box = document.getElementById("games");
const form = document.getElementById("filters");
const newer = document.getElementById("games-prev");
const older = document.getElementById("games-next");
let links = { next: null, previous: null };

function row(game) {
  const over = isOver(game);
  return h(
    "li",
    { class: `status-${game.status}`, dataset: { gameId: game.id } },
    h("span", { class: `badge ${game.status}` }, STATUS_LABELS[game.status] || game.status),
    h(
      "span",
      { class: "what" },
      [
        modeLabel(game),
        // A bot's game (it never ranks) and a game of a deal already seen (no records).
        game.played_by_app?.kind === "bot"
          ? game.played_by_app.name
            ? interpolate(gettext("played by a bot (%(name)s)"), { name: game.played_by_app.name }, true)
            : gettext("played by a bot")
          : null,
        game.known_deal ? gettext("known deal") : null,
        game.leaderboard_hidden
          ? interpolate(gettext("hidden from the leaderboard: %(reason)s"), { reason: game.leaderboard_hidden.reason }, true)
          : null,
        movesText(game.moves),
        game.elapsed_seconds ? formatDuration(game.elapsed_seconds) : null,
      ]
        .filter(Boolean)
        .join(" · "),
    ),
    h("span", { class: "when" }, formatDate(game.finished_at || game.created_at)),
    over
      ? h("a", { href: `/history/${game.id}/` }, gettext("Replay"))
      : h("a", { href: `/play/${game.id}/` }, gettext("Resume")),
  );
}

function show(page) {
  links = { next: pathOf(page.next), previous: pathOf(page.previous) };
  older.hidden = !links.next;
  newer.hidden = !links.previous;
  if (!page.results.length) {
    redraw(box, h("p", { class: "muted" }, gettext("No game here yet.")));
    return;
  }
  redraw(
    box,
    h("p", { class: "muted" }, interpolate(ngettext("%(n)s game", "%(n)s games", page.count), { n: page.count }, true)),
    h("ul", { class: "game-list" }, page.results.map(row)),
  );
}

let shown = null; // the page on screen (null: the first, as filtered)

async function load(path) {
  shown = path;
  try {
    const page = path
      ? (await request("GET", path)).data
      : await games.list({ status: form.elements.status.value, mode: form.elements.mode.value, page_size: 20 });
    show(page);
  } catch (error) {
    drawFailure(box, error.detail);
  }
}

form.addEventListener("change", () => load(null));
form.addEventListener("submit", (event) => event.preventDefault());
older.addEventListener("click", () => links.next && load(links.next));
newer.addEventListener("click", () => links.previous && load(links.previous));

wireHeader();
load(null);
followFeed(() => {
  load(shown);
  box.dataset.updates = String(Number(box.dataset.updates || 0) + 1);
});
