/* test_csv_write.c - the CSV writer: quoting, numbers that read back
 * exactly, atomic commit and abort, and write errors reported at commit. */
#include "io_test_util.h"
#include "datum_io.h"

#include <fcntl.h>
#include <math.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* One row of every kind of field, then a short row. */
static void write_rows(datum_csv_writer *w)
{
    datum_csv_str(w, "plain");
    datum_csv_str(w, "a,b");
    datum_csv_str(w, "say \"hi\"");
    datum_csv_str(w, "two\nlines");
    datum_csv_str(w, "cr\r");
    datum_csv_str(w, "");
    datum_csv_int(w, -42);
    datum_csv_int(w, INT64_MIN);
    datum_csv_real(w, 2.425);
    datum_csv_real(w, NAN);
    datum_csv_empty(w);
    datum_csv_end_row(w);
    datum_csv_str(w, "x");
    datum_csv_end_row(w);
}

#define EXPECTED                                                                                   \
    "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\",,-42,-9223372036854775808,2.425,,\n" \
    "x\n"

static void test_quoting_and_commit(void **state)
{
    datum_csv_writer *w = NULL;
    tu_write("out.csv", "old");
    assert_int_equal(datum_csv_create(tu_ctx, "out.csv", &w), DATUM_OK);
    write_rows(w);
    assert_int_equal(tu_count_files(), 2); /* out.csv and the temporary file */
    char *text = tu_read("out.csv", NULL);
    assert_string_equal(text, "old"); /* untouched until commit */
    free(text);
    assert_int_equal(datum_csv_commit(&w), DATUM_OK);
    assert_null(w);
    assert_int_equal(tu_count_files(), 1);
    text = tu_read("out.csv", NULL);
    assert_string_equal(text, EXPECTED);
    free(text);
}

static void test_abort(void **state)
{
    datum_csv_writer *w = NULL;
    tu_write("out.csv", "old");
    assert_int_equal(datum_csv_create(tu_ctx, "out.csv", &w), DATUM_OK);
    write_rows(w);
    datum_csv_abort(&w);
    assert_null(w);
    datum_csv_abort(&w);
    datum_csv_abort(NULL);
    assert_int_equal(datum_csv_commit(&w), DATUM_OK); /* nothing to commit */
    assert_int_equal(tu_count_files(), 1);
    char *text = tu_read("out.csv", NULL);
    assert_string_equal(text, "old");
    free(text);
}

/* datum_csv_str(w, NULL) is refused: the error recorded at once, the old
 * file kept, no temporary left. */
static void test_null_string_refused(void **state)
{
    datum_csv_writer *w = NULL;
    tu_write("out.csv", "old");
    assert_int_equal(datum_csv_create(tu_ctx, "out.csv", &w), DATUM_OK);
    datum_csv_str(w, "a");
    datum_csv_str(w, NULL);
    assert_int_equal(datum_ctx_code(tu_ctx), DATUM_E_ARG);
    datum_csv_str(w, "b");
    datum_csv_end_row(w);
    int rc = datum_csv_commit(&w);
    assert_null(w);
    assert_failure(tu_ctx, rc, DATUM_E_ARG, "cannot write out.csv: a NULL string field");
    assert_int_equal(tu_count_files(), 1);
    char *text = tu_read("out.csv", NULL);
    assert_string_equal(text, "old");
    free(text);
}

static void test_failed_commit_removes_temp(void **state)
{
    datum_csv_writer *w = NULL;
    assert_int_equal(datum_csv_create(tu_ctx, "late.csv", &w), DATUM_OK);
    write_rows(w);
    assert_int_equal(mkdir("late.csv", 0777), 0); /* rename onto a folder fails */
    assert_failure(tu_ctx, datum_csv_commit(&w), DATUM_E_IO, "cannot write late.csv: Is a directory");
    assert_int_equal(tu_count_files(), 1);
    assert_failure(tu_ctx, datum_csv_create(tu_ctx, "nodir/x.csv", &w), DATUM_E_IO,
                   "cannot create nodir/x.csv: No such file or directory");
    assert_null(w);
}

