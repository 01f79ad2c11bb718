/* io_test_util.h - files and folders for the io/ tests. */
#ifndef DATUM_IO_TEST_UTIL_H
#define DATUM_IO_TEST_UTIL_H

#include "test_util.h"
#include "datum.h"

#include <stddef.h>

/* cmocka setup: creates a fresh folder under $TMPDIR (or /tmp) and makes it
 * the current directory, so that the tests use (and messages show) short
 * relative names. The teardown goes back and removes it with its files. */
int tu_enter_temp_dir(void **state);
int tu_leave_temp_dir(void **state);
/* A test run in a fresh temporary folder. */
#define tu_temp_dir_test(f) cmocka_unit_test_setup_teardown(f, tu_enter_temp_dir, tu_leave_temp_dir)

/* The same with a fresh context in tu_ctx, freed by the teardown. */
extern datum_ctx *tu_ctx;
int tu_enter_with_ctx(void **state);
int tu_leave_with_ctx(void **state);
#define tu_ctx_test(f) cmocka_unit_test_setup_teardown(f, tu_enter_with_ctx, tu_leave_with_ctx)

/* Writes text to path (replacing it). */
void tu_write(const char *path, const char *text);
/* The whole file, NUL-terminated, malloc'd; *len its size (len may be NULL). */
char *tu_read(const char *path, size_t *len);
/* Number of entries of the current directory (without . and ..). */
int tu_count_files(void);
/* 1 if path exists. */
int tu_exists(const char *path);

/* Asserts that a call failed with this code and exactly this message, then
 * clears the context. */
#define assert_failure(ctx, rc, code, message)                                                     \
    do {                                                                                           \
        assert_int_equal((rc), (code));                                                            \
        assert_int_equal(datum_ctx_code(ctx), (code));                                             \
        assert_string_equal(datum_ctx_message(ctx), (message));                                    \
        datum_ctx_clear(ctx);                                                                      \
    } while (0)

#endif
