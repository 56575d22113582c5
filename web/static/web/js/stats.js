// Statistics: the figures of GET /api/v1/stats/, and a chart of results per day drawn from the
// finished games (GET /api/v1/games/?status=won and ?status=resigned). "Played" is what the
// server counts (won + resigned + abandoned after a move) and the win rate is won / played, so
// the page can never show more wins than games; games in play count once they end or are left.

import { achievementList, badgeLine } from "scorpion/achievements.js";
import { ApiError, games, stats } from "scorpion/api.js";
import { followFeed } from "scorpion/live.js";
import { difficultyLabel, formatDuration, h, MODE_LABELS, pageLanguage, redraw, scrollBox, variantTitle, wireHeader } from "scorpion/ui.js";

const SVG = "http://www.w3.org/2000/svg";
const WON = "#2e9d57";
const RESIGNED = "#c4122f";
const MAX_PAGES = 5; // up to 500 finished games of each kind: plenty for a month's chart

function percent(rate) {
  return rate === null || rate === undefined ? "–" : `${Math.round(rate * 100)}%`;
}

function orDash(value) {
  return value === null || value === undefined ? "–" : String(value);
}

function figureList(figures) {
  const rows = [
    ["played", pgettext("games counted", "Played"), orDash(figures.played)],
    ["won", pgettext("games counted", "Won"), orDash(figures.won)],
    ["resigned", pgettext("games counted", "Resigned"), orDash(figures.resigned)],
    ["abandoned", pgettext("games counted", "Abandoned"), orDash(figures.abandoned)],
    ["win-rate", gettext("Win rate"), percent(figures.win_rate)],
    ["in-play", pgettext("games counted", "In play"), orDash(figures.in_play)],
    ["current-streak", gettext("Current streak"), orDash(figures.current_streak)],
    ["best-streak", gettext("Best streak"), orDash(figures.best_streak)],
    ["best-time", gettext("Best time"), formatDuration(figures.best_time)],
    ["fewest-moves", gettext("Fewest moves"), orDash(figures.fewest_moves)],
    ["average-win", gettext("Average win"), formatDuration(figures.average_win_time)],
    ["clean-wins", gettext("Clean wins"), orDash(figures.clean_wins)],
  ];
  return h(
    "dl",
    { class: "figures" },
    rows.map(([key, label, value]) => h("div", { dataset: { figure: key } }, h("dt", {}, label), h("dd", {}, value))),
  );
}

// The same table per variant of the family (`variants`: a list, Scorpion first).
function variantTable(variants) {
  const rows = {};
  for (const row of variants || []) rows[row.variant] = row;
  return modeTable(rows, { heading: gettext("Game"), label: variantTitle, empty: gettext("No figures per game yet.") });
}

// The daily and winnable games by the difficulty band of their deal (docs/difficulty.md).
function bandTable(bands) {
  const names = ["easy", "medium", "hard"].filter((name) => bands && bands[name]);
  if (!names.some((name) => bands[name].played)) {
    return h("p", { class: "muted" }, gettext("No daily or winnable game played yet."));
  }
  return h(
    "table",
    { class: "data", id: "band-table" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, gettext("Difficulty")),
        h("th", { scope: "col", class: "num" }, pgettext("games counted", "Played")),
        h("th", { scope: "col", class: "num" }, pgettext("games counted", "Won")),
        h("th", { scope: "col", class: "num" }, gettext("Win rate")),
      ),
    ),
    h(
      "tbody",
      {},
      names.map((name) =>
        h(
          "tr",
          { dataset: { band: name } },
          h("th", { scope: "row" }, difficultyLabel(name)),
          h("td", { class: "num" }, orDash(bands[name].played)),
          h("td", { class: "num" }, orDash(bands[name].won)),
          h("td", { class: "num" }, percent(bands[name].win_rate)),
        ),
      ),
    ),
  );
}

