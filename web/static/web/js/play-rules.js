// The rules as the play page knows them from the visible table: what a move does (`predict`),
// why the server would refuse it (`knownRefusal`), why a command made on a position that has
// since changed is not sent again (`staleReason`), and refusals in words (`refusalText`). The
// server stays the authority: these only let the page answer at once, in its words.

import { hasStock, theCard } from "scorpion/cards.js";
import { STATUS_LABELS } from "scorpion/ui.js";

const RANKS = "A23456789TJQK";

export const finished = (g) => ["won", "resigned", "abandoned"].includes(g.status);
export const playable = (g) => g.status === "playing" || g.status === "stuck";

// The game after `body`, judged like the server on the visible table only; null when the
// move cannot be foreseen (the server then decides alone). A card uncovered stays face down
// until the server says which it is; a run completed is collected when the answer comes.
export function predict(g, body) {
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
export function knownRefusal(g, body) {
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

// Why a command made on a position that has since changed is not sent again ("" to send it):
// a card that is no longer face up cannot be played, an undo or redo would now reverse or
// replay another move than the one the player saw, and a deal needs a stock.
export function staleReason(body, game) {
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
export function refusalText(error, game) {
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
export function spellCards(text) {
  return text.replace(/\b([A2-9TJQK])([SHDC])\b/g, (code) => theCard(code));
}


// The hint reasons name columns as the API does (0 to 6); the table shows 1 to 7.
export function humanColumns(text) {
  return text.replace(/\b(columns?) ((?:\d+(?:, | and )?)+)/g, (_, word, numbers) =>
    `${word} ${numbers.replace(/\d+/g, (n) => String(Number(n) + 1))}`,
  );
}
