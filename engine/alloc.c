/* alloc.c - the one allocator (datum_alloc.h): the C library's, counted per
 * context, with the failure countdown of the tests. */
#include "datum_alloc.h"
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int no_memory(datum_ctx *ctx, size_t n, size_t size)
{
    return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (%zu x %zu bytes)", n, size);
}

void *datum_malloc(datum_ctx *ctx, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        no_memory(ctx, n, size);
        return NULL;
    }
    void *p = datum_ctx_allocation_refused(ctx) ? NULL : malloc(n && size ? n * size : 1);
    if (!p) no_memory(ctx, n, size);
    return p;
}

void *datum_calloc(datum_ctx *ctx, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) { /* checked here too: sanitizers abort on it */
        no_memory(ctx, n, size);
        return NULL;
    }
    void *p = datum_ctx_allocation_refused(ctx) ? NULL : calloc(n ? n : 1, size ? size : 1);
    if (!p) no_memory(ctx, n, size);
    return p;
}

int datum_resize(datum_ctx *ctx, void *pp, size_t n, size_t size)
{
    /* pp points to the caller's T* (memcpy: no aliasing of T* as void*). */
    void *old, *q = NULL;
    memcpy(&old, pp, sizeof old);
    if ((!size || n <= SIZE_MAX / size) && !datum_ctx_allocation_refused(ctx))
        q = realloc(old, n && size ? n * size : 1);
    if (!q) return no_memory(ctx, n, size);
    memcpy(pp, &q, sizeof q);
    return DATUM_OK;
}

int datum_reserve(datum_ctx *ctx, void *pp, size_t *cap, size_t need, size_t size)
{
    void *old;
    memcpy(&old, pp, sizeof old);
    if (need <= *cap && old) return DATUM_OK;
    size_t new_cap = *cap ? *cap : 16;
    while (new_cap < need) {
        if (new_cap > SIZE_MAX / 2) {
            new_cap = need;
            break;
        }
        new_cap *= 2;
    }
    int rc = datum_resize(ctx, pp, new_cap, size);
    if (rc == DATUM_OK) *cap = new_cap;
    return rc;
}

int datum_reserve_all(datum_ctx *ctx, size_t *cap, size_t need, int count, void *const *arrays,
                      const size_t *sizes)
{
    size_t grown = *cap; /* every array grows from the same capacity to the same one */
    for (int i = 0; i < count; i++) {
        grown = *cap;
        int rc = datum_reserve(ctx, arrays[i], &grown, need, sizes[i]);
        if (rc != DATUM_OK) return rc;
    }
    *cap = grown;
    return DATUM_OK;
}

char *datum_strdup(datum_ctx *ctx, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = datum_malloc(ctx, n, 1);
    if (d) memcpy(d, s, n);
    return d;
}

void datum_free(void *p) { free(p); }
