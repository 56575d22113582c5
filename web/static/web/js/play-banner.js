// The play page's banner ("You won!", "No moves available", "Game over"), the game's name and
// mode, and the actions that leave the game (new game, restart, resign), each asked first when
// it would end or abandon a game.

import { games } from "scorpion/api.js";
import { runsToCollect } from "scorpion/cards.js";
import { finished, playable } from "scorpion/play-rules.js";
import {
  announce,
  confirmDialog,
  difficultyLabel,
  formatDuration,
  h,
  isPractice,
  MODE_LABELS,
  redraw,
  toast,
  variantInfo,
  variantTitle,
} from "scorpion/ui.js";
import { showWinResult } from "scorpion/win.js";

// The page: {banner, controls, gameId, game (a getter), command(body)}, set by play.js.
let ctx = null;

export function wireBanner(context) {
  ctx = context;
}

export function describeMode(g) {
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
  if (ctx.game.mode !== "daily") return "";
  const parts = [];
  if (isPractice(ctx.game)) parts.push(gettext("This was a practice attempt: it does not rank."));
  else parts.push(gettext("This was your ranked attempt of the day."));
  if (!ctx.game.code) {
    parts.push(interpolate(gettext("The deal stays secret until %(day)s 00:00 UTC."), { day: revealDate(ctx.game.daily_date) }, true));
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
  return ctx.game.mode === "daily" ? gettext("Practice this deal") : gettext("Play this deal again");
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
  if (!next || successor.of !== left.id || ctx.game?.id !== left.id) return;
  successor.game = next;
  renderBanner();
  announce(`${successorNote(next)} ${gettext("Continue it with “Continue the new game”.")}`);
}

function successorNote(next) {
  return next.restarted_from === ctx.game.id
    ? gettext("This deal was restarted: the new game is in play.")
    : gettext("A new game of this kind is in play.");
}

export function renderBanner() {
  const status = ctx.game.status;
  ctx.banner.className = `banner ${status}`;
  if (status === "won") {
    redraw(
      ctx.banner,
      h("h2", { tabindex: "-1" }, gettext("You won!")),
      h(
        "p",
        {},
        interpolate(
          runsToCollect(ctx.game) === 8
            ? gettext("All eight runs collected in %(moves)s moves and %(time)s.")
            : gettext("All four suits collected in %(moves)s moves and %(time)s."),
          { moves: ctx.game.moves, time: formatDuration(ctx.game.elapsed_seconds) },
          true,
        ),
      ),
      dailyNote(),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", class: "primary", onclick: newGame }, gettext("New game")),
        h("a", { class: "button", href: `/history/${ctx.game.id}/` }, gettext("Replay this game")),
        h("a", { class: "button", href: "/stats/" }, gettext("Your statistics")),
      ),
    );
    showWinResult(ctx.banner, ctx.game); // the win moment (win.js)
  } else if (status === "stuck") {
    redraw(
      ctx.banner,
      h("h2", { tabindex: "-1" }, gettext("No moves available")),
      h("p", {}, gettext("Undo to try another way, restart the deal, or resign.")),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", class: "primary", onclick: () => ctx.command({ type: "undo" }) }, gettext("Undo")),
        h("button", { type: "button", onclick: restart }, gettext("Restart")),
        h("button", { type: "button", onclick: resign }, gettext("Resign")),
      ),
    );
  } else if (status === "resigned" || status === "abandoned") {
    if (status === "abandoned" && successor.of !== ctx.game.id) findSuccessor(ctx.game);
    const next = status === "abandoned" && successor.of === ctx.game.id ? successor.game : null;
    redraw(
      ctx.banner,
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
        h("a", { class: "button", href: `/history/${ctx.game.id}/` }, gettext("Replay this game")),
      ),
    );
  } else {
    redraw(ctx.banner);
  }
  const wasHidden = ctx.banner.hidden;
  ctx.banner.hidden = status === "playing";
  if (wasHidden && !ctx.banner.hidden && ctx.banner.dataset.shownFor !== `${ctx.game.id}:${status}`) {
    ctx.banner.dataset.shownFor = `${ctx.game.id}:${status}`;
    announce(ctx.banner.querySelector("h2").textContent + ". " + (ctx.banner.querySelector("p")?.textContent || ""));
  }
}


// A game started of the same kind as the one that took this one's place (in play, maybe on
// another device) abandons that one: asked first, as leaving a game in play is.
async function mayLeaveSuccessor(mode) {
  const next = successor.of === ctx.game?.id ? successor.game : null;
  if (!next || next.mode !== mode) return true;
  return confirmDialog(
    gettext("The new game in play (Continue the new game) would be abandoned, and count as played, not won once it has a move. Start another anyway?"),
    gettext("Start another"),
  );
}

export async function newGame() {
  if (!(await mayLeaveSuccessor("random"))) return;
  try {
    // Another deal of the same game of the family: after a Wasp game, a new Wasp game (the
    // lobby picks another variant); after a game of a variant no longer offered, today's deal
    // of it (Double Scorpion 3.2: Double Scorpion), which the server deals.
    const next = variantInfo(ctx.game?.variant)?.new_game_variant || "scorpion";
    const variant = next !== "scorpion" ? { variant: next } : {};
    const created = await games.create(variant);
    location.assign(`/play/${created.id}/`);
  } catch (error) {
    toast(error.detail, { kind: "error" });
  }
}

export async function restart() {
  // Leaving a game after a move counts it as played and not won (docs/api.md, "Statistics").
  const question = gettext("Restart this deal? This attempt ends and counts as played, not won.");
  if (!finished(ctx.game) && ctx.game.started_at && !(await confirmDialog(question, gettext("Restart")))) return;
  if (finished(ctx.game) && !(await mayLeaveSuccessor(ctx.game.mode))) return;
  ctx.controls.restart.disabled = true;
  try {
    const created = await games.restart(ctx.gameId);
    location.assign(`/play/${created.id}/`);
  } catch (error) {
    ctx.controls.restart.disabled = false;
    toast(error.detail, { kind: "error" });
  }
}

export async function resign() {
  if (await confirmDialog(gettext("Resign this game? It ends here and counts as a loss."), gettext("Resign"))) {
    await ctx.command({ type: "resign" });
  }
}
