/* test_across.c - scoring across the field (datum_across_*, datum_pass_set_
 * across_sections): the merge of a small archive worked by hand (merged
 * fields, their rows, the way back to archive order); a pass across sections
 * equals a plain pass over the same rows written as one section per event
 * (an archive made independently by the CSV import); bit-identical for
 * every chunk size and thread count; one section per event changes nothing;
 * the refusals (a pair twice in a merged field, teams); every allocation
 * refused in turn. */
#include "alloc_loop.h"
#include "datum_jobs.h"
#include "io_test_util.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole file (tu_read), NUL-terminated, malloc'd. */
static char *slurp(const char *path) { return tu_read(path, NULL); }

static datum_ctx *new_ctx(int threads)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
    return ctx;
}

/* Imports the CSV text into NAME.h5 (written as NAME.csv). */
static void import_text(const char *name, const char *text)
{
    char csv[64], h5[64];
    snprintf(csv, sizeof csv, "%s.csv", name);
    snprintf(h5, sizeof h5, "%s.h5", name);
    tu_write(csv, text);
    datum_ctx *ctx = new_ctx(1);
    const char *paths[] = {csv};
    if (datum_import_csv(ctx, paths, 1, h5, NULL) != DATUM_OK)
        fail_msg("import %s: %s", name, datum_ctx_message(ctx));
    datum_ctx_free(&ctx);
}

#define HEADER "event,date,section,board,table,ns_pair,ew_pair,ns_score,adjusted\n"

/* Cong: sections A, B, C, boards 1-3 (C plays board 1 and 2 only), 2 tables;
 * Club: one section, boards 1-2; Solo: sections X (board 1) and Y (board 2). */
static const char kSmall[] =
    HEADER
    "Club,2024-05-05,,1,1,C1,C2,100,\n"
    "Club,2024-05-05,,1,2,C3,C4,200,\n"
    "Club,2024-05-05,,2,1,C1,C4,-50,\n"
    "Club,2024-05-05,,2,2,C3,C2,-100,\n"
    "Cong,2024-05-04,A,1,1,A1,A2,420,\n"
    "Cong,2024-05-04,A,1,2,A3,A4,450,\n"
    "Cong,2024-05-04,A,2,1,A1,A4,-100,\n"
    "Cong,2024-05-04,A,2,2,A3,A2,110,\n"
    "Cong,2024-05-04,A,3,1,A1,A2,600,\n"
    "Cong,2024-05-04,B,1,1,B1,B2,-50,\n"
    "Cong,2024-05-04,B,1,2,B3,B4,420,\n"
    "Cong,2024-05-04,B,2,1,B1,B4,140,\n"
    "Cong,2024-05-04,B,2,2,B3,B2,,A+\n"
    "Cong,2024-05-04,B,3,5,B1,B2,630,\n"
    "Cong,2024-05-04,C,1,3,C5,C6,400,\n"
    "Cong,2024-05-04,C,2,3,C5,C6,170,\n"
    "Solo,2024-05-06,X,1,1,X1,X2,10,\n"
    "Solo,2024-05-06,Y,2,1,Y1,Y2,20,\n";

