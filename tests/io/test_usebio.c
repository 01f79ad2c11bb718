/* test_usebio.c - the USEBIO reader through the library API: a small file with
 * a Mitchell section, a Howell section, an adjusted line and a teams match
 * read back from the archive, its published points and their kinds too (none
 * in a CSV import); sit-out lines skipped and counted; the errors (FILE:LINE,
 * nothing left behind);
 * every allocation of io/ refused in turn (alloc_loop.h; libxml2's own
 * allocations are not). */
#include "alloc_loop.h"
#include "io_test_util.h"
#include "datum_io.h"

#include <math.h>
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
    LINE("3NS", "3EW", "A6040") LINE("4NS", "4EW", "A50/40") "</BOARD>\n"
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

static int import_good(datum_ctx *ctx, void *user)
{
    (void)user;
    const char *paths[] = {"g.xml"};
    return datum_import_usebio(ctx, paths, 1, "a.h5", NULL);
}

static void test_good(void **state)
{
    (void)state;
    tu_write("g.xml", kGood);
    datum_ctx *ctx = NULL;
    datum_archive *a = NULL;
    datum_archive_info info;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(import_good(ctx, NULL), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, "a.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_results, 8);
    assert_int_equal(info.n_fields, 3);
    assert_int_equal(info.n_pairs, 12); /* A: 1NS..4EW, B: 1..4 */
    assert_int_equal(info.has_published, 1);
    /* DD/MM/YYYY: 2 March 2024, day 19784 since 1970-01-01 (Python's datetime). */
    assert_int_equal(info.first_date, 19784);
    assert_int_equal(info.last_date, 19784);
    assert_string_equal(datum_archive_event(a, 0), "Club 2024-03-02");
    /* Section 1/A's board 1 comes first: tables 1 to 4. */
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_int_equal(c.n_rows, 8);
    assert_string_equal(datum_archive_section(a, c.field_section[0]), "1/A");
    assert_int_equal(c.table[2], 3);
    assert_int_equal(c.adjusted[2], DATUM_ADJ_AP_AM);
    assert_int_equal(c.adjusted[3], DATUM_ADJ_A_AM); /* a mixed award, NS 50% and EW 40% */
    for (int i = 0; i < 8; i++) { /* every line's published points, adjusted lines too */
        assert_true(c.published_ns[i] == 1 && c.published_ew[i] == -1);
        assert_int_equal(c.published_method[i], DATUM_PUBLISHED_BUTLER);
    }
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
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
    assert_int_equal(datum_import_usebio(ctx, paths, 1, "a.h5", NULL), DATUM_E_INPUT);
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
    /* Day 31 of February in either spelling the reader takes, at its line. */
    refused("<USEBIO><EVENT>\n<DATE>31/02/2024</DATE></EVENT></USEBIO>",
            "bad.xml:2: DATE: not a date (DD/MM/YYYY): 31/02/2024");
    refused("<USEBIO><EVENT>\n\n<DATE>2024-02-31</DATE></EVENT></USEBIO>",
            "bad.xml:3: DATE: not a date (DD/MM/YYYY): 2024-02-31");
    refused("<USEBIO><EVENT>\n<DATE>29/02/2023</DATE></EVENT></USEBIO>",
            "bad.xml:2: DATE: not a date (DD/MM/YYYY): 29/02/2023");
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
    /* A published figure that is not a number: its element and line. */
    refused("<USEBIO><EVENT><DATE>01/01/2024</DATE><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n"
            "<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>"
            "<SCORE>10</SCORE>\n<NS_BUTLER_POINTS>1,5</NS_BUTLER_POINTS></TRAVELLER_LINE>"
            "</BOARD></EVENT></USEBIO>",
            "bad.xml:3: NS_BUTLER_POINTS: not a number: 1,5");
    refused("<USEBIO><EVENT><DATE>01/01/2024</DATE><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n"
            "<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>"
            "<SCORE>10</SCORE><EW_MATCH_POINTS>inf</EW_MATCH_POINTS></TRAVELLER_LINE>"
            "</BOARD></EVENT></USEBIO>",
            "bad.xml:2: EW_MATCH_POINTS: not a number: inf");
}

/* What the published points are: the element name's kind first (IMP is not
 * matchpoints), then the EVENT_TYPE; a line without points, or with empty
 * ones, has NaN and NONE. A CSV import has no published columns. */
static void test_published(void **state)
{
    (void)state;
    tu_write("k.xml",
             "<USEBIO><EVENT EVENT_TYPE=\"MP_PAIRS\"><DATE>01/01/2024</DATE>"
             "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n"
             "<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>"
             "<SCORE>10</SCORE><NS_CROSS_IMP_POINTS>2.25</NS_CROSS_IMP_POINTS>"
             "<EW_CROSS_IMP_POINTS>-2.25</EW_CROSS_IMP_POINTS></TRAVELLER_LINE>\n"
             "<TRAVELLER_LINE><NS_PAIR_NUMBER>3</NS_PAIR_NUMBER><EW_PAIR_NUMBER>4</EW_PAIR_NUMBER>"
             "<SCORE>20</SCORE></TRAVELLER_LINE>\n"
             "<TRAVELLER_LINE><NS_PAIR_NUMBER>5</NS_PAIR_NUMBER><EW_PAIR_NUMBER>6</EW_PAIR_NUMBER>"
             "<SCORE>30</SCORE><NS_IMP_POINTS> </NS_IMP_POINTS>"
             "<EW_IMP_POINTS>-0.5</EW_IMP_POINTS></TRAVELLER_LINE>\n"
             "<TRAVELLER_LINE><NS_PAIR_NUMBER>7</NS_PAIR_NUMBER><EW_PAIR_NUMBER>8</EW_PAIR_NUMBER>"
             "<SCORE>40</SCORE><NS_TOTAL_POINTS>3</NS_TOTAL_POINTS></TRAVELLER_LINE>\n"
             "</BOARD></EVENT></USEBIO>\n");
    tu_write("r.csv", "event,date,section,board,table,ns_pair,ew_pair,ns_score\n"
                      "E,2024-01-01,,1,1,N1,E1,100\n");
    const char *xml[] = {"k.xml"}, *csv[] = {"r.csv"};
    datum_ctx *ctx = NULL;
    datum_archive *a = NULL;
    datum_archive_info info;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_import_usebio(ctx, xml, 1, "k.h5", NULL), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, "k.h5", &a), DATUM_OK);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_PUBLISHED, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_int_equal(c.n_rows, 4);
    assert_true(c.published_ns[0] == 2.25 && c.published_ew[0] == -2.25);
    assert_true(isnan(c.published_ns[1]) && isnan(c.published_ew[1]));
    assert_true(isnan(c.published_ns[2]) && c.published_ew[2] == -0.5);
    assert_true(c.published_ns[3] == 3 && isnan(c.published_ew[3]));
    static const uint8_t kinds[4] = {DATUM_PUBLISHED_CROSS_IMPS, DATUM_PUBLISHED_NONE,
                                     DATUM_PUBLISHED_IMPS, DATUM_PUBLISHED_MATCHPOINTS};
    assert_memory_equal(c.published_method, kinds, sizeof kinds);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);

    assert_int_equal(datum_import_csv(ctx, csv, 1, "r.h5", NULL), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, "r.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.has_published, 0);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_non_null(c.ns_score);
    assert_null(c.published_ns);
    assert_null(c.published_ew);
    assert_null(c.published_method);
    assert_null(c.published_ns_percent);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
}

