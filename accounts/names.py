"""Display names that cannot pass for another: Unicode normalisation and a confusable skeleton.

A name is stored NFKC-normalised (a fullwidth "Guest" is stored as "Guest"). Two names are
the same name when their *skeletons* are equal: the idea of Unicode TR 39 (section 4,
"Confusable Detection"), made compact and case-blind for names:

1. NFKC (compatibility forms: fullwidth, ligatures, circled and styled letters);
2. letters of other scripts that look like Latin ones become those (``CONFUSABLES``: the
   Cyrillic and Greek look-alikes of TR 39's confusables.txt, both cases; "admin" written
   with a Cyrillic a is "admin");
3. case folded, accents dropped (NFD without combining marks: "Àdmin" is "admin");
4. Latin letters and digits that look alike in common fonts become one (``LATIN_LOOKALIKES``:
   "l", "I" and "1"; "0" and "o"; "rn" and "m"; "vv" and "w").

No Django here: the migration that filled the skeletons of existing names uses it too.
"""

from __future__ import annotations

import unicodedata

from django.utils.crypto import salted_hmac

# Cyrillic and Greek letters whose glyphs are those of Latin letters (TR 39 confusables.txt,
# the entries that map a single letter of these scripts to a single Latin letter), by their
# Unicode names: the characters themselves would be as ambiguous in this file as in a name.
_LOOK_ALIKES: dict[str, tuple[str, ...]] = {
    "3": ("CYRILLIC CAPITAL LETTER ZE", "CYRILLIC SMALL LETTER ZE"),
    "A": ("CYRILLIC CAPITAL LETTER A", "GREEK CAPITAL LETTER ALPHA"),
    "a": ("CYRILLIC SMALL LETTER A", "GREEK SMALL LETTER ALPHA"),
    "B": ("CYRILLIC CAPITAL LETTER VE", "CYRILLIC SMALL LETTER VE", "GREEK CAPITAL LETTER BETA"),
    "b": ("CYRILLIC CAPITAL LETTER SOFT SIGN", "CYRILLIC SMALL LETTER SOFT SIGN"),
    "C": ("CYRILLIC CAPITAL LETTER ES",),
    "c": ("CYRILLIC SMALL LETTER ES", "GREEK LUNATE SIGMA SYMBOL"),
    "D": ("CYRILLIC CAPITAL LETTER KOMI DE",),
    "d": ("CYRILLIC SMALL LETTER KOMI DE",),
    "E": ("CYRILLIC CAPITAL LETTER IE", "GREEK CAPITAL LETTER EPSILON"),
    "e": ("CYRILLIC SMALL LETTER IE",),
    "G": ("CYRILLIC CAPITAL LETTER KOMI SJE",),
    "g": ("LATIN SMALL LETTER SCRIPT G",),
    "H": ("CYRILLIC CAPITAL LETTER EN", "CYRILLIC SMALL LETTER EN", "GREEK CAPITAL LETTER ETA"),
    "h": ("CYRILLIC SMALL LETTER SHHA",),
    "I": (
        "CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I",
        "CYRILLIC LETTER PALOCHKA",
        "GREEK CAPITAL LETTER IOTA",
    ),
    "i": ("CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I", "GREEK SMALL LETTER IOTA"),
    "J": ("CYRILLIC CAPITAL LETTER JE",),
    "j": ("CYRILLIC SMALL LETTER JE", "GREEK LETTER YOT"),
    "K": ("CYRILLIC CAPITAL LETTER KA", "GREEK CAPITAL LETTER KAPPA"),
    "k": ("CYRILLIC SMALL LETTER KA", "GREEK SMALL LETTER KAPPA"),
    "l": ("CYRILLIC SMALL LETTER PALOCHKA",),
    "M": ("CYRILLIC CAPITAL LETTER EM", "CYRILLIC SMALL LETTER EM", "GREEK CAPITAL LETTER MU"),
    "N": ("GREEK CAPITAL LETTER NU",),
    "n": ("CYRILLIC SMALL LETTER PE",),
    "O": ("CYRILLIC CAPITAL LETTER O", "GREEK CAPITAL LETTER OMICRON"),
    "o": ("CYRILLIC SMALL LETTER O", "GREEK SMALL LETTER OMICRON"),
    "P": ("CYRILLIC CAPITAL LETTER ER", "GREEK CAPITAL LETTER RHO"),
    "p": ("CYRILLIC SMALL LETTER ER", "GREEK SMALL LETTER RHO"),
    "Q": ("CYRILLIC CAPITAL LETTER QA",),
    "q": ("CYRILLIC SMALL LETTER QA",),
    "S": ("CYRILLIC CAPITAL LETTER DZE",),
    "s": ("CYRILLIC SMALL LETTER DZE",),
    "T": ("CYRILLIC CAPITAL LETTER TE", "CYRILLIC SMALL LETTER TE", "GREEK CAPITAL LETTER TAU"),
    "u": ("GREEK SMALL LETTER UPSILON",),
    "v": ("GREEK SMALL LETTER NU",),
    "W": ("CYRILLIC CAPITAL LETTER WE",),
    "w": ("CYRILLIC SMALL LETTER WE",),
    "X": ("CYRILLIC CAPITAL LETTER HA", "GREEK CAPITAL LETTER CHI"),
    "x": ("CYRILLIC SMALL LETTER HA", "GREEK SMALL LETTER CHI"),
    "Y": (
        "CYRILLIC CAPITAL LETTER U",
        "CYRILLIC CAPITAL LETTER STRAIGHT U",
        "GREEK CAPITAL LETTER UPSILON",
    ),
    "y": (
        "CYRILLIC SMALL LETTER U",
        "CYRILLIC SMALL LETTER STRAIGHT U",
        "GREEK SMALL LETTER GAMMA",
    ),
    "Z": ("GREEK CAPITAL LETTER ZETA",),
}
CONFUSABLES = str.maketrans(
    {unicodedata.lookup(name): latin for latin, names in _LOOK_ALIKES.items() for name in names}
)
# After case folding: Latin letters and digits that look alike in common fonts.
LATIN_LOOKALIKES = (("rn", "m"), ("vv", "w"), ("1", "l"), ("i", "l"), ("0", "o"))


