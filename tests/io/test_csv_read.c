/* test_csv_read.c - the results CSV reader: RFC 4180 parsing, sit-out rows
 * skipped and counted, and every bad input rejected by the import with
 * "FILE:LINE: column NAME: ..." and nothing left behind. */
#include "io_test_util.h"
#include "io_common.h"

#include <stdlib.h>
#include <string.h>

#define HEADER "event,date,section,board,table,ns_pair,ew_pair,ns_score\n"
#define HEADER_ADJ "event,date,section,board,table,ns_pair,ew_pair,ns_score,adjusted\n"
#define ROW1 "E,2024-03-02,A,1,1,P1,P2,420\n"

/* Reads every row of r.csv (written from text) into rows[]; returns their count. */
static size_t read_rows(datum_ctx *ctx, const char *text, io_result_row *rows, char names[][4][32],
                        size_t max)
{
    io_results_reader *r = NULL;
    size_t n = 0;
    tu_write("r.csv", text);
    assert_int_equal(io_results_open(ctx, "r.csv", &r), DATUM_OK);
    while (io_results_next(r, &rows[n]) == 1) {
        assert_true(n < max);
        /* The strings live until the next row: keep copies. */
        snprintf(names[n][0], 32, "%s", rows[n].event);
        snprintf(names[n][1], 32, "%s", rows[n].section);
        snprintf(names[n][2], 32, "%s", rows[n].ns_pair);
        snprintf(names[n][3], 32, "%s", rows[n].ew_pair);
        /* The lengths handed on with the names are theirs. */
        assert_true(rows[n].lengths_known);
        assert_int_equal(rows[n].event_len, strlen(rows[n].event));
        assert_int_equal(rows[n].section_len, strlen(rows[n].section));
        assert_int_equal(rows[n].ns_pair_len, strlen(rows[n].ns_pair));
        assert_int_equal(rows[n].ew_pair_len, strlen(rows[n].ew_pair));
        n++;
    }
    assert_int_equal(datum_ctx_code(ctx), DATUM_OK);
    io_results_close(&r);
    assert_null(r);
    return n;
}

static void test_rfc4180(void **state)
{
    datum_ctx *ctx = NULL;
    io_result_row rows[4];
    char names[4][4][32];
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    /* BOM, CRLF, quotes with "" and an embedded comma and line break, an
     * empty line, a last line without a line end. */
    size_t n = read_rows(ctx,
                         "\xEF\xBB\xBF"
                         "event,date,section,board,table,ns_pair,ew_pair,ns_score\r\n"
                         "\"Spring, \"\"open\"\"\",2024-03-02,A,1,1,\"N\r\n1\",E1,420\r\n"
                         "\r\n"
                         "Spring,2024-02-29,,12,0,N2,\"E2\",-50",
                         rows, names, 4);
    assert_int_equal(n, 2);
    assert_int_equal(rows[0].line, 2);
    assert_string_equal(names[0][0], "Spring, \"open\"");
    assert_string_equal(names[0][1], "A");
    assert_string_equal(names[0][2], "N\r\n1");
    assert_string_equal(names[0][3], "E1");
    assert_int_equal(rows[0].date, 19784); /* 2024-03-02 */
    assert_int_equal(rows[0].board, 1);
    assert_int_equal(rows[0].table, 1);
    assert_int_equal(rows[0].ns_score, 420);
    assert_int_equal(rows[0].adjusted, DATUM_ADJ_NONE);
    assert_int_equal(rows[1].line, 5);
    assert_string_equal(names[1][1], "");
    assert_string_equal(names[1][3], "E2");
    assert_int_equal(rows[1].date, 19782); /* a leap day */
    assert_int_equal(rows[1].board, 12);
    assert_int_equal(rows[1].table, 0);
    assert_int_equal(rows[1].ns_score, -50);
    datum_ctx_free(&ctx);
}

/* Row i of the long file below: its spelling varies with i (quoted, with a
 * line break inside quotes, CRLF, UTF-8, a blank line after), so that the
 * in-place records and those read byte by byte meet the buffer's ends at
 * every kind of place. Appends it to text; returns the lines it takes. */
