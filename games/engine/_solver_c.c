/* The Scorpion search of games/engine/solver.py (``_Search``), compiled.
 *
 * The same search, step for step: the same position key, the same move ordering, the same
 * safe moves (``_safe_move``), deadlock proofs (``_dead``, ``_may_deadlock``) and skip of a
 * known key, so that it visits the same positions in the same order, finds the same line and
 * counts the same nodes as the Python search (tests/engine/test_solver_c.py checks it on whole
 * deals and mid-game positions). The proofs that make the search sound are in the comments of
 * solver.py; this file only says where C differs in form:
 *
 * - the key is kept as two words: ``moved`` (bits 0-51, as in Python) and ``ext``, Python's
 *   bits 52 and up shifted down by 52 (bit 0 "dealt", then the King or stock bits, then the
 *   four collected bits), since the whole key needs 75 bits;
 * - the visited keys are an open-addressing hash table (``Table``), which a ``SharedSearch``
 *   keeps from one search to the next, as Python's shares its set;
 * - ``_dead``'s greatest fixpoint is computed over bit sets; the set is unique (every condition
 *   is monotone in the set), so its answer is Python's whatever the order of removals.
 *
 * The search runs without the GIL: it touches no Python object between reading the position
 * and building the result, so other threads of a web or worker process go on meanwhile.
 *
 * Optional: setup.py builds it where a C compiler is present, and solver.py falls back to the
 * Python search where it is not.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_search_common.h"

#define COLUMNS 7
#define DECK 52
#define STOCK 3
#define HEIGHT 64 /* a column never holds more than the 52 cards */
#define CHECK_CLOCK_EVERY 256

/* ext: Python's key bits 52 and up, shifted down by 52. */
#define DEALT 1u
#define EXTRA_SHIFT 1
#define COLLECTED_SHIFT (EXTRA_SHIFT + 6 * STOCK)

static const int KINGS[4] = {12, 25, 38, 51};

/* A card's rank (0 the Ace, 12 the King) and suit, looked up: the search asks them often. */
static int8_t RANKS[DECK];
static int8_t SUITS[DECK];
#define RANK(card) (RANKS[(card)])
#define SUIT(card) (SUITS[(card)])

/* --- The table of visited keys ------------------------------------------------------------ */

typedef struct {
    uint64_t moved;
    uint32_t ext; /* bit 31 set: the slot is used (ext itself is below 2^23) */
    uint32_t pad;
} Slot;

#define USED 0x80000000u

typedef struct {
    PyObject_HEAD
    Slot *slots;
    size_t mask; /* capacity - 1, a power of two */
    size_t count;
    /* 1 while a search uses the table. The search grows and frees the slots with the GIL
     * released, so a second search on the same table from another thread would write into
     * freed memory: ``search`` refuses it (the flag is read and set while the GIL is held, so
     * two threads cannot both see it clear). SharedSearch also takes a lock of its own. */
    int busy;
} Table;