function modeTable(
  modes,
  { heading = gettext("Deal"), label = (name) => MODE_LABELS[name] || name, empty = gettext("No figures per kind of deal yet.") } = {},
) {
  const names = Object.keys(modes || {});
  if (!names.length) return h("p", { class: "muted" }, empty);
  return h(
    "table",
    { class: "data" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, heading),
        h("th", { scope: "col", class: "num" }, pgettext("games counted", "Played")),
        h("th", { scope: "col", class: "num" }, pgettext("games counted", "Won")),
        h("th", { scope: "col", class: "num" }, gettext("Win rate")),
        h("th", { scope: "col", class: "num" }, gettext("Best time")),
        h("th", { scope: "col", class: "num" }, gettext("Fewest moves")),
      ),
    ),
    h(
      "tbody",
      {},
      names.map((name) => {
        const f = modes[name];
        return h(
          "tr",
          {},
          h("th", { scope: "row" }, label(name)),
          h("td", { class: "num" }, orDash(f.played)),
          h("td", { class: "num" }, orDash(f.won)),
          h("td", { class: "num" }, percent(f.win_rate)),
          h("td", { class: "num" }, formatDuration(f.best_time)),
          h("td", { class: "num" }, orDash(f.fewest_moves)),
        );
      }),
    ),
  );
}

async function allGames(status) {
  const found = [];
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const answer = await games.list({ status, page, page_size: 100 });
    found.push(...answer.results);
    if (!answer.next) break;
  }
  return found;
}

const dayOf = (iso) => iso.slice(0, 10); // finished_at is UTC: its date is the UTC day

function addDays(day, n) {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + n);
  return date.toISOString().slice(0, 10);
}

function svg(tag, attrs = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
}

function shortDay(day) {
  return new Intl.DateTimeFormat(pageLanguage(), { month: "short", day: "numeric", timeZone: "UTC" }).format(
    new Date(`${day}T00:00:00Z`),
  );
}

// Stacked bars per UTC day: wins at the bottom, resignations on top.
function chart(won, resigned, width) {
  // Drawn at the size it is shown, so that its text is as large as the page's.
  const W = Math.max(280, Math.round(width || 600));
  const H = W < 480 ? 190 : 220;
  const DAYS = W < 480 ? 14 : 30;
  const every = W < 480 ? 4 : 5;
  const counts = new Map();
  for (const game of won) {
    if (!game.finished_at) continue;
    const day = dayOf(game.finished_at);
    counts.set(day, { won: (counts.get(day)?.won || 0) + 1, resigned: counts.get(day)?.resigned || 0 });
  }
  for (const game of resigned) {
    if (!game.finished_at) continue;
    const day = dayOf(game.finished_at);
    counts.set(day, { won: counts.get(day)?.won || 0, resigned: (counts.get(day)?.resigned || 0) + 1 });
  }
  if (!counts.size) {
    return h("p", { class: "muted", id: "chart-empty" }, gettext("Win or resign a game to see your results here."));
  }
  const today = new Date().toISOString().slice(0, 10);
  const latest = [...counts.keys()].sort().at(-1);
  const end = addDays(today, -(DAYS - 1)) > latest ? latest : today;
  const days = Array.from({ length: DAYS }, (_, i) => addDays(end, i - (DAYS - 1)));
  const top = Math.max(1, ...days.map((d) => (counts.get(d)?.won || 0) + (counts.get(d)?.resigned || 0)));
  const left = 30;
  const bottom = 24;
  const plotH = H - bottom - 10;
  const slot = (W - left - 6) / DAYS;
  const y = (n) => 10 + plotH - (n / top) * plotH;
  const totalWon = won.length;
  const totalResigned = resigned.length;
  const title = svg("title", { id: "chart-svg-title" });
  title.textContent = gettext("Results per day");
  const desc = svg("desc", { id: "chart-svg-desc" });
  desc.textContent = interpolate(
    gettext("Games won and resigned on each of the %(days)s days up to %(end)s: %(won)s won and %(resigned)s resigned in all."),
    { days: DAYS, end, won: totalWon, resigned: totalResigned },
    true,
  );
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-labelledby": "chart-svg-title chart-svg-desc",
    class: "results-chart",
  });
  root.append(title, desc);
  const step = top <= 5 ? 1 : Math.ceil(top / 5);
  for (let n = 0; n <= top; n += step) {
    root.append(svg("line", { x1: left, x2: W, y1: y(n), y2: y(n), stroke: "#d9d2c1", "stroke-width": 1 }));
    const label = svg("text", { x: left - 6, y: y(n) + 4, "text-anchor": "end", "font-size": 12, fill: "#555" });
    label.textContent = String(n);
    root.append(label);
  }
  days.forEach((day, i) => {
    const c = counts.get(day) || { won: 0, resigned: 0 };
    const x = left + i * slot + slot * 0.15;
    const w = slot * 0.7;
    if (c.won) {
      const bar = svg("rect", { x, y: y(c.won), width: w, height: y(0) - y(c.won), fill: WON, rx: 2, "data-day": day });
      bar.append(svg("title"));
      bar.firstChild.textContent = interpolate(gettext("%(day)s: %(n)s won"), { day: shortDay(day), n: c.won }, true);
      root.append(bar);
    }
    if (c.resigned) {
      const bar = svg("rect", {
        x,
        y: y(c.won + c.resigned),
        width: w,
        height: y(c.won) - y(c.won + c.resigned),
        fill: RESIGNED,
        rx: 2,
      });
      bar.append(svg("title"));
      bar.firstChild.textContent = interpolate(gettext("%(day)s: %(n)s resigned"), { day: shortDay(day), n: c.resigned }, true);
      root.append(bar);
    }
    if ((DAYS - 1 - i) % every === 0) {
      const last = i === DAYS - 1;
      const label = svg("text", {
        x: last ? x + w : x + w / 2,
        y: H - 6,
        "text-anchor": last ? "end" : "middle",
        "font-size": 12,
        fill: "#555",
      });
      label.textContent = shortDay(day);
      root.append(label);
    }
  });
  const rows = days.filter((d) => counts.has(d));
  return h(
    "div",
    {},
    root,
    h(
      "div",
      { class: "legend" },
      h("span", { style: { "--c": WON } }, interpolate(pgettext("games counted", "Won (%(n)s)"), { n: totalWon }, true)),
      h("span", { style: { "--c": RESIGNED } }, interpolate(pgettext("games counted", "Resigned (%(n)s)"), { n: totalResigned }, true)),
    ),
    h(
      "details",
      {},
      h("summary", {}, gettext("As a table")),
      h(
        "table",
        { class: "data" },
        h("thead", {}, h("tr", {}, h("th", {}, gettext("Day")), h("th", { class: "num" }, pgettext("games counted", "Won")), h("th", { class: "num" }, pgettext("games counted", "Resigned")))),
        h(
          "tbody",
          {},
          rows.map((d) =>
            h("tr", {}, h("td", {}, shortDay(d)), h("td", { class: "num" }, String(counts.get(d).won)), h("td", { class: "num" }, String(counts.get(d).resigned))),
          ),
        ),
      ),
    ),
  );
}

