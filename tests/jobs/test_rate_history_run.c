/* test_rate_history_run.c - the rating history's job (datum_rate_history_run,
 * jobs/datum_rate_jobs.h) on a small archive worked by hand: the CSV rows of
 * each as-of date (the pairs that played by then), the figures per date, the
 * refusals, the documented state on disk after each failing output, and
 * every allocation refused in turn. */
#include "alloc_loop.h"
#include "datum_alloc.h"
#include "datum_rate_jobs.h"
#include "datum_text.h"
#include "io_test_util.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* January: pairs J1-J4 on 2024-01-10; February: F1-F4 on 2024-02-10. Every
 * board played at two tables, so every pair has a kept board. */
static const char kTwoMonths[] =
    "event,date,section,board,table,ns_pair,ew_pair,ns_score,adjusted\n"
    "Jan,2024-01-10,,1,1,J1,J2,100,\n"
    "Jan,2024-01-10,,1,2,J3,J4,200,\n"
    "Jan,2024-01-10,,2,1,J1,J4,-50,\n"
    "Jan,2024-01-10,,2,2,J3,J2,-100,\n"
    "Feb,2024-02-10,,1,1,F1,F2,420,\n"
    "Feb,2024-02-10,,1,2,F3,F4,450,\n"
    "Feb,2024-02-10,,2,1,F1,F4,-100,\n"
    "Feb,2024-02-10,,2,2,F3,F2,110,\n";

static int setup(void **state)
{
    tu_enter_temp_dir(state);
    tu_write("two.csv", kTwoMonths);
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    const char *paths[] = {"two.csv"};
    if (datum_import_csv(ctx, paths, 1, "two.h5", NULL) != DATUM_OK)
        fail_msg("import: %s", datum_ctx_message(ctx));
    datum_ctx_free(&ctx);
    return 0;
}

/* Opens two.h5, reads it into a monthly history and runs the job into out. */
typedef struct {
    const datum_rate_history_outputs *out;
    datum_rate_history_date per_date[4];
    size_t n_dates, n_solved;
} history_run;

static int run_job(datum_ctx *ctx, void *user)
{
    history_run *run = user;
    datum_archive *a = NULL;
    datum_rate_history *h = NULL;
    int32_t *dates = NULL;
    datum_method m;
    datum_rate_options opt = DATUM_RATE_OPTIONS_INIT;
    double write_seconds;
    run->n_dates = run->n_solved = 0;
    int rc = datum_method_init(&m, "mean");
    if (rc >= 0) rc = datum_archive_open(ctx, "two.h5", &a);
    datum_archive_info info = {0};
    if (rc >= 0) datum_archive_get_info(a, &info);
    if (rc >= 0)
        rc = datum_rate_history_dates(ctx, DATUM_RATE_EVERY_MONTH, info.first_date, info.last_date,
                                      &dates, &run->n_dates);
    if (rc >= 0 && run->n_dates > 4) rc = DATUM_E_ARG;
    if (rc >= 0)
        rc = datum_rate_history_create(ctx, info.n_pairs, INT32_MIN, 0, dates, run->n_dates, &h);
    datum_rate_sink sink = {.method = &m, .history = h};
    if (rc >= 0) rc = datum_rate_read(ctx, a, NULL, 0, info.n_fields, &sink);
    if (rc >= 0)
        rc = datum_rate_history_run(ctx, a, h, dates, run->n_dates, &opt, run->out, run->per_date,
                                    &run->n_solved, &write_seconds);
    datum_rate_history_free(&h);
    datum_archive_close(&a);
    datum_free(dates);
    return rc;
}

static datum_ctx *new_ctx(void)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    return ctx;
}

