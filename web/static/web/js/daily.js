// The daily challenge: today's deal for everyone, and the day's leaderboard.

import { daily, games, pathOf, request } from "scorpion/api.js";
import { followFeed } from "scorpion/live.js";
import { difficultyLabel, formatDate, formatDuration, h, movesText, redraw, setBusy, STATUS_LABELS, toast, wireHeader } from "scorpion/ui.js";

const todayBox = document.getElementById("today");
const boardBox = document.getElementById("leaderboard");
const myRank = document.getElementById("my-rank");
const dayInput = document.getElementById("day");
const prev = document.getElementById("board-prev");
const next = document.getElementById("board-next");
const title = document.getElementById("board-title");
let links = { next: null, previous: null };
let today = null;

async function play(button) {
  setBusy(todayBox, true);
  try {
    const game = await games.create({ mode: "daily" });
    location.assign(`/play/${game.id}/`);
  } catch (error) {
    setBusy(todayBox, false);
    toast(error.detail, { kind: "error", ms: 5000 });
    button.focus();
  }
}

function showToday(summary) {
  const parts = [];
  const day = formatDate(`${summary.date}T00:00:00Z`, { time: false });
  parts.push(h("p", {}, interpolate(gettext("The deal of %(day)s (UTC), the same for every player."), { day }, true)));
  if (summary.difficulty) {
    // Announced before play, like its being winnable (docs/difficulty.md, "Fair play").
    parts.push(
      h(
        "p",
        { id: "daily-difficulty" },
        `${gettext("Difficulty:")} `,
        h("span", { class: `badge difficulty-${summary.difficulty}` }, difficultyLabel(summary.difficulty)),
        summary.difficulty_score === null
          ? ""
          : ` ${interpolate(gettext("(%(score)s out of 100)"), { score: summary.difficulty_score }, true)}`,
      ),
    );
  }
  if (summary.solved) {
    parts.push(h("p", { class: "badge won" }, gettext("Solved")));
  }
  if (summary.ranked_game) {
    const ranked = STATUS_LABELS[summary.ranked_status] || summary.ranked_status;
    parts.push(
      h(
        "p",
        { id: "ranked-attempt" },
        interpolate(
          gettext("Your ranked attempt: %(status)s. Only your first attempt of the day ranks; later attempts are practice."),
          { status: ranked },
          true,
        ),
      ),
    );
  } else {
    parts.push(h("p", { class: "muted" }, gettext("Your first attempt of the day is the one that ranks.")));
  }
  if (summary.attempts) {
    parts.push(
      h(
        "p",
        {},
        summary.status
          ? interpolate(
              gettext("Your attempts today: %(n)s · latest: %(status)s."),
              { n: summary.attempts, status: STATUS_LABELS[summary.status] || summary.status },
              true,
            )
          : interpolate(gettext("Your attempts today: %(n)s."), { n: summary.attempts }, true),
      ),
    );
  }
  const actions = h("div", { class: "choices" });
  const open = summary.game && (summary.status === "playing" || summary.status === "stuck");
  if (open) {
    const label = summary.game === summary.ranked_game ? gettext("Resume your ranked attempt") : gettext("Resume today's practice");
    actions.append(h("a", { class: "button primary", href: `/play/${summary.game}/` }, label));
  }
  const start = h(
    "button",
    { type: "button", class: open ? "" : "primary", id: "play-daily" },
    summary.ranked_game || summary.ranked_available === false ? gettext("Practice attempt (does not rank)") : gettext("Play today's deal"),
  );
  start.addEventListener("click", () => play(start));
  actions.append(start);
  parts.push(actions);
  redraw(todayBox, ...parts);
}

function leaderboardOf(day) {
  return interpolate(gettext("Leaderboard of %(day)s"), { day }, true);
}