static int long_file_row(char *text, size_t i, int with_blank)
{
    char pair[32];
    int lines = 1;
    if (i % 7 == 3) snprintf(pair, sizeof pair, "\"N%zu,\"\"q\"\"\"", i);
    else if (i % 11 == 5) snprintf(pair, sizeof pair, "\"N\n%zu\"", i), lines = 2;
    else if (i % 13 == 6) snprintf(pair, sizeof pair, "N\xC3\xA9%zu", i); /* N, e acute */
    else snprintf(pair, sizeof pair, "N%zu", i);
    sprintf(text + strlen(text), "Event %zu,2024-03-%02zu,S,%zu,%zu,%s,E%zu,%d%s", i / 100,
            1 + i % 28, 1 + i % 30, i, pair, i, (int)(i % 2000) - 1000,
            i % 5 == 2 ? "\r\n" : "\n");
    if (with_blank && i % 17 == 9) strcat(text, i % 2 ? "\n" : "\r\n"), lines++;
    return lines;
}

/* A file several times the reader's buffer: every row read back with its
 * values and its line, whichever way it was parsed; an error far into the
 * file names its line. */
static void test_long_file(void **state)
{
    enum { N = 30000 };
    datum_ctx *ctx = NULL;
    io_results_reader *r = NULL;
    io_result_row row;
    char *text = calloc(N, 96);
    size_t *line = calloc(N, sizeof *line);
    assert_non_null(text);
    assert_non_null(line);
    strcpy(text, HEADER);
    for (size_t i = 0, at = 2; i < N; i++) {
        line[i] = at;
        at += (size_t)long_file_row(text, i, 1);
    }
    assert_true(strlen(text) > 4 * 256 * 1024);
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    tu_write("r.csv", text);
    assert_int_equal(io_results_open(ctx, "r.csv", &r), DATUM_OK);
    for (size_t i = 0; i < N; i++) {
        char expect[48];
        assert_int_equal(io_results_next(r, &row), 1);
        assert_int_equal(row.line, line[i]);
        snprintf(expect, sizeof expect, "Event %zu", i / 100);
        assert_string_equal(row.event, expect);
        if (i % 7 == 3) snprintf(expect, sizeof expect, "N%zu,\"q\"", i);
        else if (i % 11 == 5) snprintf(expect, sizeof expect, "N\n%zu", i);
        else if (i % 13 == 6) snprintf(expect, sizeof expect, "N\xC3\xA9%zu", i);
        else snprintf(expect, sizeof expect, "N%zu", i);
        assert_string_equal(row.ns_pair, expect);
        snprintf(expect, sizeof expect, "E%zu", i);
        assert_string_equal(row.ew_pair, expect);
        assert_string_equal(row.section, "S");
        assert_int_equal(row.date, 19783 + (int)(i % 28)); /* 2024-03-01 + i % 28 */
        assert_int_equal(row.board, 1 + (int)(i % 30));
        assert_int_equal(row.table, (int)i);
        assert_int_equal(row.ns_score, (int)(i % 2000) - 1000);
    }
    assert_int_equal(io_results_next(r, &row), 0);
    io_results_close(&r);

    /* Bad UTF-8 and a bad integer deep in the file. */
    static const char *const bad[] = {"\xC3\x28", "12a"};
    static const char *const message[] = {"column ns_pair: not valid UTF-8",
                                          "column ns_score: \"12a\" is not an integer"};
    for (int k = 0; k < 2; k++) {
        char expect[128];
        size_t bad_line = 2;
        strcpy(text, HEADER);
        for (size_t i = 0; i < 20000; i++) bad_line += (size_t)long_file_row(text, i, 0);
        sprintf(text + strlen(text), "E,2024-03-02,A,1,1,%s,P4,%s\n", k ? "P3" : bad[0],
                k ? bad[1] : "10");
        for (size_t i = 0; i < 100; i++) long_file_row(text, 20000 + i, 0);
        tu_write("r.csv", text);
        snprintf(expect, sizeof expect, "r.csv:%zu: %s", bad_line, message[k]);
        assert_failure(ctx, datum_import_csv(ctx, (const char *[]){"r.csv"}, 1, "out.h5", NULL),
                       DATUM_E_INPUT, expect);
    }
    free(text);
    free(line);
    datum_ctx_free(&ctx);
}

