// The table: one game of the API, played by tapping or dragging cards.
//
// Every change goes through POST /api/v1/games/{id}/commands/ with the version this page last
// saw (`expected_version`). The answer is the whole game, which is drawn again. Commands are
// sent one at a time, in the order the player made them.
//
// The page follows the game's live stream (GET .../stream/): a command accepted from another
// tab or device arrives as the same whole game and is drawn at once. A tap made on a position
// that changed meanwhile is answered 409 `version_conflict` with the current game: the page
// draws it, and sends the tap again against it if the tapped card can still move (the server
// then judges it on the current position); otherwise it says why the tap was not played.
//
// Moves show at once: the page knows the visible table, so a tapped or dropped card that can
// go somewhere (by the rules, on what the player sees) is drawn there before the server
// answers, as a prediction laid over the last game the server sent. The answer replaces it: a
// face-down card the move uncovered turns over, and a refused move glides back with the
// reason. Cards glide from where they were to where they are (FLIP), unless the player asked
// for reduced motion; only the cards that changed are redrawn.

import { games, serverNow } from "scorpion/api.js";
import {
  describeRecord,
  hasStock,
  layoutTable,
  renderTable,
  runsToCollect,
  suitName,
  theCard,
} from "scorpion/cards.js";
import { follow, wakeOnReturn } from "scorpion/live.js";
import { showWinResult } from "scorpion/win.js";
import {
  announce,
  confirmDialog,
  difficultyLabel,
  formatDuration,
  h,
  hideToast,
  isPractice,
  MODE_LABELS,
  redraw,
  showNoSuchGame,
  STATUS_LABELS,
  toast,
  variantRules,
  variantTitle,
  wireHeader,
} from "scorpion/ui.js";

const page = document.getElementById("play");
const gameId = page.dataset.gameId;
const board = document.getElementById("board");
const banner = document.getElementById("banner");
const controls = {
  deal: document.getElementById("btn-deal"),
  undo: document.getElementById("btn-undo"),
  redo: document.getElementById("btn-redo"),
  hint: document.getElementById("btn-hint"),
  restart: document.getElementById("btn-restart"),
  resign: document.getElementById("btn-resign"),
};
const movesOut = document.getElementById("moves");
const timerOut = document.getElementById("timer");
const modeOut = document.getElementById("mode");

let game = null;
let queue = Promise.resolve();
let pending = 0;
let live = null; // the game's stream, while the game is on
let arrived = null; // a stream event held back while a command of this page is on its way
let hints = null; // the hints answer for the version on the table
let hintIndex = -1;
let hintShown = null;
let hintMessage = ""; // the words of the last hint on the message line
let chances = null; // the chances answer (or {status: "pending"}) for the version on the table
let chancesRefused = false; // the server estimates none in this game's variant: stop asking
let idleTimer = null;
// After this long without a change on the table, the server is asked to prepare the winning
// chances, so that a hint asked for later finds them ready.
const PAUSE_MS = 3000;
let predictions = []; // moves drawn before the server answered: [{body}]
let queued = 0; // commands sent or waiting to be, not yet answered
const RANKS = "A23456789TJQK";
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

const finished = (g) => ["won", "resigned", "abandoned"].includes(g.status);
const playable = (g) => g.status === "playing" || g.status === "stuck";

// --- drawing ---

// The table as shown: the server's game with the moves still on their way laid over it.
function shownGame() {
  let shown = game;
  for (const prediction of predictions) shown = predict(shown, prediction.body) || shown;
  return shown;
}

// The game after `body`, judged like the server on the visible table only; null when the
// move cannot be foreseen (the server then decides alone). A card uncovered stays face down
// until the server says which it is; a run completed is collected when the answer comes.
function predict(g, body) {
  // Foreseen in Scorpion only: the other variants build and fill empty columns otherwise,
  // and the server decides alone.
  if (body.type !== "move" || !playable(g) || (g.variant && g.variant !== "scorpion")) return null;
  const source = g.columns.findIndex((column) => column.cards.includes(body.card));
  if (source < 0) return null;
  const index = g.columns[source].cards.indexOf(body.card);
  const rank = RANKS.indexOf(body.card[0]);
  let to;
  if (rank === 12) {
    if (index === 0 && !g.columns[source].hidden) return null;
    const empty = (c) => !g.columns[c].hidden && !g.columns[c].cards.length;
    to = body.to ?? g.columns.findIndex((_, c) => empty(c));
    if (to === undefined || to < 0 || to === source || !empty(to)) return null;
  } else {
    const onto = `${RANKS[rank + 1]}${body.card[1]}`;
    to = g.columns.findIndex((column) => column.cards[column.cards.length - 1] === onto);
    if (to < 0 || to === source || (body.to !== undefined && body.to !== to)) return null;
  }
  const columns = g.columns.map((column) => ({ ...column, cards: [...column.cards] }));
  const moved = columns[source].cards.splice(index);
  columns[to].cards.push(...moved);
  return { ...g, columns, moves: g.moves + 1 };
}

