// Live updates: the server's event streams (Server-Sent Events), followed with EventSource.
//
// EventSource sends the session cookie, reconnects by itself after a dropped connection and
// then sends the last event id it saw (Last-Event-ID), so the server replays what was missed.
// When the server refuses a stream (too many open, or a server that serves none), EventSource
// gives up; it is tried again later, less and less often, with a fresh starting point (`url`
// is called again). A page works without streams: it only stops being live.

const FIRST_RETRY_MS = 5000;
const LAST_RETRY_MS = 60000;

export function follow(url, handlers, { onOpen, onReopen } = {}) {
  let source = null;
  let stopped = false;
  let timer = null;
  let delay = FIRST_RETRY_MS;
  let opened = false;

  const open = () => {
    if (stopped) return;
    source = new EventSource(url());
    for (const [name, handler] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => {
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
      delay = FIRST_RETRY_MS;
      if (opened) onReopen?.();
      else onOpen?.();
      opened = true;
    });
    source.addEventListener("error", () => {
      if (stopped || source.readyState !== EventSource.CLOSED) return; // reconnecting by itself
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, LAST_RETRY_MS);
    });
  };

  open();
  return {
    close() {
      stopped = true;
      clearTimeout(timer);
      source?.close();
    },
    // After the page was hidden for long: start again now rather than at the next retry.
    wake() {
      if (stopped || source?.readyState !== EventSource.CLOSED) return;
      clearTimeout(timer);
      delay = FIRST_RETRY_MS;
      open();
    },
  };
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
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") feed.wake();
  });
  return feed;
}
