// The account pages: a guest's sign-up (keeping its games), the player's settings (name on the
// leaderboards, e-mail, password, export, deletion), the password reset and the e-mail
// confirmation that allauth's mails link to.

import { account, auth, me } from "scorpion/api.js";
import { confirmDialog, h, noticeOnNextPage, setBusy, wireHeader } from "scorpion/ui.js";

// Runs `action` for a form, showing its error or status message; resolves its result or null.
function wireForm(form, action) {
  if (!form) return;
  const error = form.querySelector(".error");
  const status = form.querySelector(".status");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    if (status) status.textContent = "";
    setBusy(form, true);
    try {
      const message = await action(form.elements);
      if (message && status) status.textContent = message;
    } catch (failure) {
      error.textContent = failure.detail || failure.message;
    } finally {
      setBusy(form, false);
    }
  });
}

function required(...fields) {
  const empty = fields.find((field) => !field.value.trim());
  if (empty) {
    empty.focus();
    throw new Error(gettext("Please fill in every field."));
  }
}

// --- a guest: sign up (the guest becomes the account) or log in elsewhere ---

function wireGuest() {
  wireForm(document.getElementById("signup-form"), async ({ email, password }) => {
    required(email, password);
    const result = await auth.signup(email.value.trim(), password.value);
    if (result.user) {
      location.assign("/account/?welcome=1");
      return "";
    }
    return gettext("Almost there: open the link we sent to your e-mail address.");
  });
  wireForm(document.getElementById("login-form"), async ({ email, password }) => {
    required(email, password);
    // No log-out first: allauth takes a guest's log-in as a signed-out visitor's
    // (accounts/middleware.py), and the guest stays signed in until the log-in succeeds. A
    // wrong password, a limit or a step left pending loses nothing: a guest has no password,
    // signed out it could never be reached again.
    const result = await auth.login(email.value.trim(), password.value);
    if (result.user) {
      location.assign("/");
      return "";
    }
    if (!result.pending) {
      // 409: this session is no guest's any more (signed up or logged in in another tab).
      location.reload();
      return "";
    }
    return result.pending.includes("verify_email")
      ? gettext("Almost there: open the link we sent to your e-mail address, then log in. Until then you play on as the guest.")
      : gettext("One more step is needed before you can log in.");
  });
}

// --- a player: settings ---

async function showEmails(box) {
  try {
    const addresses = await account.emails();
    box.replaceChildren(
      h(
        "ul",
        { class: "emails" },
        addresses.map((address) =>
          h(
            "li",
            {},
            h("strong", {}, address.email),
            address.primary ? ` · ${gettext("primary")}` : "",
            address.verified ? ` · ${gettext("confirmed")}` : ` · ${gettext("waiting for confirmation (see your mail)")}`,
          ),
        ),
      ),
    );
  } catch (error) {
    box.replaceChildren(h("p", { class: "error" }, error.detail));
  }
}