/* The tests run in a fresh temporary folder (io_test_util.h). */
static int setup(void **state)
{
    tu_enter_temp_dir(state);
    import_text("small", kSmall);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The merge, by hand                                                       */

static void test_merge_by_hand(void **state)
{
    (void)state;
    datum_ctx *ctx = new_ctx(1);
    datum_archive *a;
    datum_chunk_reader *r;
    datum_across *x;
    assert_int_equal(datum_archive_open(ctx, "small.h5", &a), DATUM_OK);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 1 << 20, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_set_whole_events(r, 1), DATUM_OK);
    assert_int_equal(datum_across_create(ctx, a, &x), DATUM_OK);
    datum_chunk c, m;
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    /* Fields: Club 1, 2 (0, 1); Cong A 1-3 (2-4), B 1-3 (5-7), C 1-2 (8, 9);
     * Solo X 1 (10), Y 2 (11). */
    assert_int_equal(c.n_fields, 12);
    assert_int_equal(datum_across_merge(x, &c, DATUM_COL_ALL & ~DATUM_COL_DATE, &m), DATUM_OK);
    assert_null(m.date); /* not asked for */
    /* Merged, in the order of their first fields: Club 1, Club 2, Cong 1
     * {2,5,8}, Cong 2 {3,6,9}, Cong 3 {4,7}, Solo 1, Solo 2. */
    static const size_t kFieldOf[12] = {0, 1, 2, 3, 4, 2, 3, 4, 2, 3, 5, 6};
    for (size_t f = 0; f < 12; f++) assert_int_equal(datum_across_field_of(x, f), kFieldOf[f]);
    const uint32_t *members;
    assert_int_equal(datum_across_members(x, 2, &members), 3);
    assert_int_equal(members[0], 2);
    assert_int_equal(members[1], 5);
    assert_int_equal(members[2], 8);
    assert_int_equal(m.n_fields, 7);
    static const uint64_t kOffset[8] = {0, 2, 4, 9, 14, 16, 17, 18};
    assert_memory_equal(m.offset, kOffset, sizeof kOffset);
    /* Rows by section, then table; the adjusted row keeps its flag. */
    static const int32_t kScore[18] = {100, 200, -50, -100, 420, 450, -50, 420, 400,
                                       -100, 110, 140, 0, 170, 600, 630, 10, 20};
    static const int32_t kTable[18] = {1, 2, 1, 2, 1, 2, 1, 2, 3, 1, 2, 1, 2, 3, 1, 5, 1, 1};
    assert_memory_equal(m.ns_score, kScore, sizeof kScore);
    assert_memory_equal(m.table, kTable, sizeof kTable);
    assert_int_equal(m.adjusted[12], DATUM_ADJ_AP);
    assert_int_equal(m.adjusted[11], DATUM_ADJ_NONE);
    assert_string_equal(datum_archive_pair(a, (uint32_t)m.ns_pair[8]), "C5");
    assert_string_equal(datum_archive_section(a, m.field_section[2]), "A");
    assert_int_equal(m.field_board[4], 3);
    assert_null(m.field_deal_set); /* a CSV import records none */
    /* Back to archive order: row and field values. */
    double v[18], f[12];
    for (int i = 0; i < 18; i++) v[i] = m.ns_score[i];
    datum_across_unmerge_rows(x, v, sizeof *v);
    for (int i = 0; i < 18; i++) assert_true(v[i] == c.ns_score[i]);
    for (int g = 0; g < 7; g++) f[g] = g;
    datum_across_unmerge_fields(x, f);
    for (int i = 0; i < 12; i++) assert_true(f[i] == (double)kFieldOf[i]);
    uint64_t read, scored;
    datum_across_counts(x, &read, &scored);
    assert_int_equal(read, 12);
    assert_int_equal(scored, 7);
    datum_across_free(&x);
    assert_null(x);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
}

/* ------------------------------------------------------------------------ */
/* A pass across sections against the same rows as one section              */

/* Random events of 1-4 sections of 1-5 tables on 1-4 boards (a section
 * may miss a board), some adjusted rows; as written (text), and with every
 * section of an event folded into one, the tables numbered on after each
 * other (folded): the rows of a merged field, in the same order. */
static void random_csvs(test_rng *rng, char **text, char **folded)
{
    size_t cap = 1 << 20, n = 0, k = 0;
    *text = calloc(cap, 1);
    *folded = calloc(cap, 1);
    n += (size_t)snprintf(*text + n, cap - n, HEADER);
    k += (size_t)snprintf(*folded + k, cap - k, HEADER);
    for (int e = 0; e < 12; e++) {
        int sections = (int)test_rng_range(rng, 1, 4), boards = (int)test_rng_range(rng, 1, 4);
        for (int s = 0; s < sections; s++) {
            int tables = (int)test_rng_range(rng, 1, 5);
            for (int b = 1; b <= boards; b++) {
                if (sections > 1 && test_rng_range(rng, 0, 9) == 0) continue;
                for (int t = 1; t <= tables; t++) {
                    int adjusted = test_rng_range(rng, 0, 19) == 0;
                    char score[16] = "";
                    if (!adjusted) snprintf(score, sizeof score, "%d", (int)test_rng_score(rng));
                    const char *rest = adjusted ? "A-" : "";
                    int ns = t, ew = tables + 1 + (t + b) % tables;
                    n += (size_t)snprintf(*text + n, cap - n,
                                          "E%d,2024-06-%02d,S%d,%d,%d,E%dS%dP%d,E%dS%dP%d,%s,%s\n",
                                          e, 1 + e, s, b, t, e, s, ns, e, s, ew, score, rest);
                    k += (size_t)snprintf(*folded + k, cap - k,
                                          "E%d,2024-06-%02d,,%d,%d,E%dS%dP%d,E%dS%dP%d,%s,%s\n",
                                          e, 1 + e, b, 10 * s + t, e, s, ns, e, s, ew, score,
                                          rest);
                }
            }
        }
    }
}

