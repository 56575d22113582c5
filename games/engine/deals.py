"""Seeds and PySolFC game numbers turned into deal codes.

Two independent, fully documented algorithms (docs/deals.md describes both so that any other
program can reproduce our deals bit for bit):

``deal_code_for_seed``
    Our own deals. SplitMix64 drives an unbiased Fisher-Yates shuffle of a fixed starting
    deck; the shuffled deck *is* the deal code. Only integer arithmetic is used, so the result
    never depends on the Python version, the platform or the ``random`` module. Golden vectors
    in the tests pin it forever: changing it would silently change every stored seed's deal.

``deal_code_for_pysol``
    The deal PySolFC (the open-source solitaire collection) shows for a game number in its
    game "Scorpion", so players can replay a PySolFC game here. PySolFC shuffles with the
    ``pysol_cards`` package: Microsoft's FreeCell LCG for numbers below 32000, Python's
    Mersenne Twister above. Both generators are re-implemented here in plain integer
    arithmetic (``pysol_cards`` is only a test dependency, used to verify this code).

Card ints and deal codes are those of ``games.engine.cards``.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import secrets
from collections.abc import Sequence

from games.engine.cards import DECK_SIZE, format_deal_code
from games.engine.errors import SeedError

__all__ = [
    "PYSOL_LCG_LIMIT",
    "PYSOL_MAX_GAME_NUMBER",
    "PYSOL_MIN_GAME_NUMBER",
    "SEED_LIMIT",
    "MersenneTwister",
    "SplitMix64",
    "daily_seed",
    "deal_code_for_pysol",
    "deal_code_for_seed",
    "pysol_talon",
    "random_seed",
]

_MASK64 = (1 << 64) - 1
_MASK32 = (1 << 32) - 1

# A seed is 0 <= seed < 2**63 (docs/rules.md): it fits a signed 64-bit integer in every client
# language and database column.
SEED_LIMIT = 1 << 63

# The Scorpion layout shared by both algorithms: 7 columns of 7, then a 3-card stock.
_COLUMNS = 7
_ROWS = 7
_STOCK = DECK_SIZE - _COLUMNS * _ROWS


# ---------------------------------------------------------------------------------------------
# Our own deals: SplitMix64 + Lemire's unbiased range + Fisher-Yates
# ---------------------------------------------------------------------------------------------


class SplitMix64:
    """Sebastiano Vigna's SplitMix64 (public-domain ``splitmix64.c``), exactly.

    Chosen because it is tiny, has no state setup, is defined for every 64-bit seed and has
    published reference outputs (seed 1234567 gives 6457827717110365317, ... ) that the tests
    check, so any language can re-implement it and prove it matches.
    """

    GAMMA = 0x9E3779B97F4A7C15
    MIX1 = 0xBF58476D1CE4E5B9
    MIX2 = 0x94D049BB133111EB

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK64

    def next(self) -> int:
        """The next 64-bit output, 0 <= x < 2**64."""
        self._state = (self._state + self.GAMMA) & _MASK64
        z = self._state
        z = ((z ^ (z >> 30)) * self.MIX1) & _MASK64
        z = ((z ^ (z >> 27)) * self.MIX2) & _MASK64
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)``: Lemire's multiply-and-reject method.

        ``x * bound`` (a 128-bit product) is split into its high 64 bits (the candidate) and
        low 64 bits ``low``. A candidate is rejected, and a fresh ``x`` drawn, exactly when
        ``low < 2**64 mod bound``; that removes the ``2**64 mod bound`` surplus values that a
        plain ``x % bound`` would spread unevenly. (Lemire, "Fast Random Integer Generation in
        an Interval", 2019; the same acceptance rule as his "nearly divisionless" loop, whose
        extra ``low < bound`` test is only a shortcut and never changes the result.)
        """
        if not 0 < bound <= 1 << 64:
            raise ValueError(f"bound must be in [1, 2**64], not {bound}")
        threshold = (1 << 64) % bound
        while True:
            product = self.next() * bound
            if product & _MASK64 >= threshold:
                return product >> 64


