// The public API, as the browser client speaks it: the session cookie set by allauth's browser
// client, and the CSRF token (from the `csrftoken` cookie) on every write.
//
// Every failure becomes an ApiError carrying the server's problem details (`code`, `detail`,
// and for a version conflict the current `game`), so that callers can show the server's own
// words instead of inventing theirs.

export class ApiError extends Error {
  constructor(status, problem) {
    const body = problem && typeof problem === "object" ? problem : {};
    super(body.detail || body.title || interpolate(gettext("The server answered %(status)s."), { status }, true));
    this.status = status;
    this.code = body.code || (status === 0 ? "network" : "error");
    this.detail = this.message;
    this.problem = body;
  }
}

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return "";
}

// The server's clock minus ours, in milliseconds, from the Date header of the latest answer:
// the game timer counts from the server's `started_at`, whatever the device's clock says.
let clockOffset = 0;

export function serverNow() {
  return Date.now() + clockOffset;
}

function noteServerClock(response) {
  const date = Date.parse(response.headers.get("Date") || "");
  if (!Number.isNaN(date)) clockOffset = date - Date.now();
}

// A wait in words: "in 40 seconds", "in 27 minutes", "in about 2 hours".
export function waitText(seconds) {
  if (!Number.isFinite(seconds) || seconds <= 0) return gettext("in a moment");
  const n = Math.ceil(seconds);
  if (seconds < 60) return interpolate(ngettext("in %(n)s second", "in %(n)s seconds", n), { n }, true);
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return interpolate(ngettext("in %(n)s minute", "in %(n)s minutes", minutes), { n: minutes }, true);
  const hours = Math.round(minutes / 60);
  return interpolate(ngettext("in about %(n)s hour", "in about %(n)s hours", hours), { n: hours }, true);
}

// allauth answers `{"status", "errors": [{"message", "param"}]}`; the API, problem details.
// A limit reached (429) is said in the player's words, with the wait from Retry-After, rather
// than the server's "Request was throttled. Expected available in 1596 seconds.".
function problemOf(data, status, retryAfter) {
  if (status === 429) {
    const body = data && typeof data === "object" && !Array.isArray(data) ? data : {};
    const wait = Number.parseInt(retryAfter || "", 10);
    return { ...body, code: body.code || "throttled", detail: interpolate(gettext("Too many requests for now: try again %(wait)s."), { wait: waitText(wait) }, true) };
  }
  if (data && Array.isArray(data.errors) && !data.detail) {
    const words = data.errors.map((e) => AUTH_WORDS[e.code] || e.message);
    return { status, code: "auth_error", detail: words.join(" ") };
  }
  if (data && data.errors && typeof data.errors === "object" && !Array.isArray(data.errors)) {
    // A validation error: its sentences, without the fields' raw names (each form has one
    // field, or says which in its words).
    const parts = Object.values(data.errors).map((messages) =>
      Array.isArray(messages) ? messages.join(" ") : String(messages),
    );
    return { ...data, detail: withoutFieldName(parts.join(" ") || data.detail || "") };
  }
  if (data && typeof data.detail === "string") return { ...data, detail: withoutFieldName(data.detail) };
  return data;
}

// allauth's words that mislead where the page already asked for the field: its "Please type
// your current password." answers a current password that was typed, but is wrong.
const AUTH_WORDS = {
  enter_current_password: gettext("That is not your current password."),
};

// "display_name: use letters..." -> "Use letters...": a field's raw name at the start of a
// server's sentence (the API names the field so; the page's form already shows which).
function withoutFieldName(text) {
  const bare = text.replace(/^[a-z]+(?:_[a-z]+)+: /, "");
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}

// JSON written by hand, for numbers that a JavaScript number cannot hold exactly.
export class JsonText {
  constructor(text) {
    this.text = text;
  }
}

// Integers beyond 2^53 (a seed) are kept as their digits instead of being rounded.
function keepBigIntegers(key, value, context) {
  if (typeof value === "number" && !Number.isSafeInteger(value) && context?.source) {
    if (/^-?\d+$/.test(context.source)) return context.source;
  }
  return value;
}

export async function request(method, path, body, { allowStatus = [], headers: extra = {} } = {}) {
  const headers = { Accept: "application/json", ...extra };
  const init = { method, headers, credentials: "same-origin", cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    // A JsonText is sent as written: seeds go up to 2^63, beyond a JavaScript number.
    init.body = body instanceof JsonText ? body.text : JSON.stringify(body);
  }
  if (method !== "GET" && method !== "HEAD") headers["X-CSRFToken"] = cookie("csrftoken");
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, { detail: gettext("The server cannot be reached: check the connection.") });
  }
  noteServerClock(response);
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text, keepBigIntegers);
    } catch {
      data = null;
    }
  }
  if (response.ok || allowStatus.includes(response.status)) {
    return { status: response.status, data };
  }
  if (response.status === 401 && path.startsWith("/api/")) {
    // The session ended (logged out in another tab, account closed): back to the log-in form.
    const next = location.pathname + location.search;
    location.assign(`/?next=${encodeURIComponent(next)}`);
  }
  throw new ApiError(response.status, problemOf(data, response.status, response.headers.get("Retry-After")));
}