function showBoard(board) {
  links = { next: pathOf(board.next), previous: pathOf(board.previous) };
  prev.hidden = !links.previous;
  next.hidden = !links.next;
  const isToday = today && board.date === today.date;
  title.textContent = isToday ? gettext("Today's leaderboard") : leaderboardOf(board.date);
  if (board.me) {
    redraw(
      myRank,
      `${gettext("Your rank:")} `,
      h("strong", {}, `#${board.me.rank}`),
      ` ${interpolate(gettext("of %(count)s"), { count: board.count }, true)} · ${formatDuration(board.me.time)} · ${movesText(board.me.moves)}`,
    );
  } else if (board.me_hidden) {
    // Staff hid the player's ranked win from the board (docs/fair-play.md): say so, and why.
    myRank.textContent = interpolate(
      gettext("Your win was hidden from the leaderboard by staff: %(reason)s"),
      { reason: board.me_hidden.reason },
      true,
    );
  } else {
    myRank.textContent = isToday
      ? gettext("Win today's deal to get on the board.")
      : gettext("You have no win on this day.");
  }
  if (!board.results.length) {
    redraw(boardBox, h("p", { class: "muted" }, gettext("No winner yet.")));
    return;
  }
  redraw(
    boardBox,
    h(
      "table",
      { class: "data" },
      h("caption", { class: "visually-hidden" }, interpolate(gettext("Wins of %(day)s, fastest first"), { day: board.date }, true)),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col", class: "num" }, gettext("Rank")),
          h("th", { scope: "col" }, gettext("Player")),
          h("th", { scope: "col", class: "num" }, gettext("Time")),
          h("th", { scope: "col", class: "num" }, gettext("Moves")),
        ),
      ),
      h(
        "tbody",
        {},
        board.results.map((entry) =>
          h(
            "tr",
            { class: entry.is_me ? "me" : null },
            h("td", { class: "num" }, String(entry.rank)),
            h("td", {}, entry.player, entry.is_me ? ` ${gettext("(you)")}` : ""),
            h("td", { class: "num" }, formatDuration(entry.time)),
            h("td", { class: "num" }, String(entry.moves)),
          ),
        ),
      ),
    ),
  );
}

function showBoardError(heading, message) {
  title.textContent = heading;
  myRank.textContent = "";
  prev.hidden = true;
  next.hidden = true;
  redraw(boardBox, h("p", { class: "error", role: "alert" }, message));
}

async function loadBoard(pathOrDate) {
  try {
    const board = pathOrDate.startsWith("/")
      ? (await request("GET", pathOrDate)).data
      : await daily.leaderboard(pathOrDate, { page_size: 20 });
    showBoard(board);
  } catch (error) {
    // The server says what is wrong with the day (a future one, say) in words.
    const heading = pathOrDate.startsWith("/") ? title.textContent : leaderboardOf(pathOrDate);
    showBoardError(heading, error.detail);
  }
}

prev.addEventListener("click", () => links.previous && loadBoard(links.previous));
next.addEventListener("click", () => links.next && loadBoard(links.next));
dayInput.addEventListener("change", () => {
  // A typed date past max still has a value (the server refuses it, saying why); one the box
  // cannot read (half typed, or cleared) has none: say so instead of leaving the last board.
  if (dayInput.value) loadBoard(dayInput.value);
  else {
    const message = interpolate(gettext("Pick a whole date, up to today (%(today)s, UTC)."), { today: dayInput.max }, true);
    showBoardError(gettext("Leaderboard"), message);
  }
});

async function main() {
  wireHeader();
  try {
    today = await daily.today();
  } catch (error) {
    redraw(todayBox, h("p", { class: "error" }, error.detail));
    return;
  }
  showToday(today);
  dayInput.value = today.date;
  dayInput.max = today.date;
  await loadBoard(today.date);
}

// An attempt started or finished on another device, and its result, show here at once.
async function refresh() {
  try {
    today = await daily.today();
  } catch {
    return;
  }
  showToday(today);
  dayInput.max = today.date; // a new UTC day may have begun
  if (dayInput.value === today.date) await loadBoard(today.date);
}

main();
followFeed(refresh);