typedef struct {
    double *imps[3], *raw[3];
    int64_t *boards[3];
    uint32_t n_pairs;
} totals;

/* Butler (nbb), cross (mean) and barking over archive NAME.h5 in one pass,
 * across sections or not, into *t and OUT_{butler,cross,barking}_{results,
 * pairs}.csv when out is not NULL. */
static void run_pass(const char *name, int across, int threads, size_t chunk_rows,
                     const char *out, totals *t)
{
    static const char *const kKind[3] = {"butler", "cross", "barking"};
    static int (*const add[3])(datum_pass *, const datum_method *, const datum_pass_outputs *,
                               int *) = {datum_pass_add_butler, datum_pass_add_cross,
                                         datum_pass_add_barking};
    datum_ctx *ctx = new_ctx(threads);
    datum_pass *pass;
    char path[64], files[3][2][256];
    int id[3];
    snprintf(path, sizeof path, "%s.h5", name);
    assert_int_equal(datum_pass_create(ctx, path, &pass), DATUM_OK);
    assert_int_equal(datum_pass_set_chunk_rows(pass, chunk_rows), DATUM_OK);
    assert_int_equal(datum_pass_set_across_sections(pass, across), DATUM_OK);
    for (int k = 0; k < 3; k++) {
        datum_method m;
        assert_int_equal(datum_method_init(&m, k == 0 ? "nbb" : "mean"), DATUM_OK);
        datum_pass_outputs o = DATUM_PASS_OUTPUTS_INIT;
        if (out) {
            for (int j = 0; j < 2; j++) {
                char file[64];
                snprintf(file, sizeof file, "%s_%s_%s.csv", out, kKind[k], j ? "pairs" : "results");
                snprintf(files[k][j], sizeof files[k][j], "%s", file);
            }
            o.results_csv = files[k][0];
            o.pairs_csv = files[k][1];
        }
        assert_int_equal(add[k](pass, &m, &o, &id[k]), DATUM_OK);
    }
    if (datum_pass_run(pass) != DATUM_OK) fail_msg("%s: %s", name, datum_ctx_message(ctx));
    for (int k = 0; k < 3; k++) {
        datum_pair_totals p;
        assert_int_equal(datum_pass_totals(pass, id[k], &p), DATUM_OK);
        t->n_pairs = p.n_pairs;
        t->imps[k] = malloc(p.n_pairs * sizeof(double));
        t->raw[k] = calloc(p.n_pairs, sizeof(double));
        t->boards[k] = malloc(p.n_pairs * sizeof(int64_t));
        memcpy(t->imps[k], p.imps, p.n_pairs * sizeof(double));
        if (p.raw) memcpy(t->raw[k], p.raw, p.n_pairs * sizeof(double));
        memcpy(t->boards[k], p.boards, p.n_pairs * sizeof(int64_t));
    }
    datum_pass_free(&pass);
    datum_ctx_free(&ctx);
}

static void totals_free(totals *t)
{
    for (int k = 0; k < 3; k++) free(t->imps[k]), free(t->raw[k]), free(t->boards[k]);
}

static void assert_same_totals(const totals *x, const totals *y)
{
    assert_int_equal(x->n_pairs, y->n_pairs);
    for (int k = 0; k < 3; k++) {
        assert_memory_equal(x->boards[k], y->boards[k], x->n_pairs * sizeof(int64_t));
        assert_memory_equal(x->imps[k], y->imps[k], x->n_pairs * sizeof(double));
        assert_memory_equal(x->raw[k], y->raw[k], x->n_pairs * sizeof(double));
    }
}

static void assert_same_files(const char *a, const char *b)
{
    static const char *const kFiles[] = {"butler_results", "butler_pairs", "cross_results",
                                         "cross_pairs", "barking_results", "barking_pairs"};
    for (size_t i = 0; i < sizeof kFiles / sizeof *kFiles; i++) {
        char fa[64], fb[64];
        snprintf(fa, sizeof fa, "%s_%s.csv", a, kFiles[i]);
        snprintf(fb, sizeof fb, "%s_%s.csv", b, kFiles[i]);
        char *sa = slurp(fa), *sb = slurp(fb);
        assert_true(strlen(sa) > 100);
        assert_string_equal(sa, sb);
        free(sa);
        free(sb);
    }
}

