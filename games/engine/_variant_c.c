/* The search of the other variants (games/engine/variant_solver.py, ``_VariantSearch``),
 * compiled.
 *
 * The same search, step for step: the rules of games/engine/legal.py (``variant_actions``,
 * ``_add_variant_moves``, ``_shadowed``) and games/engine/transitions.py
 * (``_apply_variant_move``, ``_apply_deal``, ``_settle``, ``completed_run``), the move ordering
 * of ``_VariantSearch._actions`` (its scores, its stable sort, one empty column tried per kind,
 * the probes' SplitMix64 noise drawn in the same order),
 * the transposition key of ``_VariantSearch._key``, the deadlock proof ``dead`` (where the
 * search uses it: ``uses_deadlock_proof``), and ``_VariantSearch.run``'s probes taking turns
 * with the complete search, each search suspended after the position it counts as Python's
 * generators are. So it visits the same positions in the same order, finds the same line and
 * counts the same nodes as the Python search (tests/engine/test_variant_solver_c.py checks it
 * on whole deals and mid-game positions of every variant). The proofs are in variant_solver.py;
 * this file only says where C differs in form:
 *
 * - a position is a value (``Pos``: the columns one after another in one array), copied from
 *   one stack frame to the next as Python's immutable positions are;
 * - the key is a byte string (the piles of the stock's target columns in order while the stock
 *   is full, then the other piles sorted, then the reserve sorted; faces, not copies, in two
 *   decks), kept in an open-addressing hash table: the same equalities as Python's tuples, the
 *   only thing the search asks of its key;
 * - ``dead``'s sets of cards are 128-bit sets; its passes visit the candidates in Python's
 *   order and compute the King conditions at the same point, so every answer is Python's.
 *
 * The rules' tables (what goes onto what, the runs' faces) are built here from the variant's
 * numbers (decks, build): games/engine/variants.py's definitions, in C.
 *
 * The search runs without the GIL: it touches no Python object between reading the position
 * and building the result.
 *
 * Optional: setup.py builds it where a C compiler is present, and variant_solver.py falls back
 * to the Python search where it is not.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_search_common.h"

#define FACES 52
#define MAX_COLUMNS 10
#define MAX_CARDS 104
#define MAX_STOCK MAX_COLUMNS
#define MAX_RESERVE 8
#define RUN 13
#define KING 12
#define CHECK_CLOCK_EVERY 256
/* Onto moves (a column's top takes at most 4 cards), a card to each empty column, the deal. */
#define MAX_ACTIONS (MAX_COLUMNS * 4 + MAX_CARDS * MAX_COLUMNS + 1)
#define MAX_KEY (2 + 2 * MAX_COLUMNS + MAX_CARDS + MAX_RESERVE)
#define DEAL_CARD 255

typedef unsigned __int128 Set; /* a set of cards, bit ``card`` */
#define BIT(card) (((Set)1) << (card))

static const int RED[4] = {0, 1, 1, 0}; /* "SHDC" */

/* --- The variant's rules (games/engine/variants.py) --------------------------------------- */

typedef struct {
    int columns;
    int decks;
    int deck_size;
    int runs;
    int empty_any;  /* any face-up card may go into an empty column (else Kings only) */
    int alternate;  /* builds by alternate colour (else by suit) */
    int upper_only; /* two decks, ``Variant.either_copy`` false: of two face-up copies in one
                     * column only the upper one moves (``_shadowed``) */
    int fixed_glue; /* dead: one deck, by suit */
    /* onto[card]: the cards that may be put on ``card``, in variants.py's order. */
    uint8_t onto[MAX_CARDS][4];
    int onto_len[MAX_CARDS];
    /* may_go_on[card][below]: ``card in onto[below]``. */
    uint8_t may_go_on[MAX_CARDS][MAX_CARDS];
    /* goes_on[face][higher face]: ``higher in goes_on_faces[face]``. */
    uint8_t goes_on[FACES][FACES];
    /* goes_on_list[face]: goes_on_faces[face], ascending. */
    uint8_t goes_on_list[FACES][4];
    int goes_on_len[FACES];
    /* run_mask[king face][rank]: every card (both copies) that could stand at that rank in a
     * run headed by that King (variant_solver._RUN_FACES). */
    Set run_mask[FACES][12];
} Rules;

static int onto_faces(const Rules *r, int face, int *out) {
    int rank = face % 13;
    if (rank == 0) return 0;
    if (!r->alternate) {
        out[0] = face - 1;
        return 1;
    }
    int red = RED[face / 13];
    int n = 0;
    for (int suit = 0; suit < 4; suit++)
        if (RED[suit] != red) out[n++] = suit * 13 + rank - 1;
    return n;
}

static void build_rules(Rules *r) {
    int lower[4];
    memset(r->may_go_on, 0, sizeof(r->may_go_on));
    memset(r->goes_on, 0, sizeof(r->goes_on));
    for (int card = 0; card < r->deck_size; card++) {
        int n = onto_faces(r, card % FACES, lower);
        int k = 0;
        for (int i = 0; i < n; i++)
            for (int copy = 0; copy < r->decks; copy++) {
                int onto = lower[i] + FACES * copy;
                r->onto[card][k++] = (uint8_t)onto;
                r->may_go_on[onto][card] = 1;
            }
        r->onto_len[card] = k;
    }
    for (int face = 0; face < FACES; face++) r->goes_on_len[face] = 0;
    for (int higher = 0; higher < FACES; higher++) {
        int n = onto_faces(r, higher, lower);
        for (int i = 0; i < n; i++) r->goes_on[lower[i]][higher] = 1;
    }
    for (int face = 0; face < FACES; face++)
        for (int higher = 0; higher < FACES; higher++)
            if (r->goes_on[face][higher])
                r->goes_on_list[face][r->goes_on_len[face]++] = (uint8_t)higher;
    for (int king = KING; king < FACES; king += 13)
        for (int rank = 0; rank < 12; rank++) {
            Set mask = 0;
            for (int suit = 0; suit < 4; suit++) {
                int face = suit * 13 + rank;
                int member;
                if (!r->alternate)
                    member = face == king - 12 + rank;
                else
                    member = RED[suit] == (RED[king / 13] == ((12 - rank) % 2 == 0));
                if (member)
                    for (int copy = face; copy < r->deck_size; copy += FACES) mask |= BIT(copy);
            }
            r->run_mask[king][rank] = mask;
        }
}

