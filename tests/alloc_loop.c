/* alloc_loop.c - see alloc_loop.h. */
#define _POSIX_C_SOURCE 200809L
#include "alloc_loop.h"
#include "datum_alloc.h"
#include "test_util.h"

#include <dirent.h>
#include <string.h>

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

long alloc_loop_run(alloc_loop_scenario scenario, void *user, int threads, const char *dir)
{
    int before = dir ? entries(dir) : 0;
    for (long k = 0;; k++) {
        datum_ctx *ctx = NULL;
        assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
        assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
        datum_ctx_fail_allocation(ctx, k);
        int rc = scenario(ctx, user);
        long made = datum_ctx_allocations(ctx);
        if (made > k) { /* allocation k was refused */
            if (rc != DATUM_E_NOMEM || datum_ctx_code(ctx) != DATUM_E_NOMEM ||
                !strstr(datum_ctx_message(ctx), "out of memory"))
                fail_msg("allocation %ld of %ld refused: returned %d, recorded %d '%s'", k, made,
                         rc, datum_ctx_code(ctx), datum_ctx_message(ctx));
            if (dir && entries(dir) != before)
                fail_msg("allocation %ld refused: %d entries left in %s, %d before", k,
                         entries(dir), dir, before);
            datum_ctx_free(&ctx);
            continue;
        }
        if (rc < 0) fail_msg("no allocation refused: returned %d '%s'", rc, datum_ctx_message(ctx));
        datum_ctx_free(&ctx);
        assert_true(made > 0);
        printf("# %ld allocations, each refused once\n", made);
        return made;
    }
}
