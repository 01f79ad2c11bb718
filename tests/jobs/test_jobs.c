/* test_jobs.c - the jobs of the library (datum_jobs.h): one pass over small
 * archives imported from datasets/, whose figures are worked by hand here
 * (datasets/README.md gives the seeds' IMPs), several methods in one pass
 * against separate passes, thread counts, the published comparison, the
 * stored types, tarot penalty netting and the allocation-failure loop. */
#define _XOPEN_SOURCE 700
#include "alloc_loop.h"
#include "datum_compare.h"
#include "datum_jobs.h"
#include "datum_tarot_io.h"
#include "test_util.h"

#include <dirent.h>
#include <sys/stat.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

static char g_dir[64];

/* PATH of a file in the test's temporary folder (in one of 16 buffers used
 * in turn: hold no more at once). */
static const char *in_dir(const char *name)
{
    static char buf[16][256];
    static int k;
    k = (k + 1) % 16;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
    return buf[k];
}

static void import_csv(const char *out, const char *const *sources, size_t n)
{
    char paths[4][512];
    const char *p[4];
    for (size_t i = 0; i < n; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", DATUM_SOURCE_DIR, sources[i]);
        p[i] = paths[i];
    }
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_write_options wo = DATUM_WRITE_OPTIONS_INIT;
    int rc = datum_import_csv(ctx, p, n, in_dir(out), &wo);
    if (rc != DATUM_OK) fail_msg("import %s: %s", out, datum_ctx_message(ctx));
    datum_ctx_free(&ctx);
}

static void import_usebio(const char *out, const char *source)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", DATUM_SOURCE_DIR, source);
    const char *p[1] = {path};
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_write_options wo = DATUM_WRITE_OPTIONS_INIT;
    if (datum_import_usebio(ctx, p, 1, in_dir(out), &wo) != DATUM_OK)
        fail_msg("import %s: %s", out, datum_ctx_message(ctx));
    datum_ctx_free(&ctx);
}

