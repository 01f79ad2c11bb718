/* test_usebio.c - the USEBIO reader through the library API: a small file with
 * a Mitchell section, a Howell section, an adjusted line and a teams match
 * read back from the archive; the errors (FILE:LINE, nothing left behind);
 * every allocation of io/ refused in turn (calloc and realloc wrapped at link
 * time, as in test_alloc_failure.c; libxml2's own allocations are not). */
#include "alloc_fail.h"
#include "io_test_util.h"
#include "datum_io.h"

#include <string.h>


#define LINE(ns, ew, score)                                                                        \
    "<TRAVELLER_LINE><NS_PAIR_NUMBER>" ns "</NS_PAIR_NUMBER><EW_PAIR_NUMBER>" ew                  \
    "</EW_PAIR_NUMBER><SCORE>" score "</SCORE><NS_BUTLER_POINTS>1</NS_BUTLER_POINTS>"              \
    "<EW_BUTLER_POINTS>-1</EW_BUTLER_POINTS></TRAVELLER_LINE>\n"

static const char kGood[] =
    "<?xml version=\"1.0\"?>\n"
    "<USEBIO Version=\"1.2\">\n"
    "<EVENT EVENT_TYPE=\"BUTLER_PAIRS\"><EVENT_DESCRIPTION>Club</EVENT_DESCRIPTION>\n"
    "<DATE>02/03/2024</DATE>\n"
    "<SESSION SESSION_ID=\"1\">\n"
    "<SECTION SECTION_ID=\"A\">\n"
    "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n" LINE("1NS", "1EW", "420") LINE("2NS", "2EW", "-50")
    LINE("3NS", "3EW", "A6040") "</BOARD>\n"
    "</SECTION>\n"
    "<SECTION SECTION_ID=\"B\">\n"
    "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n" LINE("1", "2", "100") LINE("3", "4", "-100")
    "</BOARD>\n"
    "<BOARD><BOARD_NUMBER>2</BOARD_NUMBER>\n" LINE("2", "3", "0") LINE("4", "1", "110")
    "</BOARD>\n"
    "</SECTION>\n"
    "</SESSION>\n"
    "</EVENT>\n"
    "</USEBIO>\n";

static int import_good(datum_ctx *ctx)
{
    const char *paths[] = {"g.xml"};
    return datum_import_usebio(ctx, paths, 1, "a.h5", "p.csv", NULL);
}

static void test_good(void **state)
{
    (void)state;
    tu_write("g.xml", kGood);
    datum_ctx *ctx = NULL;
    datum_archive *a = NULL;
    datum_archive_info info;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(import_good(ctx), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, "a.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_results, 7);
    assert_int_equal(info.n_fields, 3);
    assert_int_equal(info.n_pairs, 10); /* A: 1NS..3EW, B: 1..4 */
    datum_archive_close(&a);
    size_t len;
    char *csv = tu_read("p.csv", &len);
    assert_non_null(strstr(csv, "Club 2024-03-02,1/A,1,3,Club 2024-03-02/A/3NS,"
                                "Club 2024-03-02/A/3EW,,A+/A-,BUTLER_PAIRS,butler,1,-1,g.xml,"));
    free(csv);
    datum_ctx_free(&ctx);
}

/* path holds text; the import must fail with DATUM_E_INPUT, a message holding
 * want, and leave only path behind. */
static void refused(const char *text, const char *want)
{
    const char *paths[] = {"bad.xml"};
    datum_ctx *ctx = NULL;
    tu_write("bad.xml", text);
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_import_usebio(ctx, paths, 1, "a.h5", "p.csv", NULL), DATUM_E_INPUT);
    if (!strstr(datum_ctx_message(ctx), want))
        fail_msg("message \"%s\" lacks \"%s\"", datum_ctx_message(ctx), want);
    assert_int_equal(tu_count_files(), 1);
    datum_ctx_free(&ctx);
}

static void test_errors(void **state)
{
    (void)state;
    char text[sizeof kGood];
    memcpy(text, kGood, sizeof kGood);
    text[sizeof kGood / 2] = '\0';
    refused(text, "bad.xml:");
    refused(text, "malformed XML");
    refused("", "malformed XML");
    refused("<PBN/>", "bad.xml:1: not a USEBIO file");
    refused("<USEBIO/>", "no TRAVELLER_LINE");
    refused("<USEBIO><EVENT><DATE>1/1/2024</DATE><BOARD><BOARD_NUMBER>0</BOARD_NUMBER>"
            "</BOARD></EVENT></USEBIO>",
            "BOARD_NUMBER: not a board number");
    refused("<USEBIO><EVENT><DATE>31/02/2024</DATE></EVENT></USEBIO>", "DATE: not a date");
    refused("<USEBIO><EVENT><DATE>01/02/24</DATE></EVENT></USEBIO>", "DATE: not a date");
    refused("<USEBIO><EVENT>\n<BOARD><BOARD_NUMBER>1</BOARD_NUMBER></BOARD></EVENT></USEBIO>",
            "bad.xml:1: EVENT: missing or empty element DATE");
    refused("<USEBIO><EVENT><DATE>01/01/2024</DATE><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n"
            "<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><SCORE>1</SCORE>"
            "</TRAVELLER_LINE></BOARD></EVENT></USEBIO>",
            "bad.xml:2: TRAVELLER_LINE: missing or empty element EW_PAIR_NUMBER");
    refused("<USEBIO><EVENT><DATE>01/01/2024</DATE><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n"
            "<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>"
            "<SCORE>1000010</SCORE></TRAVELLER_LINE></BOARD></EVENT></USEBIO>",
            "bad.xml:2: SCORE: not a score");
    /* The same pair twice in a field: import.c's check, at the second line. */
    refused("<USEBIO><EVENT><DATE>01/01/2024</DATE><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n"
            "<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>"
            "<SCORE>10</SCORE></TRAVELLER_LINE>\n"
            "<TRAVELLER_LINE><NS_PAIR_NUMBER>3</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER>"
            "<SCORE>10</SCORE></TRAVELLER_LINE></BOARD></EVENT></USEBIO>",
            "bad.xml:3: column ew_pair: pair");
}

static void test_alloc_failure(void **state)
{
    (void)state;
    tu_write("g.xml", kGood);
    tu_fail_each_allocation(import_good, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_temp_dir_test(test_good),
        tu_temp_dir_test(test_errors),
        tu_temp_dir_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
