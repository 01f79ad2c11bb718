/* test_archive_writer.c - the streaming archive writer: what it writes
 * reads back (dictionaries, fields, dates, truth), its types follow the
 * plan, the file does not depend on how the fields are handed in, every rule
 * of the format is enforced (and a refused chunk leaves the writer usable),
 * and abort or a failed commit leaves nothing behind. */
#include "io_test_util.h"
#include "io_internal.h"

#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kEvents[] = {"E", "F"}, *const kSections[] = {"", "A"};
static const char *const kPairs[] = {"P0", "P1", "P2", "P3", "P4", "P5", "P6", "P7"};
static const char *const kTeams[] = {"Bears", "Lions"}, *const kMatches[] = {"M1"};

/* A chunk under construction. */
typedef struct {
    uint64_t offset[33];
    uint32_t event[32], section[32];
    int32_t board[32];
    int32_t table[128], ns[128], ew[128], score[128], date[128], ns_team[128], ew_team[128],
        match[128];
    uint8_t adjusted[128], method[128];
    double published_ns[128], published_ew[128], percent_ns[128], percent_ew[128];
    datum_chunk c;
} chunk_buf;

static void chunk_init(chunk_buf *b)
{
    memset(b, 0, sizeof *b);
    b->c = (datum_chunk){.offset = b->offset,
                         .field_event = b->event,
                         .field_section = b->section,
                         .field_board = b->board,
                         .table = b->table,
                         .ns_pair = b->ns,
                         .ew_pair = b->ew,
                         .ns_score = b->score,
                         .date = b->date};
}

/* Adds a field of `tables` tables 1.., pairs 2t-2 v 2t-1 (t = 1..), score
 * 10 * t * board, dates day0 + t % 2. */
static void add_field(chunk_buf *b, uint32_t event, uint32_t section, int32_t board, int tables,
                      int32_t day0)
{
    datum_chunk *c = &b->c;
    b->event[c->n_fields] = event;
    b->section[c->n_fields] = section;
    b->board[c->n_fields] = board;
    for (int t = 1; t <= tables; t++) {
        uint64_t i = c->n_rows++;
        b->table[i] = t;
        b->ns[i] = 2 * t - 2;
        b->ew[i] = 2 * t - 1;
        b->score[i] = 10 * t * board;
        b->date[i] = day0 + t % 2;
        b->ns_team[i] = b->ew_team[i] = b->match[i] = -1;
    }
    b->offset[++c->n_fields] = c->n_rows;
}

static datum_archive_plan small_plan(void)
{
    datum_archive_plan p = DATUM_ARCHIVE_PLAN_INIT;
    p.has_adjusted = 1;
    p.max_results = 100;
    p.max_fields = 20;
    p.max_board = 36;
    p.max_table = 20;
    p.min_score = -7600;
    p.max_score = 7600;
    p.min_date = 19000;
    p.max_date = 21000;
    return p;
}

/* A writer of w.h5 with every dictionary but teams' written. */
static datum_archive_writer *open_writer(datum_ctx *ctx, const datum_archive_plan *plan,
                                         const datum_write_options *opt)
{
    datum_archive_writer *w = NULL;
    assert_int_equal(datum_archive_writer_create(ctx, "w.h5", plan, opt, &w), DATUM_OK);
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_EVENTS, kEvents, 2), DATUM_OK);
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_SECTIONS, kSections, 2), DATUM_OK);
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_PAIRS, kPairs, 8), DATUM_OK);
    return w;
}

/* Commits w, then opens what it wrote, w.h5: *a, and its *info. */
static void commit_and_open(datum_ctx *ctx, datum_archive_writer **w, datum_archive **a,
                            datum_archive_info *info)
{
    assert_int_equal(datum_archive_writer_commit(w), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, "w.h5", a), DATUM_OK);
    datum_archive_get_info(*a, info);
}

/* The stored type, chunk length and maximum length of a dataset. */
static void layout(hid_t f, const char *path, hid_t type, hsize_t chunk)
{
    hid_t ds = H5Dopen2(f, path, H5P_DEFAULT), t = H5Dget_type(ds), dcpl = H5Dget_create_plist(ds);
    hid_t space = H5Dget_space(ds);
    hsize_t c = 0, dims = 0, max = 0;
    assert_true(ds >= 0);
    if (H5Tequal(t, type) <= 0) fail_msg("%s has another type (size %zu)", path, H5Tget_size(t));
    assert_int_equal(H5Pget_chunk(dcpl, 1, &c), 1);
    assert_int_equal(c, chunk);
    H5Sget_simple_extent_dims(space, &dims, &max);
    assert_true(max == H5S_UNLIMITED);
    H5Sclose(space);
    H5Pclose(dcpl);
    H5Tclose(t);
    H5Dclose(ds);
}