static void test_columns_by_name(void **state)
{
    datum_ctx *ctx = NULL;
    io_result_row rows[4];
    char names[4][4][32];
    io_results_reader *r = NULL;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    /* Any order, unknown columns anywhere, adjusted rows with or without a score. */
    size_t n =
        read_rows(ctx,
                  "note,ns_score,adjusted,ew_pair,ns_pair,table,board,section,date,event,round\n"
                  "x,+170,,W,N,3,7,S,1970-01-01,Ev,m1\n"
                  "y,,A-/A+,W2,N2,4,7,S,1969-12-31,Ev,m1\n"
                  "z,999999999999,A,W3,N3,5,7,S,0001-01-01,Ev,m1\n"
                  "w,,A+/A,W4,N4,6,7,S,1970-01-01,Ev,m1\n",
                  rows, names, 4);
    assert_int_equal(n, 4);
    assert_int_equal(rows[0].ns_score, 170);
    assert_int_equal(rows[0].date, 0);
    assert_int_equal(rows[0].table, 3);
    assert_int_equal(rows[0].board, 7);
    assert_string_equal(names[0][2], "N");
    assert_string_equal(names[0][3], "W");
    assert_int_equal(rows[1].adjusted, DATUM_ADJ_AM_AP);
    assert_int_equal(rows[1].ns_score, 0);
    assert_int_equal(rows[1].date, -1);
    assert_int_equal(rows[2].adjusted, DATUM_ADJ_A);
    assert_int_equal(rows[2].ns_score, 0); /* ignored, whatever it was */
    assert_int_equal(rows[2].date, -719162);
    assert_int_equal(rows[3].adjusted, DATUM_ADJ_AP_A); /* a mixed award */
    assert_int_equal(io_results_open(ctx, "r.csv", &r), DATUM_OK);
    assert_true(io_results_has_adjusted(r));
    io_results_close(&r);
    tu_write("h.csv", HEADER);
    assert_int_equal(io_results_open(ctx, "h.csv", &r), DATUM_OK);
    assert_false(io_results_has_adjusted(r));
    io_result_row row;
    assert_int_equal(io_results_next(r, &row), 0); /* a header alone: no row */
    io_results_close(&r);
    datum_ctx_free(&ctx);
}

/* Imports text as r.csv into out.h5 (which holds "old") and checks the
 * error message; afterwards only r.csv and the untouched out.h5 remain. */
static void expect_error(const char *text, int code, const char *message)
{
    datum_ctx *ctx = NULL;
    const char *paths[] = {"r.csv"};
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    tu_write("r.csv", text);
    tu_write("out.h5", "old");
    int rc = datum_import_csv(ctx, paths, 1, "out.h5", NULL);
    assert_failure(ctx, rc, code, message);
    assert_int_equal(tu_count_files(), 2);
    char *old = tu_read("out.h5", NULL);
    assert_string_equal(old, "old");
    free(old);
    datum_ctx_free(&ctx);
}

static void test_structure_errors(void **state)
{
    expect_error("", DATUM_E_INPUT, "r.csv: empty file (a header row is required)");
    expect_error("\n\n", DATUM_E_INPUT, "r.csv: empty file (a header row is required)");
    expect_error("event,date,section,board,table,ns_pair,ew_pair\n" ROW1, DATUM_E_INPUT,
                 "r.csv:1: column ns_score: missing from the header");
    expect_error("event,date,section,board,table,ns_pair,ew_pair,board,ns_score\n", DATUM_E_INPUT,
                 "r.csv:1: column board: appears twice in the header");
    expect_error(HEADER ROW1 "E,2024-03-02,A,1,2,P3,P4\n", DATUM_E_INPUT,
                 "r.csv:3: column ns_score: missing field (the row has 7 fields, the header 8)");
    expect_error(HEADER ROW1 "E,2024-03-02,A,1,2,P3,P4,10,x\n", DATUM_E_INPUT,
                 "r.csv:3: column 9: extra field (the row has 9 fields, the header 8)");
    expect_error(HEADER ROW1 "E,2024-03-02,\"A,1,2,P3,P4,10\n\n", DATUM_E_INPUT,
                 "r.csv:3: column section: unterminated quoted field");
    expect_error(HEADER "E,2024-03-02,\"A\"x,1,2,P3,P4,10\n", DATUM_E_INPUT,
                 "r.csv:2: column section: unexpected character after a closing quote");
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,P4,10\rE\n", DATUM_E_INPUT,
                 "r.csv:2: column ns_score: carriage return without a line feed");
    expect_error(HEADER, DATUM_E_INPUT, "no results in the input (only headers)");
}

