// A challenge's page (/challenges/<id>/): play it, go on with your game of it, or, once that
// game is over, see everyone's results. The board comes from the server only then (no
// spoilers): this page never has it before.

import { request } from "scorpion/api.js";
import { difficultyLabel, formatDuration, h, redraw, scrollBox, setBusy, STATUS_LABELS, toast, variantTitle, wireHeader } from "scorpion/ui.js";
import { followFeed } from "scorpion/live.js";

wireHeader();

const root = document.getElementById("challenge");
const id = root.dataset.challengeId;
const body = document.getElementById("challenge-body");
const boardBox = document.getElementById("challenge-board");

async function load() {
  try {
    const { data } = await request("GET", `/api/v1/challenges/${id}/`);
    show(data);
  } catch (error) {
    redraw(body, h("p", { class: "error", role: "alert" }, error.status === 404 ? gettext("No such challenge: the link is wrong, or it is not for you.") : error.detail));
    redraw(boardBox);
  }
}

async function play(button) {
  setBusy(button, true);
  try {
    const { data } = await request("POST", `/api/v1/challenges/${id}/play/`);
    location.assign(`/play/${data.id}/`);
  } catch (error) {
    setBusy(button, false);
    toast(error.detail, { kind: "error", ms: 6000 });
  }
}

async function close(button) {
  setBusy(button, true);
  try {
    const { data } = await request("POST", `/api/v1/challenges/${id}/close/`);
    show(data);
    toast(gettext("Closed: nobody new may play it."));
  } catch (error) {
    setBusy(button, false);
    toast(error.detail, { kind: "error" });
  }
}

function linkBox(challenge) {
  const url = new URL(challenge.url, location.origin).href;
  const field = h("input", { id: "challenge-link", readonly: true, value: url, "aria-label": gettext("The challenge's link") });
  const copy = h("button", { type: "button", onclick: async () => {
    try {
      await navigator.clipboard.writeText(url);
      toast(gettext("Link copied"));
    } catch {
      field.select();
      toast(gettext("Selected: copy it with your keyboard"));
    }
  } }, gettext("Copy the link"));
  return h("p", { class: "inline-form" }, field, copy);
}

function show(challenge) {
  const parts = [h(
      "p",
      {},
      challenge.difficulty
        ? interpolate(gettext("%(creator)s challenges you on a deal of %(variant)s (%(difficulty)s)."), { creator: challenge.creator, variant: variantTitle(challenge.variant), difficulty: difficultyLabel(challenge.difficulty) }, true)
        : interpolate(gettext("%(creator)s challenges you on a deal of %(variant)s."), { creator: challenge.creator, variant: variantTitle(challenge.variant) }, true),
    )];
  if (challenge.is_mine) {
    parts.splice(0, 1, h("p", {}, gettext("Your challenge: send its link to a friend. Their results appear below once they finish.")));
    parts.push(linkBox(challenge));
    if (!challenge.closed_at) parts.push(h("button", { type: "button", id: "close-challenge", onclick: (e) => close(e.currentTarget) }, gettext("Close the challenge")));
  } else if (!challenge.game) {
    if (challenge.closed_at) parts.push(h("p", { class: "muted" }, gettext("Its creator closed it: nobody new may play it.")));
    else parts.push(h("button", { type: "button", class: "primary", id: "play-challenge", onclick: (e) => play(e.currentTarget) }, gettext("Play this challenge")));
    parts.push(h("p", { class: "muted" }, gettext("The results stay hidden until you have played it.")));
  } else if (!challenge.finished) {
    parts.push(h("a", { class: "button primary", id: "continue-challenge", href: `/play/${challenge.game}/` }, gettext("Go on with your game")));
    parts.push(h("p", { class: "muted" }, gettext("The results are shown once your game is over.")));
  }
  if (challenge.closed_at && challenge.is_mine) parts.push(h("p", { class: "muted" }, gettext("Closed: nobody new may play it.")));
  parts.push(h("p", { class: "muted" }, interpolate(ngettext("%(n)s player opened it.", "%(n)s players opened it.", challenge.players), { n: challenge.players }, true)));
  redraw(body, ...parts);
  showBoard(challenge.board);
}

function showBoard(board) {
  if (board === null) {
    redraw(boardBox, h("p", { class: "muted", id: "board-hidden" }, gettext("Hidden until your own game of it is over.")));
    return;
  }
  const rows = board.map((entry) =>
    h(
      "tr",
      { class: entry.is_me ? "me" : "" },
      h("td", {}, entry.player, entry.is_me ? ` ${gettext("(you)")}` : ""),
      h("td", {}, entry.won ? STATUS_LABELS.won : STATUS_LABELS[entry.status] || entry.status),
      h("td", {}, formatDuration(entry.time)),
      h("td", {}, String(entry.moves)),
      h("td", {}, String(entry.undos)),
    ),
  );
  redraw(
    boardBox,
    scrollBox(
      gettext("Results"),
      h(
        "table",
        { class: "board-table", id: "challenge-results" },
        h("thead", {}, h("tr", {}, ...[gettext("Player"), gettext("Result"), gettext("Time"), gettext("Moves"), gettext("Undos")].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, ...rows),
      ),
    ),
  );
}

load();
// Read again when the feed opens (it may have missed something), when a game of the player's
// ends, or when a challenger finishes (challenge_result, on the creator's feed).
followFeed(() => load(), ["game_finished", "challenge_result"]);