static void test_rows_by_hand(void **state)
{
    (void)state;
    datum_rate_history_outputs out = {.csv = "h.csv", .h5 = "h.h5", .command = "rate"};
    history_run run = {.out = &out};
    datum_ctx *ctx = new_ctx();
    if (run_job(ctx, &run) != DATUM_OK) fail_msg("%s", datum_ctx_message(ctx));
    datum_ctx_free(&ctx);
    /* As of 2024-01-31 the January pairs, as of 2024-02-10 all eight. */
    assert_int_equal(run.n_dates, 2);
    assert_int_equal(run.n_solved, 2);
    char day[DATUM_DATE_SIZE];
    assert_string_equal(datum_format_date(run.per_date[0].as_of, day), "2024-01-31");
    assert_string_equal(datum_format_date(run.per_date[1].as_of, day), "2024-02-10");
    assert_int_equal(run.per_date[0].stats.pairs, 4);
    assert_int_equal(run.per_date[1].stats.pairs, 8);
    char *csv = tu_read("h.csv", NULL);
    assert_non_null(csv);
    assert_memory_equal(csv, "pair,as_of,boards,rating\n", 25);
    size_t rows = 0, jan = 0, feb_pairs_in_jan = 0;
    for (char *line = strchr(csv, '\n') + 1; *line; line = strchr(line, '\n') + 1, rows++) {
        int in_jan = strncmp(strchr(line, ',') + 1, "2024-01-31,", 11) == 0;
        jan += in_jan;
        feb_pairs_in_jan += in_jan && line[0] == 'F';
    }
    assert_int_equal(rows, 12);
    assert_int_equal(jan, 4);
    assert_int_equal(feb_pairs_in_jan, 0);
    free(csv);
    assert_true(tu_exists("h.h5"));
    unlink("h.csv");
    unlink("h.h5");
}

static void test_failures(void **state)
{
    (void)state;
    datum_ctx *ctx = new_ctx();
    /* The CSV cannot be created: nothing solved, nothing on disk. */
    int before = tu_count_files();
    datum_rate_history_outputs bad_csv = {.csv = "missing/h.csv", .h5 = "h.h5", .command = "rate"};
    history_run run = {.out = &bad_csv};
    assert_int_equal(run_job(ctx, &run), DATUM_E_IO);
    assert_int_equal(run.n_solved, 0);
    assert_int_equal(tu_count_files(), before);
    /* The HDF5 file cannot be created: every date solved, and neither the
     * CSV nor an HDF5 file left (the CSV is committed after the HDF5
     * file is written). */
    datum_rate_history_outputs bad_h5 = {.csv = "h.csv", .h5 = "missing/h.h5", .command = "rate"};
    run = (history_run){.out = &bad_h5};
    assert_true(run_job(ctx, &run) < 0);
    assert_int_equal(run.n_solved, 2);
    assert_false(tu_exists("h.csv"));
    assert_int_equal(tu_count_files(), before);
    /* NULL arguments. */
    datum_rate_options opt = DATUM_RATE_OPTIONS_INIT;
    datum_rate_history_outputs none = {0};
    size_t solved = 7;
    double seconds = 7;
    assert_int_equal(datum_rate_history_run(ctx, NULL, NULL, NULL, 0, &opt, &none, NULL, &solved,
                                            &seconds),
                     DATUM_E_ARG);
    assert_int_equal(solved, 0);
    datum_ctx_free(&ctx);
}

/* Each output alone: a refused allocation leaves no file behind. */
static void test_alloc_failures(void **state)
{
    (void)state;
    assert_int_equal(mkdir("out", 0700), 0);
    datum_rate_history_outputs csv_only = {.csv = "out/h.csv"};
    datum_rate_history_outputs h5_only = {.h5 = "out/h.h5", .command = "rate"};
    history_run run = {.out = &csv_only};
    alloc_loop_run(run_job, &run, 1, "out");
    unlink("out/h.csv");
    run = (history_run){.out = &h5_only};
    alloc_loop_run(run_job, &run, 2, "out");
    unlink("out/h.h5");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_by_hand),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, tu_leave_temp_dir);
}