static void test_nul_byte(void **state)
{
    static const char text[] = HEADER "E,2024-03-02,A,1,2,P\0Q,P4,10\n";
    datum_ctx *ctx = NULL;
    const char *paths[] = {"r.csv"};
    FILE *f = fopen("r.csv", "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, sizeof text - 1, f), sizeof text - 1);
    fclose(f);
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_failure(ctx, datum_import_csv(ctx, paths, 1, "out.h5", NULL), DATUM_E_INPUT,
                   "r.csv:2: column ns_pair: NUL byte (not a text file?)");
    assert_int_equal(tu_count_files(), 1);
    datum_ctx_free(&ctx);
}

static void test_value_errors(void **state)
{
    expect_error(HEADER ROW1 "E,2024-03-02,A,1,2,P3,P4,12a\n", DATUM_E_INPUT,
                 "r.csv:3: column ns_score: \"12a\" is not an integer");
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,P4,-\n", DATUM_E_INPUT,
                 "r.csv:2: column ns_score: \"-\" is not an integer");
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,P4, 10\n", DATUM_E_INPUT,
                 "r.csv:2: column ns_score: \" 10\" is not an integer");
    expect_error(
        HEADER "E,2024-03-02,A,1,2,P3,P4,99999999999\n", DATUM_E_INPUT,
        "r.csv:2: column ns_score: \"99999999999\" is out of range (not a 32-bit integer)");
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,P4,-1000001\n", DATUM_E_INPUT,
                 "r.csv:2: column ns_score: \"-1000001\" is out of range (-1000000 to 1000000)");
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,P4,\n", DATUM_E_INPUT,
                 "r.csv:2: column ns_score: empty (an integer is required)");
    expect_error(HEADER_ADJ "E,2024-03-02,A,1,2,P3,P4,,\n", DATUM_E_INPUT,
                 "r.csv:2: column ns_score: empty (an integer is required)");
    expect_error(HEADER_ADJ "E,2024-03-02,A,1,2,P3,P4,,A++\n", DATUM_E_INPUT,
                 "r.csv:2: column adjusted: \"A++\" is not an adjusted score "
                 "(A+, A, A-, or NS/EW: two of them, e.g. A+/A-)");
    expect_error(HEADER "E,2023-02-29,A,1,2,P3,P4,10\n", DATUM_E_INPUT,
                 "r.csv:2: column date: \"2023-02-29\" is not a date (YYYY-MM-DD)");
    expect_error(HEADER "E,2024-4-01,A,1,2,P3,P4,10\n", DATUM_E_INPUT,
                 "r.csv:2: column date: \"2024-4-01\" is not a date (YYYY-MM-DD)");
    expect_error(HEADER "E,2024-13-01,A,1,2,P3,P4,10\n", DATUM_E_INPUT,
                 "r.csv:2: column date: \"2024-13-01\" is not a date (YYYY-MM-DD)");
    expect_error(HEADER ROW1 "E,2024-02-31,A,1,2,P3,P4,10\n", DATUM_E_INPUT,
                 "r.csv:3: column date: \"2024-02-31\" is not a date (YYYY-MM-DD)");
    expect_error(HEADER "E,2024-04-31,A,1,2,P3,P4,10\n", DATUM_E_INPUT,
                 "r.csv:2: column date: \"2024-04-31\" is not a date (YYYY-MM-DD)");
    expect_error(HEADER "E,,A,1,2,P3,P4,10\n", DATUM_E_INPUT,
                 "r.csv:2: column date: \"\" is not a date (YYYY-MM-DD)");
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,P4,  \n", DATUM_E_INPUT,
                 "r.csv:2: column ns_score: empty (an integer is required)");
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,P4,9223372036854775808\n", DATUM_E_INPUT,
                 "r.csv:2: column ns_score: \"9223372036854775808\" is out of range (not a "
                 "32-bit integer)");
    expect_error(HEADER "E,2024-03-02,A,0,2,P3,P4,10\n", DATUM_E_INPUT,
                 "r.csv:2: column board: \"0\" is out of range (at least 1)");
    expect_error(HEADER "E,2024-03-02,A,1,-1,P3,P4,10\n", DATUM_E_INPUT,
                 "r.csv:2: column table: \"-1\" is out of range (at least 0)");
    expect_error(HEADER "E,2024-03-02,A,1,x,P3,P4,10\n", DATUM_E_INPUT,
                 "r.csv:2: column table: \"x\" is not an integer");
    expect_error(HEADER ",2024-03-02,A,1,2,P3,P4,10\n", DATUM_E_INPUT,
                 "r.csv:2: column event: empty (a name is required)");
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,,10\n", DATUM_E_INPUT,
                 "r.csv:2: column ew_pair: empty (a name is required)");
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,P3,10\n", DATUM_E_INPUT,
                 "r.csv:2: column ew_pair: \"P3\" is also the NS pair");
    expect_error(HEADER "E,2024-03-02,A,1,2,\xC3\x28,P4,10\n", DATUM_E_INPUT,
                 "r.csv:2: column ns_pair: not valid UTF-8");
    /* Long values are cut in messages. */
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,P4,1234567890123456789012345678901234567890123\n",
                 DATUM_E_INPUT,
                 "r.csv:2: column ns_score: \"1234567890123456789012345678901234567890...\" is out "
                 "of range (not a 32-bit integer)");
}

