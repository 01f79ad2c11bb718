/* test_alloc.c - the one allocator (datum_alloc.h): failures are recorded as
 * out of memory, the countdown refuses exactly the k-th allocation, resize
 * and reserve keep the old array on failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "datum_alloc.h"

static void test_overflow_is_out_of_memory(void **state)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_null(datum_malloc(ctx, SIZE_MAX / 2, 4));
    assert_int_equal(datum_ctx_code(ctx), DATUM_E_NOMEM);
    assert_non_null(strstr(datum_ctx_message(ctx), "out of memory"));
    datum_ctx_clear(ctx);
    assert_null(datum_calloc(ctx, SIZE_MAX / 2, 4));
    assert_int_equal(datum_ctx_code(ctx), DATUM_E_NOMEM);
    datum_ctx_free(&ctx);
}

static void test_countdown_refuses_exactly_k(void **state)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_ctx_fail_allocation(ctx, 2);
    void *a = datum_malloc(ctx, 0, 8); /* 0 elements: still a pointer */
    char *b = datum_strdup(ctx, "abc");
    int *c = datum_calloc(ctx, 4, sizeof *c); /* number 2: refused */
    int *d = datum_calloc(ctx, 4, sizeof *d);
    assert_non_null(a);
    assert_string_equal(b, "abc");
    assert_null(c);
    assert_non_null(d);
    assert_int_equal(datum_ctx_code(ctx), DATUM_E_NOMEM);
    assert_int_equal(datum_ctx_allocations(ctx), 4);
    datum_free(a); datum_free(b); datum_free(d); datum_free(NULL);
    datum_ctx_free(&ctx);
}

static void test_reserve_keeps_array_on_failure(void **state)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    int *v = NULL;
    size_t cap = 0;
    assert_int_equal(datum_reserve(ctx, &v, &cap, 10, sizeof *v), DATUM_OK);
    assert_int_equal(cap, 16);
    for (int i = 0; i < 16; i++) v[i] = i;
    assert_int_equal(datum_reserve(ctx, &v, &cap, 16, sizeof *v), DATUM_OK); /* no growth */
    datum_ctx_fail_allocation(ctx, 0);
    int *before = v;
    assert_int_equal(datum_reserve(ctx, &v, &cap, 17, sizeof *v), DATUM_E_NOMEM);
    assert_ptr_equal(v, before);
    assert_int_equal(cap, 16);
    assert_int_equal(v[15], 15);
    datum_ctx_clear(ctx);
    assert_int_equal(datum_reserve(ctx, &v, &cap, 17, sizeof *v), DATUM_OK);
    assert_int_equal(cap, 32);
    assert_int_equal(v[15], 15);
    assert_int_equal(datum_resize(ctx, &v, 3, sizeof *v), DATUM_OK);
    assert_int_equal(v[2], 2);
    datum_free(v);
    datum_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overflow_is_out_of_memory),
        cmocka_unit_test(test_countdown_refuses_exactly_k),
        cmocka_unit_test(test_reserve_keeps_array_on_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
