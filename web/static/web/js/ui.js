// Small helpers shared by every page: building elements, messages, formatting, the header.

import { ACCOUNT_CHANGED_KEY, auth, changingAccountHere, me } from "scorpion/api.js";

// h("button", {class: "x", onclick: f, style: {"--c": "red"}}, "text", child...) -> an element.
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "dataset") {
      Object.assign(element.dataset, value);
    } else if (name === "text") {
      element.textContent = value;
    } else if (name === "style") {
      // Through the CSSOM: a style attribute would be an inline style, which the CSP refuses.
      for (const [property, setting] of Object.entries(value)) {
        element.style.setProperty(property, String(setting));
      }
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

// A table wider than a phone (320 px) scrolls sideways in its box, never the page: the box is
// a labelled region that takes the keyboard focus, so the arrow keys can scroll it (axe:
// scrollable-region-focusable).
export function scrollBox(label, table) {
  return h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": interpolate(gettext("%(name)s: table"), { name: label }, true) }, table);
}

// Replaces what a box shows, keeping the keyboard focus in it: the lobby, the history, the daily
// page and the statistics redraw whenever something happens on another device (the player's
// feed), and a focused link or button thrown away with its box would send a keyboard or
// screen-reader user back to the top of the page. The focus goes to the new element that
// stands for the focused one (the same id, or the same tag, link and words), else to the box.
export function redraw(box, ...children) {
  const active = document.activeElement;
  let held = active && active !== box && box.contains(active) ? focusKey(active) : null;
  // A redraw that could not find the focused element (a passing error drawn in its place) left
  // the focus on the box and noted what it was on: the next redraw that draws it puts it back.
  if (held === null && active === box && box.dataset.focusKey) held = box.dataset.focusKey;
  delete box.dataset.focusKey;
  box.replaceChildren(...children);
  box.dataset.drawn = "true";
  if (held === null) return;
  const again = [...box.querySelectorAll("a, button, input, select, textarea, [tabindex]")].find(
    (element) => focusKey(element) === held,
  );
  if (again) {
    again.focus({ preventScroll: true });
    return;
  }
  box.dataset.focusKey = held;
  if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "-1");
  box.focus({ preventScroll: true });
}

// A list that could not be loaded: the first time, the box says why; a refresh that fails (the
// feed said something changed, the network or the server did not answer) keeps what the box
// already shows, which was true a moment ago, and says so in the message line, rather than
// throwing the player's list (and their keyboard focus in it) away for an error.
export function drawFailure(box, detail) {
  if (box.dataset.drawn === "true" && !box.querySelector(":scope > .error")) {
    toast(interpolate(gettext("Could not refresh: %(detail)s"), { detail }, true), { kind: "error" });
    return;
  }
  redraw(box, h("p", { class: "error" }, detail));
}

function focusKey(element) {
  if (element.id) return `#${element.id}`;
  return [element.tagName, element.getAttribute("href") || "", element.textContent.trim()].join(" ");
}

// A short message that goes away by itself; screen readers hear it through the live region.
let toastTimer = 0;
export function toast(message, { kind = "info", ms = 3200 } = {}) {
  announce(message);
  const box = document.getElementById("toast");
  if (!box) return;
  box.textContent = message;
  box.dataset.kind = kind;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    box.hidden = true;
    box.textContent = "";
  }, ms);
}

// Takes the message line away if it still shows ``message`` (and nothing said since).
export function hideToast(message) {
  const box = document.getElementById("toast");
  if (!box || box.hidden || box.textContent !== message) return;
  clearTimeout(toastTimer);
  box.hidden = true;
  box.textContent = "";
}

// Said to screen readers only (the visible table already shows it).
let pending = null; // the message about to be put in the live region, with its timer
export function announce(message) {
  const region = document.getElementById("announcer");
  if (!region) return;
  // Two messages in the same moment (the banner, then the win's figures) are said together:
  // the second would otherwise replace the first before anything read it.
  const text = pending ? `${pending.text} ${message}` : message;
  if (pending) clearTimeout(pending.timer);
  region.textContent = "";
  // A new text node in a later task makes the live region speak even for a repeated message.
  const timer = setTimeout(() => {
    pending = null;
    region.textContent = text;
  }, 30);
  pending = { text, timer };
}