static void test_write_and_read(void **state)
{
    datum_ctx *ctx = NULL;
    datum_archive_plan plan = small_plan();
    chunk_buf b;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_archive_writer *w = open_writer(ctx, &plan, NULL);
    chunk_init(&b);
    add_field(&b, 0, 0, 1, 3, 19784);
    add_field(&b, 0, 0, 2, 4, 19784);
    b.c.adjusted = b.adjusted;
    b.adjusted[4] = DATUM_ADJ_A;
    b.score[4] = 0;
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    chunk_init(&b);
    add_field(&b, 0, 1, 1, 2, 19790); /* section "A": adjusted NULL, all real */
    add_field(&b, 1, 0, 36, 4, 19700);
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    const double truth[8] = {0.5, -0.5, 1, -1, 0.25, 0, 2, -2.125};
    assert_int_equal(datum_archive_writer_truth(w, truth, 8), DATUM_OK);
    assert_int_equal(datum_archive_writer_truth_attr(w, "seed", "42"), DATUM_OK);
    assert_int_equal(datum_archive_writer_commit(&w), DATUM_OK);
    assert_null(w);
    assert_int_equal(tu_count_files(), 1);

    datum_archive *a = NULL;
    datum_archive_info info;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    assert_int_equal(datum_archive_open(ctx, "w.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_results, 13);
    assert_int_equal(info.n_fields, 4);
    assert_int_equal(info.n_pairs, 8);
    assert_int_equal(info.first_date, 19700);
    assert_int_equal(info.last_date, 19791);
    assert_int_equal(info.has_adjusted, 1);
    assert_int_equal(info.has_teams, 0);
    assert_int_equal(info.has_truth, 1);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_int_equal(c.n_fields, 4);
    static const uint64_t offsets[] = {0, 3, 7, 9, 13};
    static const int32_t dates[] = {19785, 19785, 19791, 19701};
    for (int f = 0; f < 4; f++) {
        assert_int_equal(c.offset[f], offsets[f]);
        assert_int_equal(c.field_date[f], dates[f]); /* the latest of the field's rows */
    }
    assert_int_equal(c.field_board[3], 36);
    assert_int_equal(c.adjusted[4], DATUM_ADJ_A);
    assert_int_equal(c.adjusted[8], 0);
    assert_int_equal(c.ns_score[12], 4 * 10 * 36);
    assert_int_equal(c.ew_pair[12], 7);
    assert_null(c.ns_team);
    datum_chunk_reader_free(&r);
    double back[8];
    assert_int_equal(datum_archive_read_truth(ctx, a, back), DATUM_OK);
    assert_memory_equal(back, truth, sizeof truth);
    datum_archive_close(&a);

    /* Types from the plan, chunks from max_results and max_fields. */
    hid_t f = H5Fopen("w.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    layout(f, "results/ns_score", H5T_STD_I16LE, 100);
    layout(f, "results/table", H5T_STD_U8LE, 100);
    layout(f, "results/date", H5T_STD_U16LE, 100);
    layout(f, "results/ns_pair", H5T_STD_U8LE, 100);
    layout(f, "fields/board", H5T_STD_U8LE, 20);
    layout(f, "fields/offset", H5T_STD_U8LE, 21);
    hid_t g = H5Gopen2(f, "truth", H5P_DEFAULT);
    assert_true(g >= 0 && H5Aexists(g, "seed") > 0);
    H5Gclose(g);
    H5Fclose(f);
    datum_ctx_free(&ctx);
}

/* Every integer dataset of a file, as int64 values, one after another. */
static int64_t *all_values(const char *path, size_t *n)
{
    static const char *const names[] = {
        "fields/event",  "fields/section",  "fields/board",    "fields/date",      "fields/offset",
        "results/table", "results/ns_pair", "results/ew_pair", "results/ns_score", "results/date"};
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    int64_t *v = calloc(1000, sizeof *v);
    *n = 0;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        hid_t ds = H5Dopen2(f, names[k], H5P_DEFAULT), space = H5Dget_space(ds);
        hssize_t len = H5Sget_simple_extent_npoints(space);
        assert_true(len >= 0 && *n + (size_t)len < 1000);
        assert_true(H5Dread(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v + *n) >= 0);
        *n += (size_t)len;
        H5Sclose(space);
        H5Dclose(ds);
    }
    H5Fclose(f);
    return v;
}

/* The same fields, appended in one chunk or one by one, with chunks of 3
 * elements: the same archive. */
static void test_granularity(void **state)
{
    datum_ctx *ctx = NULL;
    datum_archive_plan plan = small_plan();
    datum_write_options opt = DATUM_WRITE_OPTIONS_INIT;
    chunk_buf all, one;
    opt.chunk_rows = 3;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    chunk_init(&all);
    for (int board = 1; board <= 5; board++) add_field(&all, 0, 0, board, 1 + board % 4, 19784);
    datum_archive_writer *w = open_writer(ctx, &plan, &opt);
    assert_int_equal(datum_archive_writer_append(w, &all.c), DATUM_OK);
    assert_int_equal(datum_archive_writer_commit(&w), DATUM_OK);
    assert_int_equal(rename("w.h5", "all.h5"), 0);
    w = open_writer(ctx, &plan, &opt);
    for (int board = 1; board <= 5; board++) {
        chunk_init(&one);
        add_field(&one, 0, 0, board, 1 + board % 4, 19784);
        assert_int_equal(datum_archive_writer_append(w, &one.c), DATUM_OK);
    }
    assert_int_equal(datum_archive_writer_commit(&w), DATUM_OK);
    size_t na, nb;
    int64_t *va = all_values("all.h5", &na), *vb = all_values("w.h5", &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(va, vb, na * sizeof *va);
    free(va);
    free(vb);
    datum_ctx_free(&ctx);
}

/* Appending b's chunk is refused with this message; the writer stays usable. */
static void expect_refused(datum_ctx *ctx, datum_archive_writer *w, chunk_buf *b,
                           const char *message)
{
    assert_failure(ctx, datum_archive_writer_append(w, &b->c), DATUM_E_ARG, message);
    chunk_init(b);
}

static void test_refusals(void **state)
{
    datum_ctx *ctx = NULL;
    datum_archive_plan plan = small_plan();
    chunk_buf b;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_archive_writer *w = open_writer(ctx, &plan, NULL);
    chunk_init(&b);
    add_field(&b, 0, 0, 1, 2, 19784);
    b.table[1] = 1;
    expect_refused(ctx, w, &b,
                   "cannot write w.h5: field 0: table 1 comes after table 1 (increasing, once "
                   "each)");
    add_field(&b, 0, 0, 1, 2, 19784);
    b.ew[1] = 0;
    expect_refused(ctx, w, &b, "cannot write w.h5: field 0: pair 0 plays twice");
    add_field(&b, 0, 0, 1, 2, 19784);
    b.ew[1] = 2;
    expect_refused(ctx, w, &b, "cannot write w.h5: results row 1: the pair plays against itself");
    add_field(&b, 0, 0, 1, 2, 19784);
    b.ns[1] = 8;
    expect_refused(ctx, w, &b,
                   "cannot write w.h5: results/ns_pair[1] = 8 is out of range (0 to 7)");
    add_field(&b, 0, 0, 1, 2, 19784);
    b.score[0] = 8000;
    expect_refused(ctx, w, &b,
                   "cannot write w.h5: results/ns_score[0] = 8000 is out of range (-7600 to 7600)");
    add_field(&b, 0, 0, 37, 2, 19784);
    expect_refused(ctx, w, &b, "cannot write w.h5: fields/board[0] = 37 is out of range (1 to 36)");
    add_field(&b, 2, 0, 1, 2, 19784);
    expect_refused(ctx, w, &b, "cannot write w.h5: fields/event[0] = 2 is out of range (0 to 1)");
    add_field(&b, 0, 0, 1, 2, 19784);
    b.c.adjusted = b.adjusted;
    b.adjusted[0] = DATUM_ADJ_AP;
    expect_refused(ctx, w, &b, "cannot write w.h5: results row 0: an adjusted result with a score");
    add_field(&b, 0, 0, 1, 2, 19784);
    b.c.match = b.match;
    expect_refused(ctx, w, &b,
                   "cannot write w.h5: a chunk has a column that the plan did not declare");
    add_field(&b, 0, 0, 1, 2, 19784);
    b.c.published_ns = b.published_ns;
    expect_refused(ctx, w, &b,
                   "cannot write w.h5: a chunk has a column that the plan did not declare");
    add_field(&b, 0, 0, 1, 2, 19784);
    b.c.ns_pair = NULL;
    expect_refused(ctx, w, &b, "cannot write w.h5: a chunk lacks a required array");
    add_field(&b, 0, 0, 1, 2, 19784);
    b.offset[1] = 0;
    b.c.n_rows = 0;
    expect_refused(ctx, w, &b, "cannot write w.h5: field 0 has no result");
    add_field(&b, 0, 0, 2, 2, 19784);
    add_field(&b, 0, 0, 1, 2, 19784);
    expect_refused(ctx, w, &b,
                   "cannot write w.h5: field 1 (event 0, section 0, board 1) does not come after "
                   "(event 0, section 0, board 2)");
    /* Accepted after all that; then the order holds across chunks. */
    add_field(&b, 0, 1, 5, 3, 19784);
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    chunk_init(&b);
    add_field(&b, 0, 1, 5, 3, 19784);
    expect_refused(ctx, w, &b,
                   "cannot write w.h5: field 1 (event 0, section 1, board 5) does not come after "
                   "(event 0, section 1, board 5)");
    for (int board = 6; board < 30; board++) add_field(&b, 1, 0, board, 4, 19784);
    expect_refused(ctx, w, &b, "cannot write w.h5: more results or fields than the plan's maximum");
    assert_int_equal(datum_archive_writer_commit(&w), DATUM_OK);

    datum_archive *a = NULL;
    datum_archive_info info;
    assert_int_equal(datum_archive_open(ctx, "w.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_fields, 1);
    assert_int_equal(info.n_results, 3);
    assert_int_equal(info.has_truth, 0);
    double none[8];
    assert_int_equal(datum_archive_read_truth(ctx, a, none), DATUM_W_EMPTY);
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
}

static void test_teams(void **state)
{
    datum_ctx *ctx = NULL;
    datum_archive_plan plan = small_plan();
    datum_archive_writer *w = NULL;
    chunk_buf b;
    plan.has_teams = 1;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_archive_writer_create(ctx, "w.h5", &plan, NULL, &w), DATUM_OK);
    chunk_init(&b);
    add_field(&b, 0, 0, 1, 4, 19784);
    assert_failure(ctx, datum_archive_writer_append(w, &b.c), DATUM_E_ARG,
                   "cannot write w.h5: dict/events must be written before the first field");
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_EVENTS, kEvents, 2), DATUM_OK);
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_SECTIONS, kSections, 2), DATUM_OK);
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_PAIRS, kPairs, 8), DATUM_OK);
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_TEAMS, kTeams, 2), DATUM_OK);
    assert_failure(ctx, datum_archive_writer_append(w, &b.c), DATUM_E_ARG,
                   "cannot write w.h5: dict/matches must be written before the first field");
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_MATCHES, kMatches, 1), DATUM_OK);
    b.c.ns_team = b.ns_team;
    b.c.ew_team = b.ew_team;
    expect_refused(ctx, w, &b, "cannot write w.h5: ns_team, ew_team and match: all or none");
    add_field(&b, 0, 0, 1, 4, 19784);
    b.c.ns_team = b.ns_team;
    b.c.ew_team = b.ew_team;
    b.c.match = b.match;
    for (int t = 0; t < 4; t++) {
        b.ns_team[t] = t < 2 ? 1 : 0;
        b.ew_team[t] = t < 2 ? 0 : 1;
        b.match[t] = 0;
    }
    b.ew_team[3] = 0;
    expect_refused(ctx, w, &b,
                   "cannot write w.h5: results row 3: teams and match must be all set (two "
                   "different teams) or all -1");
    add_field(&b, 0, 0, 1, 4, 19784);
    b.c.ns_team = b.ns_team;
    b.c.ew_team = b.ew_team;
    b.c.match = b.match;
    for (int t = 0; t < 4; t++) {
        b.ns_team[t] = t < 2 ? 1 : 0;
        b.ew_team[t] = t < 2 ? 0 : 1;
        b.match[t] = 0;
    }
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    chunk_init(&b);
    add_field(&b, 0, 1, 1, 2, 19784); /* a pairs field: team columns NULL, stored -1 */
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);

    datum_archive *a = NULL;
    datum_archive_info info;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    commit_and_open(ctx, &w, &a, &info);
    assert_int_equal(info.has_teams, 1);
    assert_int_equal(info.n_teams, 2);
    assert_int_equal(info.n_matches, 1);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_int_equal(c.n_rows, 6);
    assert_string_equal(datum_archive_team(a, (uint32_t)c.ns_team[0]), "Lions");
    assert_string_equal(datum_archive_match(a, (uint32_t)c.match[3]), "M1");
    assert_int_equal(c.ns_team[4], -1);
    assert_int_equal(c.ew_team[5], -1);
    assert_int_equal(c.match[5], -1);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    hid_t f = H5Fopen("w.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    layout(f, "results/match", H5T_STD_I8LE, 100); /* signed: -1 marks no match */
    H5Fclose(f);
    datum_ctx_free(&ctx);
}

