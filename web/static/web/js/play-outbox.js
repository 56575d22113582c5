// The play page's outbox: the commands made on this page that the server has not answered yet,
// in the order they were made, each with its own `Idempotency-Key` (docs/api.md, "Commands").
//
// A phone on a train loses the network for minutes. The taps made meanwhile are drawn as
// usual (the page foresees a move on the visible table) and wait here; when the network is
// back they are sent one at a time, in order. A command whose answer was lost is sent again
// with the same key, so the server applies it once (it answers a repeated key with the first
// answer): nothing is lost or doubled. The outbox and the last game the server sent are kept
// in localStorage, per game, so that a page reloaded offline (the service worker serves it:
// sw.js) still shows the table and still sends the taps.

import { KEPT_GAME_PREFIXES, KEPT_GAMES_FORGOTTEN_KEY } from "scorpion/api.js";

// Forgotten at log-out (api.js).
const [OUTBOX, SNAPSHOT] = KEPT_GAME_PREFIXES;

function forgottenMark() {
  try {
    return localStorage.getItem(KEPT_GAMES_FORGOTTEN_KEY);
  } catch {
    return null;
  }
}

// The mark as this page found it: another tab that logs out or deletes the account changes it.
const FORGOTTEN_AT_LOAD = forgottenMark();

// True once another tab of this browser logged out or deleted the account since this page was
// drawn: the commands still held here are that session's, which has ended, and are never sent
// (a log-in since, of anyone, would send them as that account) nor kept.
export function keptGamesForgotten() {
  return forgottenMark() !== FORGOTTEN_AT_LOAD;
}

// A random key for one command: crypto.randomUUID exists only in secure contexts (https,
// localhost); elsewhere 122 random bits written the same way.
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch {
    return null;
  }
}

function write(key, value) {
  if (keptGamesForgotten()) return; // not written back on a device its account has left
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage refused (private mode, full): the outbox lives as long as the page
  }
}

// Entries: {key, body, held, expected}; `held`: made offline (play.js `post`); `expected`:
// the version the command was first sent against, kept so that a command sent again is the
// same request.
export function loadOutbox(gameId) {
  const entries = read(OUTBOX + gameId);
  return Array.isArray(entries) ? entries.filter((e) => e && typeof e.key === "string" && e.body) : [];
}

export function saveOutbox(gameId, entries) {
  write(OUTBOX + gameId, entries.length ? entries : null);
}

// The last game the server sent (what the player sees: face-up cards and counts only), to
// draw the table when the page is opened without a network.
export function loadSnapshot(gameId) {
  const game = read(SNAPSHOT + gameId);
  return game && game.id === gameId ? game : null;
}

export function saveSnapshot(game) {
  write(SNAPSHOT + game.id, game);
}

// --- the network ---

let down = false; // a request failed for want of a network, and none has got through since
const listeners = new Set();

export function isOffline() {
  return down || navigator.onLine === false;
}

export function onNetworkChange(listener) {
  listeners.add(listener);
}

function changed() {
  for (const listener of listeners) listener(isOffline());
}

export function networkFailed() {
  if (!down) {
    down = true;
    changed();
  }
}

export function networkWorked() {
  if (down) {
    down = false;
    changed();
  }
}

window.addEventListener("offline", changed);
window.addEventListener("online", () => {
  down = false;
  changed();
});

// Resolves when it is worth trying again: at once when the browser says it is back online,
// else after `ms` (a network that looks up but answers nothing: a train's Wi-Fi).
export function networkBack(ms) {
  return new Promise((resolve) => {
    const done = () => {
      window.removeEventListener("online", done);
      clearTimeout(timer);
      resolve();
    };
    const timer = navigator.onLine === false ? null : setTimeout(done, ms);
    window.addEventListener("online", done);
  });
}