function wirePlayer() {
  const nameForm = document.getElementById("name-form");
  me.get().then((mine) => {
    nameForm.elements.display_name.value = mine.display_name;
    document.getElementById("account-page").dataset.loaded = "true";
  });
  wireForm(nameForm, async ({ display_name }) => {
    const mine = await me.setName(display_name.value.trim());
    return mine.display_name
      ? interpolate(gettext("Saved: leaderboards show you as %(name)s."), { name: mine.display_name }, true)
      : gettext("Saved: leaderboards show your initial.");
  });

  const emails = document.getElementById("emails");
  showEmails(emails);
  wireForm(document.getElementById("email-form"), async ({ email }) => {
    required(email);
    await account.changeEmail(email.value.trim());
    await showEmails(emails);
    email.value = "";
    return gettext("We sent a link to the new address: it replaces the old one once you open it.");
  });

  wireForm(document.getElementById("password-form"), async ({ current_password, new_password }) => {
    required(current_password, new_password);
    await account.changePassword(current_password.value, new_password.value);
    current_password.value = "";
    new_password.value = "";
    return gettext("Your password is changed.");
  });

  const zone = document.querySelector(".danger-zone");
  const status = zone.querySelector(".status");
  const error = zone.querySelector(".error");
  const guarded = async (question, label, action) => {
    error.textContent = "";
    status.textContent = "";
    if (!(await confirmDialog(question, label))) return;
    setBusy(zone, true);
    try {
      await action();
    } catch (failure) {
      error.textContent = failure.detail;
    } finally {
      setBusy(zone, false);
    }
  };
  document.getElementById("delete-data").addEventListener("click", () =>
    guarded(
      gettext("Delete every game and all your statistics? Your account stays. This cannot be undone."),
      gettext("Delete my games"),
      async () => {
        const { deleted } = await me.deleteData();
        status.textContent = interpolate(
          ngettext("Deleted %(n)s game and its statistics.", "Deleted %(n)s games and their statistics.", deleted.games),
          { n: deleted.games },
          true,
        );
      },
    ),
  );
  document.getElementById("delete-account").addEventListener("click", () =>
    guarded(
      gettext("Delete your account, with every game and statistic? You will be logged out everywhere. This cannot be undone."),
      gettext("Delete my account"),
      async () => {
        await me.deleteAccount(); // the other tabs hear of it (api.js accountChanged)
        noticeOnNextPage(gettext("Your account is deleted, with its games and statistics."));
        location.assign("/");
      },
    ),
  );
}

// --- visitors: password reset and e-mail confirmation ---

function wireReset(page) {
  wireForm(document.getElementById("request-form"), async ({ email }) => {
    required(email);
    await account.requestReset(email.value.trim());
    return gettext("If an account has this address, a link to reset its password is on its way.");
  });
  wireForm(document.getElementById("reset-form"), async ({ password }) => {
    required(password);
    await account.reset(page.dataset.key, password.value);
    password.value = "";
    return gettext("Your password is set: log in with it.");
  });
}

async function verify(page) {
  const status = document.getElementById("verify-status");
  try {
    await account.verifyEmail(page.dataset.key);
    status.textContent = gettext("Your e-mail address is confirmed.");
    page.dataset.verified = "true";
  } catch (error) {
    status.textContent = interpolate(gettext("This link cannot confirm an address: %(detail)s"), { detail: error.detail }, true);
    page.dataset.verified = "false";
  }
}

// --- everyone: the account's language (PATCH /api/v1/me/), the page drawn again in it ---

function wireLanguage() {
  wireForm(document.getElementById("language-form"), async ({ language }) => {
    await me.setLanguage(language.value);
    location.reload();
    return "";
  });
}

// The deck (card faces): saved as soon as it is picked, and applied to this page at once
// (every page draws the account's deck: data-deck on <body>, base.html).
function wireDeck() {
  const form = document.getElementById("deck-form");
  if (!form) return;
  const error = form.querySelector(".error");
  const status = form.querySelector(".status");
  form.addEventListener("submit", (event) => event.preventDefault());
  form.addEventListener("change", async (event) => {
    const deck = event.target.value;
    error.textContent = "";
    status.textContent = "";
    try {
      const mine = await me.setDeck(deck);
      document.body.dataset.deck = mine.deck;
      status.textContent = mine.deck === "four_colour" ? gettext("Saved: four-colour cards.") : gettext("Saved: classic cards.");
    } catch (failure) {
      error.textContent = failure.detail || failure.message;
    }
  });
}

wireHeader();
wireDeck();
const accountPage = document.getElementById("account-page");
if (accountPage) {
  if (accountPage.dataset.guest === "true") wireGuest();
  else wirePlayer();
  wireLanguage();
}
const resetPage = document.getElementById("reset-page");
if (resetPage) wireReset(resetPage);
const verifyPage = document.getElementById("verify-page");
if (verifyPage) verify(verifyPage);