static int setup(void **state)
{
    strcpy(g_dir, "/tmp/test_jobs_XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    const char *board6[] = {"datasets/seeds/nbb-board6.csv"};
    const char *boards67[] = {"datasets/seeds/nbb-board6.csv", "datasets/seeds/nbb-board7.csv"};
    const char *match[] = {"datasets/seeds/barking-one-match.csv"};
    const char *club[] = {"datasets/example/club-session.csv", "datasets/seeds/nbb-board6.csv",
                          "datasets/seeds/nbb-board7.csv"};
    import_csv("board6.h5", board6, 1);
    import_csv("boards67.h5", boards67, 2);
    import_csv("match.h5", match, 1);
    import_csv("club.h5", club, 3);
    import_usebio("adjusted.h5", "tests/fuzz/seeds/usebio/butler-adjusted-small.xml");
    import_usebio("mp.h5", "tests/fuzz/seeds/usebio/mp-pairs-small.xml");
    assert_int_equal(mkdir(in_dir("out"), 0700), 0);
    return 0;
}

static int teardown(void **state)
{
    DIR *d = opendir(g_dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink(in_dir(e->d_name));
    if (d) closedir(d);
    DIR *o = opendir(in_dir("out"));
    char name[512];
    for (struct dirent *e; o && (e = readdir(o)) != NULL;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(name, sizeof name, "%s/out/%s", g_dir, e->d_name);
            unlink(name);
        }
    if (o) closedir(o);
    rmdir(in_dir("out"));
    rmdir(g_dir);
    return 0;
}

static datum_ctx *new_ctx(int threads)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
    return ctx;
}

static datum_method preset(const char *name)
{
    datum_method m;
    assert_int_equal(datum_method_init(&m, name), DATUM_OK);
    return m;
}

/* The index of the pair named `name`. */
static uint32_t pair_named(const datum_archive *a, const char *name)
{
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    for (uint32_t p = 0; p < info.n_pairs; p++)
        if (strcmp(datum_archive_pair(a, p), name) == 0) return p;
    fail_msg("no pair %s", name);
    return 0;
}

/* The whole content of a file (malloc'd, NUL-terminated). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    char *s = calloc(1 << 20, 1);
    size_t n = fread(s, 1, (1 << 20) - 1, f);
    s[n] = 0;
    fclose(f);
    return s;
}

/* ------------------------------------------------------------------------ */
/* Butler and cross-IMPs on board 6 of the NBB course, by hand              */

/* datasets/README.md: board 6's IMPs by pair 1..12 (datum -70). */
static void test_butler_board6(void **state)
{
    static const double kImps[12] = {-1, 2, -2, 2, 14, 7, 1, 5, -5, -7, -2, -14};
    datum_ctx *ctx = new_ctx(1);
    datum_pass *pass;
    assert_int_equal(datum_pass_create(ctx, in_dir("board6.h5"), &pass), DATUM_OK);
    datum_method nbb = preset("nbb");
    int id;
    assert_int_equal(datum_pass_add_butler(pass, &nbb, NULL, &id), DATUM_OK);
    assert_int_equal(id, 0);
    assert_int_equal(datum_pass_run(pass), DATUM_OK);
    datum_pair_totals t;
    assert_int_equal(datum_pass_totals(pass, id, &t), DATUM_OK);
    const datum_archive *a = datum_pass_archive(pass);
    assert_int_equal(t.n_pairs, 12);
    assert_null(t.raw);
    double sum = 0;
    for (int k = 0; k < 12; k++) {
        char name[8];
        snprintf(name, sizeof name, "%d", k + 1);
        uint32_t p = pair_named(a, name);
        assert_int_equal(t.boards[p], 1);
        assert_true(t.imps[p] == kImps[k]);
        assert_true(t.per_board[p] == kImps[k]);
        sum += t.imps[p];
    }
    assert_true(sum == 0); /* NS + EW = 0 */
    const uint32_t *order;
    uint32_t n;
    assert_int_equal(datum_pass_ranking(pass, id, &order, &n), DATUM_OK);
    assert_int_equal(n, 12);
    assert_string_equal(datum_archive_pair(a, order[0]), "5");   /* +14 */
    assert_string_equal(datum_archive_pair(a, order[11]), "12"); /* -14 */
    /* +2 by pairs 2 and 4: ties by name */
    assert_string_equal(datum_archive_pair(a, order[3]), "2");
    assert_string_equal(datum_archive_pair(a, order[4]), "4");
    datum_pass_free(&pass);
    assert_null(pass);
    datum_ctx_free(&ctx);
}

/* Board 6's cross-IMPs worked on the WBF scale: NS 1 (-100) against -150,
 * 200, 100, -140, -990: +2 -7 -5 +1 +13 = +4; NS 12 (-990) against -100,
 * -150, 200, 100, -140: -13 -13 -15 -14 -13 = -68. Their EW opponents (7
 * and 5) get the negations; the divisor n-1 = 5 gives the averages. */
static void test_cross_board6(void **state)
{
    datum_ctx *ctx = new_ctx(1);
    datum_pass *pass;
    assert_int_equal(datum_pass_create(ctx, in_dir("board6.h5"), &pass), DATUM_OK);
    datum_method mean = preset("mean");
    int id;
    assert_int_equal(datum_pass_add_cross(pass, &mean, NULL, &id), DATUM_OK);
    assert_int_equal(datum_pass_run(pass), DATUM_OK);
    datum_pair_totals t;
    assert_int_equal(datum_pass_totals(pass, id, &t), DATUM_OK);
    const datum_archive *a = datum_pass_archive(pass);
    assert_true(t.raw[pair_named(a, "1")] == 4);
    assert_true(t.raw[pair_named(a, "7")] == -4);
    assert_true(t.raw[pair_named(a, "12")] == -68);
    assert_true(t.raw[pair_named(a, "5")] == 68);
    assert_true(t.imps[pair_named(a, "1")] == 4.0 / 5);
    assert_true(t.imps[pair_named(a, "12")] == -68.0 / 5);
    double raw = 0, imps = 0;
    for (uint32_t p = 0; p < t.n_pairs; p++) {
        assert_int_equal(t.boards[p], 1);
        raw += t.raw[p];
        imps += t.imps[p];
    }
    assert_true(raw == 0);
    assert_true(fabs(imps) < 1e-12);
    datum_pass_free(&pass);
    datum_ctx_free(&ctx);
}

static void test_pairs_accumulate_raw(void **state)
{
    const int32_t ns[] = {0, 1, 2, 0};
    const int32_t ew[] = {3, 2, 0, 1};
    const double row[] = {5, NAN, -2.5, 1};
    double raw[4] = {10, 0, 0, 0};
    datum_pairs_accumulate_raw(4, ns, ew, row, raw);
    /* pair 0: 10 + 5 (NS) + 2.5 (EW of row 2) + 1; pair 1: -1; pair 2: -2.5;
     * pair 3: -5; row 1 has no score. */
    assert_true(raw[0] == 18.5);
    assert_true(raw[1] == -1);
    assert_true(raw[2] == -2.5);
    assert_true(raw[3] == -5);
}

/* Matchpoints' pair totals, on 1 and on 2 threads (two threads from 65 536
 * rows), against the sums made here row by row: bit for bit, with fractions
 * whose sums depend on their order. */
static void test_pairs_accumulate_mp(void **state)
{
    enum { FIELDS = 20000, PAIRS = 700 };
    test_rng r = test_rng_seeded("test_pairs_accumulate_mp", 12);
    uint64_t *offset = malloc((FIELDS + 1) * sizeof *offset);
    double *field_top = malloc(FIELDS * sizeof *field_top);
    assert_true(offset && field_top);
    offset[0] = 0;
    for (size_t f = 0; f < FIELDS; f++) {
        offset[f + 1] = offset[f] + (uint64_t)test_rng_range(&r, 1, 13);
        field_top[f] = (double)test_rng_range(&r, 0, 30) / 3.0;
    }
    size_t rows = offset[FIELDS];
    assert_true(rows >= 65536);
    int32_t *ns = malloc(rows * sizeof *ns), *ew = malloc(rows * sizeof *ew);
    double *ns_mp = malloc(rows * sizeof *ns_mp), *ew_mp = malloc(rows * sizeof *ew_mp);
    assert_true(ns && ew && ns_mp && ew_mp);
    for (size_t i = 0; i < rows; i++) {
        ns[i] = (int32_t)test_rng_range(&r, 0, PAIRS - 1);
        ew[i] = (int32_t)((ns[i] + test_rng_range(&r, 1, PAIRS - 1)) % PAIRS);
        ns_mp[i] = (double)test_rng_range(&r, 0, 100) / 7.0;
        ew_mp[i] = (double)test_rng_range(&r, 0, 100) / 11.0;
    }
    double want_mp[PAIRS] = {0}, want_top[PAIRS] = {0};
    int64_t want_boards[PAIRS] = {0}, want_ns[PAIRS] = {0};
    for (size_t f = 0; f < FIELDS; f++)
        for (uint64_t i = offset[f]; i < offset[f + 1]; i++) {
            want_mp[ns[i]] += ns_mp[i];
            want_mp[ew[i]] += ew_mp[i];
            want_top[ns[i]] += field_top[f];
            want_top[ew[i]] += field_top[f];
            want_boards[ns[i]]++;
            want_boards[ew[i]]++;
            want_ns[ns[i]]++;
        }
    for (int threads = 1; threads <= 2; threads++) {
        double mp[PAIRS] = {0}, top[PAIRS] = {0};
        int64_t boards[PAIRS] = {0}, ns_boards[PAIRS] = {0};
        /* In two calls, as two chunks: the sums carry on. */
        datum_pairs_accumulate_mp(FIELDS / 2, offset, ns, ew, ns_mp, ew_mp, field_top, mp, top,
                                  boards, ns_boards, threads);
        uint64_t *rest = malloc((FIELDS / 2 + 1) * sizeof *rest);
        assert_non_null(rest);
        for (size_t f = 0; f <= FIELDS / 2; f++) rest[f] = offset[FIELDS / 2 + f] - offset[FIELDS / 2];
        size_t first = offset[FIELDS / 2];
        datum_pairs_accumulate_mp(FIELDS / 2, rest, ns + first, ew + first, ns_mp + first,
                                  ew_mp + first, field_top + FIELDS / 2, mp, top, boards, ns_boards,
                                  threads);
        assert_memory_equal(mp, want_mp, sizeof mp);
        assert_memory_equal(top, want_top, sizeof top);
        assert_memory_equal(boards, want_boards, sizeof boards);
        assert_memory_equal(ns_boards, want_ns, sizeof ns_boards);
        free(rest);
    }
    free(offset);
    free(field_top);
    free(ns);
    free(ew);
    free(ns_mp);
    free(ew_mp);
}

/* ------------------------------------------------------------------------ */
/* Barking and the teams match of seed 002                                  */

typedef struct {
    int blocks;
    datum_match_total total;
    uint32_t event;
} teams_seen;

static int on_block(void *user, const datum_teams_block *b)
{
    teams_seen *s = user;
    s->blocks++;
    assert_int_equal(b->n_matches, 1);
    s->total = b->matches[0];
    s->event = b->event;
    return DATUM_OK;
}

typedef struct {
    int barking, chunks;
    int64_t terms_sum;
    double ns_sum;
} chunk_seen;

static int on_chunk(void *user, const datum_pass *p, const datum_chunk *c)
{
    chunk_seen *s = user;
    datum_pass_rows rows;
    assert_int_equal(datum_pass_chunk_rows(p, s->barking, &rows), DATUM_OK);
    assert_null(rows.field_datum);
    assert_null(rows.ew);
    for (uint64_t r = 0; r < c->n_rows; r++) {
        s->terms_sum += rows.terms[r];
        s->ns_sum += rows.ns_raw[r];
    }
    s->chunks++;
    return DATUM_OK;
}

/* datasets/README.md: NS raw +22 -2 +6 -26 at tables 1..4 (X1, X2, Y3, Y4),
 * 3 terms each; team X's aggregate +470 (620 + 170 - 420 + 100): 10 IMPs. */
static void test_barking_and_teams_one_pass(void **state)
{
    datum_ctx *ctx = new_ctx(1);
    datum_pass *pass;
    assert_int_equal(datum_pass_create(ctx, in_dir("match.h5"), &pass), DATUM_OK);
    datum_method m = preset("mean");
    teams_seen seen = {0};
    chunk_seen chunks = {0};
    int teams, barking;
    assert_int_equal(datum_pass_add_teams(pass, &m, NULL, on_block, &seen, &teams), DATUM_OK);
    assert_int_equal(datum_pass_add_barking(pass, &m, NULL, &barking), DATUM_OK);
    assert_int_equal(barking, 1);
    chunks.barking = barking;
    assert_int_equal(datum_pass_set_chunk_callback(pass, 0, on_chunk, &chunks), DATUM_OK);
    assert_int_equal(datum_pass_run(pass), DATUM_OK);
    const datum_archive *a = datum_pass_archive(pass);

    assert_int_equal(seen.blocks, 1);
    assert_string_equal(datum_archive_event(a, seen.event), "Teams of eight");
    assert_string_equal(datum_archive_match(a, seen.total.match), "X-Y");
    assert_string_equal(datum_archive_team(a, (uint32_t)seen.total.team_a), "X");
    assert_string_equal(datum_archive_team(a, (uint32_t)seen.total.team_b), "Y");
    assert_int_equal(seen.total.boards, 1);
    assert_true(seen.total.imps_won == 10);
    assert_true(seen.total.imps_lost == 0);

    datum_pair_totals t;
    assert_int_equal(datum_pass_totals(pass, barking, &t), DATUM_OK);
    const char *names[8] = {"X1", "X2", "Y3", "Y4", "Y1", "Y2", "X3", "X4"};
    const double raw[8] = {22, -2, 6, -26, -22, 2, -6, 26};
    for (int k = 0; k < 8; k++) {
        uint32_t p = pair_named(a, names[k]);
        assert_true(t.raw[p] == raw[k]);
        assert_true(t.imps[p] == raw[k] / 3);
        assert_int_equal(t.boards[p], 1);
    }
    assert_int_equal(chunks.chunks, 1);
    assert_int_equal(chunks.terms_sum, 4 * 3);
    assert_true(chunks.ns_sum == 22 - 2 + 6 - 26);
    /* teams has no pair totals */
    assert_int_equal(datum_pass_totals(pass, teams, &t), DATUM_E_ARG);
    datum_pass_free(&pass);
    datum_ctx_free(&ctx);
}

/* The errors a pass reports before it reads anything. */
static void test_refusals(void **state)
{
    datum_ctx *ctx = new_ctx(1);
    datum_pass *pass;
    assert_int_equal(datum_pass_create(ctx, in_dir("missing.h5"), &pass), DATUM_E_IO);
    assert_null(pass);
    datum_ctx_clear(ctx);
    assert_int_equal(datum_pass_create(ctx, in_dir("board6.h5"), &pass), DATUM_OK);
    datum_method m = preset("mean");
    int id = 7;
    assert_int_equal(datum_pass_run(pass), DATUM_E_ARG); /* no method */
    datum_ctx_clear(ctx);
    assert_int_equal(datum_pass_add_teams(pass, &m, NULL, NULL, NULL, &id), DATUM_E_INPUT);
    assert_non_null(strstr(datum_ctx_message(ctx), "has no teams"));
    assert_int_equal(id, -1);
    datum_ctx_clear(ctx);
    datum_pass_outputs o = DATUM_PASS_OUTPUTS_INIT;
    o.compare_published = 1;
    assert_int_equal(datum_pass_add_butler(pass, &m, &o, &id), DATUM_E_INPUT);
    assert_non_null(strstr(datum_ctx_message(ctx), "no published figures"));
    datum_ctx_clear(ctx);
    datum_method linear = m;
    linear.scale.kind = DATUM_SCALE_LINEAR;
    assert_int_equal(datum_pass_add_barking(pass, &linear, NULL, &id), DATUM_E_ARG);
    datum_ctx_clear(ctx);
    /* the pass is unchanged: the first method added is number 0 */
    assert_int_equal(datum_pass_add_cross(pass, &m, NULL, &id), DATUM_OK);
    assert_int_equal(id, 0);
    datum_pair_totals t;
    assert_int_equal(datum_pass_totals(pass, id, &t), DATUM_E_ARG); /* not run */
    datum_ctx_clear(ctx);
    assert_int_equal(datum_pass_run(pass), DATUM_OK);
    assert_int_equal(datum_pass_run(pass), DATUM_E_ARG); /* twice */
    assert_int_equal(datum_pass_set_kernels_by_range(pass, 1), DATUM_E_ARG); /* after the run */
    datum_pass_free(&pass);
    /* Kernels by range need a pass without totals: the totals would be summed
     * before the callback has scored the fields. */
    datum_ctx_clear(ctx);
    assert_int_equal(datum_pass_create(ctx, in_dir("board6.h5"), &pass), DATUM_OK);
    assert_int_equal(datum_pass_add_butler(pass, &m, NULL, &id), DATUM_OK);
    assert_int_equal(datum_pass_set_kernels_by_range(pass, 1), DATUM_OK);
    assert_int_equal(datum_pass_run(pass), DATUM_E_ARG);
    assert_non_null(strstr(datum_ctx_message(ctx), "outputs or totals"));
    datum_pass_free(&pass);
    datum_ctx_free(&ctx);
}

/* ------------------------------------------------------------------------ */
/* Several methods in one pass; thread counts; chunk sizes                  */

typedef struct {
    int threads;
    size_t chunk_rows;
    int together;       /* one pass for the three methods, else one each */
    const char *suffix; /* of the output files */
    double *totals[3][3]; /* per method: imps, per_board, raw (copies) */
    int64_t *boards[3];
    uint32_t n_pairs;
} run_spec;

static const char *out_name(const char *what, const char *suffix)
{
    static char buf[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "out/%s_%s", what, suffix);
    return in_dir(buf[k]);
}

static void run_three(run_spec *s)
{
    static const char *const kind[3] = {"butler", "cross", "barking"};
    static int (*const add[3])(datum_pass *, const datum_method *, const datum_pass_outputs *,
                               int *) = {datum_pass_add_butler, datum_pass_add_cross,
                                         datum_pass_add_barking};
    datum_method m[3] = {preset("nbb"), preset("mean"), preset("mean")};
    datum_ctx *ctx = new_ctx(s->threads);
    datum_pass *pass = NULL;
    int id[3];
    char names[3][3][160];
    for (int k = 0; k < 3; k++) {
        if (!pass || !s->together) {
            assert_int_equal(datum_pass_create(ctx, in_dir("club.h5"), &pass), DATUM_OK);
            assert_int_equal(datum_pass_set_chunk_rows(pass, s->chunk_rows), DATUM_OK);
        }
        char tag[64];
        snprintf(tag, sizeof tag, "%s_%s", kind[k], s->suffix);
        snprintf(names[k][0], 160, "%s", out_name("results.csv", tag));
        snprintf(names[k][1], 160, "%s", out_name("pairs.csv", tag));
        snprintf(names[k][2], 160, "%s", out_name("out.h5", tag));
        datum_pass_outputs o = DATUM_PASS_OUTPUTS_INIT;
        o.results_csv = names[k][0];
        o.pairs_csv = names[k][1];
        o.h5 = names[k][2];
        assert_int_equal(add[k](pass, &m[k], &o, &id[k]), DATUM_OK);
        if (!s->together || k == 2) {
            assert_int_equal(datum_pass_run(pass), DATUM_OK);
            for (int j = s->together ? 0 : k; j <= k; j++) {
                datum_pair_totals t;
                assert_int_equal(datum_pass_totals(pass, id[j], &t), DATUM_OK);
                s->n_pairs = t.n_pairs;
                const double *src[3] = {t.imps, t.per_board, t.raw};
                for (int i = 0; i < 3; i++) {
                    s->totals[j][i] = calloc(t.n_pairs, sizeof(double));
                    if (src[i]) memcpy(s->totals[j][i], src[i], t.n_pairs * sizeof(double));
                }
                s->boards[j] = calloc(t.n_pairs, sizeof(int64_t));
                memcpy(s->boards[j], t.boards, t.n_pairs * sizeof(int64_t));
            }
            datum_pass_free(&pass);
        }
    }
    datum_ctx_free(&ctx);
}

static void spec_free(run_spec *s)
{
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 3; i++) free(s->totals[k][i]);
        free(s->boards[k]);
    }
}

