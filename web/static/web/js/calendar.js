// The daily calendar: a month of the player's daily challenges (GET /api/v1/calendar/{month}/),
// each day's result (won on the day or late, time, rank), the streak of days won, the month's
// badge, and a button to play a past day's daily late (practice: it never ranks).

import { daily, games } from "scorpion/api.js";
import { formatDate, formatDuration, h, pageLanguage, redraw, setBusy, STATUS_LABELS, toast, wireHeader } from "scorpion/ui.js";

const root = document.getElementById("calendar");
const box = document.getElementById("month");
const title = document.getElementById("month-title");
const streaks = document.getElementById("streaks");
const badge = document.getElementById("month-badge");
const WEEKDAYS = [gettext("Mon"), gettext("Tue"), gettext("Wed"), gettext("Thu"), gettext("Fri"), gettext("Sat"), gettext("Sun")];
let month = root.dataset.month;

function shift(label, by) {
  const [year, number] = label.split("-").map(Number);
  const moved = new Date(Date.UTC(year, number - 1 + by, 1));
  return `${moved.getUTCFullYear()}-${String(moved.getUTCMonth() + 1).padStart(2, "0")}`;
}

// A month ("2026-12") as the page's language names it: "December 2026", "décembre 2026" (as the
// server writes the first one, Django's YEAR_MONTH_FORMAT).
function monthName(label) {
  const [year, number] = label.split("-").map(Number);
  const options = { month: "long", year: "numeric", timeZone: "UTC" };
  return new Intl.DateTimeFormat(pageLanguage(), options).format(new Date(Date.UTC(year, number - 1, 1)));
}

async function playDay(button, date) {
  setBusy(box, true);
  try {
    const body = date === root.dataset.today ? { mode: "daily" } : { mode: "daily", date };
    const game = await games.create(body);
    location.assign(`/play/${game.id}/`);
  } catch (error) {
    setBusy(box, false);
    toast(error.detail, { kind: "error", ms: 5000 });
    button.focus();
  }
}

function dayCell(day) {
  const number = Number(day.date.slice(8));
  const state = day.won ? (day.late ? "won-late" : "won") : day.in_play ? "in-play" : day.played ? "lost" : "";
  const parts = [h("span", { class: "day-number" }, String(number))];
  if (day.won) {
    parts.push(h("span", { class: "badge won" }, day.late ? gettext("Won late") : STATUS_LABELS.won));
    parts.push(h("span", { class: "day-time" }, formatDuration(day.time)));
    if (day.rank) parts.push(h("span", { class: "day-rank" }, `#${day.rank}`));
  } else if (day.in_play) {
    parts.push(h("a", { href: `/play/${day.game}/` }, gettext("Resume")));
  } else if (day.played) {
    parts.push(h("span", { class: "muted" }, gettext("Not won")));
  }
  if (day.game && !day.in_play) parts.push(h("a", { href: `/history/${day.game}/`, class: "day-replay" }, gettext("Replay")));
  if (day.playable && !day.won && !day.in_play) {
    const button = h("button", { type: "button", class: "play-day" }, day.date === root.dataset.today ? pgettext("a day of the calendar", "Play") : gettext("Play late"));
    button.addEventListener("click", () => playDay(button, day.date));
    parts.push(button);
  }
  return h("td", { class: `day ${state}`, dataset: { date: day.date }, "aria-label": formatDate(`${day.date}T00:00:00Z`, { time: false }) }, parts);
}

function grid(view) {
  const weeks = [];
  let week = [];
  const first = new Date(`${view.days[0].date}T00:00:00Z`).getUTCDay(); // 0 Sunday
  for (let i = 0; i < (first + 6) % 7; i += 1) week.push(h("td", { class: "empty" }));
  for (const day of view.days) {
    week.push(dayCell(day));
    if (week.length === 7) {
      weeks.push(h("tr", {}, week));
      week = [];
    }
  }
  if (week.length) {
    while (week.length < 7) week.push(h("td", { class: "empty" }));
    weeks.push(h("tr", {}, week));
  }
  return h(
    "table",
    { class: "data month-grid" },
    h("caption", { class: "visually-hidden" }, interpolate(gettext("Your daily challenges of %(month)s"), { month: monthName(view.month) }, true)),
    h("thead", {}, h("tr", {}, WEEKDAYS.map((name) => h("th", { scope: "col" }, name)))),
    h("tbody", {}, weeks),
  );
}

async function show() {
  title.textContent = monthName(month);
  document.getElementById("month-next").disabled = month >= root.dataset.today.slice(0, 7);
  try {
    const view = await daily.calendar(month);
    const won = view.days.filter((day) => day.won).length;
    // Wider than a phone: the grid scrolls in its own focusable region (as the stats' tables).
    redraw(box, h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": interpolate(gettext("%(month)s: calendar"), { month: monthName(view.month) }, true) }, grid(view)));
    streaks.textContent = interpolate(
      gettext("%(won)s of %(days)s days won · streak %(current)s days (best %(best)s)"),
      { won, days: view.days.length, current: view.streaks.current, best: view.streaks.best },
      true,
    );
    badge.textContent = view.badge ? interpolate(gettext("Month badge earned %(date)s"), { date: formatDate(view.badge.earned_at, { time: false }) }, true) : "";
    root.dataset.loaded = "true";
  } catch (error) {
    redraw(box, h("p", { class: "error" }, error.detail || String(error)));
  }
}

document.getElementById("month-prev").addEventListener("click", () => {
  month = shift(month, -1);
  show();
});
document.getElementById("month-next").addEventListener("click", () => {
  month = shift(month, 1);
  show();
});
wireHeader();
show();