static void test_field_errors(void **state)
{
    /* The same table twice: the later line is blamed, the earlier named. */
    expect_error(HEADER ROW1 "E,2024-03-02,A,2,1,P1,P2,420\n"
                             "E,2024-03-02,A,1,1,P3,P4,10\n",
                 DATUM_E_INPUT,
                 "r.csv:4: column table: event \"E\" section \"A\" board 1 table 1 already appears "
                 "at r.csv:2");
    /* A pair at two tables of one field, on the same side or not. */
    expect_error(
        HEADER ROW1 "E,2024-03-02,A,1,2,P3,P2,10\n", DATUM_E_INPUT,
        "r.csv:3: column ew_pair: pair \"P2\" already plays event \"E\" section \"A\" board 1 "
        "at r.csv:2");
    expect_error(
        HEADER "E,2024-03-02,A,1,3,P5,P6,10\n" ROW1 "E,2024-03-02,A,1,2,P6,P4,10\n", DATUM_E_INPUT,
        "r.csv:4: column ns_pair: pair \"P6\" already plays event \"E\" section \"A\" board 1 "
        "at r.csv:2");
    /* Another section or board is another field: no clash. */
    datum_ctx *ctx = NULL;
    const char *paths[] = {"r.csv"};
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    tu_write("r.csv", HEADER ROW1 "E,2024-03-02,B,1,1,P1,P2,10\n"
                                  "E,2024-03-02,A,2,1,P1,P2,10\n");
    assert_int_equal(datum_import_csv(ctx, paths, 1, "ok.h5", NULL), DATUM_OK);
    assert_true(tu_exists("ok.h5"));
    datum_ctx_free(&ctx);
}

static void count_warning(void *user, const char *message)
{
    char *last = user;
    snprintf(last, 160, "%s", message);
}

/* A row with one pair and no opponent, no score and no adjusted code is a
 * sit-out: skipped and counted; one that has a result, or no pair at all, or
 * a bad cell elsewhere, is refused. */