// Why the server would refuse `body` on the visible table `g`, as the problem's `details`
// would say it (the same reason words and fields, columns numbered 1 to 7: games.engine's
// resolve_move), or null when the move is legal or the page cannot be sure. Then the command
// is sent and the server, the authority, decides. Sure means: a deal with the stock gone or a
// face-down card in any variant; a move in Scorpion only (the other variants build and fill
// empty columns otherwise), with every card that matters in sight.
function knownRefusal(g, body) {
  if (!g || !playable(g)) return null;
  if (body.type === "deal") return g.stock ? null : { reason: "stock_empty" };
  if (body.type === "face_down") return { reason: "not_face_up" };
  if (body.type !== "move" || (g.variant && g.variant !== "scorpion")) return null;
  // A card about to turn over (a move still on its way uncovered it) could be anything.
  if (g.columns.some((column) => column.hidden && !column.cards.length)) return null;
  const source = g.columns.findIndex((column) => column.cards.includes(body.card));
  if (source < 0) return null;
  const to = body.to;
  if (to !== undefined && !(to >= 0 && to < g.columns.length)) return null;
  const where = { card: body.card, column: source + 1 };
  if (to === source) return { reason: "already_there", ...where };
  const index = g.columns[source].hidden + g.columns[source].cards.indexOf(body.card);
  const empty = (c) => !g.columns[c].hidden && !g.columns[c].cards.length;
  const rank = RANKS.indexOf(body.card[0]);
  if (rank === 12) {
    if (to !== undefined && !empty(to)) return { reason: "column_not_empty", ...where, to: to + 1 };
    const room = to !== undefined || g.columns.some((_, c) => empty(c));
    if (index === 0) return { reason: "already_at_bottom", ...where };
    return room ? null : { reason: "no_empty_column", ...where };
  }
  if (to !== undefined && empty(to)) return { reason: "not_a_king", ...where, to: to + 1 };
  const onto = `${RANKS[rank + 1]}${body.card[1]}`;
  const targets = g.columns.flatMap((column, c) => (column.cards[column.cards.length - 1] === onto ? [c] : []));
  const others = targets.filter((c) => c !== source);
  if (!targets.length) {
    const seen = g.columns.findIndex((column) => column.cards.includes(onto));
    const state = seen >= 0 ? { onto_column: seen + 1, onto_state: "covered" } : { onto_state: "unseen" };
    return { reason: "onto_not_exposed", ...where, onto, ...state };
  }
  if (!others.length) return { reason: "onto_own_column", ...where, onto };
  if (to !== undefined && !others.includes(to)) {
    return { reason: "wrong_column", ...where, to: to + 1, onto, onto_column: others[0] + 1 };
  }
  return null;
}

// Where every face-up card is, to glide it from there after the next drawing.
function cardRects() {
  const rects = new Map();
  for (const card of board.querySelectorAll(".tableau .card.face[data-card]")) {
    rects.set(card.dataset.card, card.getBoundingClientRect());
  }
  return rects;
}

// FLIP: each card that moved is drawn where it was and glides to its new place; a card newly
// face up turns over.
function animateFrom(before) {
  if (!before || reducedMotion.matches) return;
  for (const card of board.querySelectorAll(".tableau .card.face[data-card]")) {
    const was = before.get(card.dataset.card);
    if (!was) {
      card.classList.add("turning");
      card.addEventListener("animationend", () => card.classList.remove("turning"), { once: true });
      continue;
    }
    const now = card.getBoundingClientRect();
    const dx = was.left - now.left;
    const dy = was.top - now.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    card.classList.add("moving");
    const glide = card.animate(
      [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }],
      { duration: 160, easing: "ease-out" },
    );
    const done = () => card.classList.remove("moving");
    glide.addEventListener("finish", done);
    glide.addEventListener("cancel", done);
  }
}

function render({ from = null } = {}) {
  const active = document.activeElement;
  const focusCard = active?.dataset?.card;
  const focusStock = active?.id === "stock";
  const before = board.querySelector(".tableau") ? from || cardRects() : null;
  if (from) for (const [card, rect] of cardRects()) if (!from.has(card)) from.set(card, rect);
  renderBanner();
  const shown = shownGame();
  const tableau = renderTable(board, shown, { interactive: playable(game) });
  animateFrom(before);
  board.dataset.predicted = String(predictions.length);
  board.setAttribute("aria-busy", pending ? "true" : "false");
  if (focusCard) {
    const again = board.querySelector(`button.card[data-card="${focusCard}"]`);
    (again || board.querySelector("button.card") || controls.undo).focus({ preventScroll: true });
  } else if (focusStock) {
    (board.querySelector("#stock") || controls.undo).focus({ preventScroll: true });
  }
  const held = active && active !== document.body;
  movesOut.textContent = String(shown.moves);
  modeOut.textContent = describeMode(game);
  controls.deal.hidden = !hasStock(game); // nothing to deal, ever: room for the other buttons
  controls.deal.disabled = !playable(game) || !game.stock;
  controls.deal.querySelector(".n").textContent = game.stock ? ` (${game.stock})` : "";
  controls.undo.disabled = !game.can_undo;
  controls.redo.disabled = !game.can_redo;
  controls.hint.disabled = !playable(game);
  controls.resign.disabled = !playable(game);
  tick();
  if (held) keepFocus();
  clearHighlight(); // cards keep their elements: a hint of another version must go
  if (hintShown && hints && hints.version === game.version) highlight(hintShown);
  schedulePrepare();
  return tableau;
}

// The card, stock or control the player was on may be gone or disabled now (the game over,
// here or on another device: its cards are no longer buttons, Resign and Undo are disabled), and
// the focus would fall back to the top of the page. It goes to what the page says next: the
// banner's heading ("You won!", "Game over: resigned"), else a card, else a control.
function keepFocus() {
  const now = document.activeElement;
  if (now && now !== document.body && now.isConnected && !now.disabled && !now.closest("[hidden]")) return;
  const heading = banner.hidden ? null : banner.querySelector("h2");
  const control = Object.values(controls).find((button) => !button.disabled && !button.hidden);
  (heading || board.querySelector("button.card") || control)?.focus({ preventScroll: true });
}

function describeMode(g) {
  const parts = [MODE_LABELS[g.mode] || g.mode];
  if (g.variant && g.variant !== "scorpion") parts.unshift(variantTitle(g.variant));
  if (g.daily_date) parts.push(g.daily_date);
  if (g.difficulty) parts.push(difficultyLabel(g.difficulty));
  if (isPractice(g)) parts.push(gettext("practice: does not rank"));
  if (g.pysol_number !== null && g.pysol_number !== undefined) parts.push(`PySolFC #${g.pysol_number}`);
  else if (g.seed !== null && g.seed !== undefined) parts.push(interpolate(gettext("seed %(seed)s"), { seed: g.seed }, true));
  return parts.join(" · ");
}