/* The same, bit for bit: totals and CSV outputs. */
static void assert_same_runs(const run_spec *x, const run_spec *y)
{
    static const char *const kind[3] = {"butler", "cross", "barking"};
    assert_int_equal(x->n_pairs, y->n_pairs);
    for (int k = 0; k < 3; k++) {
        assert_memory_equal(x->boards[k], y->boards[k], x->n_pairs * sizeof(int64_t));
        for (int i = 0; i < 3; i++)
            assert_memory_equal(x->totals[k][i], y->totals[k][i], x->n_pairs * sizeof(double));
        for (int f = 0; f < 2; f++) {
            char a[64], b[64];
            snprintf(a, sizeof a, "%s_%s", kind[k], x->suffix);
            snprintf(b, sizeof b, "%s_%s", kind[k], y->suffix);
            const char *what = f ? "pairs.csv" : "results.csv";
            char *sa = slurp(out_name(what, a)), *sb = slurp(out_name(what, b));
            assert_true(strlen(sa) > 100);
            assert_string_equal(sa, sb);
            free(sa);
            free(sb);
        }
    }
}

static void test_one_pass_equals_separate_passes(void **state)
{
    run_spec together = {.threads = 1, .chunk_rows = 1 << 20, .together = 1, .suffix = "t"};
    run_spec apart = {.threads = 1, .chunk_rows = 1 << 20, .together = 0, .suffix = "a"};
    run_three(&together);
    run_three(&apart);
    assert_same_runs(&together, &apart);
    /* the three methods do differ: the comparison could fail */
    assert_memory_not_equal(together.totals[0][0], together.totals[1][0],
                            together.n_pairs * sizeof(double));
    /* every pair of the session (and of boards 6 and 7) played */
    for (uint32_t p = 0; p < together.n_pairs; p++) assert_true(together.boards[0][p] > 0);
    spec_free(&together);
    spec_free(&apart);
}