static void test_pass_equals_folded(void **state)
{
    (void)state;
    test_rng rng = test_rng_seeded("test_pass_equals_folded", 20240604);
    char *text, *folded;
    random_csvs(&rng, &text, &folded);
    import_text("random", text);
    import_text("folded", folded);
    free(text);
    free(folded);
    totals across, plain;
    run_pass("random", 1, 1, 1 << 20, "across", &across);
    run_pass("folded", 0, 1, 1 << 20, NULL, &plain);
    /* The same pairs (the dictionaries match); every board counted; Butler
     * and raw cross-IMPs are sums of integers: exact; the averages are
     * summed in another order: to rounding. */
    assert_int_equal(across.n_pairs, plain.n_pairs);
    for (int k = 0; k < 3; k++) {
        assert_memory_equal(across.boards[k], plain.boards[k], across.n_pairs * sizeof(int64_t));
        for (uint32_t p = 0; p < across.n_pairs; p++) {
            double a = across.imps[k][p], b = plain.imps[k][p];
            if (k == 0) assert_true(a == b);
            else if (fabs(a - b) > 1e-9 * (1 + fabs(b))) fail_msg("method %d pair %u: %.17g %.17g", k, p, a, b);
            assert_true(across.raw[k][p] == plain.raw[k][p]);
        }
    }
    /* Not the same as scoring each section alone: the comparison can fail. */
    totals alone;
    run_pass("random", 0, 1, 1 << 20, NULL, &alone);
    assert_memory_not_equal(alone.imps[0], across.imps[0], across.n_pairs * sizeof(double));
    totals_free(&alone);

    /* Any chunk size, any thread count: the same bits. */
    static const size_t kChunks[] = {1, 7, 40};
    for (size_t i = 0; i < sizeof kChunks / sizeof *kChunks; i++) {
        totals other;
        char out[16];
        snprintf(out, sizeof out, "chunk%zu", i);
        run_pass("random", 1, 2, kChunks[i], out, &other);
        assert_same_totals(&across, &other);
        assert_same_files("across", out);
        totals_free(&other);
    }
    totals_free(&across);
    totals_free(&plain);
}

/* One section per event: the option changes no figure. */
static void test_one_section_unchanged(void **state)
{
    (void)state;
    import_text("club", HEADER "Club,2024-05-05,,1,1,C1,C2,100,\nClub,2024-05-05,,1,2,C3,C4,200,\n"
                               "Club,2024-05-05,,1,3,C5,C6,,A\nClub,2024-05-05,,2,1,C1,C4,-50,\n"
                               "Club,2024-05-05,,2,2,C3,C6,-100,\nClub,2024-05-05,,2,3,C5,C2,90,\n"
                               "Cup,2024-05-06,B,1,1,C1,C2,430,\nCup,2024-05-06,B,1,2,C3,C4,400,\n"
                               "Cup,2024-05-06,B,1,3,C5,C6,-100,\n");
    totals across, plain;
    run_pass("club", 1, 1, 1 << 20, "club_across", &across);
    run_pass("club", 0, 1, 1 << 20, "club_plain", &plain);
    assert_same_totals(&across, &plain);
    static const char *const kPairs[] = {"butler_pairs", "cross_pairs", "barking_pairs"};
    for (int i = 0; i < 3; i++) {
        char fa[64], fb[64];
        snprintf(fa, sizeof fa, "club_across_%s.csv", kPairs[i]);
        snprintf(fb, sizeof fb, "club_plain_%s.csv", kPairs[i]);
        char *sa = slurp(fa), *sb = slurp(fb);
        assert_string_equal(sa, sb);
        free(sa);
        free(sb);
    }
    /* The results: each line as before, plus its field's one section. */
    char *sa = slurp("club_across_butler_results.csv");
    char *sb = slurp("club_plain_butler_results.csv");
    char *a = sa, *b = sb;
    for (int line = 0; *b; line++) {
        char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        const char *extra = line == 0 ? ",field_sections" : line < 7 ? "," : ",B";
        assert_int_equal(ea - a, eb - b + (long)strlen(extra));
        assert_memory_equal(a, b, (size_t)(eb - b));
        assert_memory_equal(a + (eb - b), extra, strlen(extra));
        a = ea + 1;
        b = eb + 1;
    }
    assert_int_equal(*a, '\0');
    free(sa);
    free(sb);
    totals_free(&across);
    totals_free(&plain);
}