// What a finished daily game may say: the deal stays secret until the day after its day is
// over (00:00 UTC two days later), and only the first attempt of the day ranks (docs/api.md,
// "The daily challenge").
function dailyNote() {
  if (game.mode !== "daily") return "";
  const parts = [];
  if (isPractice(game)) parts.push(gettext("This was a practice attempt: it does not rank."));
  else parts.push(gettext("This was your ranked attempt of the day."));
  if (!game.code) {
    parts.push(interpolate(gettext("The deal stays secret until %(day)s 00:00 UTC."), { day: revealDate(game.daily_date) }, true));
  }
  return h("p", { class: "daily-note" }, parts.join(" "));
}

// The date two days after a YYYY-MM-DD date (the day the deal is shown), as YYYY-MM-DD.
function revealDate(day) {
  const moment = new Date(`${day}T00:00:00Z`);
  moment.setUTCDate(moment.getUTCDate() + 2);
  return moment.toISOString().slice(0, 10);
}

function againLabel() {
  return game.mode === "daily" ? gettext("Practice this deal") : gettext("Play this deal again");
}

// A game left for another (restarted, or a new game of its kind started, here or on another
// device) leads to the game that took its place while that one is in play: "New game" or
// "Play this deal again" would in turn abandon it, and with it the moves made on the other
// device. One game of a mode and variant is in play at a time, so it is the newest of them.
let successor = { of: null, game: null };

async function findSuccessor(left) {
  successor = { of: left.id, game: null };
  let next = null;
  try {
    const page = await games.list({ mode: left.mode, variant: left.variant || "scorpion", page_size: 5 });
    next = page.results.find((g) => g.id !== left.id && playable(g)) || null;
  } catch {
    return; // the banner keeps its other ways on
  }
  if (!next || successor.of !== left.id || game?.id !== left.id) return;
  successor.game = next;
  renderBanner();
  announce(`${successorNote(next)} ${gettext("Continue it with “Continue the new game”.")}`);
}

function successorNote(next) {
  return next.restarted_from === game.id
    ? gettext("This deal was restarted: the new game is in play.")
    : gettext("A new game of this kind is in play.");
}

function renderBanner() {
  const status = game.status;
  banner.className = `banner ${status}`;
  if (status === "won") {
    redraw(
      banner,
      h("h2", { tabindex: "-1" }, gettext("You won!")),
      h(
        "p",
        {},
        interpolate(
          runsToCollect(game) === 8
            ? gettext("All eight runs collected in %(moves)s moves and %(time)s.")
            : gettext("All four suits collected in %(moves)s moves and %(time)s."),
          { moves: game.moves, time: formatDuration(game.elapsed_seconds) },
          true,
        ),
      ),
      dailyNote(),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", class: "primary", onclick: newGame }, gettext("New game")),
        h("a", { class: "button", href: `/history/${game.id}/` }, gettext("Replay this game")),
        h("a", { class: "button", href: "/stats/" }, gettext("Your statistics")),
      ),
    );
    showWinResult(banner, game); // the win moment (win.js)
  } else if (status === "stuck") {
    redraw(
      banner,
      h("h2", { tabindex: "-1" }, gettext("No moves available")),
      h("p", {}, gettext("Undo to try another way, restart the deal, or resign.")),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", class: "primary", onclick: () => command({ type: "undo" }) }, gettext("Undo")),
        h("button", { type: "button", onclick: restart }, gettext("Restart")),
        h("button", { type: "button", onclick: resign }, gettext("Resign")),
      ),
    );
  } else if (status === "resigned" || status === "abandoned") {
    if (status === "abandoned" && successor.of !== game.id) findSuccessor(game);
    const next = status === "abandoned" && successor.of === game.id ? successor.game : null;
    redraw(
      banner,
      h("h2", { tabindex: "-1" }, status === "resigned" ? gettext("Game over: resigned") : gettext("Game over: left for a new game")),
      next ? h("p", { class: "successor" }, successorNote(next)) : "",
      dailyNote(),
      h(
        "div",
        { class: "actions" },
        next
          ? h("a", { class: "button primary", href: `/play/${next.id}/` }, gettext("Continue the new game"))
          : "",
        h("button", { type: "button", class: next ? null : "primary", onclick: newGame }, gettext("New game")),
        h("button", { type: "button", onclick: restart }, againLabel()),
        h("a", { class: "button", href: `/history/${game.id}/` }, gettext("Replay this game")),
      ),
    );
  } else {
    redraw(banner);
  }
  const wasHidden = banner.hidden;
  banner.hidden = status === "playing";
  if (wasHidden && !banner.hidden && banner.dataset.shownFor !== `${game.id}:${status}`) {
    banner.dataset.shownFor = `${game.id}:${status}`;
    announce(banner.querySelector("h2").textContent + ". " + (banner.querySelector("p")?.textContent || ""));
  }
}

function elapsedSeconds() {
  if (!game || !game.started_at) return 0;
  if (finished(game)) return game.elapsed_seconds ?? 0;
  return (serverNow() - Date.parse(game.started_at)) / 1000;
}

function tick() {
  if (game) timerOut.textContent = formatDuration(elapsedSeconds());
}

function setGame(next) {
  const { event, ...rest } = next;
  // Answers and stream events can cross: an older version never replaces a newer one.
  if (game && rest.id === game.id && rest.version < game.version) return event;
  if (!game || rest.version !== game.version) {
    hints = null;
    hintIndex = -1;
    hintShown = null;
    // A hint is about the table it was given for: once that changed (the move played, the
    // game over), its words would name a move that is gone.
    hideToast(hintMessage);
  }
  game = rest;
  showRules(game);
  render();
  return event;
}

// The help names the variant being played and says its rules.
function showRules(g) {
  const rules = document.getElementById("rules");
  if (!rules) return;
  const variant = g.variant || "scorpion";
  rules.textContent = variantRules(variant) || variantRules("scorpion");
  const title = document.getElementById("rules-title");
  if (title) title.textContent = interpolate(gettext("How to play %(game)s"), { game: variantTitle(variant) }, true);
}

