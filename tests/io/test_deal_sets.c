/* test_deal_sets.c - which sections of an event share a deal (the optional
 * /fields/deal_set, docs/archive-format.md) and chunks of whole events:
 * the writer writes it exactly when planned and enforces its range, the
 * reader hands it on (and reports archives without it); the PBN import
 * groups the sections by [Deal] (the same deal written from another seat
 * included, a field with two deals refused), the USEBIO import by SESSION
 * (unless it holds several HANDSETs), the CSV import records none; the
 * chunk reader's whole events, for every chunk size; every allocation of
 * the PBN import with deals refused in turn. */
#include "alloc_loop.h"
#include "io_test_util.h"
#include "datum_io.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Writing and reading /fields/deal_set                                     */

static const char *const kEvents[] = {"E0", "E1", "E2", "E3"};
static const char *const kSections[] = {"A", "B", "C"};
static const char *const kPairs[] = {"P0", "P1", "P2", "P3", "P4", "P5", "P6", "P7"};

/* Up to 16 fields of one table each. */
typedef struct {
    uint64_t offset[17];
    uint32_t event[16], section[16], deal_set[16];
    int32_t board[16], table[16], ns[16], ew[16], score[16], date[16];
    datum_chunk c;
} fields_buf;

static void fields_init(fields_buf *b, int with_deal_sets)
{
    memset(b, 0, sizeof *b);
    b->c = (datum_chunk){.offset = b->offset, .field_event = b->event,
                         .field_section = b->section, .field_board = b->board,
                         .table = b->table, .ns_pair = b->ns, .ew_pair = b->ew,
                         .ns_score = b->score, .date = b->date,
                         .field_deal_set = with_deal_sets ? b->deal_set : NULL};
}

static void add_one(fields_buf *b, uint32_t event, uint32_t section, int32_t board, uint32_t deal_set)
{
    uint64_t f = b->c.n_fields++, r = b->c.n_rows++;
    b->event[f] = event, b->section[f] = section, b->board[f] = board, b->deal_set[f] = deal_set;
    b->table[r] = 1, b->ns[r] = 0, b->ew[r] = 1, b->score[r] = 10 * (int32_t)f, b->date[r] = 19000;
    b->offset[f + 1] = b->c.n_rows;
}

static datum_archive_writer *writer(datum_ctx *ctx, const char *path, int has_deal_sets)
{
    datum_archive_plan plan = DATUM_ARCHIVE_PLAN_INIT;
    plan.has_deal_sets = has_deal_sets;
    datum_archive_writer *w = NULL;
    assert_int_equal(datum_archive_writer_create(ctx, path, &plan, NULL, &w), DATUM_OK);
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_EVENTS, kEvents, 4), DATUM_OK);
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_SECTIONS, kSections, 3), DATUM_OK);
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_PAIRS, kPairs, 8), DATUM_OK);
    return w;
}

/* The deal sets of an archive's fields into out (n_fields of them), or -1s
 * when it has none; returns has_deal_sets. */
static int read_deal_sets(datum_ctx *ctx, const char *path, int64_t *out, uint64_t n_fields)
{
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_archive_info info;
    assert_int_equal(datum_archive_open(ctx, path, &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_fields, n_fields);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_NS_SCORE, 3, &r), DATUM_OK);
    for (datum_chunk c;;) {
        assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
        if (c.n_fields == 0) break;
        assert_int_equal(c.field_deal_set != NULL, info.has_deal_sets);
        for (uint64_t f = 0; f < c.n_fields; f++)
            out[c.first_field + f] = c.field_deal_set ? (int64_t)c.field_deal_set[f] : -1;
    }
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    return info.has_deal_sets;
}

static void test_write_read(void **state)
{
    (void)state;
    datum_ctx *ctx = tu_ctx;
    fields_buf b;
    int64_t got[4];
    fields_init(&b, 1);
    add_one(&b, 0, 0, 1, 0);
    add_one(&b, 0, 1, 1, 0);
    add_one(&b, 0, 1, 2, 1);
    add_one(&b, 0, 2, 1, 2);
    datum_archive_writer *w = writer(ctx, "d.h5", 1);
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    assert_int_equal(datum_archive_writer_commit(&w), DATUM_OK);
    assert_int_equal(read_deal_sets(ctx, "d.h5", got, 4), 1);
    assert_int_equal(got[0], 0);
    assert_int_equal(got[1], 0);
    assert_int_equal(got[2], 1);
    assert_int_equal(got[3], 2);

    /* Planned but missing, given but not planned, out of the dictionary:
     * refused, the writer still usable. */
    w = writer(ctx, "e.h5", 1);
    b.c.field_deal_set = NULL;
    int rc = datum_archive_writer_append(w, &b.c);
    assert_failure(ctx, rc, DATUM_E_ARG,
                   "cannot write e.h5: a chunk lacks field_deal_set, which the plan declared");
    b.c.field_deal_set = b.deal_set;
    b.deal_set[3] = 3;
    rc = datum_archive_writer_append(w, &b.c);
    assert_failure(ctx, rc, DATUM_E_ARG,
                   "cannot write e.h5: fields/deal_set[3] = 3 is out of range (0 to 2)");
    b.deal_set[3] = 2;
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    datum_archive_writer_abort(&w);
    w = writer(ctx, "f.h5", 0);
    rc = datum_archive_writer_append(w, &b.c);
    assert_failure(ctx, rc, DATUM_E_ARG,
                   "cannot write f.h5: a chunk has a column that the plan did not declare");
    /* An archive without deal sets (as before they came): none read. */
    b.c.field_deal_set = NULL;
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    assert_int_equal(datum_archive_writer_commit(&w), DATUM_OK);
    assert_int_equal(read_deal_sets(ctx, "f.h5", got, 4), 0);
    assert_int_equal(got[0], -1);
}

