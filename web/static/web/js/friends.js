// The friends page (/friends/, and /friends/invite/<id>/ which asks to accept an invite):
// friends and requests, adding by name, invite links, blocks, today's daily board among
// friends, and the challenges made and played.

import { request } from "scorpion/api.js";
import { friendsBoardTable } from "scorpion/boards.js";
import { h, redraw, setBusy, toast, variantTitle, wireHeader } from "scorpion/ui.js";
import { followFeed } from "scorpion/live.js";

wireHeader();

const root = document.getElementById("friends");
const list = document.getElementById("friends-list");
const boardBox = document.getElementById("friends-board");
const challengesBox = document.getElementById("challenges-list");
const inviteBox = document.getElementById("invite-link");
const offer = document.getElementById("invite-offer");
const form = document.getElementById("add-friend");

async function act(button, method, path, body, done) {
  if (button) setBusy(button, true);
  try {
    const { data } = await request(method, path, body);
    if (done) done(data);
    await load();
  } catch (error) {
    toast(error.detail, { kind: "error", ms: 6000 });
  } finally {
    if (button) setBusy(button, false);
  }
}

function row(friendship, ...actions) {
  return h("li", { dataset: { friendship: String(friendship.id) } }, h("span", { class: "who" }, friendship.player), " ", ...actions);
}

function button(label, onclick, attrs = {}) {
  return h("button", { type: "button", class: "small", onclick: (e) => onclick(e.currentTarget), ...attrs }, label);
}

function showFriends(data) {
  const remove = (f, label) => button(label, (b) => act(b, "DELETE", `/api/v1/friends/${f.id}/`));
  const block = (f) => button(gettext("Block"), (b) => act(b, "POST", "/api/v1/blocks/", { friendship: f.id }));
  const parts = [];
  parts.push(
    data.friends.length
      ? h("ul", { id: "friend-rows" }, ...data.friends.map((f) => row(f, remove(f, gettext("Remove")), block(f))))
      : h("p", { class: "muted" }, gettext("No friends yet: ask one by name, or send an invite link.")),
  );
  if (data.incoming.length) {
    parts.push(h("h3", {}, gettext("Asking you")));
    parts.push(h("ul", { id: "incoming-rows" }, ...data.incoming.map((f) => row(f, button(gettext("Accept"), (b) => act(b, "POST", `/api/v1/friends/${f.id}/accept/`)), remove(f, gettext("Refuse")), block(f)))));
  }
  if (data.outgoing.length) {
    parts.push(h("h3", {}, gettext("You asked")));
    parts.push(h("ul", {}, ...data.outgoing.map((f) => row(f, remove(f, gettext("Withdraw"))))));
  }
  if (data.blocked.length) {
    parts.push(h("h3", {}, gettext("Blocked")));
    parts.push(h("ul", {}, ...data.blocked.map((b) => h("li", {}, b.player, " ", button(gettext("Unblock"), (el) => act(el, "DELETE", `/api/v1/blocks/${b.id}/`))))));
  }
  redraw(list, ...parts);
}

function showBoard(board) {
  if (!board.results.length) {
    redraw(boardBox, h("p", { class: "muted" }, gettext("No win among you and your friends today yet.")));
    return;
  }
  redraw(boardBox, friendsBoardTable(board.results, "friends-board-table"));
}

function showChallenges(lists) {
  const items = [
    ...lists.made.map((c) => [c, interpolate(gettext("%(variant)s challenge yours"), { variant: variantTitle(c.variant) }, true)]),
    ...lists.played.map((c) => [c, interpolate(gettext("%(variant)s challenge by %(creator)s"), { variant: variantTitle(c.variant), creator: c.creator }, true)]),
  ];
  const players = (c) => interpolate(ngettext("%(n)s player", "%(n)s players", c.players), { n: c.players }, true);
  redraw(
    challengesBox,
    items.length
      ? h("ul", {}, ...items.map(([c, name]) => h("li", {}, h("a", { href: c.url }, name), ` · ${players(c)}${c.closed_at ? ` · ${gettext("closed")}` : ""}`)))
      : h("p", { class: "muted" }, gettext("None yet.")),
  );
}

function today() {
  return new Date().toISOString().slice(0, 10);
}

async function load() {
  try {
    const [friends, board, challenges] = await Promise.all([
      request("GET", "/api/v1/friends/"),
      request("GET", `/api/v1/daily/${today()}/leaderboard/friends/`),
      request("GET", "/api/v1/challenges/"),
    ]);
    showFriends(friends.data);
    showBoard(board.data);
    showChallenges(challenges.data);
  } catch (error) {
    redraw(list, h("p", { class: "error", role: "alert" }, error.detail));
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("friend-name");
  act(form.querySelector("button"), "POST", "/api/v1/friends/", { player: input.value.trim() }, (f) => {
    input.value = "";
    toast(f.status === "accepted" ? interpolate(gettext("You and %(player)s are friends"), { player: f.player }, true) : interpolate(gettext("Asked %(player)s"), { player: f.player }, true));
  });
});

document.getElementById("make-invite").addEventListener("click", (event) =>
  act(event.currentTarget, "POST", "/api/v1/invites/", undefined, (invite) => {
    const url = new URL(invite.url, location.origin).href;
    redraw(inviteBox, h("p", {}, `${gettext("Send this link (one friend, 7 days):")} `, h("input", { id: "invite-url", readonly: true, value: url, "aria-label": gettext("Invite link") })));
  }),
);

const inviteId = root.dataset.inviteId;
if (inviteId) {
  redraw(
    offer,
    h(
      "section",
      { class: "panel", id: "invite-question" },
      h("p", {}, gettext("A player invites you to be friends.")),
      button(gettext("Accept the invite"), (b) =>
        act(b, "POST", "/api/v1/friends/", { invite: inviteId }, (f) => {
          redraw(offer, h("p", {}, interpolate(gettext("You and %(player)s are friends."), { player: f.player }, true)));
          history.replaceState(null, "", "/friends/");
        }),
      { class: "primary", id: "accept-invite" }),
    ),
  );
}

load();
followFeed(() => load(), ["friend_beat_time", "game_finished"]);
