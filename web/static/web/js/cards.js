// Cards and the table, drawn from a game of the API (`columns`, `stock`, `collected`,
// `reserve`), in any variant of the family: 7 or 10 columns, 4 or 8 runs to collect.
// Shared by the play page (interactive) and the replay page (read-only).

import { h, variantInfo } from "scorpion/ui.js";

// U+FE0E asks for the text form of the symbol, never an emoji picture.
export const SUITS = {
  S: { name: gettext("spades"), symbol: "\u2660\uFE0E", colour: "black" },
  H: { name: gettext("hearts"), symbol: "\u2665\uFE0E", colour: "red" },
  D: { name: gettext("diamonds"), symbol: "\u2666\uFE0E", colour: "red" },
  C: { name: gettext("clubs"), symbol: "\u2663\uFE0E", colour: "black" },
};
const RANK_NAMES = { A: gettext("ace"), T: "10", J: gettext("jack"), Q: gettext("queen"), K: gettext("king") };
// The same with its article, where a sentence names the card ("the queen of spades"): each
// language puts its own (French: "la dame", "le roi", "l'as").
const THE_RANK = { A: gettext("the ace"), J: gettext("the jack"), Q: gettext("the queen"), K: gettext("the king") };
const RANK_TEXT = { T: "10" };

export function rankText(code) {
  const rank = code[0].toUpperCase();
  return RANK_TEXT[rank] || rank;
}

// "8H" -> "8 of hearts", "AS" -> "ace of spades", "TC" -> "10 of clubs".
export function cardLabel(code) {
  const rank = code[0].toUpperCase();
  const suit = SUITS[code[1].toUpperCase()];
  return interpolate(gettext("%(rank)s of %(suit)s"), { rank: RANK_NAMES[rank] || rank, suit: suit.name }, true);
}

// "8H" -> "the 8 of hearts", "QS" -> "the queen of spades": a card named in a sentence.
export function theCard(code) {
  const rank = code[0].toUpperCase();
  const the = THE_RANK[rank] || interpolate(gettext("the %(rank)s"), { rank: rankText(code) }, true);
  return interpolate(gettext("%(rank)s of %(suit)s"), { rank: the, suit: SUITS[code[1].toUpperCase()].name }, true);
}

// What a card shows in its corner ("Q♠", "10♥"): its accessible name starts with it, so that
// a voice-control user can say what they see (axe: label-content-name-mismatch).
export function faceText(code) {
  return `${rankText(code)}${SUITS[code[1].toUpperCase()].symbol}`;
}

// A face-up card's name: what it shows, then its words ("Q♠, queen of spades").
export function cardName(code) {
  return `${faceText(code)}, ${cardLabel(code)}`;
}

export function suitName(suit) {
  return SUITS[suit].name;
}

// "hearts collected": a run of the suit, taken off the table.
function collectedText(suit) {
  return interpolate(gettext("%(suit)s collected"), { suit: suitName(suit) }, true);
}

// The top corner is the card's one text ("Q♠", which its name starts with); the centre and the
// turned bottom corner repeat it as drawing (CSS generated content from data-rank and
// data-suit), so the visible text is what the name says.
function face(code) {
  const suit = SUITS[code[1]];
  const rank = rankText(code);
  const drawn = { rank, suit: suit.symbol };
  return [
    h(
      "span",
      { class: "corner top", "aria-hidden": "true" },
      h("span", { class: "rank" }, rank),
      h("span", { class: "suit" }, suit.symbol),
    ),
    h("span", { class: `pip${"JQK".includes(code[0]) ? " court" : ""}`, "aria-hidden": "true", dataset: drawn }),
    h("span", { class: "corner bottom", "aria-hidden": "true", dataset: drawn }),
  ];
}

// A face-up card: a button when it can be played, an image otherwise.
export function cardElement(code, { interactive = false, column = null, index = null } = {}) {
  const suit = SUITS[code[1]];
  const attrs = {
    class: `card face ${suit.colour} suit-${code[1]}`,
    "aria-label": cardName(code),
    dataset: { card: code },
  };
  if (column !== null) attrs.dataset.column = String(column);
  if (index !== null) attrs.dataset.index = String(index);
  if (interactive) {
    return h("button", { ...attrs, type: "button" }, ...face(code));
  }
  return h("span", { ...attrs, role: "img" }, ...face(code));
}

export function backElement() {
  return h("span", { class: "card back", role: "img", "aria-label": gettext("face-down card") });
}