export function formatDuration(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(seconds)) return "–";
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

// The page's language (base.html's <html lang>, the account's or the browser's choice): dates
// are written in it, whatever language the device itself is set to.
export function pageLanguage() {
  return document.documentElement.lang || undefined;
}

export function formatDate(iso, { time = true } = {}) {
  if (!iso) return "–";
  const date = new Date(iso);
  const options = time
    ? { dateStyle: "medium", timeStyle: "short" }
    : { dateStyle: "medium", timeZone: "UTC" };
  return new Intl.DateTimeFormat(pageLanguage(), options).format(date);
}

export const MODE_LABELS = {
  random: gettext("Random deal"),
  seeded: gettext("Chosen deal"),
  daily: gettext("Daily challenge"),
  winnable: gettext("Winnable deal"),
  // Statistics only: later attempts at a day's daily challenge (they never rank).
  daily_practice: gettext("Daily challenge, practice"),
};

// The games of the Scorpion family, as the page embeds them (games.variants.variants_for_browser,
// the API's GET /api/v1/variants/ with each one's help text): their layouts are read from here,
// never from a list of names in the scripts.
const VARIANTS = (() => {
  const data = document.getElementById("variants-data");
  try {
    return data ? JSON.parse(data.textContent) : {};
  } catch {
    return {};
  }
})();

// A variant's facts (title, decks, stock, reserve, how_to_play, ...), or undefined.
export function variantInfo(name) {
  return VARIANTS[name || "scorpion"];
}

// "1 move", "2 moves": a count with its word.
export function movesText(n) {
  return interpolate(ngettext("%(n)s move", "%(n)s moves", n), { n }, true);
}

export function variantTitle(name) {
  return variantInfo(name)?.title || name;
}

// How a variant is played, in a few sentences (the play page's help).
export function variantRules(name) {
  return variantInfo(name)?.how_to_play || "";
}

// A daily game that is not the player's first attempt of the day: practice, never ranked.
export function isPractice(game) {
  return game.mode === "daily" && !game.ranked;
}

// The mode of a game as a short label, practice attempts marked as such.
export function modeLabel(game) {
  let label = MODE_LABELS[game.mode] || game.mode;
  if (game.variant && game.variant !== "scorpion") {
    label = interpolate(gettext("%(variant)s, %(mode)s"), { variant: variantTitle(game.variant), mode: label.toLowerCase() }, true);
  }
  return isPractice(game) ? interpolate(gettext("%(mode)s (practice)"), { mode: label }, true) : label;
}

export const STATUS_LABELS = {
  playing: gettext("In play"),
  stuck: gettext("No moves available"),
  won: gettext("Won"),
  resigned: gettext("Resigned"),
  abandoned: gettext("Abandoned"),
};

// A deal's difficulty band (docs/difficulty.md) in words; the API's own word otherwise.
const DIFFICULTY_LABELS = {
  easy: gettext("easy"),
  medium: gettext("medium"),
  hard: gettext("hard"),
};

export function difficultyLabel(band) {
  return DIFFICULTY_LABELS[band] || band;
}

// Won, resigned or abandoned: the game accepts no more commands.
export const OVER = ["won", "resigned", "abandoned"];
export const isOver = (game) => OVER.includes(game.status);

export function setBusy(element, busy) {
  if (!element) return;
  element.toggleAttribute("aria-busy", busy);
  for (const control of element.querySelectorAll("button, input, select")) {
    if (busy) {
      control.dataset.wasDisabled = control.disabled ? "1" : "";
      control.disabled = true;
    } else if (control.dataset.wasDisabled !== undefined) {
      control.disabled = control.dataset.wasDisabled === "1";
      delete control.dataset.wasDisabled;
    }
  }
}

