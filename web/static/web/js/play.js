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
import { describeRecord, hasStock, layoutTable, renderTable } from "scorpion/cards.js";
import { follow, wakeOnReturn } from "scorpion/live.js";
import { describeMode, newGame, renderBanner, resign, restart, wireBanner } from "scorpion/play-banner.js";
import { clearHighlight, forgetHints, relightHint, schedulePrepare, wireHints } from "scorpion/play-hints.js";
import { wireInput } from "scorpion/play-input.js";
import {
  isOffline,
  loadOutbox,
  loadSnapshot,
  networkBack,
  networkFailed,
  networkWorked,
  newKey,
  onNetworkChange,
  keptGamesForgotten,
  saveOutbox,
  saveSnapshot,
} from "scorpion/play-outbox.js";
import { finished, knownRefusal, playable, predict, refusalText, staleReason } from "scorpion/play-rules.js";
import { announce, formatDuration, h, hideToast, noticeOnNextPage, showNoSuchGame, toast, variantRules, variantTitle, wireHeader } from "scorpion/ui.js";

const page = document.getElementById("play");
const gameId = page.dataset.gameId;
const board = document.getElementById("board");
const banner = document.getElementById("banner");
const offlineBanner = document.getElementById("offline-banner");
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
// Commands made here and not yet answered, in order ({key, body, expected}): drawn over the
// server's game as far as the page can foresee them, kept in localStorage (play-outbox.js).
let outbox = loadOutbox(gameId);
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
// A command whose answer did not come for want of a network is tried again after this long,
// doubling up to the last (at once when the browser says the network is back).
const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30000;

// --- drawing ---

// The table as shown: the server's game with the commands still on their way laid over it, as
// far as the page can foresee them: after a command it cannot (a deal, an undo), the rest wait
// for the server's answer. `drawn`: how many are laid over it.
function shownTable() {
  let shown = game;
  let drawn = 0;
  for (const entry of outbox) {
    const next = predict(shown, entry.body);
    if (!next) break;
    shown = next;
    drawn += 1;
  }
  return { shown, drawn };
}

