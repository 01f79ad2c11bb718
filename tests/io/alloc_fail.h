/* alloc_fail.h - io/'s allocations refused one at a time. io/ allocates only
 * through calloc and realloc (io_calloc, io_reserve); a test program using
 * this is linked with -Wl,--wrap=calloc -Wl,--wrap=realloc, so the wrappers
 * see exactly the calls made from our static libraries and the test, not
 * those inside HDF5, libxml2 or libc. */
#ifndef DATUM_ALLOC_FAIL_H
#define DATUM_ALLOC_FAIL_H

#include "datum.h"

/* Runs scenario with allocation k refused, for k = 0, 1, ... until it runs
 * through (DATUM_OK). Every refusal must give DATUM_E_NOMEM, recorded in the
 * context, and leave files_after entries in the current directory. */
void tu_fail_each_allocation(int (*scenario)(datum_ctx *), int files_after);

#endif
