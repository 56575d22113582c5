// Replays a game step by step: the position after each event of its history, undos and redos
// included. States come a page at a time (GET /api/v1/games/{id}/states/?start=&limit=, each
// with the event that led to it), so a whole replay costs one request per PAGE steps, and the
// server folds at most 32 events plus one per state for each page.

import { games } from "scorpion/api.js";
import { cardLabel, describeEvent, renderTable } from "scorpion/cards.js";
import {
  formatDuration,
  h,
  MODE_LABELS,
  movesText,
  showNoSuchGame,
  STATUS_LABELS,
  toast,
  wireHeader,
} from "scorpion/ui.js";

const root = document.getElementById("replay");
const gameId = root.dataset.gameId;
const board = document.getElementById("board");
const range = document.getElementById("step-range");
const count = document.getElementById("step-count");
const text = document.getElementById("step-text");
const info = document.getElementById("replay-info");
const actions = document.getElementById("replay-actions");
const buttons = {
  first: document.getElementById("step-first"),
  prev: document.getElementById("step-prev"),
  play: document.getElementById("step-play"),
  next: document.getElementById("step-next"),
  last: document.getElementById("step-last"),
};

const PAGE = 50;

let game = null;
let last = 0;
let current = 0;
let wanted = 0;
let timer = 0;
const pages = new Map(); // page number -> promise of Map(version -> state with its event)
// While a step of the solver's winning line is on the table: its stepper, which the controls
// above the table and the arrow keys then drive (step(delta)); null while the game is shown.
let line = null;

function fetchPage(number) {
  if (!pages.has(number)) {
    const promise = games
      .states(gameId, { start: number * PAGE, limit: PAGE })
      .then((page) => new Map(page.results.map((state) => [state.version, state])))
      .catch((error) => {
        pages.delete(number);
        throw error;
      });
    pages.set(number, promise);
  }
  return pages.get(number);
}

async function fetchState(version) {
  const page = await fetchPage(Math.floor(version / PAGE));
  return page.get(version);
}

async function show(version) {
  line = null;
  version = Math.max(0, Math.min(last, version));
  wanted = version;
  let state;
  try {
    state = await fetchState(version);
  } catch (error) {
    toast(error.detail, { kind: "error" });
    stop();
    return;
  }
  if (wanted !== version) return; // a later step was asked for meanwhile
  current = version;
  renderTable(board, state, { interactive: false });
  range.value = String(version);
  count.textContent = `${version} / ${last}`;
  text.textContent = state.event
    ? interpolate(gettext("Step %(n)s: %(what)s."), { n: version, what: describeEvent(state.event) }, true)
    : gettext("The deal.");
  buttons.first.disabled = buttons.prev.disabled = version === 0;
  buttons.next.disabled = buttons.last.disabled = version === last;
  // The next page, ahead of time, when the end of this one comes near.
  if (version + 10 < last && (version % PAGE) + 10 >= PAGE) fetchPage(Math.floor(version / PAGE) + 1).catch(() => {});
  if (version === last) stop();
}

function stop() {
  clearInterval(timer);
  timer = 0;
  buttons.play.textContent = gettext("Play");
  buttons.play.setAttribute("aria-pressed", "false");
}

function play() {
  if (timer) {
    stop();
    return;
  }
  if (current >= last) show(0);
  buttons.play.textContent = gettext("Pause");
  buttons.play.setAttribute("aria-pressed", "true");
  timer = setInterval(() => show(wanted + 1), 700);
}

function describeGame(g) {
  const parts = [MODE_LABELS[g.mode] || g.mode, STATUS_LABELS[g.status] || g.status, movesText(g.moves)];
  if (g.elapsed_seconds) parts.push(formatDuration(g.elapsed_seconds));
  return parts.join(" · ");
}

