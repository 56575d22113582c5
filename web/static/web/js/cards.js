// Cards and the table, drawn from a game of the API (`columns`, `stock`, `collected`).
// Shared by the play page (interactive) and the replay page (read-only).

import { h } from "scorpion/ui.js";

// U+FE0E asks for the text form of the symbol, never an emoji picture.
export const SUITS = {
  S: { name: "spades", symbol: "\u2660\uFE0E", colour: "black" },
  H: { name: "hearts", symbol: "\u2665\uFE0E", colour: "red" },
  D: { name: "diamonds", symbol: "\u2666\uFE0E", colour: "red" },
  C: { name: "clubs", symbol: "\u2663\uFE0E", colour: "black" },
};
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
const RANK_TEXT = { T: "10" };

export function rankText(code) {
  const rank = code[0].toUpperCase();
  return RANK_TEXT[rank] || rank;
}

// "8H" -> "8 of hearts", "AS" -> "ace of spades", "TC" -> "10 of clubs".
export function cardLabel(code) {
  const rank = code[0].toUpperCase();
  const suit = SUITS[code[1].toUpperCase()];
  return `${RANK_NAMES[rank] || rank} of ${suit.name}`;
}

export function suitName(suit) {
  return SUITS[suit].name;
}

function face(code) {
  const suit = SUITS[code[1]];
  const rank = rankText(code);
  const corner = (where) =>
    h(
      "span",
      { class: `corner ${where}`, "aria-hidden": "true" },
      h("span", { class: "rank" }, rank),
      h("span", { class: "suit" }, suit.symbol),
    );
  const centre = "JQK".includes(code[0])
    ? h("span", { class: "pip court", "aria-hidden": "true" }, rank, h("small", {}, suit.symbol))
    : h("span", { class: "pip", "aria-hidden": "true" }, suit.symbol);
  return [corner("top"), centre, corner("bottom")];
}

