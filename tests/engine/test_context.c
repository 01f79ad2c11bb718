/* test_context.c - the context's warnings: the callback gets each formatted
 * message, every warning is counted, with or without a callback. */
#include "test_util.h"

#include <string.h>

#include "datum.h"

typedef struct {
    int calls;
    char last[2048];
} heard;

static void listen(void *user, const char *message)
{
    heard *h = user;
    h->calls++;
    snprintf(h->last, sizeof h->last, "%s", message);
}

static void test_warnings(void **state)
{
    (void)state;
    datum_ctx *ctx;
    heard h = {0, ""};
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_true(datum_ctx_warnings(ctx) == 0);
    datum_ctx_warn(ctx, "no callback yet: %d", 1); /* counted, said to no one */
    assert_true(datum_ctx_warnings(ctx) == 1);

    datum_ctx_set_warning(ctx, listen, &h);
    datum_ctx_warn(ctx, "%s:%d: board %d: NS score %d is impossible", "a.pbn", 6, 1, 30);
    assert_int_equal(h.calls, 1);
    assert_string_equal(h.last, "a.pbn:6: board 1: NS score 30 is impossible");
    assert_true(datum_ctx_warnings(ctx) == 2);

    /* A long message is cut to 1023 bytes, never overflowing. */
    char longer[1500];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    datum_ctx_warn(ctx, "%s", longer);
    assert_int_equal(h.calls, 2);
    assert_int_equal(strlen(h.last), 1023);

    /* Warnings are not errors: clearing the error keeps the count. */
    assert_int_equal(datum_ctx_code(ctx), DATUM_OK);
    datum_ctx_clear(ctx);
    datum_ctx_set_warning(ctx, NULL, NULL);
    datum_ctx_warn(ctx, "quiet");
    assert_int_equal(h.calls, 2);
    assert_true(datum_ctx_warnings(ctx) == 4);
    datum_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warnings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