function showActions(g) {
  const items = [];
  if (g.status === "playing" || g.status === "stuck") {
    items.push(h("a", { class: "button primary", href: `/play/${g.id}/` }, gettext("Back to this game")));
  }
  if (g.code) {
    const again = h("button", { type: "button" }, gettext("Play this deal again"));
    again.addEventListener("click", async () => {
      try {
        const created = await games.create({ code: g.code });
        location.assign(`/play/${created.id}/`);
      } catch (error) {
        toast(error.detail, { kind: "error" });
      }
    });
    items.push(again);
  }
  if (!items.length) return;
  actions.replaceChildren(
    g.code ? h("p", {}, `${gettext("Deal code:")} `, h("code", { class: "deal-code" }, g.code)) : "",
    h("div", { class: "actions" }, ...items),
  );
  actions.hidden = false;
}

// One step back or on, of what the table shows: the winning line, or the game.
function stepBy(delta) {
  if (line) line.step(delta);
  else show(wanted + delta);
}

buttons.first.addEventListener("click", () => show(0));
buttons.prev.addEventListener("click", () => stepBy(-1));
buttons.next.addEventListener("click", () => stepBy(1));
buttons.last.addEventListener("click", () => show(last));
buttons.play.addEventListener("click", play);
range.addEventListener("input", () => show(Number(range.value)));
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target instanceof Element && event.target.closest("input, select, textarea")) return;
  if (event.key === "ArrowLeft") stepBy(-1);
  else if (event.key === "ArrowRight") stepBy(1);
  else if (event.key === "Home") show(0);
  else if (event.key === "End") show(last);
  else return;
  event.preventDefault();
});

async function main() {
  wireHeader();
  try {
    game = await games.get(gameId);
    last = game.version;
    await fetchPage(0);
  } catch (error) {
    if (error.status === 404) showNoSuchGame(board);
    else board.replaceChildren(h("p", { class: "error", role: "alert" }, error.detail));
    for (const button of Object.values(buttons)) button.disabled = true;
    return;
  }
  info.textContent = describeGame(game);
  range.max = String(last);
  showActions(game);
  await show(0);
  loadAnalysis();
}

// --- The solver's analysis of a finished game (GET .../analysis/): the verdict, where the
// game turned, and a winning line to step through on the board. ---

const panel = document.getElementById("analysis");
const DEAL_VERDICTS = {
  won: gettext("The deal could be won from the start."),
  lost: gettext("The deal could not be won, whatever the play."),
  unknown: gettext("Whether the deal could be won is unknown: the solver could not decide this deal within its budget."),
};

function lineCommandText(command) {
  return command.type === "deal"
    ? gettext("Deal the stock")
    : interpolate(gettext("%(card)s to column %(n)s"), { card: cardLabel(command.card), n: command.to + 1 }, true);
}

async function loadAnalysis(attempt = 0) {
  if (!panel || game.status === "playing" || game.status === "stuck") return;
  let body;
  try {
    body = await games.analysis(gameId);
  } catch (error) {
    panel.replaceChildren(h("h2", {}, gettext("Analysis")), h("p", {}, error.detail));
    panel.hidden = false;
    return;
  }
  if (body.status === "pending") {
    panel.replaceChildren(h("h2", {}, gettext("Analysis")), h("p", {}, gettext("The solver is on it…")));
    panel.hidden = false;
    if (attempt < 30) setTimeout(() => loadAnalysis(attempt + 1), 1000 * (body.retry_after || 2));
    return;
  }
  renderAnalysis(body);
}