#define RANK(card) ((card) % 13)

/* --- Positions ---------------------------------------------------------------------------- */

typedef struct {
    uint8_t cards[MAX_CARDS]; /* the columns, each bottom to top, at start[i] */
    uint8_t start[MAX_COLUMNS];
    uint8_t len[MAX_COLUMNS];
    uint8_t hidden[MAX_COLUMNS];
    uint8_t stock[MAX_STOCK];
    uint8_t stock_len;
    uint8_t reserve[MAX_RESERVE];
    uint8_t reserve_len;
    uint8_t collected;
} Pos;

#define COLUMN(p, i) ((p)->cards + (p)->start[i])

typedef struct {
    uint8_t card; /* DEAL_CARD: the deal */
    uint8_t to;
    uint8_t from; /* a column, or column count + reserve slot */
    uint8_t index; /* the card's height in its column */
} Act;

/* transitions.py's ``_settle``: flips, then collections, in the touched columns, until nothing
 * changes. */
static void settle(const Rules *r, Pos *p, const int *touched, int ntouched) {
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int t = 0; t < ntouched; t++) {
            int i = touched[t];
            if (p->hidden[i] && p->hidden[i] == p->len[i]) {
                p->hidden[i]--;
                changed = 1;
            }
        }
        for (int t = 0; t < ntouched; t++) {
            int i = touched[t];
            int n = p->len[i];
            if (n - p->hidden[i] < RUN) continue;
            const uint8_t *column = COLUMN(p, i);
            if (RANK(column[n - 1]) != 0) continue;
            int run = 1;
            for (int k = n - RUN; k < n - 1; k++) {
                if (!r->may_go_on[column[k + 1]][column[k]]) {
                    run = 0;
                    break;
                }
            }
            if (run) {
                p->len[i] = (uint8_t)(n - RUN);
                p->collected++;
                changed = 1;
            }
        }
    }
}

/* transitions.py's ``apply`` (``_apply_deal``, ``_apply_variant_move``) into ``q``. */
static void apply(const Rules *r, const Pos *p, Act a, Pos *q) {
    int n = 0;
    int touched[MAX_COLUMNS];
    int ntouched = 0;
    q->collected = p->collected;
    if (a.card == DEAL_CARD) {
        for (int i = 0; i < r->columns; i++) {
            q->start[i] = (uint8_t)n;
            memcpy(q->cards + n, COLUMN(p, i), p->len[i]);
            n += p->len[i];
            if (i < p->stock_len) q->cards[n++] = p->stock[i];
            q->len[i] = (uint8_t)(n - q->start[i]);
            q->hidden[i] = p->hidden[i];
        }
        q->stock_len = 0;
        memcpy(q->reserve, p->reserve, p->reserve_len);
        q->reserve_len = p->reserve_len;
        for (int i = 0; i < p->stock_len; i++) touched[ntouched++] = i;
    } else {
        int from = a.from;
        int to = a.to;
        const uint8_t *moved;
        int count;
        if (from >= r->columns) {
            int slot = from - r->columns;
            int k = 0;
            for (int j = 0; j < p->reserve_len; j++)
                if (j != slot) q->reserve[k++] = p->reserve[j];
            q->reserve_len = (uint8_t)k;
            moved = &a.card;
            count = 1;
            touched[ntouched++] = to;
        } else {
            memcpy(q->reserve, p->reserve, p->reserve_len);
            q->reserve_len = p->reserve_len;
            moved = COLUMN(p, from) + a.index;
            count = p->len[from] - a.index;
            touched[ntouched++] = from;
            touched[ntouched++] = to;
        }
        for (int i = 0; i < r->columns; i++) {
            q->start[i] = (uint8_t)n;
            int keep = i == from ? a.index : p->len[i];
            memcpy(q->cards + n, COLUMN(p, i), keep);
            n += keep;
            if (i == to) {
                memcpy(q->cards + n, moved, count);
                n += count;
            }
            q->len[i] = (uint8_t)(n - q->start[i]);
            q->hidden[i] = p->hidden[i];
        }
        memcpy(q->stock, p->stock, p->stock_len);
        q->stock_len = p->stock_len;
    }
    settle(r, q, touched, ntouched);
}

/* --- The key (``_VariantSearch._key``) ----------------------------------------------------- */

static inline int face_of(const Rules *r, int card) { return r->decks > 1 ? card % FACES : card; }

/* Piles compared by (length, face-down count, faces): a total order, so that sorting gives
 * equal sequences exactly for equal multisets of piles. */
static int pile_cmp(const Rules *r, const Pos *p, int a, int b) {
    if (p->len[a] != p->len[b]) return p->len[a] < p->len[b] ? -1 : 1;
    if (p->hidden[a] != p->hidden[b]) return p->hidden[a] < p->hidden[b] ? -1 : 1;
    const uint8_t *x = COLUMN(p, a), *y = COLUMN(p, b);
    for (int k = 0; k < p->len[a]; k++) {
        int fx = face_of(r, x[k]), fy = face_of(r, y[k]);
        if (fx != fy) return fx < fy ? -1 : 1;
    }
    return 0;
}