static inline size_t slot_hash(uint64_t moved, uint32_t ext) {
    uint64_t h = moved * 0x9E3779B97F4A7C15ull ^ ((uint64_t)ext * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return (size_t)h;
}

static int table_init_slots(Table *table, size_t capacity) {
    table->slots = (Slot *)calloc(capacity, sizeof(Slot));
    if (table->slots == NULL) return -1;
    table->mask = capacity - 1;
    table->count = 0;
    return 0;
}

static inline int table_contains(const Table *table, uint64_t moved, uint32_t ext) {
    uint32_t tagged = ext | USED;
    size_t i = slot_hash(moved, ext) & table->mask;
    for (;;) {
        const Slot *slot = &table->slots[i];
        if (!slot->ext) return 0;
        if (slot->ext == tagged && slot->moved == moved) return 1;
        i = (i + 1) & table->mask;
    }
}

static inline void table_prefetch(const Table *table, uint64_t moved, uint32_t ext) {
    __builtin_prefetch(&table->slots[slot_hash(moved, ext) & table->mask]);
}

static int table_grow(Table *table) {
    size_t old_capacity = table->mask + 1;
    Slot *old = table->slots;
    size_t capacity = old_capacity * 2;
    Slot *slots = (Slot *)calloc(capacity, sizeof(Slot));
    if (slots == NULL) return -1;
    for (size_t j = 0; j < old_capacity; j++) {
        if (!old[j].ext) continue;
        size_t i = slot_hash(old[j].moved, old[j].ext & ~USED) & (capacity - 1);
        while (slots[i].ext) i = (i + 1) & (capacity - 1);
        slots[i] = old[j];
    }
    free(old);
    table->slots = slots;
    table->mask = capacity - 1;
    return 0;
}

/* Adds the key; 0 if it was new, 1 if it was there, -1 out of memory. */
static inline int table_add(Table *table, uint64_t moved, uint32_t ext) {
    if ((table->count + 1) * 4 > (table->mask + 1) * 3 && table_grow(table) < 0) return -1;
    uint32_t tagged = ext | USED;
    size_t i = slot_hash(moved, ext) & table->mask;
    for (;;) {
        Slot *slot = &table->slots[i];
        if (!slot->ext) {
            slot->moved = moved;
            slot->ext = tagged;
            table->count++;
            return 0;
        }
        if (slot->ext == tagged && slot->moved == moved) return 1;
        i = (i + 1) & table->mask;
    }
}

/* Removes the key if present (backward-shift deletion keeps linear probing's invariant). */
static void table_discard(Table *table, uint64_t moved, uint32_t ext) {
    uint32_t tagged = ext | USED;
    size_t mask = table->mask;
    size_t i = slot_hash(moved, ext) & mask;
    for (;;) {
        Slot *slot = &table->slots[i];
        if (!slot->ext) return;
        if (slot->ext == tagged && slot->moved == moved) break;
        i = (i + 1) & mask;
    }
    size_t hole = i;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        Slot *slot = &table->slots[j];
        if (!slot->ext) break;
        size_t home = slot_hash(slot->moved, slot->ext & ~USED) & mask;
        /* Move the entry into the hole unless its home lies cyclically in (hole, j]. */
        int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
            table->slots[hole] = *slot;
            hole = j;
        }
    }
    table->slots[hole].moved = 0;
    table->slots[hole].ext = 0;
    table->count--;
}

static PyObject *table_create(PyTypeObject *type) {
    Table *self = (Table *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    if (table_init_slots(self, 1 << 10) < 0) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static PyObject *Table_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "", kwlist)) return NULL;
    return table_create(type);
}

