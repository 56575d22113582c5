// Live updates: the server's event streams (Server-Sent Events), followed with EventSource.
//
// EventSource sends the session cookie, reconnects by itself after a dropped connection and
// then sends the last event id it saw (Last-Event-ID), so the server replays what was missed.
// When the server refuses a stream (too many open, or a server that serves none), EventSource
// gives up; it is tried again later, less and less often, with a fresh starting point (`url`
// is called again). A page works without streams: it only stops being live.
//
// A connection can also die without closing (a phone changing networks, a proxy that swallows
// the bytes): EventSource then waits forever. The server sends a `heartbeat` event as the
// stream opens and then every `interval_seconds` (15 s), busy or idle; after two missed
// heartbeats the stream is opened afresh, from the version shown (`url` is called again).

const FIRST_RETRY_MS = 5000;
const LAST_RETRY_MS = 60000;
const DEFAULT_HEARTBEAT_MS = 15000; // until the server's first heartbeat says otherwise

export function follow(url, handlers, { onOpen, onReopen } = {}) {
  let source = null;
  let stopped = false;
  let timer = null;
  let watchdog = null;
  let heartbeatMs = DEFAULT_HEARTBEAT_MS;
  let delay = FIRST_RETRY_MS;
  let opened = false;

  // Anything that arrives proves the connection alive; two heartbeats without it, it is dead.
  const alive = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(reopen, 2 * heartbeatMs + 1000);
  };
  const reopen = () => {
    if (stopped) return;
    clearTimeout(timer);
    source?.close();
    open();
  };

  const open = () => {
    if (stopped) return;
    source = new EventSource(url());
    alive();
    source.addEventListener("heartbeat", (event) => {
      try {
        const seconds = JSON.parse(event.data).interval_seconds;
        if (seconds > 0) heartbeatMs = seconds * 1000;
      } catch {
        // an unreadable heartbeat still proves the connection alive
      }
      alive();
    });
    for (const [name, handler] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => {
        alive();
        let data = null;
        try {
          data = JSON.parse(event.data);
        } catch {
          return;
        }
        handler(data, event);
      });
    }
    source.addEventListener("open", () => {
      alive();
      delay = FIRST_RETRY_MS;
      if (opened) onReopen?.();
      else onOpen?.();
      opened = true;
    });
    source.addEventListener("error", () => {
      if (stopped || source.readyState !== EventSource.CLOSED) return; // reconnecting by itself
      clearTimeout(watchdog); // given up: tried again on the retry timer instead
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, LAST_RETRY_MS);
    });
  };

  open();
  return {
    // Whether the stream is open now: what happens to the game reaches the page.
    isOpen() {
      return !stopped && source?.readyState === EventSource.OPEN;
    },
    close() {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(watchdog);
      source?.close();
    },
    // After the page was hidden for long: start again now rather than at the next retry.
    // `fresh`: open a new connection even if this one looks open. After the network came back
    // (a phone changing networks, a laptop waking) a connection can stay "open" while nothing
    // can reach it any more: rather than wait for two missed heartbeats, a new one resumes
    // from the version shown at once (`url` is called again).
    wake({ fresh = false } = {}) {
      if (stopped) return;
      if (!fresh && source?.readyState !== EventSource.CLOSED) return;
      delay = FIRST_RETRY_MS;
      reopen();
    },
  };
}

// How long a page may have been hidden before its streams are opened afresh when it comes back
// (three heartbeats: a connection that lived through that is likely dead, and a hidden page's
// timers, the heartbeats' watchdog included, may have been held back by the browser).
export const STALE_AFTER_MS = 45000;

// Wakes `stream` when the page comes back into view or the network comes back: afresh after
// the network came back or a long time hidden. Calls `onVisible` when the page is shown again.
export function wakeOnReturn(stream, onVisible = () => {}) {
  let hiddenAt = null;
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      hiddenAt = Date.now();
      return;
    }
    const long = hiddenAt !== null && Date.now() - hiddenAt > STALE_AFTER_MS;
    hiddenAt = null;
    stream()?.wake({ fresh: long });
    onVisible();
  });
  window.addEventListener("online", () => stream()?.wake({ fresh: true }));
}

// The player's feed: games created and finished, daily results, on any device. `onChange` is
// called (at most every 300 ms) when something the page shows may have changed; the page then
// reads its data again.
//
// The feed starts at the moment the server opens it, while the page read its lists a moment
// before: a game created in between would be in neither. So the page reads its lists once more
// when the feed is open ("open"): what happened before is in that read, what happens after
// comes on the feed.
export function followFeed(onChange, kinds = ["game_created", "game_finished", "daily_result"]) {
  let timer = null;
  const changed = (kind) => {
    clearTimeout(timer);
    timer = setTimeout(() => onChange(kind), 300);
  };
  const handlers = { resync: () => changed("resync") };
  for (const kind of kinds) handlers[kind] = () => changed(kind);
  const feed = follow(() => "/api/v1/me/stream/", handlers, {
    onOpen: () => changed("open"),
    onReopen: () => changed("resync"),
  });
  wakeOnReturn(() => feed);
  return feed;
}