// --- talking to the server ---

async function load({ quiet = false } = {}) {
  try {
    const fresh = await games.get(gameId);
    if (game && fresh.version > game.version && !quiet) {
      toast(gettext("This game was played elsewhere meanwhile: showing its current position."));
    }
    if (!game || fresh.version !== game.version || fresh.status !== game.status) setGame(fresh);
    followGame();
  } catch (error) {
    if (!game) {
      if (error.status === 404) showNoSuchGame(board);
      else board.replaceChildren(h("p", { class: "error", role: "alert" }, error.detail));
      for (const control of Object.values(controls)) control.disabled = true;
    } else {
      toast(error.detail, { kind: "error" });
    }
  }
}

// --- the live stream ---

function followGame() {
  if (live || !game || finished(game)) return;
  live = follow(
    () => `/api/v1/games/${gameId}/stream/?since=${game.version}`,
    {
      command: arrive,
      resync: arrive,
      end: (data) => {
        live?.close();
        live = null;
        if (data?.status === "gone") gone();
      },
    },
    {
      // Live once the server holds the stream (it subscribes before it answers), not when
      // the browser merely asked for it: what happens from then on reaches this page.
      onOpen: () => {
        board.dataset.live = "true";
      },
    },
  );
}

// The player deleted their games (on the account page, maybe on another device): the table
// would refuse every move with "No such game", so it gives way to the reason.
function gone() {
  game = null;
  predictions = [];
  board.dataset.gone = "true";
  board.replaceChildren(
    h("p", { class: "error", role: "alert" }, `${gettext("This game no longer exists: your games were deleted.")} `),
    h("a", { class: "button primary", href: "/" }, gettext("To the lobby")),
  );
  banner.hidden = true;
  for (const control of Object.values(controls)) control.disabled = true;
  movesOut.textContent = "–";
}

// A command accepted elsewhere (or this page's own, echoed by the stream: its version is then
// already on the table and it is skipped).
function arrive(data) {
  if (!game || data.id !== game.id || data.version <= game.version) return;
  if (pending) {
    arrived = data; // drawn once this page's own command is answered, if still newer
    return;
  }
  const event = setGame(data);
  announce(
    interpolate(gettext("Played on another device: %(what)s."), { what: event ? describeRemote(event) : gettext("the game changed") }, true),
  );
  board.dataset.remoteVersion = String(game.version);
}

function describeRemote(event) {
  if (event.type === "undo") return interpolate(gettext("undone %(what)s"), { what: describeRecord(event.undone) }, true);
  if (event.type === "redo") return interpolate(gettext("redone %(what)s"), { what: describeRecord(event.redone) }, true);
  if (event.type === "resign") return gettext("resigned");
  if (event.type === "abandon") return gettext("left for a new game");
  return describeRecord(event);
}

// Sends one command after those already on their way; resolves true if it was accepted. A
// move that can be foreseen is drawn at once (`from`: where its cards were seen last, for a
// dropped card the place it was dropped).
function command(body, { from = null } = {}) {
  board.dataset.lastCommand = JSON.stringify(body);
  // A refusal the visible table shows is said at once, in the server's words; only when every
  // command on its way is drawn (a deal or an undo still out changes the table unseen).
  const refusal = queued === predictions.length ? knownRefusal(shownGame(), body) : null;
  let refused = "";
  if (refusal) {
    board.dataset.refused = JSON.stringify(refusal);
    refused = refusalText({ problem: { details: refusal } });
    toast(refused, { kind: "error" });
    // Sure only while the game's stream is open: the table is then the game as it is. Without
    // it (a server without streams, a network that dropped it) another device may have moved
    // the game on unseen, so the command goes to the server all the same, which decides.
    if (live?.isOpen() || body.type === "face_down") return Promise.resolve(false);
  }
  if (body.type === "face_down") return Promise.resolve(false);
  let prediction = null;
  if (game && predict(shownGame(), body)) {
    prediction = { body };
    predictions.push(prediction);
    clearHighlight();
    render({ from });
    board.dataset.instant = String(Number(board.dataset.instant || 0) + 1);
  }
  queued += 1;
  const run = queue
    .then(() => send(body, prediction))
    .then((accepted) => {
      if (accepted && refused) hideToast(refused); // played after all: the game had moved on
      return accepted;
    })
    .finally(() => {
      queued -= 1;
    });
  queue = run.catch(() => false);
  return run;
}

// Drops a prediction; true if it was still laid over the table.
function forget(prediction) {
  if (!prediction || !predictions.includes(prediction)) return false;
  predictions = predictions.filter((p) => p !== prediction);
  return true;
}

async function send(body, prediction) {
  if (!game || finished(game)) {
    if (forget(prediction) && game) render();
    return false;
  }
  pending += 1;
  board.setAttribute("aria-busy", "true");
  try {
    return await attempt(body, true, prediction);
  } finally {
    // Drawn again from the server's answer (already drawn on success: drawing is idempotent).
    if (forget(prediction)) render();
    pending -= 1;
    board.setAttribute("aria-busy", pending ? "true" : "false");
    if (!pending && arrived) {
      const held = arrived;
      arrived = null;
      arrive(held);
    }
  }
}