// A face-up card: a button when it can be played, an image otherwise.
export function cardElement(code, { interactive = false, column = null, index = null } = {}) {
  const suit = SUITS[code[1]];
  const attrs = {
    class: `card face ${suit.colour}`,
    "aria-label": cardLabel(code),
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
  return h("span", { class: "card back", role: "img", "aria-label": "face-down card" });
}

function columnLabel(index, column) {
  const parts = [`Column ${index + 1}`];
  if (!column.hidden && !column.cards.length) parts.push("empty");
  if (column.hidden) parts.push(`${column.hidden} face-down`);
  if (column.cards.length) parts.push(`${column.cards.length} face-up`);
  return parts.join(", ");
}

// Draws `game` into `root` (replacing what was there). Returns the tableau element.
export function renderTable(root, game, { interactive = false } = {}) {
  const stockLabel = game.stock
    ? `Stock: ${game.stock} cards${interactive ? ". Deal them onto columns 1 to 3" : ""}`
    : "Stock: dealt";
  const stockInner = game.stock
    ? [backElement(), h("span", { class: "count", "aria-hidden": "true" }, String(game.stock))]
    : [h("span", { class: "empty-slot", "aria-hidden": "true" })];
  const stock =
    interactive && game.stock
      ? h(
          "button",
          { type: "button", class: "pile stock", id: "stock", "aria-label": stockLabel },
          ...stockInner,
        )
      : h("div", { class: "pile stock", id: "stock", role: "img", "aria-label": stockLabel }, ...stockInner);
  for (const card of stock.querySelectorAll(".card")) card.setAttribute("aria-hidden", "true");

  const slots = [];
  for (let i = 0; i < 4; i += 1) {
    const suit = game.collected[i];
    slots.push(
      suit
        ? h(
            "div",
            { class: "slot filled", role: "listitem", "aria-label": `${suitName(suit)} collected` },
            cardElement(`K${suit}`),
          )
        : h(
            "div",
            { class: "slot", role: "listitem", "aria-label": "empty slot" },
            h("span", { class: "empty-slot", "aria-hidden": "true" }),
          ),
    );
  }
  for (const slot of slots) {
    const card = slot.querySelector(".card");
    if (card) card.setAttribute("aria-hidden", "true");
  }

  const tableau = h("div", { class: "tableau" });
  game.columns.forEach((column, c) => {
    const pile = h("div", {
      class: "column",
      role: "group",
      "aria-label": columnLabel(c, column),
      dataset: { column: String(c) },
    });
    if (!column.hidden && !column.cards.length) {
      pile.append(h("span", { class: "empty-slot", "aria-hidden": "true" }));
    }
    for (let i = 0; i < column.hidden; i += 1) pile.append(backElement());
    column.cards.forEach((code, i) => {
      pile.append(cardElement(code, { interactive, column: c, index: i }));
    });
    tableau.append(pile);
  });

  root.replaceChildren(
    h(
      "div",
      { class: "top-row" },
      stock,
      h("div", { class: "foundations", role: "list", "aria-label": "Collected suits" }, ...slots),
    ),
    tableau,
  );
  root.dataset.version = String(game.version);
  root.dataset.status = game.status;
  fitColumns(tableau);
  return tableau;
}

// Squeezes the face-up fan of a column that would not fit on the screen, down to a minimum
// that keeps every card's corner readable (the page scrolls beyond that).
export function fitColumns(tableau) {
  const probe = tableau.querySelector(".card, .empty-slot");
  if (!probe) return;
  const cardH = probe.getBoundingClientRect().height;
  const style = getComputedStyle(tableau);
  const fanUp = cardH * (parseFloat(style.getPropertyValue("--fan-up-ratio")) || 0.27);
  const fanDown = cardH * (parseFloat(style.getPropertyValue("--fan-down-ratio")) || 0.11);
  const minFan = Math.max(17, cardH * 0.2);
  const top = tableau.getBoundingClientRect().top + window.scrollY;
  const available = Math.max(cardH * 3, window.innerHeight - top - 16);
  for (const pile of tableau.querySelectorAll(".column")) {
    const cards = pile.querySelectorAll(".card");
    const down = pile.querySelectorAll(".card.back").length;
    const n = cards.length;
    pile.style.removeProperty("--fan-up");
    if (n < 2) continue;
    const downGaps = Math.min(down, n - 1);
    const upGaps = n - 1 - downGaps;
    if (!upGaps) continue;
    const natural = cardH + downGaps * fanDown + upGaps * fanUp;
    if (natural <= available) continue;
    const squeezed = Math.max(minFan, (available - cardH - downGaps * fanDown) / upGaps);
    pile.style.setProperty("--fan-up", `${squeezed.toFixed(1)}px`);
  }
}

// Words for what an event did, for the replay list and screen readers.
export function describeRecord(record) {
  if (!record) return "";
  if (record.type === "deal" || (record.dealt && record.dealt.length && !record.card)) {
    const cards = (record.dealt || []).map(cardLabel).join(", ");
    return cards ? `Dealt the stock: ${cards}` : "Dealt the stock";
  }
  const parts = [];
  if (record.card) {
    const count = record.count > 1 ? ` (with ${record.count - 1} more)` : "";
    const from = record.from !== undefined && record.from !== null ? ` from column ${record.from + 1}` : "";
    const to = record.to !== undefined && record.to !== null ? ` to column ${record.to + 1}` : "";
    parts.push(`${cardLabel(record.card)}${count}${from}${to}`);
  }
  for (const flip of record.flipped || []) {
    parts.push(`turned up ${cardLabel(flip.card)} in column ${flip.column + 1}`);
  }
  for (const run of record.collected || []) parts.push(`${suitName(run.suit)} collected`);
  return parts.join("; ");
}

export function describeEvent(event) {
  switch (event.type) {
    case "move":
    case "deal":
      return describeRecord({ ...event, type: event.type });
    case "undo":
      return `Undo: ${describeRecord({ type: event.undone?.card ? "move" : "deal", ...event.undone })}`;
    case "redo":
      return `Redo: ${describeRecord({ type: event.redone?.card ? "move" : "deal", ...event.redone })}`;
    case "resign":
      return "Resigned";
    default:
      return event.type;
  }
}
