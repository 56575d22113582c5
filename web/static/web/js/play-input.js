// Playing the table by hand: a tap (or click) plays a card where the server finds it a place,
// a drag drops it on a column, and the keyboard walks the table and plays the focused card.

import { hasStock } from "scorpion/cards.js";
import { clearHighlight, dropHint, hint } from "scorpion/play-hints.js";
import { playable, predict } from "scorpion/play-rules.js";
import { h, toast } from "scorpion/ui.js";

// The page: {board, controls, game (a getter), shownGame(), command(body, {from}), restart,
// resign}, set by play.js.
let ctx = null;

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
  if (ctx.game?.variant && ctx.game.variant !== "scorpion") {
    body.from = Number(card.dataset.column);
    const twins = [...board.querySelectorAll(`.card[data-card="${card.dataset.card}"][data-column="${card.dataset.column}"]`)];
    if (twins.length > 1) body.copy = twins[twins.length - 1] === card ? "upper" : "lower";
  }
  return body;
}

function cardButton(target) {
  const card = target instanceof Element ? target.closest("button.card[data-card]") : null;
  return card && ctx.board.contains(card) ? card : null;
}

function stockButton(target) {
  const stock = target instanceof Element ? target.closest("button#stock") : null;
  return stock && ctx.board.contains(stock) ? stock : null;
}

// Moves the dragged card and everything on it into a floating layer that follows the pointer.
function liftStack() {
  const card = drag.element?.isConnected
    ? drag.element
    : ctx.board.querySelector(`button.card[data-card="${drag.card}"]`);
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
  for (const element of ctx.board.querySelectorAll(".lifted")) element.classList.remove("lifted");
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
  const tableau = ctx.board.querySelector(".tableau");
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
  for (const column of ctx.board.querySelectorAll(".column.drop-target")) {
    column.classList.remove("drop-target");
  }
  if (index !== null && drag && index !== drag.from) {
    ctx.board.querySelector(`.column[data-column="${index}"]`)?.classList.add("drop-target");
  }
}

// --- controls and keys ---

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

export function wireInput(context) {
  ctx = context;
  ctx.board.addEventListener("click", (event) => {
    // A face-down card, or the stock's place once dealt: not buttons, but a tap on them is
    // answered at once (knownRefusal).
    const still = event.target instanceof Element ? event.target.closest(".tableau .card.back, div#stock") : null;
    if (still && ctx.game && playable(ctx.game)) {
      ctx.command(still.id === "stock" ? { type: "deal" } : { type: "face_down" });
      return;
    }
    if (event.detail !== 0) return; // a pointer's click: already played on pointerup
    if (stockButton(event.target)) {
      ctx.command({ type: "deal" });
      return;
    }
    const card = cardButton(event.target);
    if (card) ctx.command(moveBody(card));
  });

  ctx.board.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || !ctx.game || !playable(ctx.game)) return;
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
      ctx.command(current.card ? moveBody(current.element) : { type: "deal" });
      return;
    }
    markDropTarget(null);
    const to = columnAt(event.clientX, event.clientY);
    if (to === null || to === current.from) {
      snapBack(current);
      return;
    }
    const body = moveBody(current.element, to);
    if (ctx.game && predict(ctx.shownGame(), body)) {
      // Drawn in its new place at once, gliding from where it was dropped.
      const from = new Map();
      for (const clone of current.layer.querySelectorAll(".card[data-card]")) {
        from.set(clone.dataset.card, clone.getBoundingClientRect());
      }
      dropLayer(current);
      ctx.command(body, { from });
    } else {
      snapBack(current); // the server says why
      ctx.command(body);
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

  ctx.controls.deal.addEventListener("click", () => ctx.command({ type: "deal" }));
  ctx.controls.undo.addEventListener("click", () => ctx.command({ type: "undo" }));
  ctx.controls.redo.addEventListener("click", () => ctx.command({ type: "redo" }));
  ctx.controls.hint.addEventListener("click", hint);
  ctx.controls.restart.addEventListener("click", ctx.restart);
  ctx.controls.resign.addEventListener("click", ctx.resign);

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    const target = event.target;
    if (target instanceof Element && target.closest("input, textarea, select, dialog")) return;
    const key = event.key;
    if (key === "z" && !event.shiftKey) {
      event.preventDefault();
      if (ctx.game?.can_undo) ctx.command({ type: "undo" });
    } else if (key === "y" || key === "Y" || (key === "Z" && event.shiftKey)) {
      event.preventDefault();
      if (ctx.game?.can_redo) ctx.command({ type: "redo" });
    } else if (key === "h") {
      event.preventDefault();
      hint();
    } else if (key === "d") {
      event.preventDefault();
      if (ctx.game && !hasStock(ctx.game)) toast(gettext("This game has no stock to deal."));
      else if (ctx.game && playable(ctx.game)) ctx.command({ type: "deal" });
    } else if (key === "Escape") {
      dropHint();
    } else if (key.startsWith("Arrow")) {
      if (moveFocus(key, target)) event.preventDefault();
    } else if (/^[0-9]$/.test(key)) {
      // With a card focused, a digit moves it to that column (the keyboard's drag and drop);
      // 0 is the tenth column of the ten-column variants.
      const card = cardButton(target);
      const to = key === "0" ? 9 : Number(key) - 1;
      if (card && ctx.game && to < ctx.game.columns.length) {
        event.preventDefault();
        ctx.command(moveBody(card, to));
      }
    }
  });
}
