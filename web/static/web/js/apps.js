// Pages for third-party apps: the header, copy buttons, and a question before a form that
// revokes, deletes or replaces something. The pages work without this script too.

import { confirmDialog, toast, wireHeader } from "scorpion/ui.js";

wireHeader();

for (const button of document.querySelectorAll("button[data-copy]")) {
  button.addEventListener("click", async () => {
    const source = document.getElementById(button.dataset.copy);
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      toast(gettext("Copied"));
    } catch {
      getSelection().selectAllChildren(source);
      toast(gettext("Selected: copy it with your keyboard"));
    }
  });
}

for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", async (event) => {
    if (form.dataset.confirmed === "yes") return;
    event.preventDefault();
    if (await confirmDialog(form.dataset.confirm, form.dataset.confirmLabel || gettext("Yes"))) {
      form.dataset.confirmed = "yes";
      form.requestSubmit();
    }
  });
}
