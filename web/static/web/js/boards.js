// What the friends page and the daily page draw alike: the daily board among friends.

import { formatDuration, h } from "scorpion/ui.js";

export function friendsBoardTable(results, id) {
  return h(
    "table",
    { class: "board-table", id },
    h("thead", {}, h("tr", {}, ...[gettext("Rank"), gettext("Player"), gettext("Time"), gettext("Moves")].map((t) => h("th", { scope: "col" }, t)))),
    h(
      "tbody",
      {},
      ...results.map((r) =>
        h(
          "tr",
          { class: r.is_me ? "me" : "" },
          h("td", {}, String(r.rank)),
          h("td", {}, r.player, r.is_me ? ` ${gettext("(you)")}` : ""),
          h("td", {}, formatDuration(r.time)),
          h("td", {}, String(r.moves)),
        ),
      ),
    ),
  );
}