async function json(method, path, body) {
  return (await request(method, path, body)).data;
}

function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

// --- accounts: allauth headless, browser client ---
const AUTH = "/_allauth/browser/v1";

// Other tabs of this browser learn that the session changed hands (a guest started, signed
// up, logged in or out, the account deleted) through a `storage` event on this key
// (`wireHeader` in ui.js): a tab drawn for a guest must not go on showing "Guest" once the
// guest has signed up elsewhere, nor a log-in form once someone logged in.
export const ACCOUNT_CHANGED_KEY = "scorpion.account-changed";

// This tab's own change of account (a log-in, sign-up, log-out, guest or deletion of its own),
// under way or made: the page then goes where its own action takes it, and `wireHeader` must
// not follow the change as one made elsewhere (a look on focus, answered in between, would
// send the page somewhere else, with a notice naming "another tab").
let changedHere = false;
let changesUnderWay = 0;

export function changingAccountHere() {
  return changedHere || changesUnderWay > 0;
}

async function changeAccount(action) {
  changesUnderWay += 1;
  try {
    return await action();
  } finally {
    changesUnderWay -= 1;
  }
}

// What this browser keeps of an account's games for offline play (play-outbox.js: the last
// game the server sent, the commands still to send) and the pages the service worker kept
// (sw.js): forgotten at log-out and when the account is deleted, so that the next player of a
// shared device finds none of it.
export const KEPT_GAME_PREFIXES = ["scorpion.outbox.", "scorpion.game."];
export const KEPT_PAGES_CACHE = "scorpion-pages";
// Set when they are forgotten: a table open in another tab, offline meanwhile, must neither
// write them back nor send the moves it holds to whoever is signed in next (play-outbox.js).
export const KEPT_GAMES_FORGOTTEN_KEY = "scorpion.kept-games-forgotten";

async function forgetKeptGames() {
  try {
    for (const key of Object.keys(localStorage)) {
      if (KEPT_GAME_PREFIXES.some((prefix) => key.startsWith(prefix))) localStorage.removeItem(key);
    }
    localStorage.setItem(KEPT_GAMES_FORGOTTEN_KEY, String(Date.now()));
  } catch {
    // nothing kept (storage refused)
  }
  try {
    await globalThis.caches?.delete(KEPT_PAGES_CACHE);
  } catch {
    // no cache storage (not a secure context)
  }
}

export function accountChanged() {
  changedHere = true;
  try {
    localStorage.setItem(ACCOUNT_CHANGED_KEY, String(Date.now()));
  } catch {
    // storage refused (private mode): the other tabs look again when shown or focused
  }
}

function signalIfSignedIn(result) {
  if (result.user) accountChanged();
  return result;
}

export const auth = {
  async session() {
    const { status, data } = await request("GET", `${AUTH}/auth/session`, undefined, {
      allowStatus: [401, 410],
    });
    return status === 200 ? data.data.user : null;
  },
  // Both answer the user when signed in, or `{pending: [...]}` when a step such as e-mail
  // verification is still needed (401 with the flows left to complete).
  signup: (email, password) =>
    changeAccount(async () =>
      signalIfSignedIn(
        signedIn(
          await request("POST", `${AUTH}/auth/signup`, { email, password }, { allowStatus: [401] }),
        ),
      ),
    ),
  login: (email, password) =>
    changeAccount(async () =>
      signalIfSignedIn(
        signedIn(
          await request("POST", `${AUTH}/auth/login`, { email, password }, { allowStatus: [401, 409] }),
        ),
      ),
    ),
  logout: () =>
    changeAccount(async () => {
      // allauth answers 401 ("not authenticated any more") to a successful log-out.
      await request("DELETE", `${AUTH}/auth/session`, undefined, { allowStatus: [401] });
      await forgetKeptGames();
      accountChanged();
    }),
};

// Account management (allauth's browser client; docs/web.md, "Account pages").
export const account = {
  emails: async () => (await json("GET", `${AUTH}/account/email`)).data,
  // With ACCOUNT_CHANGE_EMAIL the new address replaces the old one once confirmed.
  changeEmail: (email) => json("POST", `${AUTH}/account/email`, { email }),
  changePassword: (current_password, new_password) =>
    json("POST", `${AUTH}/account/password/change`, { current_password, new_password }),
  requestReset: (email) => json("POST", `${AUTH}/auth/password/request`, { email }),
  // 401: the password is set, and the visitor logs in with it.
  reset: (key, password) =>
    request("POST", `${AUTH}/auth/password/reset`, { key, password }, { allowStatus: [401] }),
  verifyEmail: (key) =>
    request("POST", `${AUTH}/auth/email/verify`, { key }, { allowStatus: [401] }),
};