/* ------------------------------------------------------------------------ */
/* Chunks of whole events                                                   */

static void test_whole_events(void **state)
{
    (void)state;
    datum_ctx *ctx = tu_ctx;
    /* Events of 1, 4, 2 and 5 one-row fields. */
    static const int kFields[4] = {1, 4, 2, 5};
    fields_buf b;
    fields_init(&b, 0);
    for (uint32_t e = 0; e < 4; e++)
        for (int k = 0; k < kFields[e]; k++) add_one(&b, e, 0, k + 1, 0);
    datum_archive_writer *w = writer(ctx, "w.h5", 0);
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    assert_int_equal(datum_archive_writer_commit(&w), DATUM_OK);
    datum_archive *a = NULL;
    assert_int_equal(datum_archive_open(ctx, "w.h5", &a), DATUM_OK);
    for (size_t max_rows = 1; max_rows <= 13; max_rows++) {
        datum_chunk_reader *r = NULL;
        assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_NS_SCORE, max_rows, &r),
                         DATUM_OK);
        assert_int_equal(datum_chunk_reader_set_whole_events(r, 1), DATUM_OK);
        uint64_t next = 0;
        for (datum_chunk c;;) {
            assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
            if (c.n_fields == 0) break;
            assert_int_equal(c.first_field, next);
            assert_int_equal(c.first_row, next); /* one row per field */
            /* Whole events: it starts and ends at an event's bounds. */
            uint32_t first = b.event[next], last = b.event[next + c.n_fields - 1];
            assert_true(next == 0 || b.event[next - 1] != first);
            assert_true(next + c.n_fields == b.c.n_fields || b.event[next + c.n_fields] != last);
            /* At most max_rows rows, unless it is one event too large. */
            assert_true(c.n_rows <= max_rows || first == last);
            /* As many events as fit: the next one would not. */
            if (next + c.n_fields < b.c.n_fields && c.n_rows <= max_rows)
                assert_true(c.n_rows + (uint64_t)kFields[b.event[next + c.n_fields]] > max_rows);
            for (uint64_t f = 0; f < c.n_fields; f++) {
                assert_int_equal(c.field_event[f], b.event[next + f]);
                assert_int_equal(c.offset[f + 1] - c.offset[f], 1);
                assert_int_equal(c.ns_score[f], b.score[next + f]);
            }
            next += c.n_fields;
        }
        assert_int_equal(next, b.c.n_fields);
        datum_chunk_reader_free(&r);
    }
    datum_archive_close(&a);
}

/* ------------------------------------------------------------------------ */
/* Imports                                                                   */

/* A game of board `board` in section `section` with deal `deal` (NULL: no
 * [Deal] tag) and two tables. */
static void pbn_game(FILE *f, const char *section, int board, const char *deal, int first_pair)
{
    fprintf(f, "[Event \"Cup\"]\n[Section \"%s\"]\n[Board \"%d\"]\n", section, board);
    if (deal) fprintf(f, "[Deal \"%s\"]\n", deal);
    fprintf(f, "[ScoreTable \"PairId_NS;PairId_EW;Score_NS\"]\n%d %d 100\n%d %d 200\n\n",
            first_pair, first_pair + 1, first_pair + 2, first_pair + 3);
}

static const char kDeal1[] = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765";
/* kDeal1 written from East's seat, in small letters. */
static const char kDeal1East[] =
    "e:t98.765.432.akqj 765.432.akqj.t98 432.akqj.t98.765 akqj.t98.765.432";
static const char kDeal2[] = "N:AKQJ.T98.765.432 765.432.AKQJ.T98 T98.765.432.AKQJ 432.AKQJ.T98.765";

static int import_pbn(datum_ctx *ctx, void *user)
{
    const char *paths[] = {user};
    return datum_import_pbn(ctx, paths, 1, "p.h5", NULL, NULL);
}