// This tab's own memory (sessionStorage: one per tab, kept across its page loads).
// TAB_PAGE_KEY: the signed-in page the tab showed last and whose it was, so that the log-in
// form it is sent to from there knows whether that page (`next`) is the account's now signed
// in. TAB_NOTICE_KEY: why the tab left its page, said by the page it arrives at (once).
const TAB_PAGE_KEY = "scorpion.tab-page";
const TAB_NOTICE_KEY = "scorpion.tab-notice";

function recall(key) {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null; // storage refused (private mode): no memory, and a signed-out tab follows `next`
  }
}

function remember(key, value) {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    // storage refused: as above
  }
}

// Where a tab sent to the log-in form goes once `account` is signed in: back to the page it
// was sent from (`next`), unless the tab showed that page to another account (a game of
// theirs is "not found" for this one, and a guest's stays the guest's): then the lobby.
export function nextFor(account, next) {
  let shown = null;
  try {
    shown = JSON.parse(recall(TAB_PAGE_KEY) || "null");
  } catch {
    shown = null;
  }
  return shown?.path === next && shown.user !== String(account.id) ? "/" : next;
}

// What the page this tab goes to next says, once (a deleted account's confirmation, say): the
// page it leaves cannot say it, and the next one would not know it.
export function noticeOnNextPage(message) {
  remember(TAB_NOTICE_KEY, message);
}

function switchedNotice(account, fromGuest) {
  if (account.guest) return gettext("Playing as a guest in another tab: this tab now shows the guest's games.");
  const switched = interpolate(
    gettext("Logged in as %(email)s in another tab: this tab now shows that account."),
    { email: account.email },
    true,
  );
  return fromGuest ? `${switched} ${gettext("The guest's games stay with the guest.")}` : switched;
}

// The header, on every page (`next`: where a signed-out page goes once signed in, from the
// lobby for the rest). Its log-out button, and the account it shows kept true: another tab of
// this browser may sign the guest up, log in (to another account, or where this one shows the
// log-in form) or log out; this tab hears of it through `storage` (api.js `accountChanged`)
// and looks again whenever it is shown or focused (a change made outside the client's pages).
export function wireHeader({ next = "/" } = {}) {
  registerServiceWorker();
  watchNetwork();
  const notice = recall(TAB_NOTICE_KEY);
  if (notice) {
    remember(TAB_NOTICE_KEY, null);
    toast(notice, { ms: 8000 });
  }
  wireLogout(document.getElementById("logout"));
  const header = document.querySelector(".site-header");
  if (!header) return;
  if (header.dataset.user) {
    // As the server writes `next` when it sends a signed-out visitor to the log-in form.
    const path = location.pathname + location.search;
    remember(TAB_PAGE_KEY, JSON.stringify({ user: header.dataset.user, path }));
  }
  let looking = false;
  const look = async () => {
    if (looking || changingAccountHere()) return;
    looking = true;
    try {
      const account = await me.current();
      // This tab changed the account itself meanwhile: it goes where that takes it.
      if (changingAccountHere()) return;
      if (header.dataset.user) followAccount(header, account);
      else if (account) followLogIn(account, next);
    } catch {
      // offline: the next look will tell
    } finally {
      looking = false;
    }
  };
  window.addEventListener("storage", (event) => {
    if (event.key === ACCOUNT_CHANGED_KEY) look();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") look();
  });
  window.addEventListener("focus", look);
}

function wireLogout(button) {
  if (!button) return;
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await auth.logout();
      location.assign("/");
    } catch (error) {
      button.disabled = false;
      toast(error.detail, { kind: "error" });
    }
  });
}

// A page drawn signed out (the log-in form, the password pages) once someone is signed in:
// what it offers is a visitor's, so it goes on as the account, where `nextFor` says.
function followLogIn(account, next) {
  remember(TAB_NOTICE_KEY, switchedNotice(account, false));
  location.assign(nextFor(account, next));
}

