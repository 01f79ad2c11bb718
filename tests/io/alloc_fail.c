/* alloc_fail.c - see alloc_fail.h. */
#include "alloc_fail.h"
#include "io_test_util.h"

static long g_fail_at = -1; /* the allocation (from 0) to refuse; -1: none */
static long g_count;

void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static int refuse(void) { return g_fail_at >= 0 && g_count++ == g_fail_at; }

void *__wrap_calloc(size_t n, size_t size) { return refuse() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t size) { return refuse() ? NULL : __real_realloc(p, size); }

void tu_fail_each_allocation(int (*scenario)(datum_ctx *), int files_after)
{
    int rc;
    long k = 0;
    do {
        datum_ctx *ctx = NULL;
        assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
        g_count = 0;
        g_fail_at = k;
        rc = scenario(ctx);
        int refused = g_count > k;
        g_fail_at = -1;
        if (refused) {
            if (rc != DATUM_E_NOMEM)
                fail_msg("allocation %ld refused: %d %s", k, rc, datum_ctx_message(ctx));
            assert_int_equal(datum_ctx_code(ctx), DATUM_E_NOMEM);
            assert_int_equal(tu_count_files(), files_after);
        } else {
            assert_int_equal(rc, DATUM_OK);
        }
        datum_ctx_free(&ctx);
        k++;
    } while (rc != DATUM_OK);
    printf("# %ld allocations checked\n", k - 1);
}