static void test_sitouts(void **state)
{
    (void)state;
    datum_ctx *ctx = NULL;
    io_result_row rows[4];
    char names[4][4][32];
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    const char *text = HEADER_ADJ "E,2024-03-02,A,1,1,P1,P2,420,\n"
                                  "E,2024-03-02,A,1,2,P3,,,\n"
                                  "E,2024-03-02,A,1,3,,P4,,\n"
                                  "E,2024-03-02,A,1,4,P5,P6,,A/A\n";
    size_t n = read_rows(ctx, text, rows, names, 4);
    assert_int_equal(n, 2);
    assert_int_equal(rows[1].line, 5);
    assert_string_equal(names[1][2], "P5");
    io_results_reader *r = NULL;
    io_result_row row;
    assert_int_equal(io_results_open(ctx, "r.csv", &r), DATUM_OK);
    const uint64_t *sitouts = io_results_sitouts(r);
    assert_int_equal(*sitouts, 0);
    assert_int_equal(io_results_next(r, &row), 1);
    assert_int_equal(io_results_next(r, &row), 1); /* the two sit-outs passed over */
    assert_int_equal(*sitouts, 2);
    assert_int_equal(io_results_next(r, &row), 0);
    io_results_close(&r);

    /* Through the import: one warning with the count, DATUM_OK, and the
     * pairs that only sat out are not in the archive. */
    char last[160] = "";
    datum_ctx_set_warning(ctx, count_warning, last);
    const char *paths[] = {"r.csv"};
    assert_int_equal(datum_import_csv(ctx, paths, 1, "s.h5", NULL), DATUM_OK);
    assert_int_equal(datum_ctx_warnings(ctx), 1);
    assert_string_equal(last, "skipped 2 sit-out rows (a pair without an opponent and without a "
                              "result: not scored)");
    datum_archive *a;
    assert_int_equal(datum_archive_open(ctx, "s.h5", &a), DATUM_OK);
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_results, 2);
    assert_int_equal(info.n_pairs, 4); /* P1, P2, P5, P6 */
    datum_archive_close(&a);
    /* No sit-out, no warning. */
    tu_write("r.csv", HEADER ROW1);
    assert_int_equal(datum_import_csv(ctx, paths, 1, "t.h5", NULL), DATUM_OK);
    assert_int_equal(datum_ctx_warnings(ctx), 1);
    datum_ctx_free(&ctx);
    remove("s.h5");
    remove("t.h5");

    /* Not sit-outs: a result (a score, even blank, or an adjusted code)
     * without an opponent, no pair at all, a bad cell of a sit-out row. */
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,,10\n", DATUM_E_INPUT,
                 "r.csv:2: column ew_pair: empty (a name is required)");
    expect_error(HEADER "E,2024-03-02,A,1,2,,P3, \n", DATUM_E_INPUT,
                 "r.csv:2: column ns_pair: empty (a name is required)");
    expect_error(HEADER_ADJ "E,2024-03-02,A,1,2,P3,,,A+\n", DATUM_E_INPUT,
                 "r.csv:2: column ew_pair: empty (a name is required)");
    expect_error(HEADER "E,2024-03-02,A,1,2,,,\n", DATUM_E_INPUT,
                 "r.csv:2: column ns_pair: empty (a name is required)");
    expect_error(HEADER "E,2024-03-02,A,0,2,P3,,\n", DATUM_E_INPUT,
                 "r.csv:2: column board: \"0\" is out of range (at least 1)");
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,\n", DATUM_E_INPUT,
                 "r.csv:2: column ns_score: missing field (the row has 7 fields, the header 8)");
    expect_error(HEADER "E,2024-03-02,A,1,2,P3,,\n", DATUM_E_INPUT,
                 "no results in the input (only headers and sit-out rows)");
    expect_error("event,date,section,board,table,ns_pair,ew_pair,ns_score,ns_team,ew_team,match\n"
                 "E,2024-03-02,A,1,2,P3,,,T1,\xC3\x28,\n",
                 DATUM_E_INPUT, "r.csv:2: column ew_team: not valid UTF-8");
}

static void test_errors_across_files(void **state)
{
    datum_ctx *ctx = NULL;
    const char *paths[] = {"a.csv", "b.csv"};
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    tu_write("a.csv", HEADER "E,2024-03-02,A,1,1,P1,P2,420\n");
    tu_write("b.csv", HEADER "E,2024-03-02,A,2,1,P1,P2,420\n"
                             "E,2024-03-02,A,1,1,P3,P4,420\n");
    assert_failure(
        ctx, datum_import_csv(ctx, paths, 2, "out.h5", NULL), DATUM_E_INPUT,
        "b.csv:3: column table: event \"E\" section \"A\" board 1 table 1 already appears "
        "at a.csv:2");
    assert_int_equal(tu_count_files(), 2);
    assert_failure(ctx,
                   datum_import_csv(ctx, (const char *[]){"a.csv", "none.csv"}, 2, "out.h5", NULL),
                   DATUM_E_IO, "cannot open none.csv: No such file or directory");
    assert_failure(ctx, datum_import_csv(ctx, paths, 1, "nodir/out.h5", NULL), DATUM_E_IO,
                   "cannot create nodir/out.h5: No such file or directory");
    assert_failure(ctx, datum_import_csv(ctx, paths, 0, "out.h5", NULL), DATUM_E_ARG,
                   "no input file");
    datum_write_options bad = DATUM_WRITE_OPTIONS_INIT;
    bad.deflate_level = 10;
    assert_failure(ctx, datum_import_csv(ctx, paths, 1, "out.h5", &bad), DATUM_E_ARG,
                   "deflate level must be 1..9, not 10");
    assert_int_equal(tu_count_files(), 2);
    datum_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_temp_dir_test(test_rfc4180),
        tu_temp_dir_test(test_long_file),
        tu_temp_dir_test(test_columns_by_name),
        tu_temp_dir_test(test_structure_errors),
        tu_temp_dir_test(test_nul_byte),
        tu_temp_dir_test(test_value_errors),
        tu_temp_dir_test(test_field_errors),
        tu_temp_dir_test(test_sitouts),
        tu_temp_dir_test(test_errors_across_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