static void test_pbn(void **state)
{
    (void)state;
    datum_ctx *ctx = tu_ctx;
    FILE *f = fopen("a.pbn", "w");
    /* Board 1: one deal in A, B (from East) and C. Board 2: A and C one deal,
     * B another. Board 3: no [Deal] in A and B (one unknown deal), C known. */
    pbn_game(f, "A", 1, kDeal1, 1);
    pbn_game(f, "B", 1, kDeal1East, 11);
    pbn_game(f, "C", 1, kDeal1, 21);
    pbn_game(f, "B", 2, kDeal1, 11);
    pbn_game(f, "C", 2, kDeal2, 21);
    pbn_game(f, "A", 2, kDeal2, 1);
    pbn_game(f, "A", 3, NULL, 1);
    pbn_game(f, "B", 3, NULL, 11);
    pbn_game(f, "C", 3, kDeal1, 21);
    fclose(f);
    assert_int_equal(import_pbn(ctx, "a.pbn"), DATUM_OK);
    /* Fields in archive order: A1 A2 A3 B1 B2 B3 C1 C2 C3; deal sets are the
     * first section (0 A, 1 B, 2 C) of the board that played the deal. */
    const int64_t want[9] = {0, 0, 0, 0, 1, 0, 0, 0, 2};
    int64_t got[9];
    assert_int_equal(read_deal_sets(ctx, "p.h5", got, 9), 1);
    for (int i = 0; i < 9; i++) assert_int_equal(got[i], want[i]);
    alloc_loop_run(import_pbn, "a.pbn", 1, NULL);

    /* One field, two deals: refused, naming both games. */
    f = fopen("b.pbn", "w");
    pbn_game(f, "A", 1, kDeal1, 1);
    fprintf(f, "[Event \"Cup\"]\n[Section \"A\"]\n[Board \"1\"]\n[Deal \"%s\"]\n"
               "[ScoreTable \"Table;PairId_NS;PairId_EW;Score_NS\"]\n3 5 6 100\n",
            kDeal2);
    fclose(f);
    int rc = import_pbn(ctx, "b.pbn");
    assert_failure(ctx, rc, DATUM_E_INPUT,
                   "b.pbn:14: event \"Cup\" section \"A\" board 1 was played with another deal "
                   "at b.pbn:6");
}

#define LINE(ns, ew, score)                                                                        \
    "<TRAVELLER_LINE><NS_PAIR_NUMBER>" ns "</NS_PAIR_NUMBER><EW_PAIR_NUMBER>" ew                  \
    "</EW_PAIR_NUMBER><SCORE>" score "</SCORE></TRAVELLER_LINE>\n"
#define SECTION(id)                                                                                \
    "<SECTION SECTION_ID=\"" id "\"><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n" LINE("1", "2", "420") \
    LINE("3", "4", "400") "</BOARD></SECTION>\n"

static void test_usebio(void **state)
{
    (void)state;
    datum_ctx *ctx = tu_ctx;
    /* Session 1: sections A and B share its hand set; session 2: A and B
     * with two hand sets (which section played which: not said). */
    tu_write("u.xml", "<?xml version=\"1.0\"?>\n<USEBIO Version=\"1.2\">\n"
                      "<EVENT><EVENT_DESCRIPTION>Cup</EVENT_DESCRIPTION><DATE>02/03/2024</DATE>\n"
                      "<SESSION SESSION_ID=\"1\">\n" SECTION("A") SECTION("B")
                      "<HANDSET HANDSET_ID=\"Red\"/></SESSION>\n"
                      "<SESSION SESSION_ID=\"2\">\n" SECTION("A") SECTION("B")
                      "<HANDSET HANDSET_ID=\"Red\"/><HANDSET HANDSET_ID=\"Blue\"/></SESSION>\n"
                      "</EVENT></USEBIO>\n");
    const char *paths[] = {"u.xml"};
    assert_int_equal(datum_import_usebio(ctx, paths, 1, "u.h5", NULL), DATUM_OK);
    /* Sections 1/A 1/B 2/A 2/B (0..3). */
    const int64_t want[4] = {0, 0, 2, 3};
    int64_t got[4];
    assert_int_equal(read_deal_sets(ctx, "u.h5", got, 4), 1);
    for (int i = 0; i < 4; i++) assert_int_equal(got[i], want[i]);

    /* CSV: not recorded. */
    tu_write("c.csv", "event,date,section,board,table,ns_pair,ew_pair,ns_score\n"
                      "Cup,2024-03-02,A,1,1,A1,A2,420\nCup,2024-03-02,B,1,1,B1,B2,400\n");
    paths[0] = "c.csv";
    assert_int_equal(datum_import_csv(ctx, paths, 1, "c.h5", NULL), DATUM_OK);
    assert_int_equal(read_deal_sets(ctx, "c.h5", got, 2), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_ctx_test(test_write_read),
        tu_ctx_test(test_whole_events),
        tu_ctx_test(test_pbn),
        tu_ctx_test(test_usebio),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