function columnLabel(index, column) {
  const parts = [interpolate(gettext("Column %(n)s"), { n: index + 1 }, true)];
  if (!column.hidden && !column.cards.length) parts.push(gettext("empty"));
  if (column.hidden) parts.push(interpolate(gettext("%(n)s face-down"), { n: column.hidden }, true));
  if (column.cards.length) parts.push(interpolate(gettext("%(n)s face-up"), { n: column.cards.length }, true));
  return parts.join(", ");
}

// Two decks (Double Scorpion) can show both copies of a face, and "queen of hearts" twice would
// not tell a screen-reader user which is which: each copy then says its column ("queen of
// hearts, column 3"), and its place among the column's face-up cards when both lie in the same
// one ("queen of hearts, column 3, face-up card 2"), as the column's own label counts them.
// A face shown once (every card of a one-deck game) is its name alone.
function copyLabel(code, c, i, columns) {
  if (columns.length < 2) return cardName(code);
  const sameColumn = columns.filter((other) => other === c).length > 1;
  const where = interpolate(gettext("%(card)s, column %(column)s"), { card: cardName(code), column: c + 1 }, true);
  return sameColumn ? interpolate(gettext("%(card)s, face-up card %(n)s"), { card: where, n: i + 1 }, true) : where;
}

// Draws `game` into `root`. Only what changed is redrawn: a card already on the table keeps
// its element (moved to its new place), so that the page can animate it and keep its focus.
// Returns the tableau element.
export function renderTable(root, game, { interactive = false } = {}) {
  let topRow = root.querySelector(":scope > .top-row");
  let tableau = root.querySelector(":scope > .tableau");
  if (!topRow || !tableau) {
    topRow = h("div", { class: "top-row" });
    tableau = h("div", { class: "tableau" });
    root.replaceChildren(topRow, tableau);
  }
  // The variant's shape, for the CSS grid and layoutTable(): columns and runs to collect.
  setData(root, "variant", game.variant || "scorpion");
  setStyle(root, "--cols", String(game.columns.length));
  setStyle(root, "--runs", String(runsToCollect(game)));
  setData(root, "runs", String(runsToCollect(game)));
  const reserve = game.reserve || [];
  const topKey = JSON.stringify([game.stock, game.collected, reserve, interactive]);
  if (topRow.dataset.key !== topKey) {
    const parts = [stockElement(game, interactive)];
    if (reserve.length || hasReserve(game)) {
      parts.push(reserveElement(game, interactive));
    }
    parts.push(foundationsElement(game));
    topRow.replaceChildren(...parts);
    topRow.dataset.key = topKey;
  }

  // Two decks hold two cards of each face: a card element is known by its face and which
  // copy it is, counted left to right, top row first (data-key).
  const faces = new Map();
  for (const card of tableau.querySelectorAll(".card.face[data-card]")) faces.set(card.dataset.key, card);
  const seen = new Map();
  const keyOf = (code) => {
    const n = (seen.get(code) || 0) + 1;
    seen.set(code, n);
    return `${code}.${n}`;
  };
  for (const code of reserve) keyOf(code);
  const shownIn = new Map(); // a face -> the columns of its face-up copies
  game.columns.forEach((column, c) => {
    for (const code of column.cards) shownIn.set(code, [...(shownIn.get(code) || []), c]);
  });
  game.columns.forEach((column, c) => {
    let pile = tableau.children[c];
    if (!pile) {
      pile = h("div", { class: "column", role: "group", dataset: { column: String(c) } });
      tableau.append(pile);
    }
    setAttr(pile, "aria-label", columnLabel(c, column));
    const backs = [...pile.querySelectorAll(":scope > .card.back")];
    const wanted = [];
    if (!column.hidden && !column.cards.length) {
      wanted.push(pile.querySelector(":scope > .empty-slot") || h("span", { class: "empty-slot", "aria-hidden": "true" }));
    }
    for (let i = 0; i < column.hidden; i += 1) wanted.push(backs[i] || backElement());
    column.cards.forEach((code, i) => {
      const key = keyOf(code);
      let card = faces.get(key);
      const isButton = card?.tagName === "BUTTON";
      if (!card || isButton !== interactive) card = cardElement(code, { interactive });
      setData(card, "key", key);
      setAttr(card, "aria-label", copyLabel(code, c, i, shownIn.get(code)));
      setData(card, "column", String(c));
      setData(card, "index", String(i));
      wanted.push(card);
    });
    // Only the changed tail is touched: the cards that stay keep their place in the DOM (a
    // move takes cards off the end of one column and puts them on the end of another).
    const current = [...pile.children];
    let same = 0;
    while (same < current.length && same < wanted.length && current[same] === wanted[same]) same += 1;
    for (const element of current.slice(same)) if (element.parentElement === pile) element.remove();
    if (same < wanted.length) pile.append(...wanted.slice(same));
  });
  setData(root, "version", String(game.version));
  setData(root, "status", game.status);
  layoutTable(root);
  return tableau;
}