function shownGame() {
  return shownTable().shown;
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
  const { shown, drawn } = shownTable();
  const tableau = renderTable(board, shown, { interactive: playable(game) });
  animateFrom(before);
  board.dataset.predicted = String(drawn);
  showWaiting(shown, drawn);
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
  relightHint();
  schedulePrepare();
  showNetwork();
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
  if (!game || rest.version !== game.version) forgetHints();
  game = rest;
  saveSnapshot(game);
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
    networkWorked();
    if (game && fresh.version > game.version && !quiet) {
      toast(gettext("This game was played elsewhere meanwhile: showing its current position."));
    }
    if (!game || fresh.version !== game.version || fresh.status !== game.status) setGame(fresh);
    followGame();
  } catch (error) {
    const kept = error.status === 0 ? loadSnapshot(gameId) : null;
    if (error.status === 0) networkFailed();
    if (!game && kept) {
      setGame(kept); // opened without a network: the table as the server last sent it
    } else if (!game) {
      if (error.status === 404) showNoSuchGame(board);
      else board.replaceChildren(h("p", { class: "error", role: "alert" }, error.detail));
      for (const control of Object.values(controls)) control.disabled = true;
    } else if (error.status !== 0) {
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
  outbox = [];
  saveOutbox(gameId, outbox);
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
// dropped card the place it was dropped). Without a network it waits in the outbox, drawn if
// foreseen, marked as waiting otherwise, and goes when the network is back.
function command(body, { from = null } = {}) {
  board.dataset.lastCommand = JSON.stringify(body);
  const { shown, drawn } = shownTable();
  const allDrawn = drawn === outbox.length;
  // A refusal the visible table shows is said at once, in the server's words; only when every
  // command on its way is drawn (a deal or an undo still out changes the table unseen).
  const refusal = allDrawn && game ? knownRefusal(shown, body) : null;
  let refused = "";
  if (refusal) {
    board.dataset.refused = JSON.stringify(refusal);
    refused = refusalText({ problem: { details: refusal } }, game);
    toast(refused, { kind: "error" });
    // Sure only while the game's stream is open: the table is then the game as it is. Without
    // it (a server without streams, a network that dropped it) another device may have moved
    // the game on unseen, so the command goes to the server all the same, which decides;
    // offline, the table shown is the best the page knows, and a refused tap is not kept.
    if (live?.isOpen() || isOffline() || body.type === "face_down") return Promise.resolve(false);
  }
  if (body.type === "face_down") return Promise.resolve(false);
  if (isOffline() && !allDrawn) {
    // A deal or an undo waits for the server: what follows it cannot be drawn, so it is not
    // taken either (the player would be tapping a table that is not the game's).
    toast(gettext("Offline: this waits until the command before it reaches the server."), { kind: "error" });
    return Promise.resolve(false);
  }
  const entry = { key: newKey(), body, held: isOffline() };
  outbox.push(entry);
  saveOutbox(gameId, outbox);
  if (allDrawn && game && predict(shown, body)) {
    clearHighlight();
    render({ from });
    board.dataset.instant = String(Number(board.dataset.instant || 0) + 1);
  } else if (isOffline()) {
    render(); // the deal, the undo: marked as waiting
  }
  return enqueue(entry, refused);
}

function enqueue(entry, refused = "") {
  const run = queue.then(() => send(entry)).then((accepted) => {
    if (accepted && refused) hideToast(refused); // played after all: the game had moved on
    return accepted;
  });
  queue = run.catch(() => false);
  return run;
}

// Takes an answered command out of the outbox; true if it was drawn over the table.
function settle(entry) {
  const index = outbox.indexOf(entry);
  if (index < 0) return false;
  const drawn = index < shownTable().drawn;
  outbox.splice(index, 1);
  saveOutbox(gameId, outbox);
  return drawn;
}

async function send(entry) {
  if (!game || finished(game)) {
    if (settle(entry) && game) render();
    showNetwork();
    return false;
  }
  pending += 1;
  board.setAttribute("aria-busy", "true");
  try {
    return await attempt(entry, true);
  } finally {
    // Drawn again from the server's answer (already drawn on success: drawing is idempotent).
    if (settle(entry)) render();
    pending -= 1;
    board.setAttribute("aria-busy", pending ? "true" : "false");
    showNetwork();
    if (!pending && outbox.length === 0 && caughtUp) reconcile();
    if (!pending && arrived) {
      const held = arrived;
      arrived = null;
      arrive(held);
    }
  }
}

// Sends `entry` until the server answers: a request that met no network is sent again, the
// same request with the same key, once the network is back (the server applies a key once).
async function post(entry) {
  let wait = FIRST_RETRY_MS / 2; // doubled before the first retry
  // Held for the network (made offline, or its request met none): a log-out in another tab
  // meanwhile drops it. A command sent at once simply meets the log-out's 401.
  let held = Boolean(entry.held) || isOffline();
  for (;;) {
    if (isOffline()) {
      held = true;
      await networkBack(wait);
    }
    if (held && keptGamesForgotten()) throw SESSION_ENDED;
    if (entry.expected === undefined) {
      entry.expected = game.version;
      saveOutbox(gameId, outbox);
    }
    try {
      const answer = await games.command(gameId, { ...entry.body, expected_version: entry.expected }, entry.key);
      networkWorked();
      return answer;
    } catch (error) {
      if (error.status !== 0) {
        networkWorked();
        throw error;
      }
      networkFailed();
      caughtUp = true; // once the outbox is empty again, the page reads the game afresh
      wait = Math.min(LAST_RETRY_MS, wait * 2);
    }
  }
}

// Another tab of this browser logged out or deleted the account while commands waited here
// (play-outbox.js `keptGamesForgotten`): they were that session's, so none is sent, whoever
// is signed in by now. The page is drawn again for whoever that is (the log-in form, most
// often), which says how many moves were dropped.
const SESSION_ENDED = { code: "session_ended" };

function dropOutbox() {
  const count = outbox.length;
  outbox = [];
  if (!count) return;
  noticeOnNextPage(
    interpolate(
      ngettext(
        "Logged out in another tab: the move made here without a network was not sent.",
        "Logged out in another tab: the %(n)s moves made here without a network were not sent.",
        count,
      ),
      { n: count },
      true,
    ),
  );
  location.reload();
}

async function attempt(entry, mayReplay) {
  const body = entry.body;
  try {
    const answer = await post(entry);
    settle(entry);
    const event = setGame(answer);
    const said = describeEventForPlayer(body, event);
    if (said && game.status === "playing") announce(said);
    return true;
  } catch (error) {
    if (error === SESSION_ENDED) {
      dropOutbox();
    } else if (error.code === "version_conflict" && error.problem.game) {
      setGame(error.problem.game);
      board.dataset.remoteVersion = String(game.version);
      const why = mayReplay ? staleReason(body, game) : "";
      if (mayReplay && !why) {
        board.dataset.replayed = String(Number(board.dataset.replayed || 0) + 1);
        // Nothing was applied: the same key, against the version now shown.
        entry.expected = undefined;
        return await attempt(entry, false);
      }
      settle(entry);
      render();
      toast(
        why
          ? interpolate(gettext("The game was played on another device meanwhile: %(why)s."), { why }, true)
          : gettext("The game was played on another device meanwhile."),
      );
    } else if (error.code === "illegal_move" && !mayReplay) {
      settle(entry);
      render();
      toast(interpolate(gettext("The game was played on another device meanwhile: %(why)s"), { why: refusalText(error, game) }, true), {
        kind: "error",
      });
    } else if (error.code === "game_finished") {
      settle(entry);
      await load({ quiet: true });
      toast(refusalText(error, game), { kind: "error" });
    } else {
      settle(entry);
      render(); // a refused move glides back
      toast(refusalText(error, game), { kind: "error" });
    }
    return false;
  }
}

// --- offline ---

// Set once a command met no network: when the outbox is empty again, the page reads the game
// from the server (the event log is the truth), which also draws what the stream missed.
let caughtUp = false;

function reconcile() {
  caughtUp = false;
  load({ quiet: true });
}

// The offline banner: what waits, and that it goes when the network is back.
function showNetwork() {
  const offline = isOffline();
  if (offline) board.dataset.offline = "true";
  else delete board.dataset.offline;
  if (!offlineBanner) return;
  if (!offlineBanner.dataset.owner) offlineBanner.dataset.owner = "play";
  const count = outbox.length;
  const text = offline
    ? count
      ? interpolate(
          ngettext(
            "Offline: you can go on playing. %(n)s move waits to be sent, in order, when it is back. A deal, a card to turn over, a hint or a new game need the network.",
            "Offline: you can go on playing. %(n)s moves wait to be sent, in order, when it is back. A deal, a card to turn over, a hint or a new game need the network.",
            count,
          ),
          { n: count },
          true,
        )
      : gettext("Offline: you can go on playing. A deal, a card to turn over, a hint or a new game need the network.")
    : count && caughtUp
      ? interpolate(ngettext("Back online: sending %(n)s move…", "Back online: sending %(n)s moves…", count), { n: count }, true)
      : "";
  const wasHidden = offlineBanner.hidden;
  offlineBanner.hidden = !text;
  if (offlineBanner.textContent !== text) offlineBanner.textContent = text;
  if (wasHidden !== offlineBanner.hidden) layoutTable(board); // the table lies below it
  // A hint and a restart need the server: disabled while offline, the banner says why.
  if (game) controls.hint.disabled = offline || !playable(game);
  controls.restart.disabled = offline;
}

// What waits for the server while offline is marked on the table: the stock of a deal not
// sent, the face-down card a move uncovered (it turns over when the server says which it is).
function showWaiting(shown, drawn) {
  for (const element of board.querySelectorAll(".waiting")) {
    element.classList.remove("waiting");
    if (element.classList.contains("back")) element.setAttribute("aria-label", gettext("face-down card"));
  }
  if (!isOffline()) return;
  if (drawn < outbox.length && outbox[drawn].body.type === "deal") board.querySelector("#stock")?.classList.add("waiting");
  shown.columns.forEach((column, c) => {
    if (!column.hidden || column.cards.length) return;
    const backs = board.querySelectorAll(`.column[data-column="${c}"] > .card.back`);
    const back = backs[backs.length - 1];
    back?.classList.add("waiting");
    back?.setAttribute("aria-label", gettext("face-down card, turns over when the network is back"));
  });
}

onNetworkChange(() => {
  if (game) render();
  else showNetwork();
});

function describeEventForPlayer(body, event) {
  if (!event) return "";
  if (body.type === "undo") return interpolate(gettext("Undone: %(what)s"), { what: describeRecord(event.undone) }, true);
  if (body.type === "redo") return interpolate(gettext("Redone: %(what)s"), { what: describeRecord(event.redone) }, true);
  return describeRecord(event);
}


wakeOnReturn(
  () => live,
  () => {
    if (game && !pending) load();
  },
);
window.addEventListener("resize", () => layoutTable(board));
setInterval(tick, 1000);

const context = {
  board,
  banner,
  controls,
  gameId,
  get game() {
    return game;
  },
  shownGame,
  command,
  restart,
  resign,
  newGame,
};
wireBanner(context);
wireHints(context);
wireInput(context);
wireHeader();
load().then(() => {
  // Commands kept from an earlier visit (the page closed or reloaded offline): drawn, and sent
  // in order; one already applied is answered with its first answer (its key), not applied again.
  if (game && outbox.length) {
    caughtUp = true;
    render();
    for (const entry of outbox) enqueue(entry);
  }
  showNetwork();
});