async function attempt(body, mayReplay, prediction = null) {
  try {
    const answer = await games.command(gameId, { ...body, expected_version: game.version });
    forget(prediction);
    const event = setGame(answer);
    const said = describeEventForPlayer(body, event);
    if (said && game.status === "playing") announce(said);
    return true;
  } catch (error) {
    if (error.code === "version_conflict" && error.problem.game) {
      setGame(error.problem.game);
      board.dataset.remoteVersion = String(game.version);
      const why = mayReplay ? staleReason(body) : "";
      if (mayReplay && !why) {
        board.dataset.replayed = String(Number(board.dataset.replayed || 0) + 1);
        return await attempt(body, false, prediction);
      }
      forget(prediction);
      render();
      toast(
        why
          ? interpolate(gettext("The game was played on another device meanwhile: %(why)s."), { why }, true)
          : gettext("The game was played on another device meanwhile."),
      );
    } else if (error.code === "illegal_move" && !mayReplay) {
      forget(prediction);
      render();
      toast(interpolate(gettext("The game was played on another device meanwhile: %(why)s"), { why: refusalText(error) }, true), {
        kind: "error",
      });
    } else if (error.code === "game_finished") {
      forget(prediction);
      await load({ quiet: true });
      toast(refusalText(error), { kind: "error" });
    } else {
      forget(prediction);
      render(); // a refused move glides back
      toast(refusalText(error), { kind: "error" });
    }
    return false;
  }
}

// Why a command made on a position that has since changed is not sent again ("" to send it):
// a card that is no longer face up cannot be played, an undo or redo would now reverse or
// replay another move than the one the player saw, and a deal needs a stock.
function staleReason(body) {
  if (!playable(game)) return interpolate(gettext("it is %(status)s"), { status: (STATUS_LABELS[game.status] || game.status).toLowerCase() }, true);
  if (body.type === "move") {
    const faceUp = game.columns.some((column) => column.cards.includes(body.card));
    if (faceUp) return "";
    if (game.collected.includes(body.card[1])) return interpolate(gettext("%(card)s has been collected"), { card: theCard(body.card) }, true);
    return interpolate(gettext("%(card)s is no longer face up"), { card: theCard(body.card) }, true);
  }
  if (body.type === "deal") {
    if (game.stock) return "";
    return hasStock(game) ? gettext("the stock has already been dealt") : gettext("this game has no stock to deal");
  }
  if (body.type === "resign") return "";
  return body.type === "undo"
    ? gettext("your undo was not applied, so as not to undo another move than the one you saw")
    : gettext("your redo was not applied, so as not to redo another move than the one you saw");
}