// The same account, now signed up (or with a new address): the header alone is drawn again,
// as base.html draws it, and the page goes on. None: the page was the account's, so it is
// loaded again (signed out, the server sends it to the log-in form). Another account: a game's
// page (the table, a replay) is the other account's game, "not found" for this one and never
// to be shown to it, so the tab goes to the lobby; any other page is loaded again, drawn for
// the account; either says why. A page drawn for the kind of account (the account page's
// forms: data-guest) is loaded again too.
function followAccount(header, account) {
  const box = header.querySelector(".account");
  const fromGuest = box.classList.contains("guest");
  const shown = fromGuest ? null : box.querySelector(".who").textContent;
  if (account && String(account.id) === header.dataset.user) {
    if (account.guest ? shown === null : shown === account.email) return; // as drawn
    const drawnForGuest = document.querySelector("[data-guest='true']") !== null;
    if (!account.guest && !drawnForGuest) {
      const logout = h("button", { type: "button", id: "logout", class: "link-button" }, gettext("Log out"));
      const current = document.body.classList.contains("page-account") ? "page" : null;
      const who = { class: "who", href: "/account/", title: interpolate(gettext("Your account: %(email)s"), { email: account.email }, true), "aria-current": current };
      box.classList.remove("guest");
      redraw(box, h("a", who, account.email), logout);
      wireLogout(logout);
      announce(interpolate(gettext("Signed in as %(email)s."), { email: account.email }, true));
      return;
    }
  } else if (account) {
    remember(TAB_NOTICE_KEY, switchedNotice(account, fromGuest));
    // play.html's and replay.html's box: the page of one game.
    if (document.querySelector("main > [data-game-id]")) {
      location.assign("/");
      return;
    }
  }
  location.reload();
}

// A game's page whose game the API does not find: deleted, or another account's (the server
// answers both alike, telling nothing of anyone else's games; a link from another account's
// tab, say). A way on, rather than "no such game" alone.
export function showNoSuchGame(box) {
  box.replaceChildren(
    h(
      "p",
      { class: "error", role: "alert" },
      `${gettext("This game is not among your games: it was deleted, or it is another account's.")} `,
    ),
    h("a", { class: "button primary", href: "/" }, gettext("To the lobby")),
  );
}

// Shows an error in a page's message area instead of its content.
export function showError(container, error) {
  container.replaceChildren(h("p", { class: "error", role: "alert" }, error.detail || String(error)));
}

// A modal question with two answers; resolves true when confirmed.
export function confirmDialog(question, confirmLabel) {
  return new Promise((resolve) => {
    const yes = h("button", { type: "submit", class: "danger", value: "yes" }, confirmLabel);
    const no = h("button", { type: "submit", value: "no", autofocus: true }, gettext("Cancel"));
    const dialog = h(
      "dialog",
      { class: "confirm", "aria-labelledby": "confirm-question" },
      h(
        "form",
        { method: "dialog" },
        h("p", { id: "confirm-question" }, question),
        h("div", { class: "actions" }, no, yes),
      ),
    );
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "yes");
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

// The service worker (/sw.js, web/pwa.py): the client's files and the pages opened are kept, so
// that they open again, and a game goes on, without a network (docs/web.md, "Offline").
function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker
    .register("/sw.js")
    .then(async () => {
      // A worker that became active while this page was loading claimed the pages open then,
      // but not this one (not yet ready to be claimed): ask it, once it is ready, to keep
      // and claim this page too, or it would never be served offline until a reload.
      const registration = await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) registration.active?.postMessage("claim");
    })
    .catch(() => {
      // not a secure context, or storage refused: the site works as before, online only
    });
}

// The offline banner, on every page: what the page shows is what it last loaded. The play
// page writes its own words there (what waits to be sent: play.js).
function watchNetwork() {
  const banner = document.getElementById("offline-banner");
  if (!banner) return;
  const show = () => {
    if (banner.dataset.owner) return;
    banner.hidden = navigator.onLine !== false;
    banner.textContent = banner.hidden ? "" : gettext("Offline: this page shows what it last loaded.");
  };
  window.addEventListener("online", show);
  window.addEventListener("offline", show);
  show();
}
