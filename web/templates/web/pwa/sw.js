{% autoescape off %}// Scorpion's service worker (web/pwa.py writes in the version and the files): the client's
// shell and static files come from a cache, so that a page opened once opens again, and a game
// goes on, without a network (docs/web.md, "Offline").
//
// - Static files (CSS, modules, icons): from the cache, filled at install; their URLs carry a
//   content hash in production, so a cached file is never stale. A new deploy is a new worker
//   (its version changes), which fills a new cache and deletes the old ones.
// - A game's table (/play/{id}/): from the network, and kept; from the cache when the network
//   fails, else the offline page. Other pages are left to the browser. A kept page carries its own Content-Security-Policy header and the
//   nonce of its import map, so it runs as it did (the policy is unchanged).
// - The words of each language (/jsi18n/{language}/, Django's JavaScript catalogue, which every
//   page loads before its modules): cached at install, then from the network and kept, from the
//   cache when the network fails, so that a kept table finds them (the page that kept it may
//   have loaded them before this worker took control).
// - The API, the streams, the accounts' and the staff's paths: never touched (every write, and
//   every game the page reads, goes to the server; the play page keeps its own outbox).

const VERSION = "{{ version }}";
const STATIC_CACHE = `scorpion-static-${VERSION}`;
const PAGES_CACHE = "scorpion-pages";
const ASSETS = {{ assets }};
const CATALOGUES = {{ catalogues }};
const OFFLINE_PAGE = "/offline/";
const CATALOG_PREFIX = "/jsi18n/";
const PASS_THROUGH = ["/api/", "/_allauth/", "/accounts/", "/admin/", "/staff/", "/healthz/", "/oauth/", "/.well-known/"];

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(STATIC_CACHE);
      await cache.addAll([...ASSETS, ...CATALOGUES, OFFLINE_PAGE]);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      try {
        for (const name of await caches.keys()) {
          if (name.startsWith("scorpion-static-") && name !== STATIC_CACHE) await caches.delete(name);
        }
        await keepOpenTables();
      } finally {
        // Whatever failed above (a cache the browser refused, a table that could not be
        // kept), the open pages are claimed: a worker left active without controlling them
        // would serve none of them offline (CI saw one "activated" and never in control).
        await self.clients.claim();
      }
      // A table that became ready to claim between the two (it was still loading) was claimed
      // without being kept: kept now (the ones kept already are not fetched again).
      await keepOpenTables();
    })(),
  );
});

// A page that loaded while this worker was activating is not claimed with the others (it was
// not ready yet): it asks (web/js/ui.js), and is kept and claimed like them.
self.addEventListener("message", (event) => {
  if (event.data !== "claim") return;
  event.waitUntil(
    (async () => {
      try {
        await keepOpenTables();
      } finally {
        await self.clients.claim();
      }
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (PASS_THROUGH.some((prefix) => url.pathname.startsWith(prefix))) return;
  if (request.mode === "navigate") {
    // Only a game's table is kept for offline play: every other page is the browser's own
    // navigation, drawn for whoever is signed in now, never a kept copy of another moment.
    if (url.pathname.startsWith("/play/")) event.respondWith(kept(request, { offlinePage: true }));
  } else if (url.pathname.startsWith(CATALOG_PREFIX)) {
    event.respondWith(kept(request, { offlinePage: false }));
  } else if (ASSETS.includes(url.pathname)) {
    event.respondWith(asset(request));
  }
});

// The tables open when this worker first takes control were loaded past it (a worker controls
// only what loads after it): kept now, before it claims them, so that they too open again
// offline (a player who opened a game, then lost the network before any other navigation).
async function keepOpenTables() {
  const cache = await caches.open(PAGES_CACHE);
  for (const client of await self.clients.matchAll({ type: "window", includeUncontrolled: true })) {
    const url = new URL(client.url);
    if (url.origin !== self.location.origin || !url.pathname.startsWith("/play/")) continue;
    if (await cache.match(client.url)) continue;
    try {
      // Bounded: activation (and so the claim) waits for it.
      const signal = AbortSignal.timeout(10000);
      await keepIfShown(cache, client.url, await fetch(client.url, { credentials: "same-origin", signal }));
    } catch {
      // No network, or too slow: the next navigation to it keeps it.
    }
  }
}

// Keeps a page as the player saw it (not a redirect to the log-in form, not an error).
async function keepIfShown(cache, key, response) {
  if (response.ok && !response.redirected && response.type === "basic") await cache.put(key, response);
}

async function asset(request) {
  const cached = await caches.match(request, { cacheName: STATIC_CACHE });
  return cached || fetch(request);
}

// From the network, and kept; from the cache when the network fails (a table: else the
// offline page).
async function kept(request, { offlinePage }) {
  try {
    const response = await fetch(request);
    await keepIfShown(await caches.open(PAGES_CACHE), request, response.clone());
    return response;
  } catch (error) {
    // A table from the kept pages; the words from the latest copy, kept or cached at install.
    const copy =
      (await caches.match(request, { cacheName: PAGES_CACHE, ignoreSearch: false })) ||
      (!offlinePage && (await caches.match(request, { cacheName: STATIC_CACHE })));
    if (copy) return copy;
    const offline = offlinePage && (await caches.match(OFFLINE_PAGE, { cacheName: STATIC_CACHE }));
    if (offline) return offline;
    throw error;
  }
}
{% endautoescape %}