// Runs to collect to win: four per deck.
export function runsToCollect(game) {
  return 4 * (variantInfo(game.variant)?.decks || 1);
}

// Three Blind Mice's face-up reserve (the variant's layout): shown even once played out.
function hasReserve(game) {
  return (variantInfo(game.variant)?.reserve || 0) > 0;
}

// Three Blind Mice's face-up reserve: its cards play like a column's top card; reserve card
// i is picked from column `columns.length + i` (the API's numbering).
function reserveElement(game, interactive) {
  const cards = (game.reserve || []).map((code, i) => {
    const card = cardElement(code, { interactive, column: game.columns.length + i, index: 0 });
    card.dataset.key = `${code}.r`;
    return card;
  });
  const label = cards.length
    ? interpolate(gettext("Reserve: %(cards)s"), { cards: game.reserve.map(cardLabel).join(", ") }, true)
    : gettext("Reserve: empty");
  return h(
    "div",
    { class: "reserve", role: "group", "aria-label": label },
    ...(cards.length ? cards : [h("span", { class: "empty-slot", "aria-hidden": "true" })]),
  );
}

// Three Blind Mice (and Double Scorpion as PySolFC 3.2 dealt it) are dealt without a stock
// (docs/rules.md): their empty stock slot is "none", not "dealt", and the play page hides its
// Deal button. Double Scorpion's stock of four is drawn and dealt as Scorpion's three.
export function hasStock(game) {
  return (variantInfo(game.variant)?.stock ?? 3) > 0;
}

function stockElement(game, interactive) {
  const stockLabel = game.stock
    ? interactive
      ? interpolate(gettext("Stock: %(n)s cards. Deal them onto columns 1 to %(n)s"), { n: game.stock }, true)
      : interpolate(gettext("Stock: %(n)s cards"), { n: game.stock }, true)
    : hasStock(game)
      ? gettext("Stock: dealt")
      : gettext("No stock in this game");
  // Without a stock its place names what lies beside it: Three Blind Mice's reserve, which
  // would otherwise look like collected cards (the arrow follows the layout, in the CSS). In
  // Double Scorpion (PySolFC 3.2) it stays empty: an outline there would look like a place for
  // a card.
  const stockInner = game.stock
    ? [backElement(), h("span", { class: "count", "aria-hidden": "true" }, String(game.stock))]
    : hasStock(game)
      ? [h("span", { class: "empty-slot", "aria-hidden": "true" })]
      : hasReserve(game)
        ? [h("span", { class: "reserve-caption", "aria-hidden": "true" }, gettext("Reserve"))]
        : [];
  const stock =
    interactive && game.stock
      ? h(
          "button",
          { type: "button", class: "pile stock", id: "stock", "aria-label": stockLabel },
          ...stockInner,
        )
      : h("div", { class: "pile stock", id: "stock", role: "img", "aria-label": stockLabel }, ...stockInner);
  for (const card of stock.querySelectorAll(".card")) card.setAttribute("aria-hidden", "true");
  return stock;
}

function foundationsElement(game) {
  const slots = [];
  for (let i = 0; i < runsToCollect(game); i += 1) {
    const suit = game.collected[i];
    const slot = suit
      ? h(
          "div",
          { class: "slot filled", role: "listitem", "aria-label": collectedText(suit) },
          cardElement(`K${suit}`),
        )
      : h(
          "div",
          { class: "slot", role: "listitem", "aria-label": gettext("empty slot") },
          h("span", { class: "empty-slot", "aria-hidden": "true" }),
        );
    slot.querySelector(".card")?.setAttribute("aria-hidden", "true");
    slots.push(slot);
  }
  return h("div", { class: "foundations", role: "list", "aria-label": gettext("Collected suits") }, ...slots);
}