/* ------------------------------------------------------------------------ */
/* Refusals                                                                 */

static void test_refusals(void **state)
{
    (void)state;
    import_text("twice", HEADER "Cup,2024-05-06,A,1,1,P1,P2,430,\nCup,2024-05-06,A,1,2,P3,P4,400,\n"
                                "Cup,2024-05-06,B,1,1,P5,P3,420,\n");
    datum_ctx *ctx = new_ctx(1);
    datum_pass *pass;
    datum_method m;
    int id;
    uint64_t read, scored;
    assert_int_equal(datum_method_init(&m, "mean"), DATUM_OK);
    assert_int_equal(datum_pass_create(ctx, "twice.h5", &pass), DATUM_OK);
    assert_int_equal(datum_pass_across_counts(pass, &read, &scored), DATUM_E_ARG);
    datum_ctx_clear(ctx);
    assert_int_equal(datum_pass_set_across_sections(pass, 1), DATUM_OK);
    assert_int_equal(datum_pass_add_butler(pass, &m, NULL, &id), DATUM_OK);
    assert_int_equal(datum_pass_run(pass), DATUM_E_INPUT);
    assert_string_equal(datum_ctx_message(ctx),
                        "Cup, board 1: pair \"P3\" plays in section \"A\" and in section \"B\" "
                        "(across sections, a pair plays a board once: are pair names unique in "
                        "the event?)");
    assert_int_equal(datum_pass_set_across_sections(pass, 0), DATUM_E_ARG);
    datum_pass_free(&pass);
    /* Teams matches are not merged, whichever comes first. */
    char teams[512];
    snprintf(teams, sizeof teams, "%s/datasets/seeds/barking-one-match.csv", DATUM_SOURCE_DIR);
    const char *paths[] = {teams};
    assert_int_equal(datum_import_csv(ctx, paths, 1, "match.h5", NULL), DATUM_OK);
    assert_int_equal(datum_pass_create(ctx, "match.h5", &pass), DATUM_OK);
    assert_int_equal(datum_pass_set_across_sections(pass, 1), DATUM_OK);
    assert_int_equal(datum_pass_add_teams(pass, &m, NULL, NULL, NULL, &id), DATUM_E_ARG);
    assert_int_equal(datum_pass_set_across_sections(pass, 0), DATUM_OK);
    assert_int_equal(datum_pass_add_teams(pass, &m, NULL, NULL, NULL, &id), DATUM_OK);
    assert_int_equal(datum_pass_set_across_sections(pass, 1), DATUM_E_ARG);
    datum_pass_free(&pass);
    datum_ctx_free(&ctx);
}

/* ------------------------------------------------------------------------ */
/* Allocation failures                                                      */

static int across_scenario(datum_ctx *ctx, void *user)
{
    (void)user;
    datum_pass *pass = NULL;
    datum_method m;
    datum_pass_outputs o = DATUM_PASS_OUTPUTS_INIT;
    o.h5 = "out/loop.h5";
    o.results_csv = "out/loop.csv";
    int id;
    uint64_t read, scored;
    int rc = datum_method_init(&m, "nbb");
    if (rc >= 0) rc = datum_pass_create(ctx, "small.h5", &pass);
    if (rc >= 0) rc = datum_pass_set_chunk_rows(pass, 5);
    if (rc >= 0) rc = datum_pass_set_across_sections(pass, 1);
    if (rc >= 0) rc = datum_pass_add_butler(pass, &m, &o, &id);
    if (rc >= 0) rc = datum_pass_add_cross(pass, &m, NULL, &id);
    if (rc >= 0) rc = datum_pass_run(pass);
    if (rc >= 0) rc = datum_pass_across_counts(pass, &read, &scored);
    datum_pass_free(&pass);
    unlink(o.h5);
    unlink(o.results_csv);
    return rc;
}

static void test_alloc_failures(void **state)
{
    (void)state;
    assert_int_equal(mkdir("out", 0700), 0);
    alloc_loop_run(across_scenario, NULL, 1, "out");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_by_hand),
        cmocka_unit_test(test_pass_equals_folded),
        cmocka_unit_test(test_one_section_unchanged),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, tu_leave_temp_dir);
}