def normalised(name: str) -> str:
    """The form a name is stored in: NFKC, outer spaces removed."""
    return unicodedata.normalize("NFKC", name).strip()


def skeleton(name: str) -> str:
    """What a name looks like, whatever the script, case or accents it is written with: two
    names with one skeleton are one name to a reader."""
    text = unicodedata.normalize("NFKC", name).translate(CONFUSABLES).casefold()
    text = "".join(
        char for char in unicodedata.normalize("NFD", text) if not unicodedata.combining(char)
    )
    for lookalike, letter in LATIN_LOOKALIKES:
        text = text.replace(lookalike, letter)
    return text


# How a player appears to others on every board (stats.selectors), and in an app's view of
# them (accounts/oauth/adapter.py). The tag's salt keeps its old name: tags must not change.
GUEST_NAME = "Guest"


def display_name(*, user_id: int, email: str, name: str = "", guest: bool = False) -> str:
    """How a player appears to others: the name they chose (``"Ann#3f9c"``), else the first
    letter of their e-mail's local part (``"A***#3f9c"``), with a tag derived from their id
    with the server's secret; a guest (no sign-up: accounts/guests.py) is plain "Guest", never
    a made-up name. No e-mail, domain or username (allauth derives usernames from e-mails) ever
    leaves; the tag tells apart players who share a name and stays the same from day to day."""
    if guest:
        return GUEST_NAME
    tag = salted_hmac("stats.display_name", str(user_id)).hexdigest()[:4]
    if name:
        return f"{name}#{tag}"
    initial = email.partition("@")[0][:1].upper() or "?"
    return f"{initial}***#{tag}"