static void test_threads_and_chunks_identical(void **state)
{
    run_spec one = {.threads = 1, .chunk_rows = 1 << 20, .together = 1, .suffix = "1"};
    run_spec two = {.threads = 2, .chunk_rows = 7, .together = 1, .suffix = "2"};
    run_three(&one);
    run_three(&two);
    assert_same_runs(&one, &two);
    spec_free(&one);
    spec_free(&two);
}

/* ------------------------------------------------------------------------ */
/* Slices (datum-mpi): two passes over the halves of an archive, the second's
 * totals deferred and carried, give the one pass's totals bit for bit.    */

/* Cross-IMPs (averages: fractions, whose sums depend on their order),
 * linear Butler and matchpoints to the field, added to p. */
static void add_slice_methods(datum_pass *p)
{
    datum_method cross = preset("mean"), linear = preset("mean");
    linear.scale.kind = DATUM_SCALE_LINEAR;
    datum_mp_method mp = DATUM_MP_METHOD_INIT;
    mp.neuberg_to_field = 1;
    int id;
    assert_int_equal(datum_pass_add_cross(p, &cross, NULL, &id), DATUM_OK);
    assert_int_equal(datum_pass_add_butler(p, &linear, NULL, &id), DATUM_OK);
    assert_int_equal(datum_pass_add_matchpoints(p, &mp, NULL, &id), DATUM_OK);
    assert_int_equal(datum_pass_set_chunk_rows(p, 5), DATUM_OK); /* ledgers of several chunks */
}