// --- fitting the table to the screen ---
//
// The card size comes from both the width (seven columns, and the stock and the collected
// suits beside them on a landscape screen) and the height (a column of a usual length fits
// below the top row). A column too long for the screen then closes its fan, never below the
// height that shows each playable card's corner whole (rank and suit). A card lying on its own
// successor (the QS on the KS: a run) can never move by itself, so once every card cannot keep
// its strip, such run cards are laid diagonally (each index whole in the strip left bare at its
// left, RUN_STEP below); if even that is too long, the cards of the whole table get smaller,
// down to MIN_CARD_W (and beyond that the page scrolls). Set on <html> as --card-w, --gap
// and per column --fan-up / --fan-down, so that everything (a dragged card too) agrees.

const MIN_CARD_W = 34;
const MAX_CARD_W = 120;
const CARD_RATIO = 1.4;
const BOTTOM_MARGIN = 12;
// Diagonal runs: the step down from a run card to the card on it, the most steps to the right,
// (measured once: the width of the widest index, "10♠", per pixel of font size).
const RUN_STEP = 3;
const MAX_SHIFT = 2;
let indexWidth = 0;
const RANKS = "A23456789TJQK";

// Whether the card on `under` is `card`'s successor (same suit, one rank higher).
function liesOnSuccessor(card, under) {
  return Boolean(under) && under[1] === card[1] && RANKS.indexOf(under[0]) === RANKS.indexOf(card[0]) + 1;
}
// Readable corners: a corner never shrinks below this font size; in a closed fan ("tight")
// it is 0.16 of the card's width (CSS: .corner, .column.tight .corner).
const MIN_CORNER_PX = 11;
const TIGHT_CORNER = 0.16;
let glyphRatio = 0; // height of the rank's box per pixel of font size, measured once

