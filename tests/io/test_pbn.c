/* test_pbn.c - the PBN reader through the library API (datum_import_pbn):
 * the warning callback and count, DATUM_W_SCORE, --strict as an error, the
 * FILE:LINE messages of malformed files, ISO-8859-1 names, sit-out rows
 * skipped and counted, the published figures (IMP_NS, MP_NS, Percentage_NS
 * and their EW twins) in the archive, and every allocation refused in turn
 * (alloc_loop.h). The CLI and the real files: tests/e2e/test_pbn.py. */
#include "alloc_loop.h"
#include "io_test_util.h"
#include "datum_io.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


#define PBN                                                                                        \
    "% PBN 2.1\n"                                                                                  \
    "[Event \"Club\"]\n"                                                                           \
    "[Board \"1\"]\n"                                                                              \
    "[ScoreTable \"PairId_NS\\\\2R;PairId_EW\\\\2R;Contract\\\\5L;Declarer\\\\1R;Result\\\\2R;"   \
    "Score_NS\\\\6R\"]\n"                                                                          \
    " 1  2 4S    N 10    420\n"                                                                    \
    " 3  4 4S    N 10    430\n"                                                                    \
    " 5  6 4S    N  9      ?\n"                                                                    \
    " 7  8 4S    N  9     30\n"

typedef struct {
    int n;
    char first[256];
} seen;

static void on_warning(void *user, const char *message)
{
    seen *s = user;
    if (s->n++ == 0) snprintf(s->first, sizeof s->first, "%s", message);
}

static void test_warnings(void **state)
{
    (void)state;
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    tu_write("a.pbn", PBN);
    const char *paths[] = {"a.pbn"};
    seen s = {0, ""};
    datum_pbn_options po = DATUM_PBN_OPTIONS_INIT;
    datum_ctx_set_warning(ctx, on_warning, &s);
    assert_int_equal(datum_import_pbn(ctx, paths, 1, "a.h5", &po, NULL), DATUM_W_SCORE);
    assert_int_equal(s.n, 2);
    assert_int_equal(datum_ctx_warnings(ctx), 2);
    assert_int_equal(po.n_computed, 1);
    assert_string_equal(s.first, "a.pbn:6: board 1: NS score 430, but 4S by N taking 10 tricks "
                                 "scores 420 (vulnerable: None)");
    assert_true(tu_exists("a.h5"));
    datum_archive *a;
    assert_int_equal(datum_archive_open(ctx, "a.h5", &a), DATUM_OK);
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_results, 4);
    assert_int_equal(info.n_pairs, 8);
    datum_archive_close(&a);

    /* NULL options: the same. Without a callback, warnings are only counted;
     * the count runs on over the imports of one context. */
    datum_ctx_set_warning(ctx, NULL, NULL);
    assert_int_equal(datum_import_pbn(ctx, paths, 1, "b.h5", NULL, NULL), DATUM_W_SCORE);
    assert_int_equal(s.n, 2);
    assert_int_equal(datum_ctx_warnings(ctx), 4);

    po.strict = 1;
    int rc = datum_import_pbn(ctx, paths, 1, "c.h5", &po, NULL);
    assert_failure(ctx, rc, DATUM_E_INPUT,
                   "a.pbn:6: board 1: NS score 430, but 4S by N taking 10 tricks scores 420 "
                   "(vulnerable: None)");
    assert_false(tu_exists("c.h5"));
    tu_write("d.pbn", "[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n1 2 30\n");
    paths[0] = "d.pbn";
    rc = datum_import_pbn(ctx, paths, 1, "d.h5", &po, NULL);
    assert_failure(ctx, rc, DATUM_E_INPUT,
                   "d.pbn:3: board 1: NS score 30 is impossible (vulnerable: None)");
    datum_ctx_free(&ctx);
}