// A refused command in words, from the problem's `details` (docs/api.md, "Errors"); the
// server's own words only for a reason this page does not know, with card codes spelt out.
function refusalText(error) {
  const d = error.problem?.details;
  // The sentence with its fields: the cards named in words ("the 5 of spades"), columns as numbers.
  const say = (text) =>
    interpolate(
      text,
      { card: d.card && theCard(d.card), onto: d.onto && theCard(d.onto), column: d.column, onto_column: d.onto_column, to: d.to },
      true,
    );
  const words = d && {
    not_face_up: () => (d.card ? say(gettext("%(card)s is not face up.")) : gettext("That card is not face up yet.")),
    collected: () => say(gettext("%(card)s has already been collected.")),
    no_such_column: () => gettext("There is no such column."),
    already_there: () => say(gettext("%(card)s is already in column %(column)s.")),
    not_a_king: () => say(gettext("Only a king can go to an empty column, not %(card)s.")),
    onto_not_exposed: () =>
      d.onto_state === "covered"
        ? say(gettext("%(card)s can only go on %(onto)s, which is covered by other cards in column %(onto_column)s."))
        : say(gettext("%(card)s can only go on %(onto)s, which is not face up yet.")),
    onto_own_column: () => say(gettext("%(card)s can only go on %(onto)s, which lies above it in its own column.")),
    wrong_column: () => say(gettext("%(card)s can only go on %(onto)s, in column %(onto_column)s.")),
    column_not_empty: () => say(gettext("A king can only go to an empty column, and column %(to)s is not empty.")),
    already_at_bottom: () => say(gettext("%(card)s already lies at the bottom of its column.")),
    no_empty_column: () => say(gettext("There is no empty column for %(card)s.")),
    stock_empty: () => (hasStock(game) ? gettext("The stock has already been dealt.") : gettext("This game has no stock to deal.")),
  }[d.reason];
  const text = words ? words() : spellCards(humanColumns(error.detail || gettext("That did not work.")));
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// "frees 6C" -> "frees the 6 of clubs": card codes in server text, spelt out.
function spellCards(text) {
  return text.replace(/\b([A2-9TJQK])([SHDC])\b/g, (code) => theCard(code));
}

function describeEventForPlayer(body, event) {
  if (!event) return "";
  if (body.type === "undo") return interpolate(gettext("Undone: %(what)s"), { what: describeRecord(event.undone) }, true);
  if (body.type === "redo") return interpolate(gettext("Redone: %(what)s"), { what: describeRecord(event.redone) }, true);
  return describeRecord(event);
}

// A game started of the same kind as the one that took this one's place (in play, maybe on
// another device) abandons that one: asked first, as leaving a game in play is.
async function mayLeaveSuccessor(mode) {
  const next = successor.of === game?.id ? successor.game : null;
  if (!next || next.mode !== mode) return true;
  return confirmDialog(
    gettext("The new game in play (Continue the new game) would be abandoned, and count as played, not won once it has a move. Start another anyway?"),
    gettext("Start another"),
  );
}

async function newGame() {
  if (!(await mayLeaveSuccessor("random"))) return;
  try {
    // Another deal of the same game of the family: after a Wasp game, a new Wasp game (the
    // lobby picks another variant).
    const variant = game?.variant && game.variant !== "scorpion" ? { variant: game.variant } : {};
    const created = await games.create(variant);
    location.assign(`/play/${created.id}/`);
  } catch (error) {
    toast(error.detail, { kind: "error" });
  }
}

async function restart() {
  // Leaving a game after a move counts it as played and not won (docs/api.md, "Statistics").
  const question = gettext("Restart this deal? This attempt ends and counts as played, not won.");
  if (!finished(game) && game.started_at && !(await confirmDialog(question, gettext("Restart")))) return;
  if (finished(game) && !(await mayLeaveSuccessor(game.mode))) return;
  controls.restart.disabled = true;
  try {
    const created = await games.restart(gameId);
    location.assign(`/play/${created.id}/`);
  } catch (error) {
    controls.restart.disabled = false;
    toast(error.detail, { kind: "error" });
  }
}

async function resign() {
  if (await confirmDialog(gettext("Resign this game? It ends here and counts as a loss."), gettext("Resign"))) {
    await command({ type: "resign" });
  }
}

// --- hints ---

// The hint reasons name columns as the API does (0 to 6); the table shows 1 to 7.
function humanColumns(text) {
  return text.replace(/\b(columns?) ((?:\d+(?:, | and )?)+)/g, (_, word, numbers) =>
    `${word} ${numbers.replace(/\d+/g, (n) => String(Number(n) + 1))}`,
  );
}

async function hint() {
  if (!game || !playable(game)) return;
  try {
    if (!hints || hints.version !== game.version) {
      const version = game.version;
      const answer = await games.hints(gameId);
      if (!game || game.version !== version) return; // the table changed meanwhile
      hints = answer;
      hintIndex = -1;
    }
  } catch (error) {
    toast(error.detail, { kind: "error" });
    return;
  }
  const options = [...hints.moves.map((m) => ({ kind: "move", ...m }))];
  if (hints.deal) options.push({ kind: "deal", reason: gettext("deal the stock cards") });
  if (!options.length) {
    toast(gettext("No moves available."));
    return;
  }
  hintIndex = (hintIndex + 1) % options.length;
  hintShown = options[hintIndex];
  highlight(hintShown);
  const where =
    options.length > 1
      ? interpolate(gettext("Hint %(n)s of %(count)s: "), { n: hintIndex + 1, count: options.length }, true)
      : gettext("Hint: ");
  const shown = hintShown;
  hintMessage = where + hintText(shown);
  toast(hintMessage, { ms: 6000 });
  // The winning chance follows when the server has it (a worker computes it): the hint itself
  // never waits for it.
  const chance = await chanceText(shown);
  if (chance && hintShown === shown) {
    hintMessage = where + hintText(shown) + chance;
    toast(hintMessage, { ms: 6000 });
  }
}

// --- winning chances (GET/POST .../chances/): estimated by a worker from what the player sees ---

function schedulePrepare() {
  clearTimeout(idleTimer);
  if (!game || !playable(game) || chancesRefused || (chances && chances.version === game.version)) return;
  const version = game.version;
  idleTimer = setTimeout(async () => {
    if (!game || game.version !== version || !playable(game)) return;
    try {
      await games.prepareChances(gameId);
    } catch (error) {
      // Only a head start: a hint asks again (unless the variant has no chances at all).
      if (error?.code === "variant_not_analysed") chancesRefused = true;
    }
  }, PAUSE_MS);
}

async function chanceText(option) {
  const version = game.version;
  if (chancesRefused) return "";
  if (!chances || chances.version !== version || chances.status !== "ready") {
    try {
      const answer = await games.chances(gameId);
      if (!game || game.version !== version) return "";
      chances = answer;
    } catch (error) {
      if (error?.code === "variant_not_analysed") chancesRefused = true;
      return "";
    }
  }
  if (chances.status !== "ready") return ` ${gettext("Winning chances: still computing, ask again in a moment.")}`;
  const found = chances.actions.find((action) =>
    option.kind === "deal"
      ? action.type === "deal"
      : action.card === option.card &&
        action.to === option.to &&
        // Two copies of a card (Double Scorpion) are told apart by their column; chances
        // stored before "from" was added lack it.
        (action.from === undefined || option.from === undefined || action.from === option.from),
  );
  if (!found) return "";
  const percent = (value) => `${Math.round(100 * value)}%`;
  // The chance of a player who could see every card (docs/api.md): said so, with what that
  // means a tap away (#chance-help, below the table).
  const help = document.getElementById("chance-help");
  if (help) help.hidden = false;
  const figures = { chance: percent(found.chance), low: percent(found.low), high: percent(found.high), samples: found.samples };
  return ` ${interpolate(gettext("Chance of winning after it, if every card were known: %(chance)s (%(low)s–%(high)s, %(samples)s deals)."), figures, true)}`;
}

// "columns 1, 2 and 3": where a stock of n cards is dealt (Double Scorpion's four: 1 to 4).
function stockColumns(count) {
  const numbers = Array.from({ length: Math.max(count, 1) }, (_, i) => String(i + 1));
  const last = numbers.pop();
  return numbers.length
    ? interpolate(gettext("columns %(numbers)s and %(last)s"), { numbers: numbers.join(", "), last }, true)
    : interpolate(gettext("column %(n)s"), { n: last }, true);
}

function hintText(option) {
  if (option.kind === "deal") return interpolate(gettext("deal the stock onto %(columns)s."), { columns: stockColumns(game.stock) }, true);
  const column = game.columns[option.to];
  const onto = column.cards.length
    ? interpolate(gettext("onto %(card)s"), { card: theCard(column.cards[column.cards.length - 1]) }, true)
    : interpolate(gettext("to the empty column %(n)s"), { n: option.to + 1 }, true);
  // The reason's first part often restates the move itself; the rest says why it is good.
  const why = option.details
    ? option.details.map(hintReason).filter(Boolean).join(gettext(", and "))
    : (option.reason || "")
        .split("; ")
        .filter((part) => part && !/^(moves|puts) /.test(part))
        .map((part) => spellCards(humanColumns(part)))
        .join("; ");
  const move = interpolate(gettext("move %(card)s %(onto)s"), { card: theCard(option.card), onto }, true);
  return why ? interpolate(gettext("%(move)s: it %(why)s."), { move, why }, true) : `${move}.`;
}

// One part of a hint's reason, from its details (columns 1 to 7); "" for a part that only
// restates the move.
function hintReason(detail) {
  switch (detail.reason) {
    case "completes_run":
      return interpolate(gettext("completes the run of %(suit)s"), { suit: suitName(detail.suit) }, true);
    case "turns_face_up":
      return interpolate(gettext("turns up the face-down card in column %(n)s"), { n: detail.column }, true);
    case "empties_column":
      return interpolate(gettext("empties column %(n)s"), { n: detail.column }, true);
    case "frees":
      return interpolate(gettext("frees %(card)s, which can then move"), { card: theCard(detail.card) }, true);
    default:
      return "";
  }
}

function clearHighlight() {
  for (const element of document.querySelectorAll(".hint, .hint-target, .hint-carried")) {
    element.classList.remove("hint", "hint-target", "hint-carried");
  }
}

function highlight(option) {
  clearHighlight();
  if (option.kind === "deal") {
    board.querySelector("#stock")?.classList.add("hint");
    controls.deal.classList.add("hint");
    return;
  }
  const where = option.from !== undefined && option.from !== null ? `[data-column="${option.from}"]` : "";
  const copies = board.querySelectorAll(`.card[data-card="${option.card}"]${where}`);
  // Two copies in one column (two decks): the hint says which, the lower or the upper one.
  const card = option.copy === "lower" ? copies[0] : copies[copies.length - 1];
  card?.classList.add("hint");
  // The cards lying on it go along: they light up with it and stay over it, never hidden.
  for (let next = card?.nextElementSibling; next; next = next.nextElementSibling) {
    if (next.classList.contains("card")) next.classList.add("hint-carried");
  }
  const column = board.querySelector(`.column[data-column="${option.to}"]`);
  const cards = column ? column.querySelectorAll(".card") : [];
  const target = cards.length ? cards[cards.length - 1] : column?.querySelector(".empty-slot");
  target?.classList.add("hint-target");
}

// --- tapping and dragging ---

// A tap is played when the pointer comes up on the card it went down on without travelling;
// a drag once it travels. Browsers' own clicks on cards are not used for pointers (a touch
// click can go missing right after a drag); only the keyboard's clicks (Enter, Space) are.
let drag = null; // {pointerId, card, from, startX, startY, active, layer}

// A move of a card element: the card, and in the other variants than Scorpion the place it is
// picked from (`from`: its column, or past the last column for a reserve card), which tells
// the two copies of a two-deck card apart; where both lie face up in that column, which one
// (`copy`: either may move, docs/rules.md).
function moveBody(card, to) {
  const body = { type: "move", card: card.dataset.card };
  if (to !== undefined && to !== null) body.to = to;
  if (game?.variant && game.variant !== "scorpion") {
    body.from = Number(card.dataset.column);
    const twins = [...board.querySelectorAll(`.card[data-card="${card.dataset.card}"][data-column="${card.dataset.column}"]`)];
    if (twins.length > 1) body.copy = twins[twins.length - 1] === card ? "upper" : "lower";
  }
  return body;
}

function cardButton(target) {
  const card = target instanceof Element ? target.closest("button.card[data-card]") : null;
  return card && board.contains(card) ? card : null;
}

function stockButton(target) {
  const stock = target instanceof Element ? target.closest("button#stock") : null;
  return stock && board.contains(stock) ? stock : null;
}

board.addEventListener("click", (event) => {
  // A face-down card, or the stock's place once dealt: not buttons, but a tap on them is
  // answered at once (knownRefusal).
  const still = event.target instanceof Element ? event.target.closest(".tableau .card.back, div#stock") : null;
  if (still && game && playable(game)) {
    command(still.id === "stock" ? { type: "deal" } : { type: "face_down" });
    return;
  }
  if (event.detail !== 0) return; // a pointer's click: already played on pointerup
  if (stockButton(event.target)) {
    command({ type: "deal" });
    return;
  }
  const card = cardButton(event.target);
  if (card) command(moveBody(card));
});

board.addEventListener("pointerdown", (event) => {
  if (event.button !== 0 || !game || !playable(game)) return;
  if (drag) {
    // A press whose release never came (the window lost focus, say): forget it.
    if (drag.active) snapBack(drag);
    markDropTarget(null);
    drag = null;
  }
  const stock = stockButton(event.target);
  const card = cardButton(event.target);
  if (!stock && !card) return;
  drag = {
    pointerId: event.pointerId,
    card: card ? card.dataset.card : null, // null: the stock, which only taps
    element: card,
    from: card ? Number(card.dataset.column) : null,
    startX: event.clientX,
    startY: event.clientY,
    active: false,
  };
});

document.addEventListener("pointermove", (event) => {
  if (!drag || event.pointerId !== drag.pointerId) return;
  const dx = event.clientX - drag.startX;
  const dy = event.clientY - drag.startY;
  if (!drag.active) {
    if (Math.hypot(dx, dy) < 6) return;
    if (!drag.card || !liftStack()) {
      drag = null;
      return;
    }
  }
  event.preventDefault();
  drag.layer.style.transform = `translate(${dx}px, ${dy}px)`;
  markDropTarget(columnAt(event.clientX, event.clientY));
});

document.addEventListener("pointerup", async (event) => {
  if (!drag || event.pointerId !== drag.pointerId) return;
  const current = drag;
  drag = null;
  if (!current.active) {
    // A tap: the stock deals; a card goes where the server finds it a place.
    command(current.card ? moveBody(current.element) : { type: "deal" });
    return;
  }
  markDropTarget(null);
  const to = columnAt(event.clientX, event.clientY);
  if (to === null || to === current.from) {
    snapBack(current);
    return;
  }
  const body = moveBody(current.element, to);
  if (game && predict(shownGame(), body)) {
    // Drawn in its new place at once, gliding from where it was dropped.
    const from = new Map();
    for (const clone of current.layer.querySelectorAll(".card[data-card]")) {
      from.set(clone.dataset.card, clone.getBoundingClientRect());
    }
    dropLayer(current);
    command(body, { from });
  } else {
    snapBack(current); // the server says why
    command(body);
  }
});

document.addEventListener("pointercancel", (event) => {
  if (!drag || event.pointerId !== drag.pointerId) return;
  const current = drag;
  drag = null;
  if (current.active) {
    markDropTarget(null);
    snapBack(current);
  }
});

// Moves the dragged card and everything on it into a floating layer that follows the pointer.
function liftStack() {
  const card = drag.element?.isConnected
    ? drag.element
    : board.querySelector(`button.card[data-card="${drag.card}"]`);
  if (!card) return false;
  const stack = [card];
  // The cards on it go along; a reserve card goes alone.
  const inColumn = card.parentElement?.classList.contains("column");
  for (let next = card.nextElementSibling; inColumn && next; next = next.nextElementSibling) {
    if (next.classList.contains("card")) stack.push(next);
  }
  const first = card.getBoundingClientRect();
  const layer = h("div", { class: "drag-layer", "aria-hidden": "true" });
  layer.style.left = `${first.left}px`;
  layer.style.top = `${first.top}px`;
  for (const element of stack) {
    const rect = element.getBoundingClientRect();
    const clone = element.cloneNode(true);
    clone.removeAttribute("id");
    clone.style.position = "absolute";
    clone.style.margin = "0";
    clone.style.left = "0";
    clone.style.top = `${rect.top - first.top}px`;
    clone.style.width = `${rect.width}px`;
    clone.style.height = `${rect.height}px`;
    layer.append(clone);
    element.classList.add("lifted");
  }
  document.body.append(layer);
  drag.active = true;
  drag.layer = layer;
  clearHighlight();
  return true;
}

function dropLayer(current) {
  current.layer?.remove();
  for (const element of board.querySelectorAll(".lifted")) element.classList.remove("lifted");
}

// An illegal drop: the cards glide back where they came from.
function snapBack(current) {
  const layer = current.layer;
  if (!layer) return;
  layer.classList.add("returning");
  layer.style.transform = "translate(0px, 0px)";
  const done = () => dropLayer(current);
  layer.addEventListener("transitionend", done, { once: true });
  setTimeout(done, 300);
}

// The column under the pointer: anywhere in its strip, below the top row.
function columnAt(x, y) {
  const tableau = board.querySelector(".tableau");
  if (!tableau) return null;
  const area = tableau.getBoundingClientRect();
  if (y < area.top - 24) return null;
  for (const column of tableau.querySelectorAll(".column")) {
    const rect = column.getBoundingClientRect();
    const gap = 4;
    if (x >= rect.left - gap && x <= rect.right + gap) return Number(column.dataset.column);
  }
  return null;
}

function markDropTarget(index) {
  for (const column of board.querySelectorAll(".column.drop-target")) {
    column.classList.remove("drop-target");
  }
  if (index !== null && drag && index !== drag.from) {
    board.querySelector(`.column[data-column="${index}"]`)?.classList.add("drop-target");
  }
}

// --- controls and keys ---

controls.deal.addEventListener("click", () => command({ type: "deal" }));
controls.undo.addEventListener("click", () => command({ type: "undo" }));
controls.redo.addEventListener("click", () => command({ type: "redo" }));
controls.hint.addEventListener("click", hint);
controls.restart.addEventListener("click", restart);
controls.resign.addEventListener("click", resign);

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  const target = event.target;
  if (target instanceof Element && target.closest("input, textarea, select, dialog")) return;
  const key = event.key;
  if (key === "z" && !event.shiftKey) {
    event.preventDefault();
    if (game?.can_undo) command({ type: "undo" });
  } else if (key === "y" || key === "Y" || (key === "Z" && event.shiftKey)) {
    event.preventDefault();
    if (game?.can_redo) command({ type: "redo" });
  } else if (key === "h") {
    event.preventDefault();
    hint();
  } else if (key === "d") {
    event.preventDefault();
    if (game && !hasStock(game)) toast(gettext("This game has no stock to deal."));
    else if (game && playable(game)) command({ type: "deal" });
  } else if (key === "Escape") {
    hintShown = null;
    clearHighlight();
  } else if (key.startsWith("Arrow")) {
    if (moveFocus(key, target)) event.preventDefault();
  } else if (/^[0-9]$/.test(key)) {
    // With a card focused, a digit moves it to that column (the keyboard's drag and drop);
    // 0 is the tenth column of the ten-column variants.
    const card = cardButton(target);
    const to = key === "0" ? 9 : Number(key) - 1;
    if (card && game && to < game.columns.length) {
      event.preventDefault();
      command(moveBody(card, to));
    }
  }
});