static int encode_pile(const Rules *r, const Pos *p, int i, uint8_t *out) {
    int n = 0;
    out[n++] = p->len[i];
    out[n++] = p->hidden[i];
    const uint8_t *column = COLUMN(p, i);
    for (int k = 0; k < p->len[i]; k++) out[n++] = (uint8_t)face_of(r, column[k]);
    return n;
}

static int encode_key(const Rules *r, const Pos *p, uint8_t *out) {
    int n = 0;
    int fixed = p->stock_len;
    out[n++] = (uint8_t)fixed;
    for (int i = 0; i < fixed; i++) n += encode_pile(r, p, i, out + n);
    int order[MAX_COLUMNS];
    int m = 0;
    for (int i = fixed; i < r->columns; i++) {
        int j = m++;
        while (j > 0 && pile_cmp(r, p, order[j - 1], i) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (int k = 0; k < m; k++) n += encode_pile(r, p, order[k], out + n);
    uint8_t faces[MAX_RESERVE];
    int nr = p->reserve_len;
    for (int k = 0; k < nr; k++) {
        int face = face_of(r, p->reserve[k]);
        int j = k;
        while (j > 0 && faces[j - 1] > face) {
            faces[j] = faces[j - 1];
            j--;
        }
        faces[j] = (uint8_t)face;
    }
    out[n++] = (uint8_t)nr;
    memcpy(out + n, faces, nr);
    return n + nr;
}

/* --- The table of seen keys ---------------------------------------------------------------- */

typedef struct {
    uint64_t hash;
    uint64_t offset; /* 1 + the key's offset in ``keys``; 0: free */
} Slot;

typedef struct {
    Slot *slots;
    size_t mask;
    size_t count;
    uint8_t *keys; /* each key: its length, then its bytes */
    size_t keys_len;
    size_t keys_cap;
} Table;

static uint64_t hash_key(const uint8_t *key, int n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    int k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t word;
        memcpy(&word, key + k, 8);
        h = (h ^ word) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
    }
    uint64_t last = 0;
    for (int j = 0; k < n; k++, j++) last |= (uint64_t)key[k] << (8 * j);
    h = (h ^ last) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
}

static int table_init(Table *t, size_t capacity) {
    t->slots = (Slot *)calloc(capacity, sizeof(Slot));
    t->keys_cap = capacity * 64;
    t->keys = (uint8_t *)malloc(t->keys_cap);
    if (t->slots == NULL || t->keys == NULL) return -1;
    t->mask = capacity - 1;
    t->count = 0;
    t->keys_len = 0;
    return 0;
}

static void table_free(Table *t) {
    free(t->slots);
    free(t->keys);
}

static void table_clear(Table *t) {
    if (t->count) memset(t->slots, 0, (t->mask + 1) * sizeof(Slot));
    t->count = 0;
    t->keys_len = 0;
}

static int table_grow(Table *t) {
    size_t capacity = (t->mask + 1) * 2;
    Slot *slots = (Slot *)calloc(capacity, sizeof(Slot));
    if (slots == NULL) return -1;
    for (size_t j = 0; j <= t->mask; j++) {
        if (!t->slots[j].offset) continue;
        size_t i = t->slots[j].hash & (capacity - 1);
        while (slots[i].offset) i = (i + 1) & (capacity - 1);
        slots[i] = t->slots[j];
    }
    free(t->slots);
    t->slots = slots;
    t->mask = capacity - 1;
    return 0;
}

/* Adds the key: 0 if it was new, 1 if it was there already, -1 out of memory. */
static int table_add(Table *t, const uint8_t *key, int n) {
    if ((t->count + 1) * 4 > (t->mask + 1) * 3 && table_grow(t) < 0) return -1;
    uint64_t h = hash_key(key, n);
    size_t i = h & t->mask;
    for (;;) {
        Slot *slot = &t->slots[i];
        if (!slot->offset) break;
        if (slot->hash == h) {
            const uint8_t *stored = t->keys + slot->offset - 1;
            if (stored[0] == n && memcmp(stored + 1, key, n) == 0) return 1;
        }
        i = (i + 1) & t->mask;
    }
    if (t->keys_len + n + 1 > t->keys_cap) {
        size_t cap = t->keys_cap * 2;
        while (t->keys_len + n + 1 > cap) cap *= 2;
        uint8_t *keys = (uint8_t *)realloc(t->keys, cap);
        if (keys == NULL) return -1;
        t->keys = keys;
        t->keys_cap = cap;
    }
    t->slots[i].hash = h;
    t->slots[i].offset = t->keys_len + 1;
    t->keys[t->keys_len] = (uint8_t)n;
    memcpy(t->keys + t->keys_len + 1, key, n);
    t->keys_len += n + 1;
    t->count++;
    return 0;
}

/* --- SplitMix64 (games/engine/deals.py), for the probes' move orders ------------------------ */

static uint64_t splitmix_next(uint64_t *state) {
    *state += 0x9E3779B97F4A7C15ull;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ``SplitMix64.below``: Lemire's multiply-and-reject, exactly. */
static uint64_t splitmix_below(uint64_t *state, uint64_t bound) {
    uint64_t threshold = (0 - bound) % bound; /* 2**64 mod bound */
    for (;;) {
        unsigned __int128 product = (unsigned __int128)splitmix_next(state) * bound;
        if ((uint64_t)product >= threshold) return (uint64_t)(product >> 64);
    }
}

/* --- The deadlock proof (variant_solver.dead) ---------------------------------------------- */

typedef struct {
    Set need[2]; /* up to two needs per destination */
    int count;
} Option;

typedef struct {
    int has_face;
    Set face_need;
    int king; /* options None */
    Option options[4];
    int noptions;
    int has_collect;
    Set collect_below;
    int collect_king;
} Requirement;

typedef struct {
    const Rules *r;
    Requirement req[MAX_CARDS];
    uint8_t order[MAX_CARDS];
    int norder;
    Set in_d;
    Set unglued;
    Set present;
    Set reserve;
} Dead;

static inline int glued(const Rules *r, int card, int below) {
    return RANK(card) != KING && below >= 0 && r->goes_on[card % FACES][below % FACES];
}

static inline int stuck(const Dead *d, Set need) { return (need & ~d->in_d) == 0; }

static int cannot_complete(const Dead *d, int king) {
    const Rules *r = d->r;
    Set fine = d->unglued & d->in_d;
    for (int rank = 0; rank < 12; rank++) {
        Set mask = r->run_mask[king % FACES][rank];
        if ((mask & d->present & ~fine) == 0) return 1;
    }
    return 0;
}

static int dead(const Rules *r, const Pos *p, Dead *d) {
    int8_t loc_col[MAX_CARDS];
    uint8_t loc_at[MAX_CARDS];
    int fixed_glue = r->fixed_glue;
    memset(loc_col, -3, sizeof(loc_col)); /* -3: collected (not in ``loc``) */
    d->r = r;
    d->present = 0;
    d->reserve = 0;
    for (int i = 0; i < r->columns; i++) {
        const uint8_t *column = COLUMN(p, i);
        for (int h = 0; h < p->len[i]; h++) {
            loc_col[column[h]] = (int8_t)i;
            loc_at[column[h]] = (uint8_t)h;
            d->present |= BIT(column[h]);
        }
    }
    for (int k = 0; k < p->reserve_len; k++) {
        loc_col[p->reserve[k]] = -1;
        loc_at[p->reserve[k]] = 0;
        d->present |= BIT(p->reserve[k]);
        d->reserve |= BIT(p->reserve[k]);
    }
    for (int k = 0; k < p->stock_len; k++) {
        loc_col[p->stock[k]] = -2;
        loc_at[p->stock[k]] = 0;
        d->present |= BIT(p->stock[k]);
    }
    d->norder = 0;
    d->in_d = 0;
    d->unglued = 0;
    for (int pass = 0; pass <= r->columns; pass++) {
        /* The columns (pass < columns), then the reserve. */
        int index = pass < r->columns ? pass : -1;
        int n = index >= 0 ? p->len[index] : p->reserve_len;
        const uint8_t *column = index >= 0 ? COLUMN(p, index) : p->reserve;
        int face_down = index >= 0 ? p->hidden[index] : 0;
        int below = -1;
        for (int height = 0; height < n; height++) {
            int card = column[height];
            int has_face = 0;
            Set face_need = 0;
            if (index >= 0 && height < face_down) {
                int on_top = column[height + 1]; /* a column's top card is face up */
                if (fixed_glue && glued(r, on_top, card)) return 1;
                has_face = 1;
                face_need = BIT(on_top);
            }
            Requirement *q = &d->req[card];
            if (RANK(card) == KING) {
                if (index < 0 || height) {
                    q->has_face = has_face;
                    q->face_need = face_need;
                    q->king = 1;
                    q->noptions = 0;
                    q->has_collect = 0;
                    d->order[d->norder++] = (uint8_t)card;
                    d->in_d |= BIT(card);
                }
                below = card;
                continue;
            }
            q->has_collect = 0;
            if (index >= 0 && glued(r, card, below)) {
                if (fixed_glue) {
                    below = card;
                    continue;
                }
                /* _foot: the cards under it down to its run's foot. */
                Set under = 0;
                int king = -1;
                int at = height - 1;
                for (;;) {
                    int lying = column[at];
                    if (RANK(lying) == KING && at == 0) {
                        king = lying;
                        break;
                    }
                    under |= BIT(lying);
                    if (RANK(lying) == KING || at == 0 || !glued(r, lying, column[at - 1])) break;
                    at--;
                }
                q->has_collect = 1;
                q->collect_below = under;
                q->collect_king = king;
            } else {
                d->unglued |= BIT(card);
            }
            q->has_face = has_face;
            q->face_need = face_need;
            q->king = 0;
            q->noptions = 0;
            int face = card % FACES;
            for (int g = 0; g < r->goes_on_len[face]; g++) {
                for (int copy = 0; copy < r->decks; copy++) {
                    int target = r->goes_on_list[face][g] + FACES * copy;
                    /* destination_needs(card, target, index, height) */
                    Option *o = &q->options[q->noptions++];
                    o->count = 0;
                    int where = loc_col[target];
                    if (where == -3) {
                        o->need[o->count++] = 0; /* collected: never a destination again */
                        continue;
                    }
                    if (where == -2) continue; /* in the stock: dealt onto a column's top */
                    if (where == -1) {
                        o->need[o->count++] = BIT(target);
                        continue;
                    }
                    const uint8_t *other = COLUMN(p, where);
                    int at = loc_at[target];
                    if (at + 1 < p->len[where]) o->need[o->count++] = BIT(other[at + 1]);
                    if (where == index && at > height) {
                        Set between = 0;
                        for (int j = height + 1; j <= at; j++)
                            if (!fixed_glue || !glued(r, other[j], other[j - 1]))
                                between |= BIT(other[j]);
                        o->need[o->count++] = between;
                    }
                }
            }
            d->order[d->norder++] = (uint8_t)card;
            d->in_d |= BIT(card);
            below = card;
        }
    }
    if (!d->in_d) return 0;
    int bottoms[MAX_COLUMNS];
    for (int i = 0; i < r->columns; i++) bottoms[i] = p->len[i] ? COLUMN(p, i)[0] : -1;
    int changed = 1;
    while (changed) {
        changed = 0;
        int column_can_empty = -1;
        Set snapshot = d->in_d;
        for (int k = 0; k < d->norder; k++) {
            int card = d->order[k];
            if (!(snapshot & BIT(card))) continue;
            const Requirement *q = &d->req[card];
            if (q->has_face && stuck(d, q->face_need)) continue;
            if (!q->king) {
                int all_stuck = 1;
                for (int o = 0; o < q->noptions && all_stuck; o++) {
                    int any = 0;
                    for (int j = 0; j < q->options[o].count; j++)
                        if (stuck(d, q->options[o].need[j])) {
                            any = 1;
                            break;
                        }
                    all_stuck = any;
                }
                if (all_stuck) {
                    if (!q->has_collect) continue;
                    if (stuck(d, q->collect_below) &&
                        (q->collect_king < 0 || cannot_complete(d, q->collect_king)))
                        continue;
                }
            } else {
                if (column_can_empty < 0) {
                    column_can_empty = 0;
                    for (int i = 0; i < r->columns && !column_can_empty; i++) {
                        int bottom = bottoms[i];
                        if (bottom < 0)
                            column_can_empty = 1;
                        else if (RANK(bottom) == KING)
                            column_can_empty = !cannot_complete(d, bottom);
                        else
                            column_can_empty = !(d->in_d & BIT(bottom));
                    }
                }
                if (!column_can_empty && ((d->reserve & BIT(card)) || cannot_complete(d, card)))
                    continue;
            }
            d->in_d &= ~BIT(card);
            changed = 1;
        }
    }
    return d->in_d != 0;
}

/* --- Move ordering (``_VariantSearch._actions``) ------------------------------------------- */

typedef struct {
    const Rules *r;
    int8_t src[MAX_CARDS]; /* face-up cards: column, or column count + reserve slot; else -1 */
    int8_t idx[MAX_CARDS]; /* their height; -1 in the reserve */
    uint8_t face_up[MAX_CARDS]; /* in ``face_up_cards``' order */
    int nface_up;
    uint16_t tried[MAX_CARDS];
    Act raw[MAX_ACTIONS];
    Act kept[MAX_ACTIONS];
    int score[MAX_ACTIONS];
    uint64_t noise_bound; /* _PROBE_NOISE */
} Scratch;

static inline int shadowed(const Scratch *s, int card) {
    int other = (card + FACES) % (2 * FACES);
    return s->src[other] >= 0 && s->src[other] == s->src[card] && s->idx[other] > s->idx[card];
}

/* The ordered actions of ``p`` into ``out``; ``noise``: a probe's generator, or NULL. */
static int ordered_actions(Scratch *s, const Pos *p, uint64_t *noise, Act *out) {
    const Rules *r = s->r;
    int columns = r->columns;
    memset(s->src, -1, (size_t)r->deck_size);
    s->nface_up = 0;
    for (int i = 0; i < columns; i++) {
        const uint8_t *column = COLUMN(p, i);
        for (int h = p->hidden[i]; h < p->len[i]; h++) {
            s->src[column[h]] = (int8_t)i;
            s->idx[column[h]] = (int8_t)h;
            s->face_up[s->nface_up++] = column[h];
        }
    }
    for (int k = 0; k < p->reserve_len; k++) {
        s->src[p->reserve[k]] = (int8_t)(columns + k);
        s->idx[p->reserve[k]] = -1;
        s->face_up[s->nface_up++] = p->reserve[k];
    }
    int two_decks = r->decks > 1 && r->upper_only;
    int nraw = 0;
    int empty[MAX_COLUMNS];
    int nempty = 0;
    for (int target = 0; target < columns; target++) {
        if (!p->len[target]) {
            empty[nempty++] = target;
            continue;
        }
        int top = COLUMN(p, target)[p->len[target] - 1];
        for (int k = 0; k < r->onto_len[top]; k++) {
            int card = r->onto[top][k];
            if (s->src[card] >= 0 && s->src[card] != target) {
                if (two_decks && shadowed(s, card)) continue;
                Act a = {(uint8_t)card, (uint8_t)target, (uint8_t)s->src[card],
                         (uint8_t)(s->idx[card] < 0 ? 0 : s->idx[card])};
                s->raw[nraw++] = a;
            }
        }
    }
    if (nempty) {
        for (int k = 0; k < s->nface_up; k++) {
            int card = s->face_up[k];
            if (s->idx[card] != 0 && (r->empty_any || RANK(card) == KING)) {
                if (two_decks && shadowed(s, card)) continue;
                for (int e = 0; e < nempty; e++) {
                    Act a = {(uint8_t)card, (uint8_t)empty[e], (uint8_t)s->src[card],
                             (uint8_t)(s->idx[card] < 0 ? 0 : s->idx[card])};
                    s->raw[nraw++] = a;
                }
            }
        }
    }
    if (p->stock_len) {
        Act a = {DEAL_CARD, 0, 0, 0};
        s->raw[nraw++] = a;
    }
    int stock_targets = p->stock_len;
    int n = 0;
    uint8_t touched[MAX_ACTIONS];
    int ntouched = 0;
    for (int order = 0; order < nraw; order++) {
        Act a = s->raw[order];
        int score;
        if (a.card == DEAL_CARD) {
            score = 1000;
        } else {
            int card = a.card;
            int source = s->src[card];
            int index = s->idx[card];
            if (!p->len[a.to]) {
                /* Interchangeable empty columns: try one of them only. */
                uint16_t kind = (uint16_t)(1u << (a.to < stock_targets ? a.to : 15));
                if (s->tried[card] & kind) continue;
                if (!s->tried[card]) touched[ntouched++] = (uint8_t)card;
                s->tried[card] |= kind;
            }
            score = 2;
            if (source < columns) {
                const uint8_t *column = COLUMN(p, source);
                score = 2 * (p->len[source] - index);
                if (index == 0)
                    score -= 20; /* empties the column */
                else if (index == p->hidden[source])
                    score -= 30; /* turns a card face up */
                else if (r->may_go_on[card][column[index - 1]])
                    score += 50; /* sideways */
            }
            if (noise != NULL) score += (int)splitmix_below(noise, s->noise_bound);
        }
        /* A stable insertion sort by score (Python's ``sort`` by (score, order)). */
        int j = n++;
        while (j > 0 && s->score[j - 1] > score) {
            s->kept[j] = s->kept[j - 1];
            s->score[j] = s->score[j - 1];
            j--;
        }
        s->kept[j] = a;
        s->score[j] = score;
    }
    for (int k = 0; k < ntouched; k++) s->tried[touched[k]] = 0;
    memcpy(out, s->kept, (size_t)n * sizeof(Act));
    return n;
}

/* --- One depth-first search, suspended after each position it counts ----------------------- */

typedef struct {
    Pos pos;
    size_t first; /* its actions in the arena */
    int count;
    int next;
    Act via; /* the action that led here (not for the root) */
} Frame;

enum { INIT, PENDING_ROOT, PENDING_CHILD, LOOP, DONE };
enum { COUNTED, WON, LOST, STOPPED };

typedef struct {
    Frame *frames;
    int depth; /* frames in use; frames[depth] holds the position being looked at */
    int cap;
    Act *arena;
    size_t arena_len;
    size_t arena_cap;
    Table seen;
    int noisy;
    uint64_t noise;
    int state;
    Act pending; /* the action that led to frames[depth].pos, counted last */
} Dfs;

typedef struct {
    Rules rules;
    Pos root;
    int use_dead;
    long long nodes;
    long long node_budget;
    double deadline; /* < 0: none */
    int stopped;     /* 1: out of budget; 2: out of memory */
    Scratch scratch;
    Dead dead;
    uint8_t key[MAX_KEY + 8];
} Ctx;

static int dfs_init(Dfs *d, int noisy, size_t table_capacity) {
    memset(d, 0, sizeof(*d));
    d->cap = 64;
    d->frames = (Frame *)malloc((size_t)d->cap * sizeof(Frame));
    d->arena_cap = 4 * MAX_ACTIONS;
    d->arena = (Act *)malloc(d->arena_cap * sizeof(Act));
    if (d->frames == NULL || d->arena == NULL) return -1;
    if (table_init(&d->seen, table_capacity) < 0) return -1;
    d->noisy = noisy;
    d->state = INIT;
    return 0;
}

static void dfs_free(Dfs *d) {
    free(d->frames);
    free(d->arena);
    table_free(&d->seen);
}

static void dfs_restart(Dfs *d, uint64_t seed) {
    d->depth = 0;
    d->arena_len = 0;
    table_clear(&d->seen);
    d->noise = seed;
    d->state = INIT;
}

/* ``_VariantSearch._count``: 0 if a budget ran out. */
static int count(Ctx *c) {
    c->nodes++;
    if (c->nodes > c->node_budget) {
        c->stopped = 1;
        return 0;
    }
    if (c->deadline >= 0 && !(c->nodes % CHECK_CLOCK_EVERY) && now_seconds() > c->deadline) {
        c->stopped = 1;
        return 0;
    }
    return 1;
}

static int ensure_frame(Ctx *c, Dfs *d) {
    if (d->depth + 1 < d->cap) return 0;
    int cap = d->cap * 2;
    Frame *frames = (Frame *)realloc(d->frames, (size_t)cap * sizeof(Frame));
    if (frames == NULL) {
        c->stopped = 2;
        return -1;
    }
    d->frames = frames;
    d->cap = cap;
    return 0;
}

/* Give frames[depth] its actions and make it the top. */
static int push(Ctx *c, Dfs *d) {
    if (d->arena_len + MAX_ACTIONS > d->arena_cap) {
        size_t cap = d->arena_cap * 2;
        Act *arena = (Act *)realloc(d->arena, cap * sizeof(Act));
        if (arena == NULL) {
            c->stopped = 2;
            return -1;
        }
        d->arena = arena;
        d->arena_cap = cap;
    }
    Frame *f = &d->frames[d->depth];
    f->first = d->arena_len;
    f->count = ordered_actions(&c->scratch, &f->pos, d->noisy ? &d->noise : NULL,
                               d->arena + d->arena_len);
    f->next = 0;
    d->arena_len += (size_t)f->count;
    d->depth++;
    return 0;
}

/* Add the key of ``p``: 1 if it was seen already, 0 if new, -1 out of memory. */
static int seen_before(Ctx *c, Dfs *d, const Pos *p) {
    int n = encode_key(&c->rules, p, c->key);
    int added = table_add(&d->seen, c->key, n);
    if (added < 0) c->stopped = 2;
    return added;
}

/* Run the search until it counts a position (COUNTED) or ends: WON (the line is the frames'
 * actions, then ``pending``), LOST, or STOPPED (a budget, or memory, ran out). Between two
 * calls the search waits where Python's generator waits, at its ``yield``. */
static int step(Ctx *c, Dfs *d) {
    const Rules *r = &c->rules;
    switch (d->state) {
    case INIT:
        if (c->root.collected == r->runs) {
            d->state = DONE;
            return WON;
        }
        d->frames[0].pos = c->root;
        if (seen_before(c, d, &c->root) < 0) return STOPPED;
        if (!count(c)) return STOPPED;
        d->state = PENDING_ROOT;
        return COUNTED;
    case PENDING_ROOT:
        if (c->use_dead && dead(r, &c->root, &c->dead)) {
            d->state = DONE;
            return LOST;
        }
        if (push(c, d) < 0) return STOPPED;
        break;
    case PENDING_CHILD: {
        const Pos *after = &d->frames[d->depth].pos;
        if (after->collected == r->runs) {
            d->state = DONE;
            return WON;
        }
        if (!(c->use_dead && dead(r, after, &c->dead))) {
            d->frames[d->depth].via = d->pending;
            if (push(c, d) < 0) return STOPPED;
        }
        break;
    }
    case LOOP:
        break;
    default:
        return LOST;
    }
    while (d->depth > 0) {
        if (ensure_frame(c, d) < 0) return STOPPED;
        Frame *top = &d->frames[d->depth - 1];
        Pos *after = &d->frames[d->depth].pos;
        while (top->next < top->count) {
            Act a = d->arena[top->first + (size_t)top->next++];
            apply(r, &top->pos, a, after);
            int known = seen_before(c, d, after);
            if (known) {
                if (known < 0) return STOPPED;
                continue;
            }
            d->pending = a;
            if (!count(c)) return STOPPED;
            d->state = PENDING_CHILD;
            return COUNTED;
        }
        d->arena_len = top->first;
        d->depth--;
    }
    d->state = DONE;
    return LOST;
}

/* --- ``_VariantSearch.run`` ---------------------------------------------------------------- */

/* The verdict (1 won, 0 lost, -1 a budget ran out, -2 out of memory) and the winning search. */
static int run(Ctx *c, Dfs *complete, Dfs *probe, int probe_nodes, long long turn,
               Dfs **winner) {
    if (turn <= 0) {
        for (;;) {
            int outcome = step(c, complete);
            if (outcome == COUNTED) continue;
            if (outcome == WON) *winner = complete;
            return outcome == WON ? 1 : outcome == LOST ? 0 : -c->stopped;
        }
    }
    for (uint64_t attempt = 1;; attempt++) {
        dfs_restart(probe, attempt);
        for (int i = 0; i < probe_nodes; i++) {
            int outcome = step(c, probe);
            if (outcome == COUNTED) continue;
            if (outcome == WON) *winner = probe;
            if (outcome == STOPPED) return -c->stopped;
            return outcome == WON;
        }
        for (long long i = 0; i < turn; i++) {
            int outcome = step(c, complete);
            if (outcome == COUNTED) continue;
            if (outcome == WON) *winner = complete;
            if (outcome == STOPPED) return -c->stopped;
            return outcome == WON;
        }
    }
}

/* --- The Python function ------------------------------------------------------------------- */

static int read_position(Ctx *c, PyObject *columns, PyObject *hidden, PyObject *stock,
                         PyObject *reserve, int collected) {
    Rules *r = &c->rules;
    Pos *p = &c->root;
    memset(p, 0, sizeof(*p));
    PyObject *fast = PySequence_Fast(columns, "columns");
    if (fast == NULL) return -1;
    Py_ssize_t ncolumns = PySequence_Fast_GET_SIZE(fast);
    if (ncolumns < 1 || ncolumns > MAX_COLUMNS) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "a position has 1-%d columns", MAX_COLUMNS);
        return -1;
    }
    r->columns = (int)ncolumns;
    int total = 0;
    uint8_t column[MAX_CARDS];
    for (int i = 0; i < r->columns; i++) {
        int n = read_cards(PySequence_Fast_GET_ITEM(fast, i), column, r->deck_size - total,
                           r->deck_size, "a column");
        if (n < 0) {
            Py_DECREF(fast);
            return -1;
        }
        p->start[i] = (uint8_t)total;
        p->len[i] = (uint8_t)n;
        memcpy(p->cards + total, column, n);
        total += n;
    }
    Py_DECREF(fast);
    uint8_t counts[MAX_COLUMNS];
    if (read_cards(hidden, counts, MAX_COLUMNS, MAX_CARDS, "hidden") != r->columns) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "hidden: one count a column");
        return -1;
    }
    for (int i = 0; i < r->columns; i++) {
        if (counts[i] > (p->len[i] ? p->len[i] - 1 : 0)) {
            PyErr_SetString(PyExc_ValueError, "a column's top card is always face up");
            return -1;
        }
        p->hidden[i] = counts[i];
    }
    int n = read_cards(stock, p->stock, r->columns, r->deck_size, "stock");
    if (n < 0) return -1;
    p->stock_len = (uint8_t)n;
    total += n;
    n = read_cards(reserve, p->reserve, MAX_RESERVE, r->deck_size, "reserve");
    if (n < 0) return -1;
    p->reserve_len = (uint8_t)n;
    total += n;
    if (total > r->deck_size || collected < 0 || collected > r->runs) {
        PyErr_SetString(PyExc_ValueError, "more cards than the decks hold");
        return -1;
    }
    p->collected = (uint8_t)collected;
    /* Each card once at most. */
    Set seen = 0;
    const uint8_t *places[3] = {p->cards, p->stock, p->reserve};
    int sizes[3] = {total - p->stock_len - p->reserve_len, p->stock_len, p->reserve_len};
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < sizes[k]; j++) {
            if (seen & BIT(places[k][j])) {
                PyErr_SetString(PyExc_ValueError, "a card lies in two places");
                return -1;
            }
            seen |= BIT(places[k][j]);
        }
    return 0;
}