// The caller's account in the API: guest or not, the leaderboard name, data and deletion.
export const me = {
  get: () => json("GET", "/api/v1/me/"),
  // The account signed in now, or null when none is (no redirect to the log-in form).
  async current() {
    const { status, data } = await request("GET", "/api/v1/me/", undefined, { allowStatus: [401, 403] });
    return status === 200 ? data : null;
  },
  setName: (display_name) => json("PATCH", "/api/v1/me/", { display_name }),
  // "" follows the browser's Accept-Language; else one of the site's languages.
  setLanguage: (language) => json("PATCH", "/api/v1/me/", { language }),
  // The card faces the client draws: "classic" or "four_colour".
  setDeck: (deck) => json("PATCH", "/api/v1/me/", { deck }),
  deleteData: () => json("DELETE", "/api/v1/me/data/"),
  deleteAccount: () =>
    changeAccount(async () => {
      const answer = await json("DELETE", "/api/v1/me/");
      await forgetKeptGames();
      accountChanged();
      return answer;
    }),
  // A guest account for this browser session (201), or the account already signed in (200):
  // the browser's signed-out tabs follow it as they follow a log-in.
  startGuest: () =>
    changeAccount(async () => {
      const guest = await json("POST", "/api/v1/guest/");
      accountChanged();
      return guest;
    }),
};

function signedIn({ status, data }) {
  if (status === 200 || status === 409) return { user: data?.data?.user ?? null };
  const flows = (data?.data?.flows || []).filter((flow) => flow.is_pending);
  return { user: null, pending: flows.map((flow) => flow.id) };
}

// --- games ---
export const games = {
  list: (params) => json("GET", `/api/v1/games/${query(params)}`),
  get: (id) => json("GET", `/api/v1/games/${id}/`),
  create: (body) => json("POST", "/api/v1/games/", body),
  // `key`: the command's Idempotency-Key, the same on every retry (applied once).
  command: async (id, body, key) =>
    (
      await request("POST", `/api/v1/games/${id}/commands/`, body, {
        headers: key ? { "Idempotency-Key": key } : {},
      })
    ).data,
  hints: (id) => json("GET", `/api/v1/games/${id}/hints/`),
  // Winning chances per move: GET serves them (200, counts as a hint) or says "pending" (202);
  // POST only has them computed (the player paused), serving and counting nothing.
  chances: (id) => json("GET", `/api/v1/games/${id}/chances/`),
  prepareChances: (id) => json("POST", `/api/v1/games/${id}/chances/`),
  analysis: (id) => json("GET", `/api/v1/games/${id}/analysis/`),
  // The history a page at a time: `after` is a cursor (the last seq already read).
  events: (id, params) => json("GET", `/api/v1/games/${id}/events/${query(params)}`),
  state: (id, version) => json("GET", `/api/v1/games/${id}/states/${version}/`),
  // Consecutive states from version `start`, each with the event that led to it.
  states: (id, params) => json("GET", `/api/v1/games/${id}/states/${query(params)}`),
  restart: (id) => json("POST", `/api/v1/games/${id}/restart/`),
  // Personal bests, streak and daily rank of a finished game (the win moment).
  result: (id) => json("GET", `/api/v1/games/${id}/result/`),
};

export const daily = {
  today: () => json("GET", "/api/v1/daily/"),
  leaderboard: (date, params) =>
    json("GET", `/api/v1/daily/${encodeURIComponent(date)}/leaderboard/${query(params)}`),
  // A month (YYYY-MM) of the caller's dailies: results, streaks, the month's badge.
  calendar: (month) => json("GET", `/api/v1/calendar/${encodeURIComponent(month)}/`),
};

export const stats = {
  get: () => json("GET", "/api/v1/stats/"),
  // Every achievement (earned ones with their date and game) and the monthly badges.
  achievements: () => json("GET", "/api/v1/achievements/"),
};

// Only a path of this site may be followed after logging in (no open redirect). The value is
// read as the browser will read it, by the URL parser, which drops tab, CR and LF and takes a
// backslash for a slash ("/\t/evil.example" is "//evil.example", another site): it must start
// with a single "/", hold no control character or backslash at all, and resolve to this origin.
export function safeNext(value) {
  if (typeof value !== "string" || !/^\/(?![/\\])/.test(value)) return "/";
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return "/";
  let url;
  try {
    url = new URL(value, location.origin);
  } catch {
    return "/";
  }
  if (url.origin !== location.origin) return "/";
  // "/.//evil.example" resolves to the path "//evil.example": same origin, but as a relative
  // reference it would name another host again.
  const path = url.pathname + url.search + url.hash;
  return path.startsWith("//") ? "/" : path;
}

// A link of the paginated API (absolute, as DRF builds it) as a path of this site.
export function pathOf(url) {
  if (!url) return null;
  const parsed = new URL(url, location.href);
  return parsed.pathname + parsed.search;
}