static void Table_dealloc(Table *self) {
    free(self->slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t Table_len(Table *self) { return (Py_ssize_t)self->count; }

static PySequenceMethods Table_as_sequence = {
    .sq_length = (lenfunc)Table_len,
};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "games.engine._solver_c.Table",
    .tp_doc = "Keys of positions proven lost, shared by the searches of a SharedSearch.",
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Table_new,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_as_sequence = &Table_as_sequence,
};

/* --- The search ------------------------------------------------------------------------- */

typedef struct {
    int8_t index;
    int8_t suit; /* -1: a flip */
    uint32_t ext;
    uint64_t moved;
} Done;

#define MAX_DONE 64

/* How many positions a search path (and so a winning line, one action a position) may hold.
 * The bound: the key changes at every step of a path (a position whose key is in the table is
 * never entered, and every position on the path is in it), and each step's change includes one
 * of these events, each of which happens a bounded number of times on a path: a card's
 * ``moved`` bit is set (once per card: only collecting its suit clears it, and a collected card
 * never moves again; 52), a King's two bits of its empty-column choice gain a bit before the
 * deal (OR'ed: 8 for the four Kings), the deal (once; it drops the Kings' bits and sets DEALT),
 * a stock card's slot bits are cleared (3), a suit is collected (its bit set: 4). So a path
 * from any root holds at most 1 + 52 + 8 + 1 + 3 + 4 = 69 positions. PATH_CAPACITY is well
 * above that, and ``dfs`` checks it anyway: were the argument ever wrong (a change of the key's
 * rules), the search would stop as out of budget ("unknown") instead of writing past these
 * arrays. tests/engine/test_solver_c.py builds this file with a tiny capacity to see the check
 * work. */
#ifndef PATH_CAPACITY
#define PATH_CAPACITY 128
#endif

typedef struct {
    int8_t cols[COLUMNS][HEIGHT];
    int len[COLUMNS];
    int hidden[COLUMNS];
    int8_t loc[DECK]; /* column; -1 in the stock; -2 collected */
    int8_t pos[DECK];
    int8_t stock_slot[DECK];
    int8_t stock[STOCK];
    int stock_len;
    int collected;
    uint64_t moved;
    uint32_t ext;
    Table *seen;
    /* The keys on the current path (not proven lost when the search stops). */
    uint64_t stack_moved[PATH_CAPACITY];
    uint32_t stack_ext[PATH_CAPACITY];
    int stack_len;
    long long nodes;
    long long node_budget;
    double deadline; /* < 0: none */
    int stopped;     /* 1: out of budget; 2: out of memory */
    int8_t line_card[PATH_CAPACITY];
    int8_t line_to[PATH_CAPACITY];
    int line_len;
} Search;

static const int8_t *run_of(int suit, int8_t *out) {
    for (int i = 0; i < 13; i++) out[i] = (int8_t)(suit * 13 + 12 - i);
    return out;
}

static uint64_t suit_bits(int suit) { return ((1ull << 13) - 1) << (13 * suit); }

static int settle(Search *s, const int *touched, int ntouched, Done *done) {
    int ndone = 0;
    int changed = 1;
    int8_t run[13];
    while (changed) {
        changed = 0;
        for (int t = 0; t < ntouched; t++) {
            int index = touched[t];
            int8_t *column = s->cols[index];
            int face_down = s->hidden[index];
            if (face_down && face_down == s->len[index]) {
                s->hidden[index] = face_down - 1;
                done[ndone].index = (int8_t)index;
                done[ndone].suit = -1;
                ndone++;
                changed = 1;
            }
            int n = s->len[index];
            if (n && RANK(column[n - 1]) == 0 && n - 13 >= s->hidden[index]) {
                int suit = SUIT(column[n - 1]);
                run_of(suit, run);
                if (memcmp(column + n - 13, run, 13) == 0) {
                    s->len[index] = n - 13;
                    for (int i = 0; i < 13; i++) s->loc[run[i]] = -2;
                    s->collected++;
                    done[ndone].index = (int8_t)index;
                    done[ndone].suit = (int8_t)suit;
                    done[ndone].moved = s->moved;
                    done[ndone].ext = s->ext;
                    ndone++;
                    s->moved &= ~suit_bits(suit);
                    uint32_t ext = s->ext | (1u << (COLLECTED_SHIFT + suit));
                    for (int i = 0; i < 13; i++) {
                        int slot = s->stock_slot[run[i]];
                        if (slot >= 0 && (ext & DEALT)) ext &= ~(63u << (EXTRA_SHIFT + 6 * slot));
                    }
                    s->ext = ext;
                    changed = 1;
                }
            }
        }
    }
    return ndone;
}

static void unsettle(Search *s, const Done *done, int ndone) {
    int8_t run[13];
    for (int d = ndone - 1; d >= 0; d--) {
        int index = done[d].index;
        if (done[d].suit < 0) {
            s->hidden[index]++;
            continue;
        }
        run_of(done[d].suit, run);
        int height = s->len[index];
        for (int i = 0; i < 13; i++) {
            s->loc[run[i]] = (int8_t)index;
            s->pos[run[i]] = (int8_t)(height + i);
            s->cols[index][height + i] = run[i];
        }
        s->len[index] = height + 13;
        s->collected--;
        s->moved = done[d].moved;
        s->ext = done[d].ext;
    }
}

typedef struct {
    int source;
    uint32_t old_ext;
    int ndone;
    Done done[MAX_DONE];
} Undo;

static void move(Search *s, int card, int to, Undo *undo) {
    int source = s->loc[card];
    int8_t *column = s->cols[source];
    int height = s->pos[card];
    int group = s->len[source] - height;
    int8_t *target = s->cols[to];
    int base = s->len[to];
    for (int i = 0; i < group; i++) {
        int8_t moving = column[height + i];
        target[base + i] = moving;
        s->loc[moving] = (int8_t)to;
        s->pos[moving] = (int8_t)(base + i);
    }
    s->len[to] = base + group;
    s->len[source] = height;
    int8_t last = target[base + group - 1];
    uint32_t old_ext = s->ext;
    s->moved |= 1ull << card;
    if (old_ext & DEALT) {
        int slot = s->stock_slot[card];
        if (slot >= 0) s->ext = old_ext & ~(63u << (EXTRA_SHIFT + 6 * slot));
    } else if (RANK(card) == 12 && to < STOCK) {
        s->ext = old_ext | ((uint32_t)(to + 1) << (EXTRA_SHIFT + 2 * (SUIT(card))));
    }
    undo->source = source;
    undo->old_ext = old_ext;
    if ((height && height == s->hidden[source]) || RANK(last) == 0 ||
        (height && RANK(column[height - 1]) == 0)) {
        int touched[2] = {source, to};
        undo->ndone = settle(s, touched, 2, undo->done);
    } else {
        undo->ndone = 0;
    }
}

static void unmove(Search *s, int card, int to, const Undo *undo) {
    if (undo->ndone) unsettle(s, undo->done, undo->ndone);
    int source = undo->source;
    int8_t *target = s->cols[to];
    int height = s->pos[card];
    int group = s->len[to] - height;
    int8_t *column = s->cols[source];
    int base = s->len[source];
    for (int i = 0; i < group; i++) {
        int8_t moving = target[height + i];
        column[base + i] = moving;
        s->loc[moving] = (int8_t)source;
        s->pos[moving] = (int8_t)(base + i);
    }
    s->len[source] = base + group;
    s->len[to] = height;
    s->moved &= ~(1ull << card);
    s->ext = undo->old_ext;
}

static void deal(Search *s, Undo *undo) {
    uint32_t old_ext = s->ext;
    uint32_t ext = DEALT | (old_ext >> COLLECTED_SHIFT << COLLECTED_SHIFT);
    for (int slot = 0; slot < STOCK; slot++) {
        int8_t card = s->stock[slot];
        int n = s->len[slot];
        uint32_t under = n ? (uint32_t)(s->cols[slot][n - 1] + 1) : 0;
        ext |= under << (EXTRA_SHIFT + 6 * slot);
        s->loc[card] = (int8_t)slot;
        s->pos[card] = (int8_t)n;
        s->cols[slot][n] = card;
        s->len[slot] = n + 1;
    }
    s->ext = ext;
    s->stock_len = 0;
    undo->old_ext = old_ext;
    int touched[3] = {0, 1, 2};
    undo->ndone = settle(s, touched, 3, undo->done);
}

static void undeal(Search *s, const Undo *undo) {
    if (undo->ndone) unsettle(s, undo->done, undo->ndone);
    for (int slot = 0; slot < STOCK; slot++) {
        s->len[slot]--;
        s->loc[s->stock[slot]] = -1;
    }
    s->stock_len = STOCK;
    s->ext = undo->old_ext;
}

/* --- Safe moves, deadlocks (solver.py's proofs) -------------------------------------------- */

static int all_columns_filled(const Search *s) {
    for (int i = 0; i < COLUMNS; i++)
        if (!s->len[i]) return 0;
    return 1;
}

static int can_split(const Search *s, int index, int low, int high) {
    const int8_t *column = s->cols[index];
    for (int height = low + 1; height < high; height++) {
        int card = column[height];
        int below = column[height - 1];
        if (RANK(card) == 12) {
            if (height >= s->hidden[index] && !all_columns_filled(s)) return 1;
        } else if (card + 1 != below && height >= s->hidden[index]) {
            int where = s->loc[card + 1];
            if (where >= 0 && where != index && s->cols[where][s->len[where] - 1] == card + 1)
                return 1;
        }
    }
    return 0;
}

static int may_deadlock(const Search *s, int card, int to) {
    if (RANK(card) == 12) return 1;
    const int8_t *column = s->cols[to];
    int base = s->pos[card];
    for (int height = base; height < s->len[to]; height++) {
        int moving = column[height];
        int rank = RANK(moving);
        if (rank != 12 && moving != card) {
            int above = moving + 1;
            if (s->loc[above] == to && s->pos[above] < base &&
                !can_split(s, to, s->pos[above], height))
                return 1;
        }
        if (rank) {
            int under = moving - 1;
            if (s->loc[under] == to && s->pos[under] < base &&
                !can_split(s, to, s->pos[under], height + 1))
                return 1;
        }
    }
    return 0;
}

/* A bit no card has: a requirement of it alone is never met by the set of stuck cards. */
#define NEVER (1ull << 63)

static int dead(const Search *s) {
    /* requirements: for each candidate card, up to three sets (bit masks), one card of each
     * of which must leave its place first; the candidates are ``candidates``. */
    uint64_t req[DECK][3];
    uint64_t candidates = 0;
    uint64_t on_face_down = 0;
    for (int index = 0; index < COLUMNS; index++) {
        const int8_t *column = s->cols[index];
        int n = s->len[index];
        int face_down = s->hidden[index];
        int below = -1;
        for (int height = 0; height < n; height++) {
            int card = column[height];
            if (height < face_down) {
                int on_top = column[height + 1];
                if (RANK(card) && on_top + 1 == card) return 1;
                on_face_down |= 1ull << on_top;
            }
            if (RANK(card) == 12) {
                if (height) {
                    candidates |= 1ull << card;
                    req[card][0] = height < face_down ? 1ull << column[height + 1] : NEVER;
                    req[card][1] = NEVER;
                    req[card][2] = NEVER;
                }
            } else if (card + 1 != below) {
                int count = 0;
                if (height < face_down) req[card][count++] = 1ull << column[height + 1];
                int successor = card + 1;
                int where = s->loc[successor];
                if (where >= 0) {
                    const int8_t *other = s->cols[where];
                    int at = s->pos[successor];
                    if (at + 1 < s->len[where]) req[card][count++] = 1ull << other[at + 1];
                    if (where == index) {
                        int start, stop, last;
                        if (at > height) {
                            start = height + 1;
                            stop = at + 1;
                            last = card;
                        } else {
                            start = at + 1;
                            stop = height;
                            last = successor;
                        }
                        uint64_t splitters = 0;
                        for (int h = start; h < stop; h++) {
                            int between = column[h];
                            if (RANK(between) == 12 || between + 1 != last)
                                splitters |= 1ull << between;
                            last = between;
                        }
                        req[card][count++] = splitters;
                    }
                }
                while (count < 3) req[card][count++] = NEVER;
                candidates |= 1ull << card;
            }
            below = card;
        }
    }
    if (!candidates) return 0;
    uint64_t kings_mask = (1ull << 12) | (1ull << 25) | (1ull << 38) | (1ull << 51);
    int bottoms[COLUMNS];
    for (int i = 0; i < COLUMNS; i++) bottoms[i] = s->len[i] ? s->cols[i][0] : -1;
    uint64_t in_d = candidates;
    int changed = 1;
    while (changed) {
        changed = 0;
        uint64_t rest = in_d;
        while (rest) {
            int card = __builtin_ctzll(rest);
            rest &= rest - 1;
            /* Unused requirements hold NEVER, which is never in the set: never met by it. */
            const uint64_t *r = req[card];
            int stuck = !(r[0] & ~in_d) | !(r[1] & ~in_d) | !(r[2] & ~in_d);
            if (stuck) continue;
            if (RANK(card) == 12) {
                /* A King leaves its place when moved into an empty column, or when its suit is
                 * collected; a column empties when its bottom card leaves. */
                uint64_t waiting = in_d & ~kings_mask;
                int unfinished_own = (waiting & suit_bits(SUIT(card))) != 0;
                if (unfinished_own) {
                    int column_can_empty = 0;
                    for (int i = 0; i < COLUMNS && !column_can_empty; i++) {
                        int bottom = bottoms[i];
                        if (bottom < 0)
                            column_can_empty = 1;
                        else if (RANK(bottom) == 12)
                            column_can_empty = !(waiting & suit_bits(SUIT(bottom)));
                        else
                            column_can_empty = !(in_d & (1ull << bottom));
                    }
                    if (!column_can_empty) continue;
                }
            }
            in_d &= ~(1ull << card);
            changed = 1;
        }
    }
    if (in_d & ~kings_mask) return 1;
    return (in_d & on_face_down) != 0;
}

/* --- Actions ---------------------------------------------------------------------------- */

typedef struct {
    int8_t card; /* -1: the deal */
    int8_t to;
} Action;

#define MAX_ACTIONS 40

static int priority(const Search *s, int card) {
    int source = s->loc[card];
    int height = s->pos[card];
    int carried = s->len[source] - height;
    return 2 * carried + (height == 0 || height != s->hidden[source]);
}

/* solver.py's ``_safe_move`` (rules K, A, H); -1 if none. */
static int safe_move(const Search *s, const Action *moves, int nmoves, int empty) {
    int kings_to_move = -1;
    for (int m = 0; m < nmoves; m++) {
        int card = moves[m].card;
        int to = moves[m].to;
        if (RANK(card) == 12) {
            if (kings_to_move < 0) {
                kings_to_move = 0;
                for (int k = 0; k < 4; k++)
                    if (s->loc[KINGS[k]] >= 0 && s->pos[KINGS[k]] > 0) kings_to_move++;
            }
            if (empty >= kings_to_move) return m;
            continue;
        }
        const int8_t *column = s->cols[s->loc[card]];
        int n = s->len[s->loc[card]];
        int height = s->pos[card];
        if (column[n - 1] == card - RANK(card) && n - height == RANK(card) + 1) {
            int down = 1;
            for (int i = 0; i < n - height; i++) {
                if (column[height + i] != card - i) {
                    down = 0;
                    break;
                }
            }
            if (down) return m; /* Rule A */
        }
        const int8_t *target = s->cols[to];
        int below = -1;
        int glued = 1;
        for (int i = 0; i < s->len[to]; i++) {
            int lying = target[i];
            if (RANK(lying) != 12 && lying + 1 != below) {
                glued = 0;
                break;
            }
            below = lying;
        }
        if (glued) return m; /* Rule H */
    }
    return -1;
}

static int actions(const Search *s, Action *out) {
    int n = 0;
    int empty[COLUMNS];
    int nempty = 0;
    for (int to = 0; to < COLUMNS; to++) {
        if (!s->len[to]) {
            empty[nempty++] = to;
            continue;
        }
        int top = s->cols[to][s->len[to] - 1];
        if (RANK(top)) {
            int card = top - 1;
            int source = s->loc[card];
            if (source >= 0 && source != to && s->pos[card] >= s->hidden[source]) {
                out[n].card = (int8_t)card;
                out[n].to = (int8_t)to;
                n++;
            }
        }
    }
    int dealt = s->stock_len == 0;
    if (nempty) {
        for (int k = 0; k < 4; k++) {
            int king = KINGS[k];
            int source = s->loc[king];
            if (source >= 0 && s->pos[king] > 0 && s->pos[king] >= s->hidden[source]) {
                if (dealt) {
                    out[n].card = (int8_t)king;
                    out[n].to = (int8_t)empty[0];
                    n++;
                } else {
                    /* Before the deal, columns 0-2 differ (the deal lands there); 3-6 do not. */
                    int later = 0;
                    for (int e = 0; e < nempty; e++) {
                        int to = empty[e];
                        if (to < STOCK) {
                            out[n].card = (int8_t)king;
                            out[n].to = (int8_t)to;
                            n++;
                        } else if (!later) {
                            later = 1;
                            out[n].card = (int8_t)king;
                            out[n].to = (int8_t)to;
                            n++;
                        }
                    }
                }
            }
        }
    }
    if (dealt && n) {
        int safe = safe_move(s, out, n, nempty);
        if (safe >= 0) {
            out[0] = out[safe];
            return 1;
        }
    }
    /* A stable insertion sort by priority, as Python's ``list.sort``. */
    int keys[MAX_ACTIONS];
    for (int i = 0; i < n; i++) keys[i] = priority(s, out[i].card);
    for (int i = 1; i < n; i++) {
        Action action = out[i];
        int key = keys[i];
        int j = i - 1;
        while (j >= 0 && keys[j] > key) {
            out[j + 1] = out[j];
            keys[j + 1] = keys[j];
            j--;
        }
        out[j + 1] = action;
        keys[j + 1] = key;
    }
    if (!dealt) {
        out[n].card = -1;
        out[n].to = -1;
        n++;
    }
    return n;
}

/* --- Depth-first search ------------------------------------------------------------------ */

static int dfs(Search *s, int check) {
    uint64_t moved = s->moved;
    uint32_t ext = s->ext;
    int added = table_add(s->seen, moved, ext);
    if (added) {
        if (added < 0) s->stopped = 2;
        return 0;
    }
    if (s->stack_len >= PATH_CAPACITY) { /* see PATH_CAPACITY: never, by the argument there */
        s->stopped = 1;
        return 0;
    }
    s->stack_moved[s->stack_len] = moved;
    s->stack_ext[s->stack_len] = ext;
    s->stack_len++;
    s->nodes++;
    if (s->nodes > s->node_budget) {
        s->stopped = 1;
        return 0;
    }
    if (s->deadline >= 0 && !(s->nodes % CHECK_CLOCK_EVERY) && now_seconds() > s->deadline) {
        s->stopped = 1;
        return 0;
    }
    if (s->collected == 4) return 1;
    if (check && dead(s)) {
        s->stack_len--;
        return 0;
    }
    Action list[MAX_ACTIONS];
    int n = actions(s, list);
    /* The key after a move, unless it may collect a suit, is known beforehand: a move whose
     * key was searched already is skipped. All of them are looked up before the first move is
     * made, their slots fetched from memory together (a key found now stays found; one added
     * by an earlier sibling's search is found by the child's own ``table_add``, which is what
     * Python's later look-up amounts to). */
    uint64_t next_moved[MAX_ACTIONS];
    uint32_t next_ext[MAX_ACTIONS];
    int known[MAX_ACTIONS];
    for (int a = 0; a < n; a++) {
        int card = list[a].card;
        known[a] = 0;
        next_ext[a] = USED; /* no look-up */
        if (card < 0) continue;
        int source = s->loc[card];
        const int8_t *column = s->cols[source];
        int height = s->pos[card];
        if (RANK(column[s->len[source] - 1]) && (!height || RANK(column[height - 1]))) {
            uint32_t next = s->ext;
            if (next & DEALT) {
                int slot = s->stock_slot[card];
                if (slot >= 0) next &= ~(63u << (EXTRA_SHIFT + 6 * slot));
            } else if (RANK(card) == 12 && list[a].to < STOCK) {
                next |= (uint32_t)(list[a].to + 1) << (EXTRA_SHIFT + 2 * (SUIT(card)));
            }
            next_moved[a] = s->moved | (1ull << card);
            next_ext[a] = next;
            table_prefetch(s->seen, next_moved[a], next);
        }
    }
    for (int a = 0; a < n; a++)
        if (next_ext[a] != USED) known[a] = table_contains(s->seen, next_moved[a], next_ext[a]);
    Undo undo;
    for (int a = 0; a < n; a++) {
        int card = list[a].card;
        int to = list[a].to;
        if (card < 0) {
            deal(s, &undo);
            if (dfs(s, 1)) {
                s->line_card[s->line_len] = -1;
                s->line_to[s->line_len] = -1;
                s->line_len++;
                return 1;
            }
            if (s->stopped) return 0;
            undeal(s, &undo);
            continue;
        }
        if (known[a]) continue;
        move(s, card, to, &undo);
        if (dfs(s, may_deadlock(s, card, to))) {
            s->line_card[s->line_len] = (int8_t)card;
            s->line_to[s->line_len] = (int8_t)to;
            s->line_len++;
            return 1;
        }
        if (s->stopped) return 0;
        unmove(s, card, to, &undo);
    }
    s->stack_len--;
    return 0;
}

/* --- The Python function ---------------------------------------------------------------- */

PyDoc_STRVAR(search_doc,
             "search(columns, hidden, stock, collected, node_budget, time_budget, table, "
             "first_card, first_to)\n"
             "--\n\n"
             "solver._Search's search from a position read by solver._read_position (checked "
             "there). ``time_budget`` < 0: none. ``table``: a Table of keys proven lost, kept "
             "(SharedSearch), or None. ``first_card`` >= 0 (or -2 for the deal): an action made "
             "first, legal at the root. Returns (verdict, line, nodes): verdict 1 won, 0 lost, "
             "-1 out of budget; line a list of (card, to), the deal as (-1, -1).");

static PyObject *search(PyObject *module, PyObject *args) {
    PyObject *columns, *hidden, *stock, *table_arg;
    int collected, first_card, first_to;
    long long node_budget;
    double time_budget;
    if (!PyArg_ParseTuple(args, "OOOiLdOii", &columns, &hidden, &stock, &collected, &node_budget,
                          &time_budget, &table_arg, &first_card, &first_to))
        return NULL;
    double started = now_seconds();
    Search *s = (Search *)calloc(1, sizeof(Search));
    if (s == NULL) return PyErr_NoMemory();
    PyObject *fast = PySequence_Fast(columns, "columns");
    if (fast == NULL) goto fail;
    if (PySequence_Fast_GET_SIZE(fast) != COLUMNS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "a position has 7 columns");
        goto fail;
    }
    memset(s->loc, -2, sizeof(s->loc));
    memset(s->stock_slot, -1, sizeof(s->stock_slot));
    for (int index = 0; index < COLUMNS; index++) {
        int n = read_cards(PySequence_Fast_GET_ITEM(fast, index), (uint8_t *)s->cols[index], DECK,
                           DECK, "a column");
        if (n < 0) {
            Py_DECREF(fast);
            goto fail;
        }
        s->len[index] = n;
        for (int height = 0; height < n; height++) {
            s->loc[s->cols[index][height]] = (int8_t)index;
            s->pos[s->cols[index][height]] = (int8_t)height;
        }
    }
    Py_DECREF(fast);
    int8_t counts[COLUMNS];
    if (read_cards(hidden, (uint8_t *)counts, COLUMNS, DECK, "hidden") != COLUMNS) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "hidden: 7 counts");
        goto fail;
    }
    for (int index = 0; index < COLUMNS; index++) {
        /* solver._read_position checks it too; a bad count here would read past a column. */
        int most = s->len[index] ? s->len[index] - 1 : 0;
        if (counts[index] < 0 || counts[index] > most) {
            PyErr_SetString(PyExc_ValueError, "hidden: a column's top card is always face up");
            goto fail;
        }
        s->hidden[index] = counts[index];
    }
    int nstock = read_cards(stock, (uint8_t *)s->stock, STOCK, DECK, "stock");
    if (nstock < 0) goto fail;
    if (nstock != 0 && nstock != STOCK) {
        PyErr_SetString(PyExc_ValueError, "the stock holds 3 cards or none");
        goto fail;
    }
    s->stock_len = nstock;
    /* Each card once (solver._read_position checks the whole deck): a card twice would let a
     * column grow past its buffer. */
    uint64_t placed = 0;
    int count = nstock;
    for (int index = 0; index < COLUMNS; index++) {
        count += s->len[index];
        for (int height = 0; height < s->len[index]; height++)
            placed |= 1ull << s->cols[index][height];
    }
    for (int slot = 0; slot < nstock; slot++) placed |= 1ull << s->stock[slot];
    if (__builtin_popcountll(placed) != count) {
        PyErr_SetString(PyExc_ValueError, "a position holds each card once");
        goto fail;
    }
    for (int slot = 0; slot < nstock; slot++) {
        s->loc[s->stock[slot]] = -1;
        s->stock_slot[s->stock[slot]] = (int8_t)slot;
    }
    s->collected = collected;
    s->ext = nstock ? 0 : DEALT;
    s->node_budget = node_budget;
    s->deadline = time_budget < 0 ? -1.0 : started + time_budget;
    Table *own = NULL;
    if (table_arg == Py_None) {
        own = (Table *)table_create(&TableType);
        if (own == NULL) goto fail;
        s->seen = own;
    } else if (PyObject_TypeCheck(table_arg, &TableType)) {
        if (((Table *)table_arg)->busy) {
            PyErr_SetString(PyExc_RuntimeError,
                            "table: another search is using it (one search at a time per table)");
            goto fail;
        }
        s->seen = (Table *)table_arg;
        Py_INCREF(table_arg);
        own = (Table *)table_arg;
    } else {
        PyErr_SetString(PyExc_TypeError, "table: a Table or None");
        goto fail;
    }
    /* The first action is SharedSearch's, legal at the root; what would read outside the
     * position is refused. */
    if (first_card >= 0 &&
        (first_card >= DECK || s->loc[first_card] < 0 || first_to < 0 || first_to >= COLUMNS ||
         first_to == s->loc[first_card] || s->pos[first_card] < s->hidden[s->loc[first_card]])) {
        PyErr_SetString(PyExc_ValueError, "first: not a move of a face-up card to another column");
        goto fail_table;
    }
    if (first_card == -2 && !s->stock_len) {
        PyErr_SetString(PyExc_ValueError, "first: the deal, but the stock is dealt");
        goto fail_table;
    }
    int won = 0;
    own->busy = 1; /* with the GIL held: see Table.busy */
    Py_BEGIN_ALLOW_THREADS;
    Done done[MAX_DONE];
    int all[COLUMNS] = {0, 1, 2, 3, 4, 5, 6};
    settle(s, all, COLUMNS, done); /* a hand-made position may not be settled yet */
    Undo undo;
    if (first_card >= 0)
        move(s, first_card, first_to, &undo);
    else if (first_card == -2)
        deal(s, &undo);
    if (s->collected == 4)
        won = 1;
    else
        won = dfs(s, 1);
    /* Not finished, so not proven lost (a deadline may stop the search anywhere). */
    if (table_arg != Py_None)
        for (int i = 0; i < s->stack_len; i++)
            table_discard(s->seen, s->stack_moved[i], s->stack_ext[i]);
    Py_END_ALLOW_THREADS;
    own->busy = 0;
    Py_DECREF(own);
    if (s->stopped == 2) {
        free(s);
        return PyErr_NoMemory();
    }
    int verdict = s->stopped ? -1 : won;
    PyObject *line = PyList_New(verdict == 1 ? s->line_len : 0);
    if (line == NULL) goto fail;
    if (verdict == 1) {
        for (int i = 0; i < s->line_len; i++) {
            int j = s->line_len - 1 - i; /* recorded from the end */
            PyObject *step = Py_BuildValue("(ii)", s->line_card[j], s->line_to[j]);
            if (step == NULL) {
                Py_DECREF(line);
                goto fail;
            }
            PyList_SET_ITEM(line, i, step);
        }
    }
    PyObject *result = Py_BuildValue("(iNL)", verdict, line, s->nodes);
    free(s);
    return result;
fail_table:
    Py_DECREF(own);
fail:
    free(s);
    return NULL;
}

static PyMethodDef methods[] = {
    {"search", search, METH_VARARGS, search_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "_solver_c",
    "Scorpion's search (games/engine/solver.py), compiled: the same positions, faster.",
    -1,
    methods,
};

PyMODINIT_FUNC PyInit__solver_c(void) {
    for (int card = 0; card < DECK; card++) {
        RANKS[card] = (int8_t)(card % 13);
        SUITS[card] = (int8_t)(card / 13);
    }
    if (PyType_Ready(&TableType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&TableType);
    if (PyModule_AddObject(m, "Table", (PyObject *)&TableType) < 0) {
        Py_DECREF(&TableType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