static void assert_same_totals(const datum_pair_totals *x, const datum_pair_totals *y)
{
    assert_int_equal(x->n_pairs, y->n_pairs);
    assert_memory_equal(x->boards, y->boards, x->n_pairs * sizeof *x->boards);
    assert_memory_equal(x->imps, y->imps, x->n_pairs * sizeof *x->imps);
    assert_memory_equal(x->per_board, y->per_board, x->n_pairs * sizeof *x->per_board);
    assert_true((x->raw == NULL) == (y->raw == NULL));
    if (x->raw) assert_memory_equal(x->raw, y->raw, x->n_pairs * sizeof *x->raw);
    if (x->ns_boards) assert_memory_equal(x->ns_boards, y->ns_boards, x->n_pairs * 8);
}

static void test_slices_carry_totals(void **state)
{
    datum_ctx *ctx = new_ctx(2);
    datum_pass *whole;
    assert_int_equal(datum_pass_create(ctx, in_dir("club.h5"), &whole), DATUM_OK);
    add_slice_methods(whole);
    assert_int_equal(datum_pass_whole_events(whole), 0);
    assert_int_equal(datum_pass_run(whole), DATUM_OK);
    datum_archive_info info;
    datum_archive_get_info(datum_pass_archive(whole), &info);
    const uint64_t cuts[] = {0, 1, info.n_fields / 3, info.n_fields - 1, info.n_fields};
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
        datum_pass *first, *second;
        assert_int_equal(datum_pass_create(ctx, in_dir("club.h5"), &first), DATUM_OK);
        assert_int_equal(datum_pass_create(ctx, in_dir("club.h5"), &second), DATUM_OK);
        add_slice_methods(first);
        add_slice_methods(second);
        assert_int_equal(datum_pass_set_fields(first, 0, cuts[k]), DATUM_OK);
        assert_int_equal(datum_pass_set_fields(second, cuts[k], info.n_fields), DATUM_OK);
        assert_int_equal(datum_pass_run_slice(first, 0), DATUM_OK);
        assert_int_equal(datum_pass_run_slice(second, 1), DATUM_OK);
        assert_int_equal(datum_pass_n_methods(second), 3);
        for (int id = 0; id < 3; id++) { /* the first slice's sums, into the second */
            datum_pair_sums a, b;
            assert_int_equal(datum_pass_sums(first, id, &a), DATUM_OK);
            assert_int_equal(datum_pass_sums(second, id, &b), DATUM_OK);
            memcpy(b.boards, a.boards, a.n_pairs * sizeof *a.boards);
            memcpy(b.imps, a.imps, a.n_pairs * sizeof *a.imps);
            if (a.raw) memcpy(b.raw, a.raw, a.n_pairs * sizeof *a.raw);
            if (a.ns_boards) memcpy(b.ns_boards, a.ns_boards, a.n_pairs * sizeof *a.ns_boards);
        }
        assert_int_equal(datum_pass_finish(second, 1), DATUM_E_ARG); /* not added yet */
        datum_ctx_clear(ctx);
        assert_int_equal(datum_pass_add_deferred(second), DATUM_OK);
        assert_int_equal(datum_pass_add_deferred(second), DATUM_E_ARG); /* once */
        datum_ctx_clear(ctx);
        assert_int_equal(datum_pass_finish(second, 0), DATUM_OK);
        for (int id = 0; id < 3; id++) {
            datum_pair_totals want, got;
            assert_int_equal(datum_pass_totals(whole, id, &want), DATUM_OK);
            assert_int_equal(datum_pass_totals(second, id, &got), DATUM_OK);
            assert_same_totals(&want, &got);
        }
        datum_pass_free(&first);
        datum_pass_free(&second);
    }
    /* Refused: no slice, a results CSV, a range past the archive, the serial run of a slice. */
    datum_pass *p;
    datum_pass_outputs o = DATUM_PASS_OUTPUTS_INIT;
    o.results_csv = out_name("slice", ".csv");
    datum_method m = preset("mean");
    int id;
    assert_int_equal(datum_pass_create(ctx, in_dir("club.h5"), &p), DATUM_OK);
    assert_int_equal(datum_pass_add_butler(p, &m, NULL, &id), DATUM_OK);
    assert_int_equal(datum_pass_run_slice(p, 0), DATUM_E_ARG);
    assert_int_equal(datum_pass_set_fields(p, 1, info.n_fields + 1), DATUM_E_ARG);
    assert_int_equal(datum_pass_set_fields(p, 0, 1), DATUM_OK);
    assert_int_equal(datum_pass_run(p), DATUM_E_ARG);
    assert_int_equal(datum_pass_add_cross(p, &m, &o, &id), DATUM_OK);
    datum_ctx_clear(ctx); /* the first error's message stays until cleared */
    assert_int_equal(datum_pass_run_slice(p, 0), DATUM_E_ARG);
    assert_non_null(strstr(datum_ctx_message(ctx), "results CSV"));
    datum_pass_free(&p);
    datum_pass_free(&whole);
    datum_ctx_free(&ctx);
}