export function layoutTable(root) {
  const tableau = root.querySelector(":scope > .tableau");
  if (!tableau || !root.isConnected) return;
  const html = document.documentElement;
  const viewW = html.clientWidth;
  const viewH = window.innerHeight;
  const phone = viewW <= 640;
  const rail = viewW > viewH * 1.2 && viewW >= 560;
  setData(root, "layout", rail ? "rail" : "stack");
  const gap = Math.round(Math.min(14, Math.max(4, viewW * 0.011)));
  const width = root.clientWidth || viewW;
  // Seven or ten columns (and two for the rail).
  const cols = tableau.querySelectorAll(":scope > .column").length || 7;
  const across = rail ? cols + 2 : cols;
  const gaps = rail ? cols - 1 + 1 + 2.5 : cols - 1;
  const fromWidth = (width - gaps * gap) / across;
  const rootTop = root.getBoundingClientRect().top + window.scrollY;
  // A short screen keeps less margin below the table.
  const available = Math.max(160, viewH - rootTop - (viewH < 500 ? 4 : BOTTOM_MARGIN));
  let upRatio = phone ? 0.34 : 0.27;
  const downRatio = phone ? 0.12 : 0.11;
  // A usual long column: three face-down cards and nine face up, below the top row.
  const usual = 1 + 3 * downRatio + 9 * upRatio;
  const tableauHeight = (cardW) => available - (rail ? 0 : cardW * CARD_RATIO + gap * 1.6);
  const fromHeight = rail
    ? available / usual / CARD_RATIO
    : (available - gap * 1.6) / (1 + usual) / CARD_RATIO;
  let cardW = Math.floor(Math.max(MIN_CARD_W, Math.min(MAX_CARD_W, fromWidth, fromHeight)));

  if (!glyphRatio) glyphRatio = measureGlyphRatio(tableau);
  const ratio = glyphRatio || 1.25;
  // The strip that shows a closed fan's corner whole: its offset from the card's top, the
  // corner's box (rank and suit, ascent to descent: J and Q keep their tails), and 1px.
  const minFan = (w) =>
    Math.ceil(w * CARD_RATIO * 0.035 + Math.max(MIN_CORNER_PX, w * TIGHT_CORNER) * ratio + 2.5);
  const minDown = (w) => Math.max(5, Math.round(w * CARD_RATIO * 0.06));
  const columns = [...tableau.querySelectorAll(":scope > .column")].map((pile) => {
    const faces = [...pile.querySelectorAll(":scope > .card.face")];
    // The strips of face-up cards that have a card on them: a playable card's, or a run's.
    const strips = faces.slice(0, -1).map((card, i) => {
      const under = i > 0 ? faces[i - 1].dataset.card : null;
      return liesOnSuccessor(card.dataset.card, under) ? "run" : "play";
    });
    return {
      pile,
      faces,
      strips,
      down: pile.querySelectorAll(":scope > .card.back").length,
      play: strips.filter((kind) => kind === "play").length,
      run: strips.filter((kind) => kind === "run").length,
    };
  });
  // Inside a run, once the column cannot give every card its strip, a run card's successor
  // lies RUN_STEP px below it and one index's width to the right (`data-shift`, up to
  // MAX_SHIFT steps): the run card's corner stays whole in the strip left bare at its left,
  // and the column gets the height of a closed fan's strip for every card that can move.
  if (!indexWidth) indexWidth = measureIndexWidth(tableau);
  const runDx = (w) => Math.ceil(w * 0.06 + Math.max(MIN_CORNER_PX, w * TIGHT_CORNER) * (indexWidth || 2) + 2);
  // The steps of each card from the left (0 to MAX_SHIFT), when the column is laid out diagonally.
  const shifts = (strips) => {
    const out = [0];
    strips.forEach((kind, i) => out.push(kind === "run" && out[i] < MAX_SHIFT ? out[i] + 1 : 0));
    return out;
  };
  const height = (w, { down, faces, play, run, strips }, diagonal) => {
    const downGaps = faces.length ? down : Math.max(0, down - 1);
    const base = w * CARD_RATIO + downGaps * minDown(w);
    if (!diagonal) return base + (play + run) * minFan(w);
    const steps = shifts(strips).slice(1).filter((d) => d > 0).length;
    return base + steps * RUN_STEP + (strips.length - steps) * minFan(w);
  };
  // Diagonal only when the column needs it: its plain closed fan is too long.
  const diagonalAt = (w) => columns.map((column) => column.run > 0 && height(w, column, false) > tableauHeight(w));
  const need = (w) => {
    const diagonal = diagonalAt(w);
    return Math.max(0, ...columns.map((column, c) => height(w, column, diagonal[c])));
  };
  const extraWidth = (w) => diagonalAt(w).filter(Boolean).length * MAX_SHIFT * runDx(w);
  const fitsWidth = (w) => across * w + gaps * gap + extraWidth(w) <= width;
  if (need(cardW) > tableauHeight(cardW) || !fitsWidth(cardW)) {
    // Smaller cards, if some size lets the longest column fit with its corners whole.
    let w = cardW;
    while (w > MIN_CARD_W && (need(w) > tableauHeight(w) || !fitsWidth(w))) w -= 2;
    cardW = w;
  }
  const cardH = cardW * CARD_RATIO;
  // A screen taller than the width needs (a phone held upright): longer fans, up to half a
  // card, so the table uses the felt and the strips are bigger targets for a finger.
  if (!rail && fromWidth < fromHeight) {
    const fill = ((available - gap * 1.6) / cardH - 2 - 3 * downRatio) / 9;
    upRatio = Math.min(0.5, Math.max(upRatio, fill));
  }
  setStyle(html, "--card-w", `${cardW}px`);
  setStyle(html, "--gap", `${gap}px`);
  const dx = runDx(cardW);
  setStyle(root, "--run-dx", `${dx}px`);
  const room = tableauHeight(cardW);
  const fan = minFan(cardW);
  const diagonal = diagonalAt(cardW);
  const widths = [];
  columns.forEach(({ pile, faces, strips, down, play, run }, c) => {
    const downGaps = faces.length ? down : Math.max(0, down - 1);
    const upGaps = play + run;
    let fanDown = cardH * downRatio;
    let fanUp = cardH * upRatio;
    if (cardH + downGaps * fanDown + upGaps * fanUp > room) {
      const spare = (reserved) => (room - cardH - reserved) / Math.max(1, downGaps);
      const strips = diagonal[c] ? height(cardW, columns[c], true) - cardH - downGaps * minDown(cardW) : upGaps * fan;
      fanDown = Math.max(minDown(cardW), Math.min(fanDown, spare(strips)));
      if (!diagonal[c]) fanUp = upGaps ? Math.max(fan, (room - cardH - downGaps * fanDown) / upGaps) : fanUp;
      else fanUp = fan;
    }
    setStyle(pile, "--fan-up", `${fanUp.toFixed(1)}px`);
    setStyle(pile, "--fan-down", `${fanDown.toFixed(1)}px`);
    setStyle(pile, "--fan-run", `${RUN_STEP}px`);
    const tight = fanUp < cardH * upRatio - 0.5;
    if (pile.classList.contains("tight") !== tight) pile.classList.toggle("tight", tight);
    // A card shifted right of the one under it sits RUN_STEP below it (CSS: [data-shift]).
    const steps = diagonal[c] ? shifts(strips) : faces.map(() => 0);
    faces.forEach((card, i) => {
      const shift = String(steps[i] > 0 && i > 0 && steps[i] > steps[i - 1] ? steps[i] : 0);
      if ((card.dataset.shift || "0") !== shift) {
        if (shift === "0") delete card.dataset.shift;
        else card.dataset.shift = shift;
      }
    });
    widths.push(diagonal[c] ? `${cardW + MAX_SHIFT * dx}px` : "var(--card-w)");
  });
  setStyle(tableau, "grid-template-columns", diagonal.some(Boolean) ? widths.join(" ") : "");
}

