// The win moment: a short celebration, then what the win meant (GET /api/v1/games/{id}/result/):
// the time and moves, new personal bests, the streak, the daily rank, and when the next daily
// challenge opens, and the achievements the game earned (GET /api/v1/achievements/). Added to
// the play page's "You won!" banner by play.js.

import { games, serverNow } from "scorpion/api.js";
import { earnedBy } from "scorpion/achievements.js";
import { announce, formatDuration, h } from "scorpion/ui.js";

const results = new Map(); // game id -> the server's answer (a promise), asked once per page
const celebrated = new Set();
const told = new Set(); // games whose figures were said to screen readers
let countdown = 0;

function celebrate() {
  if (matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const symbols = ["♠", "♥", "♦", "♣"];
  const burst = h(
    "div",
    { class: "celebration", "aria-hidden": "true" },
    Array.from({ length: 28 }, (_, i) =>
      h(
        "span",
        {
          class: i % 4 === 1 || i % 4 === 2 ? "red" : "",
          style: { left: `${(i * 37) % 100}vw`, "animation-delay": `${(i % 7) * 0.09}s` },
        },
        symbols[i % 4],
      ),
    ),
  );
  document.body.append(burst);
  setTimeout(() => burst.remove(), 2400);
}

// "HH:MM" until the next daily challenge, by the server's clock.
export function untilNextDaily(nextIso, now = serverNow()) {
  const minutes = Math.max(0, Math.ceil((Date.parse(nextIso) - now) / 60000));
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

function render(result) {
  const items = [
    h("li", {}, `${gettext("Time")} `, h("strong", {}, formatDuration(result.time)), result.best_time ? h("span", { class: "best" }, ` · ${gettext("new best time!")}`) : null),
    h("li", {}, `${gettext("Moves")} `, h("strong", {}, String(result.moves)), result.fewest_moves ? h("span", { class: "best" }, ` · ${gettext("fewest yet!")}`) : null),
    h(
      "li",
      {},
      `${gettext("Streak")} `,
      h("strong", {}, String(result.current_streak)),
      result.current_streak >= result.best_streak && result.current_streak > 1
        ? h("span", { class: "best" }, ` · ${gettext("your best!")}`)
        : ` ${interpolate(gettext("(best %(n)s)"), { n: result.best_streak }, true)}`,
    ),
  ];
  if (result.first_win) items.unshift(h("li", { class: "best" }, gettext("Your first win of this kind!")));
  if (result.daily_rank) {
    const rank = interpolate(gettext("%(rank)s of %(count)s"), { rank: result.daily_rank, count: result.daily_count }, true);
    items.push(h("li", {}, `${gettext("Today's rank")} `, h("strong", {}, rank)));
  }
  const next = h("strong", { class: "next-daily" }, untilNextDaily(result.next_daily_at));
  items.push(h("li", {}, `${gettext("Next daily in")} `, next));
  clearInterval(countdown);
  countdown = setInterval(() => {
    if (!next.isConnected) return clearInterval(countdown);
    next.textContent = untilNextDaily(result.next_daily_at);
  }, 20000);
  return h("div", { class: "win-result", dataset: { gameId: result.id } }, h("ul", {}, items));
}

// Called each time the banner of a won game is drawn; celebrates once per game and page.
export function showWinResult(banner, game) {
  if (!celebrated.has(game.id)) {
    celebrated.add(game.id);
    celebrate();
  }
  if (!results.has(game.id)) {
    // Awarded in the transaction of the winning command: there by the time the banner asks.
    const earned = earnedBy(game.id).catch(() => []);
    results.set(game.id, Promise.all([games.result(game.id), earned]));
  }
  results.get(game.id).then(
    ([result, achievements]) => {
      if (!banner.classList.contains("won") || banner.querySelector(".win-result")) return;
      const actions = banner.querySelector(".actions");
      const figures = render(result);
      figures.querySelector("ul").prepend(...achievements);
      banner.insertBefore(figures, actions);
      // The banner is no live region (its heading is said by play.js): the figures are said
      // through the page's announcer, once a game, however often the banner is drawn again.
      if (told.has(game.id)) return;
      told.add(game.id);
      announce([...figures.querySelectorAll("li")].map((item) => item.textContent.trim()).join(". ") + ".");
    },
    () => results.delete(game.id), // the banner keeps its own figures; asked again next time
  );
}