/* ------------------------------------------------------------------------ */
/* The published comparison                                                 */

/* One field of five lines, made by hand. */
static void test_published_counts(void **state)
{
    datum_ctx *ctx = new_ctx(1);
    datum_archive *a;
    assert_int_equal(datum_archive_open(ctx, in_dir("adjusted.h5"), &a), DATUM_OK);
    const uint64_t offset[2] = {0, 5};
    const uint32_t event[1] = {0}, section[1] = {0};
    const int32_t board[1] = {9}, table[5] = {1, 2, 3, 4, 5};
    const double pub_ns[5] = {1.0, 2.0, NAN, 0.5, -3};
    const double pub_ew[5] = {NAN, -2.0, NAN, NAN, 3};
    const uint8_t method[5] = {DATUM_PUBLISHED_BUTLER, DATUM_PUBLISHED_BUTLER, 0,
                               DATUM_PUBLISHED_MATCHPOINTS, DATUM_PUBLISHED_BUTLER};
    const double ns[5] = {1.004, 2.02, 7, NAN, -3.005};
    datum_chunk c = {.n_fields = 1, .n_rows = 5, .offset = offset, .field_event = event,
                     .field_section = section, .field_board = board, .table = table,
                     .published_ns = pub_ns, .published_ew = pub_ew, .published_method = method};
    datum_published *p;
    assert_int_equal(datum_published_create(ctx, a, "x.h5", DATUM_PUBLISHED_BUTLER,
                                            DATUM_PUBLISHED_TOLERANCE, 10, &p),
                     DATUM_OK);
    datum_published_add(p, &c, ns, NULL);
    datum_published_summary s;
    datum_published_get(p, &s);
    /* NS: lines 1, 2, 4, 5 published; 1 (0.004 off) and 5 (0.005 off) agree */
    assert_true(s.tolerance == 0.005);
    assert_int_equal(s.compared, 4);
    assert_int_equal(s.agree, 2);
    assert_int_equal(s.n_shown, 2);
    assert_int_equal(s.shown[0].table, 2);
    assert_int_equal(s.shown[0].board, 9);
    assert_true(s.shown[0].published == 2.0 && s.shown[0].computed == 2.02);
    assert_int_equal(s.shown[1].table, 4);
    assert_true(isnan(s.shown[1].computed));
    assert_int_equal(s.by_method[DATUM_PUBLISHED_BUTLER], 3);
    assert_int_equal(s.by_method[DATUM_PUBLISHED_MATCHPOINTS], 1);
    /* EW: lines 2 (-2 against -2.02) and 5 (3 against 3.005, the negation) */
    assert_int_equal(s.ew_compared, 2);
    assert_int_equal(s.ew_agree, 1);
    datum_published_free(&p);
    assert_null(p);

    /* A wider tolerance, one disagreement kept, EW given */
    const double ew[5] = {0, -2.0, 0, 0, 0};
    assert_int_equal(datum_published_create(ctx, a, "x.h5", DATUM_PUBLISHED_CROSS_IMPS, 0.05, 1,
                                            &p),
                     DATUM_OK);
    datum_published_add(p, &c, ns, ew);
    datum_published_add(p, &c, ns, ew); /* twice: counts add up */
    datum_published_get(p, &s);
    assert_int_equal(s.compared, 8);
    assert_int_equal(s.agree, 6);
    assert_int_equal(s.n_shown, 1);
    assert_int_equal(s.shown[0].table, 4);
    assert_int_equal(s.ew_compared, 4);
    assert_int_equal(s.ew_agree, 2); /* line 2 agrees exactly; line 5's EW is 0 against 3 */
    datum_published_free(&p);
    assert_int_equal(datum_published_create(ctx, a, "x.h5", DATUM_PUBLISHED_BUTLER, NAN, 1, &p),
                     DATUM_E_ARG);
    assert_null(p);
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
}

