// The home page: log-in and sign-up forms (allauth's browser client), or the lobby.

import { auth, games, JsonText, me, safeNext } from "scorpion/api.js";
import { followFeed } from "scorpion/live.js";
import {
  drawFailure,
  formatDate,
  formatDuration,
  h,
  isOver,
  modeLabel,
  movesText,
  nextFor,
  redraw,
  setBusy,
  STATUS_LABELS,
  toast,
  wireHeader,
} from "scorpion/ui.js";

const next = safeNext(new URLSearchParams(location.search).get("next") || "/");

function wireAuthForm(form, action) {
  const error = form.querySelector(".error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const email = form.elements.email.value.trim();
    const password = form.elements.password.value;
    if (!email || !password) {
      error.textContent = gettext("Enter your e-mail address and a password.");
      (email ? form.elements.password : form.elements.email).focus();
      return;
    }
    setBusy(form, true);
    try {
      const result = await action(email, password);
      if (result.user) {
        location.assign(nextFor(result.user, next));
        return;
      }
      error.textContent = result.pending?.includes("verify_email")
        ? gettext("Almost there: open the link we sent to your e-mail address, then log in.")
        : gettext("One more step is needed before you can log in.");
    } catch (failure) {
      error.textContent = failure.detail;
    } finally {
      setBusy(form, false);
    }
  });
}

// --- the lobby ---

async function start(body, control) {
  setBusy(control, true);
  try {
    const game = await games.create(body);
    location.assign(`/play/${game.id}/`);
  } catch (error) {
    setBusy(control, false);
    return error;
  }
  return null;
}

function gameSummary(game) {
  const parts = [modeLabel(game), movesText(game.moves)];
  if (game.elapsed_seconds) parts.push(formatDuration(game.elapsed_seconds));
  return parts.join(" · ");
}

function gameLink(game) {
  return isOver(game)
    ? h("a", { href: `/history/${game.id}/` }, gettext("Replay"))
    : h("a", { href: `/play/${game.id}/` }, gettext("Resume"));
}

async function showResume(box) {
  try {
    const [playing, stuck] = await Promise.all([
      games.list({ status: "playing", page_size: 1 }),
      games.list({ status: "stuck", page_size: 1 }),
    ]);
    const open = [...playing.results, ...stuck.results].sort((a, b) =>
      b.updated_at.localeCompare(a.updated_at),
    );
    const latest = open[0];
    if (!latest) {
      redraw(box, h("p", { class: "muted" }, gettext("No game in progress: deal a new one.")));
      return;
    }
    redraw(
      box,
      h(
        "p",
        {},
        h("strong", {}, STATUS_LABELS[latest.status]),
        ` · ${gameSummary(latest)} · ${interpolate(gettext("last played %(when)s"), { when: formatDate(latest.updated_at) }, true)}`,
      ),
      h("a", { class: "button primary", href: `/play/${latest.id}/`, id: "resume-latest" }, gettext("Resume latest game")),
    );
  } catch (error) {
    drawFailure(box, error.detail);
  }
}

async function showRecent(box) {
  try {
    const page = await games.list({ page_size: 8 });
    if (!page.results.length) {
      redraw(box, h("p", { class: "muted" }, gettext("Your games will be listed here.")));
      return;
    }
    redraw(
      box,
      h(
        "ul",
        { class: "game-list" },
        page.results.map((game) =>
          h(
            "li",
            { class: `status-${game.status}` },
            h("span", { class: `badge ${game.status}` }, STATUS_LABELS[game.status]),
            h("span", { class: "what" }, gameSummary(game)),
            h("span", { class: "when" }, formatDate(game.created_at)),
            gameLink(game),
          ),
        ),
      ),
    );
  } catch (error) {
    drawFailure(box, error.detail);
  }
}

// The variant picked for a new game; the daily challenge and the winnable deals are Scorpion
// deals (the server refuses them in another variant), so their buttons wait for Scorpion.
function pickedVariant() {
  return document.getElementById("variant-pick")?.value || "scorpion";
}

