// The friends page (/friends/, and /friends/invite/<id>/ which asks to accept an invite):
// friends and requests, adding by name, invite links, blocks, today's daily board among
// friends, and the challenges made and played.

import { request } from "scorpion/api.js";
import { friendsBoardTable } from "scorpion/boards.js";
import { h, redraw, setBusy, toast, wireHeader } from "scorpion/ui.js";
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
  const block = (f) => button("Block", (b) => act(b, "POST", "/api/v1/blocks/", { friendship: f.id }));
  const parts = [];
  parts.push(
    data.friends.length
      ? h("ul", { id: "friend-rows" }, ...data.friends.map((f) => row(f, remove(f, "Remove"), block(f))))
      : h("p", { class: "muted" }, "No friends yet: ask one by name, or send an invite link."),
  );
  if (data.incoming.length) {
    parts.push(h("h3", {}, "Asking you"));
    parts.push(h("ul", { id: "incoming-rows" }, ...data.incoming.map((f) => row(f, button("Accept", (b) => act(b, "POST", `/api/v1/friends/${f.id}/accept/`)), remove(f, "Refuse"), block(f)))));
  }
  if (data.outgoing.length) {
    parts.push(h("h3", {}, "You asked"));
    parts.push(h("ul", {}, ...data.outgoing.map((f) => row(f, remove(f, "Withdraw")))));
  }
  if (data.blocked.length) {
    parts.push(h("h3", {}, "Blocked"));
    parts.push(h("ul", {}, ...data.blocked.map((b) => h("li", {}, b.player, " ", button("Unblock", (el) => act(el, "DELETE", `/api/v1/blocks/${b.id}/`))))));
  }
  redraw(list, ...parts);
}

function showBoard(board) {
  if (!board.results.length) {
    redraw(boardBox, h("p", { class: "muted" }, "No win among you and your friends today yet."));
    return;
  }
  redraw(boardBox, friendsBoardTable(board.results, "friends-board-table"));
}

function showChallenges(lists) {
  const items = [...lists.made.map((c) => [c, "yours"]), ...lists.played.map((c) => [c, `by ${c.creator}`])];
  redraw(
    challengesBox,
    items.length
      ? h("ul", {}, ...items.map(([c, who]) => h("li", {}, h("a", { href: c.url }, `${c.variant} challenge ${who}`), ` · ${c.players} player${c.players === 1 ? "" : "s"}${c.closed_at ? " · closed" : ""}`)))
      : h("p", { class: "muted" }, "None yet."),
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
    toast(f.status === "accepted" ? `You and ${f.player} are friends` : `Asked ${f.player}`);
  });
});

document.getElementById("make-invite").addEventListener("click", (event) =>
  act(event.currentTarget, "POST", "/api/v1/invites/", undefined, (invite) => {
    const url = new URL(invite.url, location.origin).href;
    redraw(inviteBox, h("p", {}, "Send this link (one friend, 7 days): ", h("input", { id: "invite-url", readonly: true, value: url, "aria-label": "Invite link" })));
  }),
);

const inviteId = root.dataset.inviteId;
if (inviteId) {
  redraw(
    offer,
    h(
      "section",
      { class: "panel", id: "invite-question" },
      h("p", {}, "A player invites you to be friends."),
      button("Accept the invite", (b) =>
        act(b, "POST", "/api/v1/friends/", { invite: inviteId }, (f) => {
          redraw(offer, h("p", {}, `You and ${f.player} are friends.`));
          history.replaceState(null, "", "/friends/");
        }),
      { class: "primary", id: "accept-invite" }),
    ),
  );
}

load();
followFeed(() => load(), ["friend_beat_time", "game_finished"]);