static void test_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"[Event \"x]\n", "e.pbn:1: malformed tag: unterminated value"},
        {"[Event \"x\"\n", "e.pbn:1: malformed tag: no ']' after the value"},
        {"[Event \"x\n", "e.pbn:1: malformed tag: unterminated value"},
        {"[Event x]\n", "e.pbn:1: malformed tag [Event: no quoted value"},
        {"[Event \"x\"] junk\n", "e.pbn:1: unexpected text after a tag"},
        {"junk\n", "e.pbn:1: text outside any tag or section: \"junk\""},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n1 \"2 420\n",
         "e.pbn:3: unterminated quoted cell"},
        {"[Board \"x\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n1 2 420\n",
         "e.pbn:2: a result in a game without a valid [Board] tag"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n1 2 4x0\n",
         "e.pbn:3: Score_NS: \"4x0\" is not a score"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n1 1 420\n",
         "e.pbn:3: pair 1 plays both NS and EW"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n? 1 420\n",
         "e.pbn:3: pair number missing (\"-\" or \"?\")"},
        /* Not sit-outs: a pair without an opponent but with a result (a
         * score, a contract, a passed-out board), an unknown pair, no pair at
         * all; and a sit-out row is still read: a bad table is an error. */
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n7 - 420\n",
         "e.pbn:3: pair number missing (\"-\" or \"?\")"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS;Score_EW\"]\n- 7 - 50\n",
         "e.pbn:3: pair number missing (\"-\" or \"?\")"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Contract;Declarer;Result\"]\n"
         "7 - Pass - -\n",
         "e.pbn:3: pair number missing (\"-\" or \"?\")"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n? - -\n",
         "e.pbn:3: pair number missing (\"-\" or \"?\")"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n- - -\n",
         "e.pbn:3: pair number missing (\"-\" or \"?\")"},
        {"[Board \"1\"]\n[ScoreTable \"Table;PairId_NS;PairId_EW;Score_NS\"]\nx 7 - -\n",
         "e.pbn:3: column Table: \"x\" is not a table number"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n7 - - 1\n",
         "e.pbn:3: 4 cells in a row of the 3-column [ScoreTable]"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n7 - -\n",
         "e.pbn: no results ([ScoreTable] rows or games with a [Contract]) but sit-outs"},
        /* Published figures: numbers, or -, ? or an empty cell. */
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS;IMP_NS\"]\n1 2 420 3,5\n",
         "e.pbn:3: column IMP_NS: \"3,5\" is not a number"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS;MP_EW\"]\n1 2 420 x\n",
         "e.pbn:3: column MP_EW: \"x\" is not a number"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS;Percentage_NS\"]\n"
         "1 2 420 50%\n",
         "e.pbn:3: column Percentage_NS: \"50%\" is not a number"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Table;Score_NS\"]\n1 2 x 420\n",
         "e.pbn:3: column Table: \"x\" is not a table number"},
        {"[Board \"1\"]\n[Date \"2024.13.01\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n"
         "1 2 420\n",
         "e.pbn:2: [Date \"2024.13.01\"] is not a date (YYYY.MM.DD)"},
        /* Day 31 of a 30-day month or of February: refused, not rolled over. */
        {"[Board \"1\"]\n[Date \"2024.02.31\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n"
         "1 2 420\n",
         "e.pbn:2: [Date \"2024.02.31\"] is not a date (YYYY.MM.DD)"},
        {"[Date \"2023-02-29 18:36\"]\n[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n"
         "1 2 420\n",
         "e.pbn:1: [Date \"2023-02-29 18:36\"] is not a date (YYYY.MM.DD)"},
        {"[Board \"1\"]\n[Date \"2024.04.31\"]\n[Contract \"4S\"]\n[Declarer \"N\"]\n"
         "[Result \"10\"]\n[North \"a\"]\n[South \"b\"]\n[East \"c\"]\n[West \"d\"]\n",
         "e.pbn:2: [Date \"2024.04.31\"] is not a date (YYYY.MM.DD)"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Contract\"]\n1 2 4S\n",
         "e.pbn:2: [ScoreTable]: neither Score_NS/Score_EW nor Contract, Declarer and Result "
         "columns"},
        {"[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n[ScoreTable \"x\"]\n",
         "e.pbn:3: a second [ScoreTable] in one game"},
        {"% nothing\n[Event \"x\"]\n",
         "e.pbn: no results ([ScoreTable] rows or games with a [Contract])"},
        {"", "e.pbn: no results ([ScoreTable] rows or games with a [Contract])"},
        {"[Board \"1\"]\n[Contract \"4S\"]\n[Declarer \"N\"]\n[Result \"10\"]\n",
         "e.pbn:2: a result in a game without the four players' tags"},
    };
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    const char *paths[] = {"e.pbn"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tu_write("e.pbn", cases[i].text);
        int rc = datum_import_pbn(ctx, paths, 1, "e.h5", NULL, NULL);
        assert_failure(ctx, rc, DATUM_E_INPUT, cases[i].message);
        assert_int_equal(tu_count_files(), 1);
    }
    datum_ctx_free(&ctx);
}

