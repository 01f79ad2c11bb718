/* alloc_loop.h - the k-th-allocation failure loop of the library tests (as
 * CHOLMOD's malloc-failure loops): a scenario is run with allocation k of its
 * context refused (datum_ctx_fail_allocation), for k = 0, 1, 2, ... until a
 * run refuses none. Link with the alloc_loop library (tests/CMakeLists.txt). */
#ifndef DATUM_ALLOC_LOOP_H
#define DATUM_ALLOC_LOOP_H

#include "datum.h"

/* One run: everything the scenario makes through ctx, freed before it
 * returns; returns the library's code (a warning counts as success). */
typedef int (*alloc_loop_scenario)(datum_ctx *ctx, void *user);

/* Runs the loop, each run with a new context of `threads` threads. Asserts
 * (cmocka) that every run that had an allocation refused returned
 * DATUM_E_NOMEM with DATUM_E_NOMEM and a message containing "out of memory"
 * recorded in its context, and left the folder `dir` (NULL: not looked at)
 * with as many entries as before the loop: no output file; that the last run
 * returned >= 0; and that it made at least one allocation through the
 * context (a scenario the countdown cannot reach tests nothing). Leaks are
 * LeakSanitizer's to find, at exit. Returns the allocations of the last run. */
long alloc_loop_run(alloc_loop_scenario scenario, void *user, int threads, const char *dir);

#endif