function wireVariantPick(section) {
  const pick = document.getElementById("variant-pick");
  if (!pick) return;
  const note = document.getElementById("variant-note");
  const sync = () => {
    const scorpion = pick.value === "scorpion";
    for (const button of section.querySelectorAll("button[data-mode]")) {
      if (button.dataset.mode !== "random") button.disabled = !scorpion;
    }
    note.hidden = scorpion;
    const stored = pick.value;
    try {
      localStorage.setItem("scorpion.variant", stored);
    } catch {
      // storage refused (private mode): the choice lasts this page only
    }
  };
  let remembered = null;
  try {
    remembered = localStorage.getItem("scorpion.variant");
  } catch {
    remembered = null;
  }
  if (remembered && [...pick.options].some((option) => option.value === remembered)) {
    pick.value = remembered;
  }
  pick.addEventListener("change", sync);
  sync();
}

function withVariant(body) {
  const variant = pickedVariant();
  return variant === "scorpion" ? body : { ...body, variant };
}

function wireNewGame(section) {
  wireVariantPick(section);
  for (const button of section.querySelectorAll("button[data-mode]")) {
    button.addEventListener("click", async () => {
      const body = { mode: button.dataset.mode };
      // Winnable deals come in difficulty bands (docs/difficulty.md); "any" sends none.
      const difficulty = document.getElementById("winnable-difficulty")?.value;
      if (body.mode === "winnable" && difficulty) body.difficulty = difficulty;
      const failure = await start(withVariant(body), section);
      if (failure) toast(failure.detail, { kind: "error", ms: 5000 });
    });
  }
  const form = document.getElementById("seeded-form");
  const error = document.getElementById("seeded-error");
  const kind = form.elements.kind;
  const value = form.elements.value;
  const hints = {
    seed: gettext("e.g. 123456789 (0 up to 2^63 − 1)"),
    code: gettext("104 characters: 52 cards such as KD7DJS… (208 for Double Scorpion)"),
    pysol_number: gettext("e.g. 1234, as in PySolFC"),
  };
  const showHint = () => {
    value.placeholder = hints[kind.value];
    value.inputMode = kind.value === "code" ? "text" : "numeric";
  };
  kind.addEventListener("change", showHint);
  showHint();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const raw = value.value.trim();
    let body;
    if (kind.value === "code") {
      const code = raw.replace(/\s+/g, "").toUpperCase();
      if (!code) {
        error.textContent = gettext("Enter a deal code.");
        return;
      }
      body = withVariant({ code });
    } else {
      if (!/^\d+$/.test(raw)) {
        error.textContent = gettext("Enter a whole number.");
        value.focus();
        return;
      }
      // Written by hand: a seed can be larger than a JavaScript number holds exactly.
      const variant = pickedVariant();
      const extra = variant === "scorpion" ? "" : `, "variant": ${JSON.stringify(variant)}`;
      body = new JsonText(`{"${kind.value}": ${raw.replace(/^0+(?=\d)/, "")}${extra}}`);
    }
    const failure = await start(body, form);
    if (failure) {
      error.textContent = failure.detail;
      value.focus();
    }
  });
}

// One tap from landing to the table: a guest account for this browser, then a random deal.
function wirePlayNow(button) {
  const error = document.getElementById("play-now-error");
  button.addEventListener("click", async () => {
    error.textContent = "";
    setBusy(button.parentElement, true);
    try {
      await me.startGuest();
      const variant = document.getElementById("play-now-variant")?.value || "scorpion";
      const game = await games.create(
        variant === "scorpion" ? { mode: "random" } : { mode: "random", variant },
      );
      location.assign(`/play/${game.id}/`);
    } catch (failure) {
      error.textContent = failure.detail;
      setBusy(button.parentElement, false);
    }
  });
}

// Signed out, a log-in (or a guest) made in another tab takes this one back to `next` too.
wireHeader({ next });

const playNow = document.getElementById("play-now");
if (playNow) wirePlayNow(playNow);

const loginForm = document.getElementById("login-form");
if (loginForm) {
  wireAuthForm(loginForm, auth.login);
  wireAuthForm(document.getElementById("signup-form"), auth.signup);
}

const lobby = document.getElementById("lobby");
if (lobby) {
  wireNewGame(lobby.querySelector(".new-game"));
  const refresh = () => {
    showResume(document.getElementById("resume"));
    showRecent(document.getElementById("recent"));
  };
  refresh();
  // A game started or finished on another device shows here at once.
  followFeed(() => {
    refresh();
    lobby.dataset.updates = String(Number(lobby.dataset.updates || 0) + 1);
  });
}