static void test_latin1_and_tags(void **state)
{
    (void)state;
    /* "Café" in ISO-8859-1; CRLF lines; a multi-line { comment }; "#" tags;
     * an escaped quote; the table column and the Section column. */
    tu_write("l.pbn", "[Event \"Caf\xe9 \\\"Club\\\"\"]\r\n[Board \"17\"]\r\n{ line one\r\n"
                      "line two }\r\n[ScoreTable \"Section;Table;PairId_NS;PairId_EW;Score_EW\"]\r\n"
                      "A 3 1 2 -420\r\nB 3 1 2 50\r\n\r\n[Event \"#\"]\r\n[Board \"18\"]\r\n"
                      "[Vulnerable \"All\"]\r\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\r\n"
                      "1 2 -\r\n");
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    const char *paths[] = {"l.pbn"};
    int rc = datum_import_pbn(ctx, paths, 1, "l.h5", NULL, NULL);
    /* The "-" score of board 18 has no contract to compute from. */
    assert_failure(ctx, rc, DATUM_E_INPUT,
                   "l.pbn:13: no score: neither a score nor a contract with its result");
    char *text = tu_read("l.pbn", NULL);
    text[strlen(text) - 3] = '\0'; /* drop "-\r\n" */
    char fixed[1024];
    snprintf(fixed, sizeof fixed, "%s-100\r\n", text);
    free(text);
    tu_write("l.pbn", fixed);
    datum_pbn_options po = DATUM_PBN_OPTIONS_INIT;
    rc = datum_import_pbn(ctx, paths, 1, "l.h5", &po, NULL);
    if (rc != DATUM_OK) fail_msg("%s", datum_ctx_message(ctx));
    datum_archive *a;
    assert_int_equal(datum_archive_open(ctx, "l.h5", &a), DATUM_OK);
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_results, 3);
    assert_int_equal(info.n_fields, 3); /* sections A and B of board 17, board 18 */
    assert_int_equal(info.n_pairs, 6);  /* pair 1 of section A is not pair 1 of B */
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
}

/* A fresh context in *ctx, its warnings counted in w, and the import of the
 * PBN file path into out with po: the import's return code. */
static int import_watched(datum_ctx **ctx, const char *path, const char *out,
                          datum_pbn_options *po, seen *w)
{
    const char *paths[] = {path};
    assert_int_equal(datum_ctx_create(ctx), DATUM_OK);
    datum_ctx_set_warning(*ctx, on_warning, w);
    int rc = datum_import_pbn(*ctx, paths, 1, out, po, NULL);
    if (rc < 0) fail_msg("%d %s %s", rc, datum_ctx_message(*ctx), w->first);
    return rc;
}

/* One game per table result (PbnTools' form): players' tags, [Contract],
 * [Declarer], [Result], an optional [Score "NS 420"]. */
static void test_single_games(void **state)
{
    (void)state;
    tu_write("s.pbn", "[Event \"E\"]\n[Date \"2013-08-24 18:36\"]\n[Board \"2\"]\n"
                      "[North \"Para-1\"]\n[South \"Para-1\"]\n[East \"Para-2\"]\n"
                      "[West \"Para-2\"]\n[Declarer \"E\"]\n[Contract \"4H\"]\n[Result \"=\"]\n"
                      "[Auction \"E\"]\n1H Pass 4H AP\n\n"
                      "[Event \"E\"]\n[Board \"2\"]\n[North \"a\"]\n[South \"b\"]\n"
                      "[East \"c\"]\n[West \"d\"]\n[Declarer \"S\"]\n[Contract \"3NTX\"]\n"
                      "[Result \"-1\"]\n[Score \"NS -200\"]\n\n"
                      "[Event \"E\"]\n[Board \"2\"]\n[Contract \"?\"]\n");
    datum_ctx *ctx;
    seen w = {0, ""};
    datum_pbn_options po = DATUM_PBN_OPTIONS_INIT;
    /* Board 2: NS vulnerable; 3NTX-1 vulnerable is -200, 4H= by EW -420. */
    assert_int_equal(import_watched(&ctx, "s.pbn", "s.h5", &po, &w), DATUM_OK);
    assert_int_equal(po.n_computed, 1);
    datum_archive *a;
    assert_int_equal(datum_archive_open(ctx, "s.h5", &a), DATUM_OK);
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_results, 2);
    assert_int_equal(info.n_fields, 1);
    assert_int_equal(info.n_pairs, 4); /* E/Para-1, E/Para-2, E/a & b, E/c & d */
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
}