/* A rename over a device would replace the device: such paths are refused
 * before anything is written, and the device stays what it was. */
static void test_refuses_what_is_not_a_regular_file(void **state)
{
    datum_csv_writer *w = NULL;
    struct stat st;
    assert_failure(tu_ctx, datum_csv_create(tu_ctx, "/dev/null", &w), DATUM_E_ARG,
                   "cannot write /dev/null: not a regular file (outputs are written to a "
                   "temporary file and renamed into place)");
    assert_null(w);
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(mkdir("dir.csv", 0777), 0);
    assert_failure(tu_ctx, datum_csv_create(tu_ctx, "dir.csv", &w), DATUM_E_ARG,
                   "cannot write dir.csv: not a regular file (outputs are written to a "
                   "temporary file and renamed into place)");
    assert_int_equal(tu_count_files(), 1);
}

/* Runs write_rows to standard output redirected to `target`; returns the
 * commit's result. */
static int write_stdout_to(const char *target, int repeat)
{
    datum_csv_writer *w = NULL;
    int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0666), saved = dup(1), rc;
    assert_true(fd >= 0 && saved >= 0);
    fflush(stdout);
    assert_int_equal(dup2(fd, 1), 1);
    rc = datum_csv_create(tu_ctx, "-", &w);
    for (int i = 0; i < repeat && rc == DATUM_OK; i++) write_rows(w);
    if (rc == DATUM_OK) rc = datum_csv_commit(&w);
    __fpurge(stdout); /* what a full device refused must not come out later */
    clearerr(stdout);
    assert_int_equal(dup2(saved, 1), 1);
    close(saved);
    close(fd);
    return rc;
}

static void test_stdout(void **state)
{
    assert_int_equal(write_stdout_to("captured.csv", 1), DATUM_OK);
    char *text = tu_read("captured.csv", NULL);
    assert_string_equal(text, EXPECTED);
    free(text);
    assert_int_equal(tu_count_files(), 1); /* no temporary file for "-" */
    if (access("/dev/full", W_OK) != 0) skip();
    /* Several buffers' worth, so that the writes fail before the flush too. */
    assert_failure(tu_ctx, write_stdout_to("/dev/full", 40000), DATUM_E_IO,
                   "cannot write standard output: No space left on device");
}

static void test_format_real(void **state)
{
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {3.0, "3"},
        {-70.0, "-70"},
        {0.0, "0"},
        {-0.0, "-0"},
        {2.425, "2.425"},
        {0.1, "0.1"},
        {1.5, "1.5"},
        {-4.45, "-4.45"},
        {1.0 / 3.0, "0.3333333333333333"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1e16, "10000000000000000"},
        {1e20, "1e+20"},
        {123456789012345678.0, "1.2345678901234568e+17"},
        {5e-324, "4.94065645841247e-324"},
        {1e-5, "1e-05"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
    };
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_string_equal(datum_format_real(cases[i].v, buf), cases[i].text);
    assert_string_equal(datum_format_real(NAN, buf), "");

    /* Random doubles of every magnitude read back exactly, in at most as many
     * characters as %.17g. */
    test_rng rng = test_rng_seeded("test_format_real", 17);
    for (int i = 0; i < 100000; i++) {
        uint64_t bits = test_rng_next(&rng);
        double v;
        char longest[32];
        memcpy(&v, &bits, sizeof v);
        if (isnan(v)) continue;
        datum_format_real(v, buf);
        assert_true(strtod(buf, NULL) == v);
        snprintf(longest, sizeof longest, "%.17g", v);
        assert_true(strlen(buf) <= strlen(longest));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_ctx_test(test_quoting_and_commit),
        tu_ctx_test(test_abort),
        tu_ctx_test(test_null_string_refused),
        tu_ctx_test(test_failed_commit_removes_temp),
        tu_ctx_test(test_refuses_what_is_not_a_regular_file),
        tu_ctx_test(test_stdout),
        tu_ctx_test(test_format_real),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