def _starting_deck() -> list[int]:
    # Card ints 0..51 are already AS..KS, AH..KH, AD..KD, AC..KC (cards.SUITS == "SHDC"):
    # the documented starting order is simply ascending card ints.
    return list(range(DECK_SIZE))


def _check_seed(seed: object) -> int:
    # bool is an int subclass, but True as a seed is almost surely a bug in the caller.
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise SeedError(f"a seed is an integer from 0 to 2**63 - 1, not {seed!r}")
    if not 0 <= seed < SEED_LIMIT:
        raise SeedError(f"a seed is an integer from 0 to 2**63 - 1 ({SEED_LIMIT - 1}), not {seed}")
    return int(seed)


def deal_code_for_seed(seed: int) -> str:
    """The deal code of a seed, 0 <= seed < 2**63 (docs/deals.md, "Seeds").

    SplitMix64 seeded with ``seed``; the deck starts as card ints 0..51 (AS..KS, AH..KH,
    AD..KD, AC..KC); for ``i`` from 51 down to 1 it swaps positions ``i`` and
    ``j = below(i + 1)``; the shuffled deck, position 0 first, is the deal code.

    Raises SeedError for bools, non-integers and numbers out of range.
    """
    rng = SplitMix64(_check_seed(seed))
    deck = _starting_deck()
    for i in range(DECK_SIZE - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return format_deal_code(deck)


def daily_seed(day: datetime.date, candidate: int, *, secret: bytes, generation: int = 0) -> int:
    """The seed of a day's ``candidate``-th daily deal candidate (docs/deals.md, "Daily").

    The first 8 bytes of HMAC-SHA256, keyed by the server's ``secret``, of
    ``"scorpion-daily:<YYYY-MM-DD>:<generation>:<candidate>"`` (UTF-8), read as a big-endian
    integer with the top bit cleared. The daily deal is the first candidate, counting from 0,
    that the solver proves winnable, so every process holding the secret derives the same
    deal, and nobody without it can compute a day's deal ahead of time. ``generation`` counts
    the day's regenerations: each one gives a fresh, unrelated series of candidates.

    The secret is an argument, not a setting: the engine knows nothing of the deployment.
    """
    if not isinstance(secret, bytes | bytearray) or not secret:
        raise ValueError("the daily-deal secret is a non-empty bytes key")
    for name, value in (("candidate", candidate), ("generation", generation)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise SeedError(f"a daily {name} number is an integer, 0 or more, not {value!r}")
    message = f"scorpion-daily:{day.isoformat()}:{generation}:{candidate}".encode()
    digest = hmac.new(bytes(secret), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & (SEED_LIMIT - 1)


def random_seed() -> int:
    """A fresh seed from the OS's cryptographic source (``secrets``), 0 <= seed < 2**63.

    Cryptographic so that a player cannot predict the next game's seed, and hence its deal,
    from earlier ones.
    """
    return secrets.randbelow(SEED_LIMIT)


# ---------------------------------------------------------------------------------------------
# PySolFC game numbers
# ---------------------------------------------------------------------------------------------

# PySolFC's pysolrandom.construct_random: a number n with 0 <= n < 32000 gets the Microsoft
# FreeCell generator (LCRandom31), anything else the Mersenne Twister (MTRandom). 0 is refused
# there (pysol_cards' LCRandom31 needs a seed >= 1: PySolFC answers "Invalid game number").
# Note that pysol_cards' own helper ``shuffle()`` uses ``n <= 32000``; PySolFC itself sends
# 32000 to the Mersenne Twister, and we follow PySolFC.
PYSOL_LCG_LIMIT = 32000
PYSOL_MIN_GAME_NUMBER = 1
# PySolFC's MAX_SEED (pysol_cards RandomBase.MAX_SEED): its game numbers are 0..10**20 (random
# games are drawn from there, "next game" wraps after it). Bigger numbers are not game numbers.
PYSOL_MAX_GAME_NUMBER = 10**20

# PySolFC card ids are suit * 13 + rank with suits Club, Spade, Heart, Diamond (pysollib
# acard.SUITS; pysol_cards suit_s "CSHD"). Our suits are "SHDC".
_OUR_SUIT_OF_PYSOL_SUIT = (3, 0, 1, 2)


def _our_card(pysol_id: int) -> int:
    return _OUR_SUIT_OF_PYSOL_SUIT[pysol_id // 13] * 13 + pysol_id % 13


class _MicrosoftLcg:
    """PySolFC's LCRandom31 for seeds 1 <= seed < 2**31: Microsoft C ``rand()``.

    ``state = (state * 214013 + 2531011) mod 2**31``, output ``state >> 16`` (15 bits).
    (pysol_cards masks with 33 bits and then takes bits 16..30; the low 31 bits of the state
    are identical either way, and they are all that those bits depend on.)
    """

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed

    def randint_upto(self, n: int) -> int:
        # Modulo, biased, but that is what Windows FreeCell and PySolFC do: compatibility is
        # the whole point here.
        self._state = (self._state * 214013 + 2531011) & 0x7FFFFFFF
        return (self._state >> 16) % (n + 1)


class MersenneTwister:
    """MT19937 seeded exactly like CPython's ``random.Random(seed)`` for an integer seed.

    CPython splits ``abs(seed)`` into 32-bit words, least significant first (one word 0 for
    seed 0), and calls the reference ``init_by_array``. CPython has done this for integers
    since Python 2.4 (``random2``, which older PySolFC used, is the Python 2 module), so the
    sequence is the same for every PySolFC release. Re-implemented here so that our deals
    never depend on the ``random`` module.
    """

    _N = 624
    _M = 397
    _MATRIX_A = 0x9908B0DF
    _UPPER = 0x80000000
    _LOWER = 0x7FFFFFFF

    __slots__ = ("_index", "_mt")

    def __init__(self, seed: int) -> None:
        seed = abs(seed)
        key: list[int] = []
        while seed:
            key.append(seed & _MASK32)
            seed >>= 32
        self._mt = [0] * self._N
        self._index = self._N
        self._init_by_array(key or [0])

    def _init_genrand(self, s: int) -> None:
        mt = self._mt
        mt[0] = s & _MASK32
        for i in range(1, self._N):
            mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & _MASK32

    def _init_by_array(self, key: Sequence[int]) -> None:
        n = self._N
        self._init_genrand(19650218)
        mt = self._mt
        i, j = 1, 0
        for _ in range(max(n, len(key))):
            prev = mt[i - 1]
            mt[i] = ((mt[i] ^ ((prev ^ (prev >> 30)) * 1664525)) + key[j] + j) & _MASK32
            i += 1
            j += 1
            if i >= n:
                mt[0] = mt[n - 1]
                i = 1
            if j >= len(key):
                j = 0
        for _ in range(n - 1):
            prev = mt[i - 1]
            mt[i] = ((mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941)) - i) & _MASK32
            i += 1
            if i >= n:
                mt[0] = mt[n - 1]
                i = 1
        mt[0] = 0x80000000  # MSB is 1, assuring a non-zero initial array
        self._index = n

    def _twist(self) -> None:
        mt, n, m = self._mt, self._N, self._M
        for k in range(n):
            y = (mt[k] & self._UPPER) | (mt[(k + 1) % n] & self._LOWER)
            mt[k] = mt[(k + m) % n] ^ (y >> 1) ^ (self._MATRIX_A if y & 1 else 0)
        self._index = 0

    def next32(self) -> int:
        """The next tempered 32-bit output (``genrand_int32``)."""
        if self._index >= self._N:
            self._twist()
        y = self._mt[self._index]
        self._index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)

    def random53(self) -> int:
        """``k`` such that CPython's ``random()`` returns ``k / 2**53`` (``genrand_res53``)."""
        a = self.next32() >> 5
        b = self.next32() >> 6
        return a * 67108864 + b

    def randint_upto(self, n: int) -> int:
        """PySolFC's ``randint(0, n)``: ``int(random() * (n + 1))`` in double arithmetic."""
        return _floor_of_double_product(self.random53(), n + 1)


def _floor_of_double_product(k: int, m: int) -> int:
    """``int(k / 2**53 * m)`` exactly as IEEE-754 doubles compute it, in integers.

    ``k / 2**53`` is exact, but the product is rounded to 53 significant bits (to nearest,
    ties to even) before ``int()`` truncates, and that rounding can carry it up to the next
    integer (e.g. ``k = (2**54 - 1) // 3, m = 3`` gives 2, not 1). PySolFC computes with
    floats, so the rounding is reproduced here rather than taking the exact floor.
    """
    product = k * m
    excess = product.bit_length() - 53
    if excess > 0:
        kept = product >> excess
        rest = product & ((1 << excess) - 1)
        half = 1 << (excess - 1)
        if rest > half or (rest == half and kept & 1):
            kept += 1
        product = kept << excess
    return product >> 53


def _check_game_number(game_number: object) -> int:
    if isinstance(game_number, bool) or not isinstance(game_number, int):
        raise SeedError(
            f"a PySolFC game number is an integer from {PYSOL_MIN_GAME_NUMBER} to 10**20, "
            f"not {game_number!r}"
        )
    if not PYSOL_MIN_GAME_NUMBER <= game_number <= PYSOL_MAX_GAME_NUMBER:
        raise SeedError(
            f"a PySolFC game number is an integer from {PYSOL_MIN_GAME_NUMBER} to 10**20 "
            f"({PYSOL_MAX_GAME_NUMBER}), not {game_number}"
        )
    return int(game_number)


def _pysol_talon_ids(game_number: int) -> list[int]:
    # PySolFC Game.shuffle(): the cards in id order; for LCRandom31 first rearranged into
    # Microsoft's order (ms_rearrange: rank by rank, suits C, D, H, S); then the generator's
    # shuffle (n from 51 down to 1: j = randint(0, n); swap n and j). The result is put on
    # the talon in list order, so the last card is the talon's top.
    ids = list(range(DECK_SIZE))
    rng: _MicrosoftLcg | MersenneTwister
    if game_number < PYSOL_LCG_LIMIT:
        ids = [ids[rank + offset] for rank in range(13) for offset in (0, 39, 26, 13)]
        rng = _MicrosoftLcg(game_number)
    else:
        rng = MersenneTwister(game_number)
    for n in range(DECK_SIZE - 1, 0, -1):
        j = rng.randint_upto(n)
        ids[n], ids[j] = ids[j], ids[n]
    return ids


def pysol_talon(game_number: int) -> list[int]:
    """PySolFC's talon after shuffling game ``game_number``, bottom card first (our card ints).

    The last card is the talon's top, the first one dealt. Game-independent: every 1-deck
    PySolFC game without a shuffle hook starts from this talon.
    """
    return [_our_card(pysol_id) for pysol_id in _pysol_talon_ids(_check_game_number(game_number))]


def deal_code_for_pysol(game_number: int) -> str:
    """Our deal code for PySolFC's Scorpion game number ``game_number`` (1 <= n <= 10**20).

    PySolFC's Scorpion.startGame deals seven rounds of one card to each of the 7 rows, left to
    right, each card taken from the top of the talon (rounds 1-3 face down on rows 1-4); the
    3 cards left go, on "deal", to rows 1, 2, 3, again from the top. So with ``talon`` bottom
    first, column ``c`` (0-based) holds ``talon[51 - 7*r - c]`` for rounds ``r`` 0..6, bottom
    to top, and the stock is ``talon[2], talon[1], talon[0]``.

    Raises SeedError for bools, non-integers and numbers PySolFC does not accept.
    """
    talon = pysol_talon(game_number)
    top = DECK_SIZE - 1
    order = [talon[top - _COLUMNS * r - c] for c in range(_COLUMNS) for r in range(_ROWS)]
    order += [talon[_STOCK - 1 - i] for i in range(_STOCK)]
    return format_deal_code(order)