/* Sit-out rows (a pair against "-", no result: a bye, an award against a
 * phantom) are skipped and counted in one warning; the table's published
 * figures reach the archive: matchpoints and percentages in board 1, Butler
 * IMPs in board 2 ([Scoring] names them), imps without [Scoring] in board 3,
 * nothing in board 4. */
#define SITOUTS                                                                                    \
    "[Event \"Club\"]\n[Board \"1\"]\n[Vulnerable \"None\"]\n[Scoring \"MatchPoints;MP1\"]\n"      \
    "[ScoreTable \"Table\\\\2R;PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS;IMP_NS;"      \
    "MP_NS;MP_EW;Percentage_NS;Percentage_EW\"]\n"                                                 \
    " 1  1  2 4S  N 10 \"420\" 9 4.0 0.0 100   0\n"                                                \
    " 2  3  4 4S  N  9     - 9 0.5 3.5 12.5 87.5\n"                                                \
    " 3  7  -  -  -  -     - - -   -    -    -\n"                                                  \
    " 4  5  6 3NT S  9   400 9 2   2   \"\"   50\n"                                                \
    " -  -  8  -  -  -     - - -   -    -    -\n"                                                  \
    " 6  9  - A+  -  -     - - -   -    -    -\n"                                                  \
    "\n[Board \"2\"]\n[Vulnerable \"None\"]\n[Scoring \"IMP;Butler\"]\n"                           \
    "[ScoreTable \"PairId_NS;PairId_EW;Score_NS;IMP_NS;IMP_EW\"]\n"                                \
    "1 2 420 5 -5\n- 7 - - -\n3 4 170 -2.5 ?\n"                                                    \
    "\n[Board \"3\"]\n[Vulnerable \"None\"]\n[Scoring \"\"]\n"                                     \
    "[ScoreTable \"PairId_NS;PairId_EW;Score_NS;IMP_NS\"]\n1 2 420 1\n"                            \
    "\n[Board \"4\"]\n[Vulnerable \"None\"]\n"                                                     \
    "[ScoreTable \"PairId_NS;PairId_EW;Score_NS;IMP_NS\"]\n1 2 420 -\n"

static void test_sitouts_and_published(void **state)
{
    (void)state;
    tu_write("p.pbn", SITOUTS);
    datum_ctx *ctx;
    seen w = {0, ""};
    datum_pbn_options po = DATUM_PBN_OPTIONS_INIT;
    /* The sit-outs' warning is no suspect score: DATUM_OK, not DATUM_W_SCORE. */
    assert_int_equal(import_watched(&ctx, "p.pbn", "p.h5", &po, &w), DATUM_OK);
    assert_int_equal(w.n, 1);
    assert_string_equal(w.first, "skipped 4 sit-out rows (a pair without an opponent and without "
                                 "a result: not scored)");
    assert_int_equal(po.n_computed, 1); /* 4S-1 by N: -50 */
    datum_archive *a;
    assert_int_equal(datum_archive_open(ctx, "p.h5", &a), DATUM_OK);
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_results, 7);
    assert_int_equal(info.n_fields, 4);
    assert_int_equal(info.n_pairs, 6); /* 7, 8 and 9 only sat out */
    assert_int_equal(info.has_published, 1);
    assert_int_equal(info.has_published_percent, 1);
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_int_equal(c.n_rows, 7);
    static const int32_t table[7] = {1, 2, 4, 1, 3, 1, 1}, score[7] = {420, -50, 400, 420,
                                                                      170, 420, 420};
    static const double ns[7] = {4, 0.5, 2, 5, -2.5, 1, NAN}, ew[7] = {0, 3.5, 2, -5, NAN, NAN,
                                                                       NAN};
    static const double ns_pct[7] = {100, 12.5, NAN, NAN, NAN, NAN, NAN},
                        ew_pct[7] = {0, 87.5, 50, NAN, NAN, NAN, NAN};
    static const uint8_t method[7] = {DATUM_PUBLISHED_MATCHPOINTS, DATUM_PUBLISHED_MATCHPOINTS,
                                      DATUM_PUBLISHED_MATCHPOINTS, DATUM_PUBLISHED_BUTLER,
                                      DATUM_PUBLISHED_BUTLER,      DATUM_PUBLISHED_IMPS,
                                      DATUM_PUBLISHED_NONE};