/* Through a pass: the USEBIO files' lines all publish figures (4 lines,
 * both sides; 12 matchpoint lines, which the note names). */
static void test_published_pass(void **state)
{
    datum_ctx *ctx = new_ctx(1);
    datum_pass *pass;
    assert_int_equal(datum_pass_create(ctx, in_dir("adjusted.h5"), &pass), DATUM_OK);
    datum_method nbb = preset("nbb");
    datum_pass_outputs o = DATUM_PASS_OUTPUTS_INIT;
    o.compare_published = 1;
    int id;
    assert_int_equal(datum_pass_add_butler(pass, &nbb, &o, &id), DATUM_OK);
    assert_int_equal(datum_pass_run(pass), DATUM_OK);
    datum_published_summary s;
    assert_int_equal(datum_pass_published(pass, id, &s), DATUM_OK);
    assert_int_equal(s.compared, 4);
    assert_int_equal(s.ew_compared, 4);
    assert_int_equal(s.by_method[DATUM_PUBLISHED_BUTLER], 4);
    assert_true(s.agree <= s.compared);
    assert_int_equal(s.n_shown, s.compared - s.agree);
    datum_pass_free(&pass);

    assert_int_equal(datum_pass_create(ctx, in_dir("mp.h5"), &pass), DATUM_OK);
    assert_int_equal(datum_pass_add_butler(pass, &nbb, &o, &id), DATUM_OK);
    assert_int_equal(datum_pass_run(pass), DATUM_OK);
    assert_int_equal(datum_pass_published(pass, id, &s), DATUM_OK);
    assert_int_equal(s.own, DATUM_PUBLISHED_BUTLER);
    assert_int_equal(s.compared, 12);
    assert_int_equal(s.by_method[DATUM_PUBLISHED_MATCHPOINTS], 12);
    assert_int_equal(s.n_shown, DATUM_PUBLISHED_SHOWN < s.compared - s.agree
                                    ? DATUM_PUBLISHED_SHOWN : s.compared - s.agree);
    datum_pass_free(&pass);
    datum_ctx_free(&ctx);
}

/* ------------------------------------------------------------------------ */
/* Stored types; tarot penalties                                            */

static void test_store_types(void **state)
{
    datum_method m = preset("nbb");
    assert_int_equal(datum_imps_store_type(&m), DATUM_STORE_I8); /* -24..24, awards 3, 0, -3 */
    assert_int_equal(datum_datums_store_type(&m), DATUM_STORE_F32); /* rounded to 10 */
    m.scale.halved = 1;
    assert_int_equal(datum_imps_store_type(&m), DATUM_STORE_F32);
    m.scale.halved = 0;
    m.award.plus = 2.5;
    assert_int_equal(datum_imps_store_type(&m), DATUM_STORE_F32);
    m.award.plus = 200; /* beyond int8 */
    assert_int_equal(datum_imps_store_type(&m), DATUM_STORE_F32);
    m.award.plus = 0.1; /* no float is 0.1 */
    assert_int_equal(datum_imps_store_type(&m), DATUM_STORE_F64);
    m.award.plus = 3;
    m.scale.kind = DATUM_SCALE_LINEAR;
    assert_int_equal(datum_imps_store_type(&m), DATUM_STORE_F64);
    m.rule.rounding = DATUM_ROUND_NONE;
    m.rule.center = DATUM_CENTER_MEAN;
    assert_int_equal(datum_datums_store_type(&m), DATUM_STORE_F64);
    m.rule.center = DATUM_CENTER_PAR;
    assert_int_equal(datum_datums_store_type(&m), DATUM_STORE_F32);
}

static void test_tarot_net_penalties(void **state)
{
    /* Event 1: attacker 2 penalised 2 then compensated 0.5, defense 0
     * penalised 1; event 0's rows are not counted. */
    const int32_t event[5] = {1, 0, 1, 1, 1};
    const uint8_t side[5] = {DATUM_TAROT_ATTACK, DATUM_TAROT_ATTACK, DATUM_TAROT_DEFENSE,
                             DATUM_TAROT_ATTACK, DATUM_TAROT_ATTACK};
    const int32_t id[5] = {2, 2, 0, 2, 1};
    const double pm[5] = {2, 9, 1, -0.5, 0.25};
    double attack[3] = {7, 7, 7}, defense[2] = {7, 7};
    datum_tarot_net_penalties(5, event, side, id, pm, 1, attack, 3, defense, 2);
    assert_true(attack[0] == 0 && attack[1] == 0.25 && attack[2] == 1.5);
    assert_true(defense[0] == 1 && defense[1] == 0);
    datum_tarot_net_penalties(5, event, side, id, pm, 0, attack, 3, defense, 2);
    assert_true(attack[0] == 0 && attack[1] == 0 && attack[2] == 9);
    assert_true(defense[0] == 0 && defense[1] == 0);
}

/* ------------------------------------------------------------------------ */
/* Allocation failures                                                      */