/* A context for the rules (``decks``, alternate colours, any card into an empty column, only
 * the upper of two copies in a column moving) with the position read and the rule tables
 * built, for ``search`` and ``dead``; NULL with a Python exception set. */
static Ctx *new_context(int decks, int alternate, int empty_any, int upper_only,
                        PyObject *columns, PyObject *hidden, PyObject *stock, PyObject *reserve,
                        int collected) {
    if (decks != 1 && decks != 2) {
        PyErr_SetString(PyExc_ValueError, "decks: 1 or 2");
        return NULL;
    }
    Ctx *c = (Ctx *)calloc(1, sizeof(Ctx));
    if (c == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    Rules *r = &c->rules;
    r->decks = decks;
    r->deck_size = FACES * decks;
    r->runs = 4 * decks;
    r->alternate = alternate != 0;
    r->empty_any = empty_any != 0;
    r->upper_only = upper_only != 0;
    r->fixed_glue = decks == 1 && !r->alternate;
    if (read_position(c, columns, hidden, stock, reserve, collected) < 0) {
        free(c);
        return NULL;
    }
    build_rules(r);
    return c;
}

PyDoc_STRVAR(search_doc,
             "search(columns, hidden, stock, reserve, collected, decks, alternate, empty_any, "
             "node_budget, time_budget, probe_nodes, probe_noise, turn, use_dead, either_copy)\n"
             "--\n\n"
             "variant_solver._VariantSearch(...).run from a position of a variant: its columns "
             "(card ints, bottom to top), face-down counts, stock, reserve and number of runs "
             "collected; the variant's decks (1 or 2), whether it builds by alternate colour and "
             "whether any card may fill an empty column. ``time_budget`` < 0: none. ``turn`` > 0: "
             "probes of ``probe_nodes`` positions (move scores shuffled by up to ``probe_noise``) "
             "taking turns with the complete search, which "
             "gets ``turn`` positions a turn; 0: the complete search alone. ``use_dead``: prune "
             "the positions ``dead`` proves lost. ``either_copy``: in two decks, either face-up copy "
             "of a face may move (else, of two in one column, only the upper one). Returns (verdict, line, nodes): verdict 1 won, "
             "0 lost, -1 out of budget; line a list of (card, to, from), the deal as "
             "(-1, -1, -1).");

static PyObject *search(PyObject *module, PyObject *args) {
    PyObject *columns, *hidden, *stock, *reserve;
    int collected, decks, alternate, empty_any, probe_nodes, probe_noise, use_dead, either_copy;
    long long node_budget, turn;
    double time_budget;
    (void)module;
    if (!PyArg_ParseTuple(args, "OOOOiiiiLdiiLpp", &columns, &hidden, &stock, &reserve,
                          &collected, &decks, &alternate, &empty_any, &node_budget,
                          &time_budget, &probe_nodes, &probe_noise, &turn, &use_dead,
                          &either_copy))
        return NULL;
    double started = now_seconds();
    if (turn > 0 && (probe_nodes < 1 || probe_noise < 1)) {
        PyErr_SetString(PyExc_ValueError, "probe_nodes, probe_noise: at least 1");
        return NULL;
    }
    Ctx *c = new_context(decks, alternate, empty_any, !either_copy, columns, hidden, stock, reserve,
                         collected);
    if (c == NULL) return NULL;
    Rules *r = &c->rules;
    c->scratch.r = r;
    c->use_dead = use_dead;
    c->scratch.noise_bound = (uint64_t)(probe_noise > 0 ? probe_noise : 1);
    c->node_budget = node_budget;
    c->deadline = time_budget < 0 ? -1.0 : started + time_budget;
    Dfs complete, probe;
    int ready = dfs_init(&complete, 0, 1 << 12) == 0;
    ready = dfs_init(&probe, 1, 1 << 10) == 0 && ready;
    if (!ready) {
        dfs_free(&complete);
        dfs_free(&probe);
        free(c);
        return PyErr_NoMemory();
    }
    Dfs *winner = NULL;
    int verdict;
    Py_BEGIN_ALLOW_THREADS;
    verdict = run(c, &complete, &probe, probe_nodes, turn, &winner);
    Py_END_ALLOW_THREADS;
    PyObject *result = NULL;
    if (verdict == -2) {
        PyErr_NoMemory();
        goto done;
    }
    /* Won: the actions into frames 1.. of the winning search, then the one it counted last
     * (none if the root itself was won). */
    int steps = verdict == 1 ? winner->depth : 0;
    PyObject *line = PyList_New(steps);
    if (line == NULL) goto done;
    for (int i = 0; i < steps; i++) {
        Act a = i + 1 < winner->depth ? winner->frames[i + 1].via : winner->pending;
        PyObject *item = a.card == DEAL_CARD
                             ? Py_BuildValue("(iii)", -1, -1, -1)
                             : Py_BuildValue("(iii)", a.card, a.to, a.from);
        if (item == NULL) {
            Py_DECREF(line);
            goto done;
        }
        PyList_SET_ITEM(line, i, item);
    }
    result = Py_BuildValue("(iNL)", verdict, line, c->nodes);
done:
    dfs_free(&complete);
    dfs_free(&probe);
    free(c);
    return result;
}

PyDoc_STRVAR(dead_doc, "dead(columns, hidden, stock, reserve, collected, decks, alternate)\n"
                      "--\n\n"
                      "variant_solver.dead of a position (as ``search`` reads it), for tests.");

static PyObject *dead_position(PyObject *module, PyObject *args) {
    PyObject *columns, *hidden, *stock, *reserve;
    int collected, decks, alternate;
    (void)module;
    if (!PyArg_ParseTuple(args, "OOOOiii", &columns, &hidden, &stock, &reserve, &collected,
                          &decks, &alternate))
        return NULL;
    /* The deadlock proof holds only where a King alone fills an empty column. */
    Ctx *c = new_context(decks, alternate, 0, 0, columns, hidden, stock, reserve, collected);
    if (c == NULL) return NULL;
    int answer = dead(&c->rules, &c->root, &c->dead);
    free(c);
    return PyBool_FromLong(answer);
}

static PyMethodDef methods[] = {
    {"search", search, METH_VARARGS, search_doc},
    {"dead", dead_position, METH_VARARGS, dead_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "_variant_c",
    "The other variants' search (games/engine/variant_solver.py), compiled: the same positions, "
    "faster.",
    -1,
    methods,
};

PyMODINIT_FUNC PyInit__variant_c(void) { return PyModule_Create(&module); }