/* The published columns: float64 and uint8, NaN and 0 where a chunk has
 * none, read only when asked for; their rules. */
static void test_published(void **state)
{
    datum_ctx *ctx = NULL;
    datum_archive_plan plan = small_plan();
    chunk_buf b;
    datum_archive *a = NULL;
    datum_archive_info info;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    plan.has_published = 1;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_archive_writer *w = open_writer(ctx, &plan, NULL);
    chunk_init(&b);
    add_field(&b, 0, 0, 1, 3, 19784);
    const double ns[3] = {1.5, NAN, NAN}, ew[3] = {-1.5, NAN, 2};
    const uint8_t method[3] = {DATUM_PUBLISHED_BUTLER, DATUM_PUBLISHED_NONE, DATUM_PUBLISHED_IMPS};
    memcpy(b.published_ns, ns, sizeof ns);
    memcpy(b.published_ew, ew, sizeof ew);
    memcpy(b.method, method, sizeof method);
    b.c.published_ns = b.published_ns;
    b.c.published_ew = b.published_ew;
    assert_failure(ctx, datum_archive_writer_append(w, &b.c), DATUM_E_ARG,
                   "cannot write w.h5: published_ns, published_ew and published_method: all or "
                   "none");
    b.c.published_method = b.method;
    b.method[1] = DATUM_PUBLISHED_BUTLER;
    assert_failure(ctx, datum_archive_writer_append(w, &b.c), DATUM_E_ARG,
                   "cannot write w.h5: results row 1: published_method must be 0 (none) exactly "
                   "when both published figures are NaN");
    b.method[1] = DATUM_PUBLISHED_NONE;
    b.published_ns[2] = INFINITY;
    assert_failure(ctx, datum_archive_writer_append(w, &b.c), DATUM_E_ARG,
                   "cannot write w.h5: results/published_ns[2] is infinite (a real or NaN)");
    b.published_ns[2] = NAN;
    b.method[2] = DATUM_PUBLISHED_COUNT;
    assert_failure(ctx, datum_archive_writer_append(w, &b.c), DATUM_E_ARG,
                   "cannot write w.h5: results/published_method[2] = 6 is out of range (0 to 5)");
    b.method[2] = DATUM_PUBLISHED_IMPS;
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    chunk_init(&b);
    add_field(&b, 0, 0, 2, 2, 19784); /* nothing published: NaN and 0 stored */
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    commit_and_open(ctx, &w, &a, &info);
    assert_int_equal(info.has_published, 1);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_NS_SCORE, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_null(c.published_ns); /* not asked for */
    assert_null(c.published_method);
    datum_chunk_reader_free(&r);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_PUBLISHED, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_null(c.ns_score);
    assert_int_equal(c.n_rows, 5);
    assert_true(c.published_ns[0] == 1.5 && c.published_ew[0] == -1.5);
    assert_true(isnan(c.published_ns[1]) && isnan(c.published_ew[1]));
    assert_true(isnan(c.published_ns[2]) && c.published_ew[2] == 2);
    for (int i = 3; i < 5; i++) assert_true(isnan(c.published_ns[i]) && isnan(c.published_ew[i]));
    static const uint8_t methods[5] = {DATUM_PUBLISHED_BUTLER, 0, DATUM_PUBLISHED_IMPS, 0, 0};
    assert_memory_equal(c.published_method, methods, sizeof methods);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    hid_t f = H5Fopen("w.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    layout(f, "results/published_ns", H5T_IEEE_F64LE, 100);
    layout(f, "results/published_ew", H5T_IEEE_F64LE, 100);
    layout(f, "results/published_method", H5T_STD_U8LE, 100);
    H5Fclose(f);
    assert_string_equal(datum_published_method_name(DATUM_PUBLISHED_CROSS_IMPS), "cross_imps");
    assert_null(datum_published_method_name(DATUM_PUBLISHED_COUNT));
    datum_ctx_free(&ctx);
}

/* The published percentages: their own plan flag and attribute, both or
 * none, NaN where a chunk has none; absent from an archive without them,
 * attribute included (it reads as 0). */
static void test_published_percent(void **state)
{
    datum_ctx *ctx = NULL;
    datum_archive_plan plan = small_plan();
    chunk_buf b;
    datum_archive *a = NULL;
    datum_archive_info info;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_archive_writer *w = open_writer(ctx, &plan, NULL);
    chunk_init(&b);
    add_field(&b, 0, 0, 1, 2, 19784);
    b.c.published_ns_percent = b.percent_ns;
    b.c.published_ew_percent = b.percent_ew;
    assert_failure(ctx, datum_archive_writer_append(w, &b.c), DATUM_E_ARG,
                   "cannot write w.h5: a chunk has a column that the plan did not declare");
    datum_archive_writer_abort(&w);

    plan.has_published_percent = 2;
    assert_failure(ctx, datum_archive_writer_create(ctx, "w.h5", &plan, NULL, &w), DATUM_E_ARG,
                   "archive plan out of range (see datum_io.h)");
    plan.has_published_percent = 1;
    w = open_writer(ctx, &plan, NULL);
    b.c.published_ew_percent = NULL;
    assert_failure(ctx, datum_archive_writer_append(w, &b.c), DATUM_E_ARG,
                   "cannot write w.h5: published_ns_percent and published_ew_percent: both or "
                   "none");
    b.c.published_ew_percent = b.percent_ew;
    const double ns[2] = {62.5, NAN}, ew[2] = {37.5, 50};
    memcpy(b.percent_ns, ns, sizeof ns);
    memcpy(b.percent_ew, ew, sizeof ew);
    b.percent_ew[1] = -INFINITY;
    assert_failure(ctx, datum_archive_writer_append(w, &b.c), DATUM_E_ARG,
                   "cannot write w.h5: results/published_ew_percent[1] is infinite (a real or "
                   "NaN)");
    b.percent_ew[1] = 50;
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    chunk_init(&b);
    add_field(&b, 0, 0, 2, 1, 19784); /* no percentage: NaN stored */
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    commit_and_open(ctx, &w, &a, &info);
    assert_int_equal(info.has_published_percent, 1);
    assert_int_equal(info.has_published, 0); /* the two flags are independent */
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_null(c.published_ns);
    assert_int_equal(c.n_rows, 3);
    assert_true(c.published_ns_percent[0] == 62.5 && c.published_ew_percent[0] == 37.5);
    assert_true(isnan(c.published_ns_percent[1]) && c.published_ew_percent[1] == 50);
    assert_true(isnan(c.published_ns_percent[2]) && isnan(c.published_ew_percent[2]));
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    hid_t f = H5Fopen("w.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    layout(f, "results/published_ns_percent", H5T_IEEE_F64LE, 100);
    layout(f, "results/published_ew_percent", H5T_IEEE_F64LE, 100);
    assert_int_equal(H5Aexists(f, "has_published_percent"), 1);
    H5Fclose(f);

    /* Without percentages: neither the datasets nor the attribute. */
    plan.has_published_percent = 0;
    w = open_writer(ctx, &plan, NULL);
    chunk_init(&b);
    add_field(&b, 0, 0, 1, 2, 19784);
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    commit_and_open(ctx, &w, &a, &info);
    assert_int_equal(info.has_published_percent, 0);
    datum_archive_close(&a);
    f = H5Fopen("w.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_int_equal(H5Aexists(f, "has_published_percent"), 0);
    assert_int_equal(H5Lexists(f, "results/published_ns_percent", H5P_DEFAULT), 0);
    H5Fclose(f);
    datum_ctx_free(&ctx);
}

static void test_dictionaries_and_truth(void **state)
{
    static const char *const unsorted[] = {"P1", "P0"}, *const repeated[] = {"P0", "P0"};
    static const char *const empty[] = {""}, *const bad[] = {"\xC3\x28"};
    datum_ctx *ctx = NULL;
    datum_archive_plan plan = small_plan();
    datum_archive_writer *w = NULL;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_archive_writer_create(ctx, "w.h5", &plan, NULL, &w), DATUM_OK);
    assert_failure(ctx, datum_archive_writer_dict(w, DATUM_DICT_PAIRS, unsorted, 2), DATUM_E_ARG,
                   "cannot write w.h5: dict/pairs[1] \"P0\" does not come after \"P1\" (sorted, "
                   "no repeats)");
    assert_failure(ctx, datum_archive_writer_dict(w, DATUM_DICT_PAIRS, repeated, 2), DATUM_E_ARG,
                   "cannot write w.h5: dict/pairs[1] \"P0\" does not come after \"P0\" (sorted, "
                   "no repeats)");
    assert_failure(ctx, datum_archive_writer_dict(w, DATUM_DICT_EVENTS, empty, 1), DATUM_E_ARG,
                   "cannot write w.h5: dict/events[0] is missing, empty or not UTF-8");
    assert_failure(ctx, datum_archive_writer_dict(w, DATUM_DICT_EVENTS, bad, 1), DATUM_E_ARG,
                   "cannot write w.h5: dict/events[0] is missing, empty or not UTF-8");
    assert_failure(ctx, datum_archive_writer_dict(w, DATUM_DICT_TEAMS, kTeams, 2), DATUM_E_ARG,
                   "cannot write w.h5: dict/teams without teams in the plan");
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_SECTIONS, empty, 1), DATUM_OK);
    assert_failure(ctx, datum_archive_writer_dict(w, DATUM_DICT_SECTIONS, empty, 1), DATUM_E_ARG,
                   "cannot write w.h5: dict/sections written twice");
    const double truth[3] = {1, NAN, 0};
    assert_failure(ctx, datum_archive_writer_truth(w, truth, 3), DATUM_E_ARG,
                   "cannot write w.h5: truth/pair_strength needs one value per pair of "
                   "/dict/pairs, written first");
    assert_int_equal(datum_archive_writer_dict(w, DATUM_DICT_PAIRS, kPairs, 3), DATUM_OK);
    assert_failure(ctx, datum_archive_writer_truth(w, truth, 3), DATUM_E_ARG,
                   "cannot write w.h5: truth/pair_strength[1] is not finite");
    assert_int_equal(datum_archive_writer_truth_attr(w, "k", "v"), DATUM_OK);
    assert_failure(ctx, datum_archive_writer_truth_attr(w, "k", "w"), DATUM_E_ARG,
                   "cannot write w.h5: truth attribute \"k\" is empty or repeated");
    /* The events are missing: the commit fails, and nothing is left. */
    assert_failure(ctx, datum_archive_writer_commit(&w), DATUM_E_ARG,
                   "cannot write w.h5: dict/events must be written before the first field");
    assert_null(w);
    assert_int_equal(tu_count_files(), 0);

    /* An archive of no result at all is a valid archive. */
    w = open_writer(ctx, &plan, NULL);
    assert_int_equal(datum_archive_writer_commit(&w), DATUM_OK);
    datum_archive *a = NULL;
    datum_archive_info info;
    assert_int_equal(datum_archive_open(ctx, "w.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_results, 0);
    assert_int_equal(info.n_fields, 0);
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
}

static void test_abort(void **state)
{
    datum_ctx *ctx = NULL;
    datum_archive_plan plan = small_plan();
    chunk_buf b;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    tu_write("w.h5", "old");
    datum_archive_writer *w = open_writer(ctx, &plan, NULL);
    chunk_init(&b);
    add_field(&b, 0, 0, 1, 2, 19784);
    assert_int_equal(datum_archive_writer_append(w, &b.c), DATUM_OK);
    assert_int_equal(tu_count_files(), 2); /* w.h5 and the temporary file */
    datum_archive_writer_abort(&w);
    assert_null(w);
    datum_archive_writer_abort(&w); /* accepts NULL */
    assert_int_equal(tu_count_files(), 1);
    char *old = tu_read("w.h5", NULL);
    assert_string_equal(old, "old");
    free(old);
    plan.max_board = 0;
    assert_failure(ctx, datum_archive_writer_create(ctx, "x.h5", &plan, NULL, &w), DATUM_E_ARG,
                   "archive plan out of range (see datum_io.h)");
    assert_null(w);
    assert_failure(ctx, datum_archive_writer_create(ctx, "no/such/dir/x.h5", NULL, NULL, &w),
                   DATUM_E_IO, "cannot create no/such/dir/x.h5: No such file or directory");
    datum_ctx_free(&ctx);
}

/* Packs raw with c, once with z and once with a compressor of its own, and
 * checks that both give the same bytes (z may reuse a stream it kept). */
static void assert_packs_alike(datum_ctx *ctx, const io_chunked *c, io_compressor *z,
                               const void *raw)
{
    size_t room = io_chunked_pack_room(c);
    unsigned char *a = malloc(room), *b = malloc(room);
    const unsigned char *pa, *pb;
    size_t na, nb;
    io_compressor fresh = {0};
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(io_chunked_pack(ctx, c, z, raw, a, &pa, &na), DATUM_OK);
    assert_int_equal(io_chunked_pack(ctx, c, &fresh, raw, b, &pb, &nb), DATUM_OK);
    assert_int_equal(na, nb);
    assert_memory_equal(pa, pb, na);
    io_compressor_free(&fresh);
    free(a);
    free(b);
}

/* A chunk of one repeated element is packed once and its stream reused:
 * the bytes must be those of packing it afresh, for every codec, and a
 * chunk that only nearly repeats (or repeats another value, or goes to
 * another codec) must not take the kept stream. */
static void test_pack_one_value(void **state)
{
    (void)state;
    enum { N = 4096 };
    datum_ctx *ctx = NULL;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    /* Each codec follows one whose kept stream is of the same element
     * bytes (the last chunk packed is `same`) and differs from it in one
     * setting: zeros tell the sizes apart, distinct bytes the shuffle. */
    const io_chunked codecs[] = {
        {.chunk = N, .elem = 1, .shuffle = 1, .deflate_level = 1},
        {.chunk = N, .elem = 1, .deflate_level = 1, .entropy_only = 1},
        {.chunk = N, .elem = 2, .deflate_level = 1, .entropy_only = 1},
        {.chunk = N, .elem = 2, .shuffle = 1, .deflate_level = 1},
        {.chunk = N, .elem = 2, .shuffle = 1, .deflate_level = 12},
        {.chunk = N, .elem = 4, .shuffle = 1, .deflate_level = 12},
        {.chunk = N, .elem = 4, .deflate_level = 12},
        {.chunk = N / 2, .elem = 4, .deflate_level = 12},
        {.chunk = N / 2, .elem = 8, .deflate_level = 1},
        {.chunk = N / 2, .elem = 8, .deflate_level = 1, .repeats = 1},
    };
    const uint64_t values[] = {0, 0xfedcba9876543210u};
    unsigned char *same = malloc(8 * N), *other = malloc(8 * N), *near = malloc(8 * N);
    assert_non_null(same);
    assert_non_null(other);
    assert_non_null(near);
    for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
        io_compressor z = {0};
        for (size_t k = 0; k < sizeof codecs / sizeof *codecs; k++) {
            const io_chunked *c = &codecs[k];
            for (size_t i = 0; i < N; i++) {
                uint64_t w = 0x0123456789abcdefu;
                memcpy(same + i * c->elem, &values[v], c->elem);
                memcpy(other + i * c->elem, &w, c->elem);
                memcpy(near + i * c->elem, &values[v], c->elem);
            }
            near[(c->chunk - 1) * c->elem] ^= 1; /* the last element differs in one bit */
            for (int round = 0; round < 2; round++) { /* the second reuses what the first kept */
                assert_packs_alike(ctx, c, &z, same); /* first: the previous codec's kept */
                assert_packs_alike(ctx, c, &z, near);
                assert_packs_alike(ctx, c, &z, same);
                assert_packs_alike(ctx, c, &z, other);
            }
            assert_packs_alike(ctx, c, &z, same); /* kept for the next codec's first pack */
        }
        io_compressor_free(&z);
    }
    free(same);
    free(other);
    free(near);
    datum_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_temp_dir_test(test_write_and_read),
        tu_temp_dir_test(test_granularity),
        tu_temp_dir_test(test_refusals),
        tu_temp_dir_test(test_teams),
        tu_temp_dir_test(test_published),
        tu_temp_dir_test(test_published_percent),
        tu_temp_dir_test(test_dictionaries_and_truth),
        tu_temp_dir_test(test_abort),
        cmocka_unit_test(test_pack_one_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