function renderAnalysis(analysis) {
  const parts = [h("h2", {}, gettext("Analysis")), h("p", {}, DEAL_VERDICTS[analysis.deal] || analysis.deal)];
  const turn = analysis.last_winnable_version;
  if (analysis.outcome === "won") {
    parts.push(h("p", {}, gettext("You won it.")));
  } else if (analysis.outcome === "slipped") {
    const jump = h("button", { type: "button", id: "analysis-turn" }, interpolate(gettext("Go to step %(n)s"), { n: turn }, true));
    jump.addEventListener("click", async () => {
      await show(turn);
      bringTableIntoView();
    });
    parts.push(
      h("p", { id: "analysis-turning-point" },
        interpolate(
          gettext("Still winnable after step %(n)s; step %(next)s lost it: %(what)s."),
          { n: turn, next: turn + 1, what: describeEvent(analysis.losing_event) },
          true,
        )),
      h("div", { class: "actions" }, jump),
    );
  } else if (analysis.outcome === "ended_winnable") {
    parts.push(h("p", { id: "analysis-turning-point" }, interpolate(gettext("The game ended at step %(n)s while it could still be won."), { n: turn }, true)));
  } else if (analysis.outcome === "unknown") {
    parts.push(h("p", { id: "analysis-undecided" },
      gettext("Where the game turned is unknown: the solver could not decide it within its budget.")));
  }
  if (analysis.line.length) parts.push(...lineViewer(analysis));
  panel.replaceChildren(...parts);
  panel.hidden = false;
}

// The panel lies below the table: on a short screen (a phone turned sideways) what it puts on
// the table would change out of sight. The table is scrolled into view, with the controls
// above it, which step on through the line.
function bringTableIntoView() {
  const { top, bottom } = board.getBoundingClientRect();
  if (top >= 0 && bottom <= window.innerHeight) return;
  const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
  root.querySelector(".replay-controls").scrollIntoView({ block: "start", behavior: smooth ? "smooth" : "auto" });
}

function lineViewer(analysis) {
  const steps = analysis.line;
  const from = analysis.line_version;
  let index = -1;
  const label = h("p", { id: "line-step", "aria-live": "polite" });
  const prev = h("button", { type: "button", id: "line-prev" }, gettext("Previous"));
  const next = h("button", { type: "button", id: "line-next", class: "primary" }, gettext("Step through the winning line"));
  async function showStep(wantedIndex) {
    stop();
    index = Math.max(-1, Math.min(steps.length - 1, wantedIndex));
    if (index < 0) {
      await show(from);
      label.textContent = interpolate(gettext("The winning line starts at step %(n)s."), { n: from }, true);
    } else {
      const step = steps[index];
      renderTable(board, { ...step, version: from, status: game.status }, { interactive: false });
      label.textContent = interpolate(
        gettext("Winning line, %(i)s / %(count)s: %(what)s."),
        { i: index + 1, count: steps.length, what: lineCommandText(step.command) },
        true,
      );
      text.textContent = interpolate(
        gettext("Not played: the solver's winning line from step %(n)s, %(i)s / %(count)s."),
        { n: from, i: index + 1, count: steps.length },
        true,
      );
      // The slider and the count say the game's step the line branches from, even when the
      // line was entered from another step (they said "0 / 11" beside a line from step 11).
      current = wanted = from;
      range.value = String(from);
      count.textContent = `${from} / ${last}`;
      line = stepper;
      // First and last leave the line for the game's own steps.
      buttons.first.disabled = buttons.last.disabled = buttons.prev.disabled = false;
      buttons.next.disabled = index >= steps.length - 1;
    }
    prev.disabled = index < 0;
    next.disabled = index >= steps.length - 1;
    next.textContent = gettext("Next");
    bringTableIntoView();
  }
  const stepper = { step: (delta) => showStep(index + delta) };
  prev.disabled = true;
  prev.addEventListener("click", () => showStep(index - 1));
  next.addEventListener("click", () => showStep(index + 1));
  return [
    h(
      "p",
      {},
      from
        ? interpolate(gettext("A winning line of %(count)s steps from step %(n)s."), { count: steps.length, n: from }, true)
        : interpolate(gettext("A winning line of %(count)s steps from the deal."), { count: steps.length }, true),
    ),
    h("div", { class: "actions" }, prev, next),
    label,
  ];
}

main();
