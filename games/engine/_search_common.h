/* What the two compiled searches (_solver_c.c, _variant_c.c) share: the clock of their time
 * budgets, and reading a list of card ints from Python, checked. Included by both; each
 * extension gets its own copy. */
#ifndef SCORPION_SEARCH_COMMON_H
#define SCORPION_SEARCH_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <time.h>

static double now_seconds(void) {
#if defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

/* The ints of ``sequence`` into ``out`` (at most ``capacity``, each 0 to ``deck_size`` - 1);
 * their number, or -1 with a Python exception set. */
static int read_cards(PyObject *sequence, uint8_t *out, int capacity, int deck_size,
                      const char *what) {
    PyObject *fast = PySequence_Fast(sequence, what);
    if (fast == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > capacity) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: too many cards", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long value = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (value == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (value < 0 || value >= deck_size) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_ValueError, "%s: a card is an int 0-%d", what, deck_size - 1);
            return -1;
        }
        out[i] = (uint8_t)value;
    }
    Py_DECREF(fast);
    return (int)n;
}

#endif
