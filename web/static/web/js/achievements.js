// Achievements and monthly badges (GET /api/v1/achievements/), drawn on the statistics page
// and, for the achievements a game earned, in its win moment (win.js).

import { stats } from "scorpion/api.js";
import { formatDate, h } from "scorpion/ui.js";

// The list of every achievement: earned ones first, with their date and a link to the game.
export function achievementList(answer) {
  return h(
    "ul",
    { class: "achievements", id: "achievement-list" },
    answer.achievements.map((item) =>
      h(
        "li",
        { class: item.earned ? "earned" : "locked", dataset: { code: item.code } },
        h("span", { class: "mark", "aria-hidden": "true" }, item.earned ? "★" : "☆"),
        h("strong", {}, item.title),
        ` ${item.description} `,
        item.earned
          ? h("a", { href: `/history/${item.game}/` }, interpolate(gettext("earned %(date)s"), { date: formatDate(item.earned_at, { time: false }) }, true))
          : h("span", { class: "muted" }, gettext("not yet")),
      ),
    ),
  );
}

export function badgeLine(answer) {
  if (!answer.badges.length) {
    return h("p", { class: "muted", id: "badges" }, gettext("No monthly badge yet: win every day of a month's daily challenges (late days count)."));
  }
  return h(
    "p",
    { id: "badges" },
    `${gettext("Monthly badges:")} `,
    answer.badges.map((badge, i) => h("span", { class: "badge won" }, (i ? " " : "") + badge.month)),
  );
}

// The achievements one game earned, as items of the win moment's list (none: an empty list).
export async function earnedBy(gameId) {
  const answer = await stats.achievements();
  return answer.achievements
    .filter((item) => item.earned && item.game === gameId)
    .map((item) => h("li", { class: "best achievement-earned" }, interpolate(gettext("Achievement: %(title)s"), { title: item.title }, true)));
}
