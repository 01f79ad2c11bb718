/* test_text_io.c - small text files: reading ratings back as
 * a warm start, atomic text output. */
#include "io_test_util.h"
#include "datum_io.h"

#include <math.h>
#include <string.h>


/* An archive with pairs P1..P4 to read ratings against. */
static datum_archive *four_pairs(void)
{
    const char *paths[] = {"r.csv"};
    tu_write("r.csv", "event,date,section,board,table,ns_pair,ew_pair,ns_score\n"
                      "E,2024-03-02,A,1,1,P1,P2,420\n"
                      "E,2024-03-02,A,1,2,P3,P4,-50\n");
    datum_archive *a = NULL;
    assert_int_equal(datum_import_csv(tu_ctx, paths, 1, "a.h5", NULL), DATUM_OK);
    assert_int_equal(datum_archive_open(tu_ctx, "a.h5", &a), DATUM_OK);
    return a;
}

static void test_ratings_read(void **state)
{
    datum_archive *a = four_pairs();
    double rating[4];
    uint64_t unknown = 99;
    tu_write("ratings.csv", "pair,boards,rating\nP3,1,-2\nPX,4,7\nP1,1,1.5\nP2,1,\n");
    assert_int_equal(datum_ratings_read(tu_ctx, "ratings.csv", a, rating, &unknown), DATUM_OK);
    assert_true(rating[0] == 1.5 && rating[2] == -2.0);
    assert_true(isnan(rating[1]) && isnan(rating[3])); /* empty, and not named */
    assert_int_equal(unknown, 1);                        /* PX */

    tu_write("bad.csv", "pair,rating\nP1,0.5\nP2,fast\n");
    assert_true(datum_ratings_read(tu_ctx, "bad.csv", a, rating, NULL) == DATUM_E_INPUT);
    assert_non_null(strstr(datum_ctx_message(tu_ctx), "bad.csv:3: column rating"));
    datum_ctx_clear(tu_ctx);

    tu_write("twice.csv", "pair,rating\nP1,0.5\nP1,0.25\n");
    assert_true(datum_ratings_read(tu_ctx, "twice.csv", a, rating, NULL) == DATUM_E_INPUT);
    assert_non_null(strstr(datum_ctx_message(tu_ctx), "twice.csv:3"));
    datum_ctx_clear(tu_ctx);

    tu_write("norating.csv", "pair,boards\nP1,3\n");
    assert_true(datum_ratings_read(tu_ctx, "norating.csv", a, rating, NULL) < 0);
    datum_ctx_clear(tu_ctx);
    assert_true(datum_ratings_read(tu_ctx, "missing.csv", a, rating, NULL) == DATUM_E_IO);
    datum_ctx_clear(tu_ctx);
    datum_archive_close(&a);
}

static void test_text_write_is_atomic(void **state)
{
    tu_write("report.json", "old");
    const char text[] = "{\"ok\": true}\n";
    assert_int_equal(datum_text_write(tu_ctx, "report.json", text, strlen(text)), DATUM_OK);
    char *back = tu_read("report.json", NULL);
    assert_string_equal(back, text);
    free(back);
    assert_int_equal(tu_count_files(), 1); /* no temporary file left */
    assert_true(datum_text_write(tu_ctx, "no/such/dir/report.json", text, strlen(text)) == DATUM_E_IO);
    datum_ctx_clear(tu_ctx);
    assert_int_equal(tu_count_files(), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_ctx_test(test_ratings_read),
        tu_ctx_test(test_text_write_is_atomic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
