// Hints on the play page: the best moves (GET .../hints/), lit on the table and said in words
// from their `details`, with the winning chance once the server has it (GET .../chances/,
// asked to prepare after a pause: POST .../chances/).

import { games } from "scorpion/api.js";
import { suitName, theCard } from "scorpion/cards.js";
import { humanColumns, playable, spellCards } from "scorpion/play-rules.js";
import { hideToast, toast } from "scorpion/ui.js";

// The page's table and game: {board, controls, gameId, game} (`game` a getter), set by play.js.
let ctx = null;

export function wireHints(context) {
  ctx = context;
}

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

// A hint is about the table it was given for: once that changed (the move played, the game
// over), its words would name a move that is gone.
export function forgetHints() {
  hints = null;
  hintIndex = -1;
  hintShown = null;
  hideToast(hintMessage);
}

// Escape: the hint's lights go out.
export function dropHint() {
  hintShown = null;
  clearHighlight();
}

// After a drawing: cards keep their elements, so a hint of another version must go, and the
// one for this version lights up again.
export function relightHint() {
  clearHighlight();
  if (hintShown && hints && hints.version === ctx.game.version) highlight(hintShown);
}

export async function hint() {
  if (!ctx.game || !playable(ctx.game)) return;
  try {
    if (!hints || hints.version !== ctx.game.version) {
      const version = ctx.game.version;
      const answer = await games.hints(ctx.gameId);
      if (!ctx.game || ctx.game.version !== version) return; // the table changed meanwhile
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

export function schedulePrepare() {
  clearTimeout(idleTimer);
  if (!ctx.game || !playable(ctx.game) || chancesRefused || (chances && chances.version === ctx.game.version)) return;
  const version = ctx.game.version;
  idleTimer = setTimeout(async () => {
    if (!ctx.game || ctx.game.version !== version || !playable(ctx.game)) return;
    try {
      await games.prepareChances(ctx.gameId);
    } catch (error) {
      // Only a head start: a hint asks again (unless the variant has no chances at all).
      if (error?.code === "variant_not_analysed") chancesRefused = true;
    }
  }, PAUSE_MS);
}

async function chanceText(option) {
  const version = ctx.game.version;
  if (chancesRefused) return "";
  if (!chances || chances.version !== version || chances.status !== "ready") {
    try {
      const answer = await games.chances(ctx.gameId);
      if (!ctx.game || ctx.game.version !== version) return "";
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
  if (option.kind === "deal") return interpolate(gettext("deal the stock onto %(columns)s."), { columns: stockColumns(ctx.game.stock) }, true);
  const column = ctx.game.columns[option.to];
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

export function clearHighlight() {
  for (const element of document.querySelectorAll(".hint, .hint-target, .hint-carried")) {
    element.classList.remove("hint", "hint-target", "hint-carried");
  }
}

export function highlight(option) {
  clearHighlight();
  if (option.kind === "deal") {
    ctx.board.querySelector("#stock")?.classList.add("hint");
    ctx.controls.deal.classList.add("hint");
    return;
  }
  const where = option.from !== undefined && option.from !== null ? `[data-column="${option.from}"]` : "";
  const copies = ctx.board.querySelectorAll(`.card[data-card="${option.card}"]${where}`);
  // Two copies in one column (two decks): the hint says which, the lower or the upper one.
  const card = option.copy === "lower" ? copies[0] : copies[copies.length - 1];
  card?.classList.add("hint");
  // The cards lying on it go along: they light up with it and stay over it, never hidden.
  for (let next = card?.nextElementSibling; next; next = next.nextElementSibling) {
    if (next.classList.contains("card")) next.classList.add("hint-carried");
  }
  const column = ctx.board.querySelector(`.column[data-column="${option.to}"]`);
  const cards = column ? column.querySelectorAll(".card") : [];
  const target = cards.length ? cards[cards.length - 1] : column?.querySelector(".empty-slot");
  target?.classList.add("hint-target");
}