/* Butler and cross with every output, barking with a ranking, in one pass. */
static int pass_scenario(datum_ctx *ctx, void *user)
{
    (void)user;
    datum_pass *pass = NULL;
    datum_method nbb = preset("nbb"), mean = preset("mean");
    datum_pass_outputs o = DATUM_PASS_OUTPUTS_INIT;
    o.h5 = in_dir("out/loop_score.h5");
    o.results_csv = in_dir("out/loop_results.csv");
    o.pairs_csv = in_dir("out/loop_pairs.csv");
    datum_pass_outputs oc = DATUM_PASS_OUTPUTS_INIT;
    oc.h5 = in_dir("out/loop_cross.h5");
    int id[3];
    const uint32_t *order;
    uint32_t n;
    int rc = datum_pass_create(ctx, in_dir("club.h5"), &pass);
    if (rc >= 0) rc = datum_pass_set_chunk_rows(pass, 50);
    if (rc >= 0) rc = datum_pass_add_butler(pass, &nbb, &o, &id[0]);
    if (rc >= 0) rc = datum_pass_add_cross(pass, &mean, &oc, &id[1]);
    if (rc >= 0) rc = datum_pass_add_barking(pass, &mean, NULL, &id[2]);
    if (rc >= 0) rc = datum_pass_run(pass);
    if (rc >= 0) rc = datum_pass_ranking(pass, id[2], &order, &n);
    datum_pass_free(&pass);
    /* success leaves the files: remove them so the next run starts alike */
    unlink(o.h5);
    unlink(o.results_csv);
    unlink(o.pairs_csv);
    unlink(oc.h5);
    return rc;
}

static int teams_scenario(datum_ctx *ctx, void *user)
{
    (void)user;
    datum_pass *pass = NULL;
    datum_method m = preset("mean");
    datum_pass_outputs o = DATUM_PASS_OUTPUTS_INIT;
    o.h5 = in_dir("out/loop_teams.h5");
    o.matches_csv = in_dir("out/loop_matches.csv");
    o.totals_csv = in_dir("out/loop_totals.csv");
    int id;
    int rc = datum_pass_create(ctx, in_dir("match.h5"), &pass);
    if (rc >= 0) rc = datum_pass_add_teams(pass, &m, &o, NULL, NULL, &id);
    if (rc >= 0) rc = datum_pass_run(pass);
    datum_pass_free(&pass);
    unlink(o.h5);
    unlink(o.matches_csv);
    unlink(o.totals_csv);
    return rc;
}

/* datum compare with a method of every kind, its groups CSV and report, by
 * event (user NULL); or Butler and matchpoints by year. */
static int compare_scenario(datum_ctx *ctx, void *user)
{
    datum_compare *c = NULL;
    datum_compare_options opt = DATUM_COMPARE_OPTIONS_INIT;
    opt.by = user ? DATUM_COMPARE_BY_YEAR : DATUM_COMPARE_BY_EVENT;
    opt.sample = 1000; /* every field */
    opt.chunk_rows = 50;
    opt.groups_csv = in_dir("out/loop_groups.csv");
    datum_compare_method m[5] = {{.kind = DATUM_COMPARE_BUTLER, .m = preset("nbb"), .name = "nbb"},
                                 {.kind = DATUM_COMPARE_BUTLER, .m = preset("bastille"), .name = "b"},
                                 {.kind = DATUM_COMPARE_CROSS, .m = preset("mean"), .name = "cross"},
                                 {.kind = DATUM_COMPARE_MATCHPOINTS, .name = "mp"},
                                 {.kind = DATUM_COMPARE_RATE, .m = preset("mean"), .name = "rate"}};
    m[1].m.scale.kind = DATUM_SCALE_LINEAR;
    m[3].mp = (datum_mp_method)DATUM_MP_METHOD_INIT;
    int rc = datum_compare_create(ctx, in_dir("club.h5"), &opt, &c);
    for (int i = 0; rc >= 0 && i < 5; i++)
        if (!user || i == 0 || i == 3) rc = datum_compare_add(c, &m[i]);
    if (rc >= 0) rc = datum_compare_run(c);
    if (rc >= 0) rc = datum_compare_write_report(c, in_dir("out/report"), "datum compare", "a CPU");
    datum_compare_free(&c);
    static const char *const files[] = {"pairs.csv", "rank_changes.csv", "methods.csv",
                                        "continuity.csv", "index.html"};
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", in_dir("out/report"), files[i]);
        unlink(path);
    }
    rmdir(in_dir("out/report"));
    unlink(opt.groups_csv);
    return rc;
}

static void test_alloc_failures(void **state)
{
    char out[128];
    snprintf(out, sizeof out, "%s", in_dir("out")); /* in_dir's buffers are reused */
    alloc_loop_run(pass_scenario, NULL, 1, out);
    alloc_loop_run(pass_scenario, NULL, 2, out);
    alloc_loop_run(teams_scenario, NULL, 1, out);
    alloc_loop_run(compare_scenario, NULL, 2, out);
    alloc_loop_run(compare_scenario, "year", 1, out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_butler_board6),
        cmocka_unit_test(test_cross_board6),
        cmocka_unit_test(test_pairs_accumulate_raw),
        cmocka_unit_test(test_pairs_accumulate_mp),
        cmocka_unit_test(test_barking_and_teams_one_pass),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_one_pass_equals_separate_passes),
        cmocka_unit_test(test_threads_and_chunks_identical),
        cmocka_unit_test(test_slices_carry_totals),
        cmocka_unit_test(test_published_counts),
        cmocka_unit_test(test_published_pass),
        cmocka_unit_test(test_store_types),
        cmocka_unit_test(test_tarot_net_penalties),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