// Attributes, data attributes and style properties are set only when they change: a move
// redraws only what it changed (a MutationObserver sees nothing else; tests/web/test_redraw.py).
function setAttr(element, name, value) {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

function setData(element, name, value) {
  if (element.dataset[name] !== value) element.dataset[name] = value;
}

function setStyle(element, name, value) {
  if (element.style.getPropertyValue(name) === value) return;
  if (value) element.style.setProperty(name, value);
  else element.style.removeProperty(name);
}

// The width of a closed fan's widest corner ("10♠") for a font size of 1px: a card drawn out
// of sight in a tight column, measured, and taken away.
function measureIndexWidth(tableau) {
  const column = h("div", { class: "column tight", "aria-hidden": "true" }, cardElement("TS"));
  column.style.cssText = "position:absolute;visibility:hidden;left:0;top:0";
  tableau.append(column);
  const corner = column.querySelector(".corner.top");
  const size = parseFloat(getComputedStyle(corner).fontSize);
  const width = corner.getBoundingClientRect().width;
  column.remove();
  return size && width ? width / size : 0;
}

// The height of a corner's box for a font size of 1px (the fonts' ascent and descent).
function measureGlyphRatio(tableau) {
  const corner = tableau.querySelector(".card.face .corner.top");
  if (!corner) return 0;
  const size = parseFloat(getComputedStyle(corner).fontSize);
  const height = corner.getBoundingClientRect().height;
  return size && height ? height / size : 0;
}

// Kept for the pages that only re-fit on resize.
export function fitColumns(tableau) {
  if (tableau?.parentElement) layoutTable(tableau.parentElement);
}

// Words for what an event did, for the replay list and screen readers.
export function describeRecord(record) {
  if (!record) return "";
  if (record.type === "deal" || (record.dealt && record.dealt.length && !record.card)) {
    const cards = (record.dealt || []).map(cardLabel).join(", ");
    return cards ? interpolate(gettext("Dealt the stock: %(cards)s"), { cards }, true) : gettext("Dealt the stock");
  }
  const parts = [];
  if (record.card) {
    const count = record.count > 1 ? ` ${interpolate(gettext("(with %(n)s more)"), { n: record.count - 1 }, true)}` : "";
    const from =
      record.from !== undefined && record.from !== null
        ? ` ${interpolate(gettext("from column %(n)s"), { n: record.from + 1 }, true)}`
        : "";
    const to =
      record.to !== undefined && record.to !== null ? ` ${interpolate(gettext("to column %(n)s"), { n: record.to + 1 }, true)}` : "";
    parts.push(`${cardLabel(record.card)}${count}${from}${to}`);
  }
  for (const flip of record.flipped || []) {
    parts.push(interpolate(gettext("turned up %(card)s in column %(n)s"), { card: cardLabel(flip.card), n: flip.column + 1 }, true));
  }
  for (const run of record.collected || []) parts.push(collectedText(run.suit));
  return parts.join("; ");
}

export function describeEvent(event) {
  switch (event.type) {
    case "move":
    case "deal":
      return describeRecord({ ...event, type: event.type });
    case "undo":
      return interpolate(gettext("Undo: %(what)s"), { what: describeRecord({ type: event.undone?.card ? "move" : "deal", ...event.undone }) }, true);
    case "redo":
      return interpolate(gettext("Redo: %(what)s"), { what: describeRecord({ type: event.redone?.card ? "move" : "deal", ...event.redone }) }, true);
    case "resign":
      return gettext("Resigned");
    default:
      return event.type;
  }
}