// The arrow keys walk the table: left and right to the neighbouring column that holds a card
// to play (its card at the same height, or the nearest), up and down along the column's face-up
// cards. From anywhere else on the page, an arrow starts at the first column.
function moveFocus(key, target) {
  const piles = [...board.querySelectorAll(".tableau .column")].map((pile) => [
    ...pile.querySelectorAll("button.card"),
  ]);
  if (!piles.some((cards) => cards.length)) return false;
  const card = cardButton(target);
  if (!card) {
    if (target instanceof Element && target.closest("input, button, a, select, summary")) return false;
    const first = piles.find((cards) => cards.length);
    first[first.length - 1].focus();
    return true;
  }
  const c = Number(card.dataset.column);
  const i = piles[c].indexOf(card);
  let next = null;
  if (key === "ArrowUp") next = piles[c][i - 1];
  else if (key === "ArrowDown") next = piles[c][i + 1];
  else if (key === "ArrowLeft" || key === "ArrowRight") {
    const step = key === "ArrowLeft" ? -1 : 1;
    for (let k = c + step; k >= 0 && k < piles.length && !next; k += step) {
      if (piles[k].length) next = piles[k][Math.min(i, piles[k].length - 1)];
    }
  }
  if (next) {
    next.focus();
    next.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
  return true;
}

wakeOnReturn(
  () => live,
  () => {
    if (game && !pending) load();
  },
);
window.addEventListener("resize", () => layoutTable(board));
setInterval(tick, 1000);

wireHeader();
load();