#define SAME_REAL(x, y) ((isnan(x) && isnan(y)) || (x) == (y))
    for (int i = 0; i < 7; i++) {
        assert_int_equal(c.table[i], table[i]);
        assert_int_equal(c.ns_score[i], score[i]);
        assert_true(SAME_REAL(c.published_ns[i], ns[i]));
        assert_true(SAME_REAL(c.published_ew[i], ew[i]));
        assert_true(SAME_REAL(c.published_ns_percent[i], ns_pct[i]));
        assert_true(SAME_REAL(c.published_ew_percent[i], ew_pct[i]));
        assert_int_equal(c.published_method[i], method[i]);
    }
#undef SAME_REAL
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);

    /* Without any figure and without sit-outs: neither the columns nor a
     * warning. */
    tu_write("q.pbn", "[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS;IMP_NS;"
                      "Percentage_EW\"]\n1 2 420 - ?\n");
    const char *paths[] = {"q.pbn"};
    assert_int_equal(datum_import_pbn(ctx, paths, 1, "q.h5", NULL, NULL), DATUM_OK);
    assert_int_equal(w.n, 1);
    assert_int_equal(datum_archive_open(ctx, "q.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.has_published, 0);
    assert_int_equal(info.has_published_percent, 0);
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
}

/* The first and last day of the archive imported from one PBN text. */
static void pbn_days(datum_ctx *ctx, const char *text, int32_t *first, int32_t *last)
{
    const char *paths[] = {"d.pbn"};
    tu_write("d.pbn", text);
    int rc = datum_import_pbn(ctx, paths, 1, "d.h5", NULL, NULL);
    if (rc != DATUM_OK) fail_msg("%d %s", rc, datum_ctx_message(ctx));
    datum_archive *a;
    assert_int_equal(datum_archive_open(ctx, "d.h5", &a), DATUM_OK);
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    *first = info.first_date;
    *last = info.last_date;
    datum_archive_close(&a);
}

/* [Date] spellings read today: YYYY.MM.DD, one-digit month and day, '-' and
 * a time (BBO), '?' parts (unknown: day 0). Day counts from Python's
 * datetime: 2024-02-29 is day 19782 since 1970-01-01. */
static void test_dates(void **state)
{
    (void)state;
    datum_ctx *ctx;
    int32_t first, last;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    pbn_days(ctx,
             "[Date \"2024.02.29\"]\n[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n"
             "1 2 420\n\n[Date \"2024-3-1 18:36\"]\n[Board \"3\"]\n"
             "[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n1 2 420\n",
             &first, &last);
    assert_int_equal(first, 19782);
    assert_int_equal(last, 19783);
    pbn_days(ctx,
             "[Date \"2012.??.??\"]\n[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n"
             "1 2 420\n",
             &first, &last);
    assert_int_equal(first, 0);
    assert_int_equal(last, 0);
    datum_ctx_free(&ctx);
}

static int alloc_scenario(datum_ctx *ctx, void *user)
{
    (void)user;
    const char *paths[] = {"m.pbn"};
    return datum_import_pbn(ctx, paths, 1, "m.h5", NULL, NULL);
}

static void test_alloc_failure(void **state)
{
    (void)state;
    tu_write("m.pbn", "[Event \"E\"]\n[Section \"A\"]\n[Board \"1\"]\n"
                      "[ScoreTable \"PairId_NS;PairId_EW;Contract;Declarer;Result\"]\n"
                      "1 2 4S N 10\n3 4 A - -\n\n[Board \"2\"]\n"
                      "[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n1 4 -110\n3 2 140\n");
    alloc_loop_run(alloc_scenario, NULL, 1, ".");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_temp_dir_test(test_warnings),
        tu_temp_dir_test(test_malformed),
        tu_temp_dir_test(test_latin1_and_tags),
        tu_temp_dir_test(test_single_games),
        tu_temp_dir_test(test_sitouts_and_published),
        tu_temp_dir_test(test_dates),
        tu_temp_dir_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