async function main() {
  const figuresBox = document.getElementById("figures");
  const chartBox = document.getElementById("chart");
  const modesBox = document.getElementById("modes");
  const variantsBox = document.getElementById("variants");
  const bandsBox = document.getElementById("bands");
  const achievementsBox = document.getElementById("achievements");
  const [figures, finished, achievements] = await Promise.allSettled([
    stats.get(),
    Promise.all([allGames("won"), allGames("resigned")]),
    stats.achievements(),
  ]);
  if (achievements.status === "fulfilled") {
    redraw(achievementsBox, achievementList(achievements.value), badgeLine(achievements.value));
  } else {
    redraw(achievementsBox, h("p", { class: "error" }, achievements.reason.detail || String(achievements.reason)));
  }
  if (figures.status === "fulfilled") {
    redraw(figuresBox, figureList(figures.value));
    redraw(modesBox, scrollBox(gettext("By kind of deal"), modeTable(figures.value.modes)));
    redraw(variantsBox, scrollBox(gettext("By game of the family"), variantTable(figures.value.variants)));
    redraw(bandsBox, bandTable(figures.value.difficulty));
  } else {
    const error = figures.reason instanceof ApiError ? figures.reason : { detail: String(figures.reason) };
    redraw(figuresBox, h("p", { class: "error" }, error.detail));
    redraw(modesBox);
    redraw(variantsBox);
    redraw(bandsBox);
  }
  if (finished.status === "fulfilled") {
    redraw(chartBox, chart(...finished.value, chartBox.clientWidth));
  } else {
    redraw(chartBox, h("p", { class: "error" }, finished.reason.detail || String(finished.reason)));
  }
  document.getElementById("stats").dataset.loaded = "true";
}

wireHeader();
main();
// A game finished on another device counts here at once.
followFeed(() => {
  const root = document.getElementById("stats");
  main().then(() => {
    root.dataset.updates = String(Number(root.dataset.updates || 0) + 1);
  });
}, ["game_finished"]);