static void last_warning(void *user, const char *message)
{
    snprintf(user, 160, "%s", message);
}

#define USEBIO_BOARD(lines)                                                                        \
    "<USEBIO><EVENT><DATE>01/01/2024</DATE><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n" lines         \
    "</BOARD></EVENT></USEBIO>\n"
#define PAIRS(ns, ew)                                                                              \
    "<NS_PAIR_NUMBER>" ns "</NS_PAIR_NUMBER><EW_PAIR_NUMBER>" ew "</EW_PAIR_NUMBER>"

/* A line with one side's pair (or players) and no opponent, and no score of
 * any kind, is a sit-out: skipped, counted, given no table number; one with
 * a score is refused, as is a line without any pair. */
static void test_sitouts(void **state)
{
    (void)state;
    tu_write("s.xml", USEBIO_BOARD(
        "<TRAVELLER_LINE>" PAIRS("1", "2") "<SCORE>420</SCORE></TRAVELLER_LINE>\n"
        "<TRAVELLER_LINE><NS_PAIR_NUMBER>5</NS_PAIR_NUMBER><NS_BUTLER_POINTS>0"
        "</NS_BUTLER_POINTS></TRAVELLER_LINE>\n"
        "<TRAVELLER_LINE>" PAIRS(" ", "6") "<SCORE></SCORE></TRAVELLER_LINE>\n"
        "<TRAVELLER_LINE><E_PLAYER_NUMBER>7</E_PLAYER_NUMBER><W_PLAYER_NUMBER>8"
        "</W_PLAYER_NUMBER></TRAVELLER_LINE>\n"
        "<TRAVELLER_LINE>" PAIRS("3", "4") "<SCORE>-50</SCORE></TRAVELLER_LINE>\n"));
    const char *paths[] = {"s.xml"};
    char last[160] = "";
    datum_ctx *ctx = NULL;
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_ctx_set_warning(ctx, last_warning, last);
    int rc = datum_import_usebio(ctx, paths, 1, "s.h5", NULL);
    if (rc != DATUM_OK) fail_msg("%s", datum_ctx_message(ctx));
    assert_int_equal(datum_ctx_warnings(ctx), 1);
    assert_string_equal(last, "skipped 3 sit-out rows (a pair without an opponent and without a "
                              "result: not scored)");
    assert_int_equal(datum_archive_open(ctx, "s.h5", &a), DATUM_OK);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_TABLE | DATUM_COL_NS_SCORE, 100,
                                               &r),
                     DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_int_equal(c.n_rows, 2);
    assert_int_equal(c.table[1], 2); /* the tables rank the lines with a result */
    assert_int_equal(c.ns_score[1], -50);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
    remove("s.xml");
    remove("s.h5");

    refused(USEBIO_BOARD("<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><NS_SCORE>100"
                         "</NS_SCORE></TRAVELLER_LINE>\n"),
            "bad.xml:2: TRAVELLER_LINE: missing or empty element EW_PAIR_NUMBER");
    refused(USEBIO_BOARD("<TRAVELLER_LINE><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER><SCORE>A5050"
                         "</SCORE></TRAVELLER_LINE>\n"),
            "bad.xml:2: TRAVELLER_LINE: missing or empty element NS_PAIR_NUMBER");
    refused(USEBIO_BOARD("<TRAVELLER_LINE><NS_BUTLER_POINTS>1</NS_BUTLER_POINTS>"
                         "</TRAVELLER_LINE>\n"),
            "bad.xml:2: TRAVELLER_LINE: missing or empty element NS_PAIR_NUMBER");
    refused(USEBIO_BOARD("<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER></TRAVELLER_LINE>\n"),
            "bad.xml: no TRAVELLER_LINE in the file but sit-outs");
    refused("<USEBIO><EVENT><DATE>01/01/2024</DATE>\n<TRAVELLER_LINE><NS_PAIR_NUMBER>1"
            "</NS_PAIR_NUMBER></TRAVELLER_LINE></EVENT></USEBIO>",
            "bad.xml:2: TRAVELLER_LINE: outside a BOARD with a BOARD_NUMBER");
}

static void test_alloc_failure(void **state)
{
    (void)state;
    tu_write("g.xml", kGood);
    alloc_loop_run(import_good, NULL, 1, ".");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_temp_dir_test(test_good),
        tu_temp_dir_test(test_errors),
        tu_temp_dir_test(test_published),
        tu_temp_dir_test(test_sitouts),
        tu_temp_dir_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
