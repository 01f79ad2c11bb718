/* test_import.c - CSV -> archive -> chunk reader round trips, the archive's
 * layout (sorted dictionaries, narrowest types, chunks and filters) and its
 * independence from the order of the input rows. */
#include "io_test_util.h"
#include "datum_io.h"

#include <hdf5.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* A generated tournament, in archive order                                 */

typedef struct {
    char event[16], section[4], ns[16], ew[16];
    int board, table, score, adjusted;
    int32_t date;
} trow;

#define MAX_ROWS 4000
static trow g_rows[MAX_ROWS];
static size_t g_n;

/* Events, sections, boards and tables in archive order: names in byte order,
 * numbers in numeric order. Fields have 1 to 6 tables; one row in ten is
 * adjusted; the two tables of a round may be played on different days. */
static void generate(test_rng *rng, int boards)
{
    static const char *const events[] = {"Club", "Zonal"}, *const sections[] = {"", "A", "B"};
    g_n = 0;
    for (int e = 0; e < 2; e++)
        for (int s = 0; s < 3; s++)
            for (int b = 1; b <= boards; b++) {
                int tables = 1 + (int)((b * 7 + e * 3 + s) % 6);
                for (int t = 1; t <= tables; t++) {
                    trow *r = &g_rows[g_n++];
                    assert_true(g_n <= MAX_ROWS);
                    snprintf(r->event, sizeof r->event, "%s", events[e]);
                    snprintf(r->section, sizeof r->section, "%s", sections[s]);
                    snprintf(r->ns, sizeof r->ns, "N%s%d", sections[s], t);
                    snprintf(r->ew, sizeof r->ew, "E%s%d", sections[s], (t + b) % tables + 1);
                    r->board = b;
                    r->table = t;
                    r->adjusted =
                        test_rng_range(rng, 0, 9) == 0 ? (int)test_rng_range(rng, 1, 8) : 0;
                    r->score = r->adjusted ? 0 : test_rng_score(rng);
                    r->date = 19784 + e * 40 + (b > boards / 2) + (t % 2); /* from 2024-03-02 */
                }
            }
}

static void format_date(int32_t days, char *buf, size_t size)
{
    /* Civil from days (H. Hinnant), for the test's own CSV writing. */
    int64_t z = days + 719468, era = z / 146097, doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9,
            y = yoe + era * 400 + (m <= 2);
    snprintf(buf, size, "%04d-%02d-%02d", (int)y, (int)m, (int)d);
}

/* Writes rows order[first..last) of g_rows as a CSV file. Adjusted rows
 * carry an empty score or, sometimes, one that must be ignored. */
static void write_csv(const char *path, const size_t *order, size_t first, size_t last,
                      int adjusted)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f, "event,date,section,board,table,ns_pair,ew_pair,ns_score%s\n",
            adjusted ? ",adjusted" : "");
    for (size_t i = first; i < last; i++) {
        const trow *r = &g_rows[order[i]];
        char date[48];
        format_date(r->date, date, sizeof date);
        fprintf(f, "%s,%s,%s,%d,%d,%s,%s,", r->event, date, r->section, r->board, r->table, r->ns,
                r->ew);
        if (!r->adjusted) fprintf(f, "%d", r->score);
        else if (r->table == 2) fprintf(f, "junk");
        if (adjusted) fprintf(f, ",%s", datum_adjusted_token(r->adjusted));
        fprintf(f, "\n");
    }
    assert_int_equal(fclose(f), 0);
}

static void shuffle(test_rng *rng, size_t *order, size_t n)
{
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)test_rng_range(rng, 0, (int64_t)i - 1), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

/* Imports g_rows, shuffled, from n_files files into path. */
static void import_shuffled(test_rng *rng, int n_files, const char *path,
                            const datum_write_options *opt)
{
    static size_t order[MAX_ROWS];
    char names[4][32];
    const char *paths[4];
    datum_ctx *ctx = NULL;
    shuffle(rng, order, g_n);
    for (int k = 0; k < n_files; k++) {
        snprintf(names[k], sizeof names[k], "in%d.csv", k);
        paths[k] = names[k];
        write_csv(names[k], order, g_n * (size_t)k / (size_t)n_files,
                  g_n * (size_t)(k + 1) / (size_t)n_files, 1);
    }
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    int rc = datum_import_csv(ctx, paths, (size_t)n_files, path, opt);
    if (rc != DATUM_OK) fail_msg("%s", datum_ctx_message(ctx));
    datum_ctx_free(&ctx);
}

/* ------------------------------------------------------------------------ */
/* Reading back                                                             */

/* Reads the whole archive in chunks of at most max_rows rows and compares
 * every column with g_rows. */
static void check_round_trip(const char *path, size_t max_rows)
{
    datum_ctx *ctx = NULL;
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_archive_info info;
    datum_chunk c;
    size_t row = 0, field = 0;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, path, &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_results, g_n);
    assert_int_equal(info.has_adjusted, 1);
    assert_int_equal(info.format_version, 1);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, max_rows, &r), DATUM_OK);
    for (;;) {
        assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
        if (c.n_fields == 0) break;
        assert_int_equal(c.first_field, field);
        assert_int_equal(c.first_row, row);
        assert_int_equal(c.offset[0], 0);
        assert_int_equal(c.offset[c.n_fields], c.n_rows);
        assert_true(c.n_rows <= max_rows || c.n_fields == 1); /* whole fields only */
        for (uint64_t f = 0; f < c.n_fields; f++, field++) {
            const trow *first = &g_rows[row];
            int32_t latest = first->date;
            assert_string_equal(datum_archive_event(a, c.field_event[f]), first->event);
            assert_string_equal(datum_archive_section(a, c.field_section[f]), first->section);
            assert_int_equal(c.field_board[f], first->board);
            for (uint64_t i = c.offset[f]; i < c.offset[f + 1]; i++, row++) {
                const trow *e = &g_rows[row];
                assert_string_equal(e->event, first->event); /* one field */
                assert_int_equal(e->board, first->board);
                assert_int_equal(c.table[i], e->table);
                assert_string_equal(datum_archive_pair(a, (uint32_t)c.ns_pair[i]), e->ns);
                assert_string_equal(datum_archive_pair(a, (uint32_t)c.ew_pair[i]), e->ew);
                assert_int_equal(c.ns_score[i], e->score);
                assert_int_equal(c.adjusted[i], e->adjusted);
                assert_int_equal(c.date[i], e->date);
                if (e->date > latest) latest = e->date;
            }
            assert_int_equal(c.field_date[f], latest);
        }
    }
    assert_int_equal(row, g_n);
    assert_int_equal(field, info.n_fields);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK); /* the end stays the end */
    assert_int_equal(c.n_fields, 0);
    datum_chunk_reader_free(&r);
    assert_null(r);
    datum_archive_close(&a);
    assert_null(a);
    datum_ctx_free(&ctx);
}

static void test_round_trip(void **state)
{
    test_rng rng = test_rng_seeded("test_round_trip", 20240302);
    generate(&rng, 20);
    import_shuffled(&rng, 1, "a.h5", NULL);
    static const size_t sizes[] = {1, 2, 5, 17, 100, (size_t)1 << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) check_round_trip("a.h5", sizes[k]);
    /* Uncompressed, with chunks smaller than the data. */
    datum_write_options opt = DATUM_WRITE_OPTIONS_INIT;
    opt.compress = 0;
    opt.chunk_rows = 7;
    import_shuffled(&rng, 3, "b.h5", &opt);
    check_round_trip("b.h5", 3);
    assert_int_equal(tu_count_files(), 5); /* 3 csv + 2 archives: no temporary file */
}

static void test_info_and_dictionaries(void **state)
{
    test_rng rng = test_rng_seeded("test_info_and_dictionaries", 7);
    datum_ctx *ctx = NULL;
    datum_archive *a = NULL;
    datum_archive_info info;
    generate(&rng, 6);
    import_shuffled(&rng, 2, "a.h5", NULL);
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, "a.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_events, 2);
    assert_int_equal(info.n_sections, 3);
    assert_int_equal(info.n_pairs, 36); /* N and E, 3 sections, tables 1..6 */
    assert_int_equal(info.first_date, 19784);
    assert_int_equal(info.last_date, 19784 + 40 + 2);
    assert_string_equal(datum_archive_event(a, 0), "Club");
    assert_string_equal(datum_archive_event(a, 1), "Zonal");
    assert_null(datum_archive_event(a, 2));
    assert_string_equal(datum_archive_section(a, 0), "");
    assert_string_equal(datum_archive_pair(a, 0), "E1");
    for (uint32_t i = 1; i < info.n_pairs; i++)
        assert_true(strcmp(datum_archive_pair(a, i - 1), datum_archive_pair(a, i)) < 0);
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
}

static void test_column_subsets(void **state)
{
    test_rng rng = test_rng_seeded("test_column_subsets", 11);
    datum_ctx *ctx = NULL;
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    const char *paths[] = {"plain.csv"};
    generate(&rng, 4);
    import_shuffled(&rng, 1, "a.h5", NULL);
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, "a.h5", &a), DATUM_OK);
    assert_int_equal(
        datum_chunk_reader_create(ctx, a, DATUM_COL_NS_SCORE | DATUM_COL_ADJUSTED, 10, &r),
        DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_non_null(c.ns_score);
    assert_non_null(c.adjusted);
    assert_non_null(c.field_board); /* the field columns come always */
    assert_null(c.table);
    assert_null(c.ns_pair);
    assert_null(c.ew_pair);
    assert_null(c.date);
    datum_chunk_reader_free(&r);
    assert_failure(ctx, datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 0, &r), DATUM_E_ARG,
                   "max_rows must be at least 1");
    assert_null(r);
    datum_chunk_reader_free(&r); /* accepts NULL */
    datum_archive_close(&a);
    datum_archive_close(&a);

    /* Without an adjusted column the archive has none, asked for or not. */
    tu_write("plain.csv", "event,date,section,board,table,ns_pair,ew_pair,ns_score\n"
                          "E,2024-03-02,A,1,1,P1,P2,420\n");
    assert_int_equal(datum_import_csv(ctx, paths, 1, "p.h5", NULL), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, "p.h5", &a), DATUM_OK);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 10, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_int_equal(c.n_rows, 1);
    assert_null(c.adjusted);
    assert_int_equal(c.ns_score[0], 420);
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    assert_int_equal(info.has_adjusted, 0);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
}

/* ------------------------------------------------------------------------ */
/* The layout, seen through HDF5                                            */

static const char *const kDatasets[] = {
    "dict/events",     "dict/sections",    "dict/pairs",       "fields/event",  "fields/section",
    "fields/board",    "fields/date",      "fields/offset",    "results/table", "results/ns_pair",
    "results/ew_pair", "results/ns_score", "results/adjusted", "results/date"};
#define N_DATASETS (sizeof kDatasets / sizeof *kDatasets)

/* The bytes of a dataset as stored (strings: their characters, NUL-separated). */
static char *dataset_bytes(hid_t file, const char *path, size_t *len)
{
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT), type = H5Dget_type(ds);
    hid_t mtype = H5Tget_native_type(type, H5T_DIR_DEFAULT), space = H5Dget_space(ds);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    size_t size = H5Tget_size(mtype);
    char *raw = calloc((size_t)n + 1, size), *out;
    assert_true(ds >= 0 && n >= 0 && raw);
    assert_true(H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) >= 0);
    if (H5Tis_variable_str(type) > 0) {
        char **s = (char **)raw;
        size_t total = 0;
        for (hssize_t i = 0; i < n; i++) total += strlen(s[i]) + 1;
        out = calloc(total + 1, 1);
        assert_non_null(out);
        *len = 0;
        for (hssize_t i = 0; i < n; i++) {
            memcpy(out + *len, s[i], strlen(s[i]) + 1);
            *len += strlen(s[i]) + 1;
            H5free_memory(s[i]);
        }
        free(raw);
    } else {
        out = raw;
        *len = (size_t)n * size;
    }
    H5Sclose(space);
    H5Tclose(mtype);
    H5Tclose(type);
    H5Dclose(ds);
    return out;
}

/* Every dataset of archives a and b has the same type and the same bytes. */
static void assert_same_archives(const char *path_a, const char *path_b)
{
    hid_t fa = H5Fopen(path_a, H5F_ACC_RDONLY, H5P_DEFAULT),
          fb = H5Fopen(path_b, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(fa >= 0 && fb >= 0);
    for (size_t k = 0; k < N_DATASETS; k++) {
        size_t la, lb;
        hid_t da = H5Dopen2(fa, kDatasets[k], H5P_DEFAULT),
              db = H5Dopen2(fb, kDatasets[k], H5P_DEFAULT);
        hid_t ta = H5Dget_type(da), tb = H5Dget_type(db);
        assert_true(H5Tequal(ta, tb) > 0);
        H5Tclose(ta);
        H5Tclose(tb);
        H5Dclose(da);
        H5Dclose(db);
        char *a = dataset_bytes(fa, kDatasets[k], &la), *b = dataset_bytes(fb, kDatasets[k], &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
        free(a);
        free(b);
    }
    H5Fclose(fa);
    H5Fclose(fb);
}

static void test_row_order_independence(void **state)
{
    test_rng rng = test_rng_seeded("test_row_order_independence", 99);
    generate(&rng, 15);
    import_shuffled(&rng, 1, "a.h5", NULL);
    import_shuffled(&rng, 3, "b.h5", NULL);
    assert_same_archives("a.h5", "b.h5");
}

/* Imports in.csv with a budget, threads and the size from which a CSV
 * file is read in parts; returns the number of runs spilled. */
static uint64_t import_with(const char *path, size_t memory, int threads, uint64_t split_bytes)
{
    const char *paths[] = {"in.csv"};
    datum_ctx *ctx = NULL;
    datum_import_options io = DATUM_IMPORT_OPTIONS_INIT;
    io.memory = memory;
    io.split_bytes = split_bytes;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
    int rc = datum_import(ctx, paths, 1, path, &io, NULL);
    if (rc != DATUM_OK) fail_msg("%s", datum_ctx_message(ctx));
    datum_ctx_free(&ctx);
    return io.n_runs;
}

/* The same rows give the same archive in one run or many (spilled to the
 * scratch file and merged), read by one thread or by two from parts of the
 * file; and nothing is left beside the archive. */
static void test_runs_and_threads(void **state)
{
    static size_t order[MAX_ROWS];
    test_rng rng = test_rng_seeded("test_runs_and_threads", 7);
    generate(&rng, 150);
    shuffle(&rng, order, g_n);
    write_csv("in.csv", order, 0, g_n, 1);
    assert_int_equal(import_with("a.h5", 0, 1, 0), 0);
    assert_true(g_n * 120 > 4 * DATUM_IMPORT_MEMORY_MIN); /* so that the least budget makes runs */
    assert_true(import_with("b.h5", DATUM_IMPORT_MEMORY_MIN, 1, 0) >= 4);
    assert_true(import_with("c.h5", DATUM_IMPORT_MEMORY_MIN, 2, 1000) >= 4);
    assert_int_equal(import_with("d.h5", 0, 2, 1000), 0);
    assert_same_archives("a.h5", "b.h5");
    assert_same_archives("a.h5", "c.h5");
    assert_same_archives("a.h5", "d.h5");
    assert_int_equal(tu_count_files(), 5); /* in.csv and 4 archives: no scratch file left */
    check_round_trip("c.h5", 1000);
}

/* A file read in parts whose line feeds lie inside quoted fields too (an
 * event name on two lines; another with a comma): a cut that falls inside a
 * quoted field is found (the part before it reads past its end) and the
 * file read whole again, so 1 and 2 threads give the same archive; an error
 * names its physical line (the line breaks inside quotes counted). */
static void test_cuts_in_quoted_fields(void **state)
{
    (void)state;
    const char *paths[] = {"q.csv"};
    for (int bad = 0; bad < 2; bad++) {
        FILE *f = fopen("q.csv", "w");
        assert_non_null(f);
        fputs("event,date,section,board,table,ns_pair,ew_pair,ns_score,adjusted\n", f);
        long line = 2, bad_line = 0;
        for (int i = 0; i < 3000; i++) {
            int e = i / 40, wrong = bad && i == 2500;
            if (wrong) bad_line = line;
            if (e % 3 == 0) fprintf(f, "\"Club\n%d\",", e);
            else if (e % 3 == 1) fprintf(f, "\"Club, %d\",", e);
            else fprintf(f, "Club %d,", e);
            fprintf(f, "2024-03-02,A,%d,%d,N%d,W%d,%s,%s\n", 1 + (i % 40) / 8, 1 + i % 8, i % 8,
                    i % 8, wrong ? "x" : "10", i % 97 == 0 ? "A+" : "");
            line += e % 3 == 0 ? 2 : 1;
        }
        assert_int_equal(fclose(f), 0);
        for (int threads = 1; threads <= 2; threads++) {
            datum_ctx *ctx = NULL;
            datum_import_options io = DATUM_IMPORT_OPTIONS_INIT;
            io.split_bytes = 700; /* 64 parts on 2 threads: some cuts inside quotes */
            assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
            assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
            int rc = datum_import(ctx, paths, 1, threads == 1 ? "a.h5" : "b.h5", &io, NULL);
            if (bad) {
                char expected[100];
                snprintf(expected, sizeof expected,
                         "q.csv:%ld: column ns_score: \"x\" is not an integer", bad_line);
                assert_int_equal(rc, DATUM_E_INPUT);
                assert_string_equal(datum_ctx_message(ctx), expected);
            } else if (rc != DATUM_OK) {
                fail_msg("%s", datum_ctx_message(ctx));
            }
            datum_ctx_free(&ctx);
        }
        if (!bad) assert_same_archives("a.h5", "b.h5");
    }
}

/* Two bad rows far apart in a file read by two threads in parts: the first
 * is reported, with its line, however the threads ran; a clash of two rows
 * in different runs names both lines, in input order. */
static void test_errors_in_parts_and_runs(void **state)
{
    const char *paths[] = {"bad.csv"};
    FILE *f = fopen("bad.csv", "w");
    assert_non_null(f);
    fputs("event,date,section,board,table,ns_pair,ew_pair,ns_score\n", f);
    for (int i = 0; i < 4000; i++)
        fprintf(f, "E,2024-03-02,A,%d,%d,N%d,W%d,%s\n", 1 + i / 40, 1 + i % 40, i % 40, i % 40,
                i == 3900 ? "x" : i == 10 ? "1.5" : "10");
    assert_int_equal(fclose(f), 0);
    for (int threads = 1; threads <= 2; threads++) {
        datum_ctx *ctx = NULL;
        datum_import_options io = DATUM_IMPORT_OPTIONS_INIT;
        io.split_bytes = 1000;
        assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
        assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
        assert_int_equal(datum_import(ctx, paths, 1, "x.h5", &io, NULL), DATUM_E_INPUT);
        assert_string_equal(datum_ctx_message(ctx),
                            "bad.csv:12: column ns_score: \"1.5\" is not an integer");
        datum_ctx_free(&ctx);
    }
    f = fopen("bad.csv", "w");
    assert_non_null(f);
    fputs("event,date,section,board,table,ns_pair,ew_pair,ns_score\n", f);
    for (int i = 0; i < 4000; i++) /* line 4002 repeats line 2's board 1 table 1 */
        fprintf(f, "E,2024-03-02,A,%d,%d,N%d,W%d,10\n", i == 3999 ? 1 : 1 + i / 40,
                i == 3999 ? 1 : 1 + i % 40, i % 40, i % 40);
    assert_int_equal(fclose(f), 0);
    datum_ctx *ctx = NULL;
    datum_import_options io = DATUM_IMPORT_OPTIONS_INIT;
    io.memory = DATUM_IMPORT_MEMORY_MIN;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_import(ctx, paths, 1, "x.h5", &io, NULL), DATUM_E_INPUT);
    assert_true(io.n_runs >= 2); /* the two rows were read into different runs */
    assert_non_null(strstr(datum_ctx_message(ctx), "bad.csv:4001: column table:"));
    assert_non_null(strstr(datum_ctx_message(ctx), "table 1 already appears at bad.csv:2"));
    datum_ctx_free(&ctx);
    assert_int_equal(tu_count_files(), 1); /* no archive, no scratch file */
}

/* A file in order but for two equal rows next to each other (event,
 * section, board and table): the later one is refused, naming the earlier,
 * whether the run is found in order or sorted. */
static void test_clash_in_ordered_run(void **state)
{
    (void)state;
    const char *paths[] = {"tie.csv"};
    for (int sorted = 0; sorted < 2; sorted++) {
        FILE *f = fopen("tie.csv", "w");
        assert_non_null(f);
        fputs("event,date,section,board,table,ns_pair,ew_pair,ns_score\n", f);
        if (sorted) fputs("E,2024-03-02,A,9,1,N9,W9,10\n", f); /* out of order: a sort */
        for (int i = 0; i < 100; i++) /* line 53 (54) repeats board 2 table 11 */
            fprintf(f, "E,2024-03-02,A,%d,%d,N%d,W%d,10\n", 1 + (i - (i > 50)) / 40,
                    1 + (i - (i > 50)) % 40, i, i);
        assert_int_equal(fclose(f), 0);
        datum_ctx *ctx = NULL;
        assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
        assert_int_equal(datum_import(ctx, paths, 1, "x.h5", NULL, NULL), DATUM_E_INPUT);
        char expected[160];
        snprintf(expected, sizeof expected,
                 "tie.csv:%d: column table: event \"E\" section \"A\" board 2 table 11 already "
                 "appears at tie.csv:%d",
                 53 + sorted, 52 + sorted);
        assert_string_equal(datum_ctx_message(ctx), expected);
        datum_ctx_free(&ctx);
    }
    assert_int_equal(tu_count_files(), 1); /* no archive, no scratch file */
}

/* A file of many fields (several segments of the merge: about 64 K rows
 * each), written sorted or in a scattered order: 200 events of 2 sections,
 * 24 boards and 16 tables (153,600 rows); bad: a pair given twice in one
 * field of event E0005 (lines 2 and 3 of the sorted file) and of E0190. */
enum { MANY_EVENTS = 200, MANY_ROWS = MANY_EVENTS * 2 * 24 * 16 };
static void write_many(const char *path, int scattered, int bad)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("event,date,section,board,table,ns_pair,ew_pair,ns_score,adjusted\n", f);
    for (long i = 0; i < MANY_ROWS; i++) {
        long k = scattered ? (i * 40009) % MANY_ROWS : i; /* 40009 is prime to MANY_ROWS */
        int table = 1 + (int)(k % 16), board = 1 + (int)(k / 16 % 24), section = (int)(k / 384 % 2),
            event = (int)(k / 768);
        int twice = bad && table == 2 && board == 1 && section == 0 && (event == 5 || event == 190);
        fprintf(f, "E%04d,2024-03-02,%c,%d,%d,N%d,W%d,%d,\n", event, "AB"[section], board, table,
                twice ? 1 : table, table, (int)(k % 13) * 10 - 60);
    }
    assert_int_equal(fclose(f), 0);
}

/* The merge cut in segments merged by any thread: the same archive from
 * rows in order or scattered, in one run or many, on 1 or 2 threads; and
 * the first bad field in the archive's order is the one reported, however
 * the threads ran. */
static void test_segments(void **state)
{
    (void)state;
    const char *sorted[] = {"sorted.csv"}, *scattered[] = {"scattered.csv"};
    write_many("sorted.csv", 0, 0);
    write_many("scattered.csv", 1, 0);
    struct {
        const char *const *in;
        size_t memory;
        int threads;
        uint64_t split;
        const char *out;
    } runs[] = {{sorted, 0, 1, 0, "a.h5"},           {sorted, 0, 2, 1000, "b.h5"},
                {scattered, 0, 2, 1000, "c.h5"},     {scattered, 2 << 20, 1, 0, "d.h5"},
                {scattered, 2 << 20, 2, 1000, "e.h5"}, {sorted, 2 << 20, 2, 1000, "f.h5"}};
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        datum_ctx *ctx = NULL;
        datum_import_options io = DATUM_IMPORT_OPTIONS_INIT;
        io.memory = runs[i].memory;
        io.split_bytes = runs[i].split;
        assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
        assert_int_equal(datum_ctx_set_threads(ctx, runs[i].threads), DATUM_OK);
        int rc = datum_import(ctx, runs[i].in, 1, runs[i].out, &io, NULL);
        if (rc != DATUM_OK) fail_msg("%s", datum_ctx_message(ctx));
        assert_true((io.n_runs > 2) == (runs[i].memory != 0)); /* 2 MiB: spilled in runs */
        datum_ctx_free(&ctx);
        if (i > 0) assert_same_archives("a.h5", runs[i].out);
    }
    datum_ctx *actx = NULL;
    datum_archive *a = NULL;
    datum_archive_info info;
    assert_int_equal(datum_ctx_create(&actx), DATUM_OK);
    assert_int_equal(datum_archive_open(actx, "a.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.n_results, MANY_ROWS);
    assert_int_equal(info.n_fields, MANY_ROWS / 16);
    datum_archive_close(&a);
    datum_ctx_free(&actx);
    write_many("sorted.csv", 0, 1);
    write_many("scattered.csv", 1, 1);
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        datum_ctx *ctx = NULL;
        datum_import_options io = DATUM_IMPORT_OPTIONS_INIT;
        io.memory = runs[i].memory;
        io.split_bytes = runs[i].split;
        assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
        assert_int_equal(datum_ctx_set_threads(ctx, runs[i].threads), DATUM_OK);
        assert_int_equal(datum_import(ctx, runs[i].in, 1, "x.h5", &io, NULL), DATUM_E_INPUT);
        /* Line of event 5, section A, board 1, table 1 and 2 (k = 3840, 3841). */
        long first = 2 + 3840, second = 2 + 3841;
        if (runs[i].in == scattered) { /* k = i * 40009 mod MANY_ROWS: i from k */
            for (long j = 0; j < MANY_ROWS; j++) {
                if ((j * 40009) % MANY_ROWS == 3840) first = 2 + j;
                if ((j * 40009) % MANY_ROWS == 3841) second = 2 + j;
            }
        }
        char expected[200];
        snprintf(expected, sizeof expected,
                 "%s:%ld: column ns_pair: pair \"N1\" already plays event \"E0005\" section \"A\" "
                 "board 1 at %s:%ld",
                 runs[i].in[0], first > second ? first : second, runs[i].in[0],
                 first > second ? second : first);
        assert_string_equal(datum_ctx_message(ctx), expected);
        datum_ctx_free(&ctx);
    }
}

/* The stored type of a dataset equals `expected`. */
static void assert_type(hid_t file, const char *path, hid_t expected)
{
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT), type = H5Dget_type(ds);
    assert_true(ds >= 0);
    if (H5Tequal(type, expected) <= 0)
        fail_msg("%s has another type (size %zu)", path, H5Tget_size(type));
    H5Tclose(type);
    H5Dclose(ds);
}

static void test_narrowest_types(void **state)
{
    test_rng rng = test_rng_seeded("test_narrowest_types", 5);
    generate(&rng, 20);
    import_shuffled(&rng, 1, "a.h5", NULL);
    hid_t f = H5Fopen("a.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_type(f, "fields/event", H5T_STD_U8LE);
    assert_type(f, "fields/section", H5T_STD_U8LE);
    assert_type(f, "fields/board", H5T_STD_U8LE);
    assert_type(f, "fields/date", H5T_STD_U16LE);
    assert_type(f, "fields/offset", H5T_STD_U16LE); /* more than 255 rows */
    assert_type(f, "results/table", H5T_STD_U8LE);
    assert_type(f, "results/ns_pair", H5T_STD_U8LE);
    assert_type(f, "results/ns_score", H5T_STD_I16LE);
    assert_type(f, "results/adjusted", H5T_STD_U8LE);
    assert_type(f, "results/date", H5T_STD_U16LE);
    H5Fclose(f);

    /* Small scores, dates before 1970, large boards; a large score. */
    datum_ctx *ctx = NULL;
    const char *paths[] = {"s.csv"};
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    tu_write("s.csv", "event,date,section,board,table,ns_pair,ew_pair,ns_score\n"
                      "E,1960-01-01,A,300,1,P1,P2,-100\n"
                      "E,1960-01-01,A,300,2,P3,P4,100\n");
    assert_int_equal(datum_import_csv(ctx, paths, 1, "s.h5", NULL), DATUM_OK);
    f = H5Fopen("s.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_type(f, "results/ns_score", H5T_STD_I8LE);
    assert_type(f, "results/date", H5T_STD_I16LE);
    assert_type(f, "fields/board", H5T_STD_U16LE);
    H5Fclose(f);
    tu_write("s.csv", "event,date,section,board,table,ns_pair,ew_pair,ns_score\n"
                      "E,2024-01-01,A,70000,1,P1,P2,1000000\n");
    assert_int_equal(datum_import_csv(ctx, paths, 1, "s.h5", NULL), DATUM_OK); /* replaces it */
    f = H5Fopen("s.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_type(f, "results/ns_score", H5T_STD_U32LE);
    assert_type(f, "fields/board", H5T_STD_U32LE);
    H5Fclose(f);
    datum_ctx_free(&ctx);
}

/* Number of filters and chunk length of a dataset (0 if contiguous). */
static void layout_of(hid_t file, const char *path, int *filters, hsize_t *chunk)
{
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT), dcpl = H5Dget_create_plist(ds);
    *filters = H5Pget_nfilters(dcpl);
    *chunk = 0;
    if (H5Pget_layout(dcpl) == H5D_CHUNKED) assert_int_equal(H5Pget_chunk(dcpl, 1, chunk), 1);
    H5Pclose(dcpl);
    H5Dclose(ds);
}

/* A string attribute of an object. */
static void assert_str_attr(hid_t obj, const char *name, const char *expected)
{
    hid_t attr = H5Aopen(obj, name, H5P_DEFAULT), type = H5Aget_type(attr);
    char *s = NULL;
    assert_true(attr >= 0 && H5Tis_variable_str(type) > 0 && H5Tget_cset(type) == H5T_CSET_UTF8);
    assert_true(H5Aread(attr, type, &s) >= 0);
    if (expected) assert_string_equal(s, expected);
    H5free_memory(s);
    H5Tclose(type);
    H5Aclose(attr);
}

static void test_layout_and_attributes(void **state)
{
    test_rng rng = test_rng_seeded("test_layout_and_attributes", 3);
    datum_write_options opt = DATUM_WRITE_OPTIONS_INIT;
    int filters;
    hsize_t chunk;
    generate(&rng, 20);
    opt.chunk_rows = 100;
    import_shuffled(&rng, 1, "z.h5", &opt);
    opt.compress = 0;
    import_shuffled(&rng, 1, "u.h5", &opt);

    hid_t z = H5Fopen("z.h5", H5F_ACC_RDONLY, H5P_DEFAULT),
          u = H5Fopen("u.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    layout_of(z, "results/ns_score", &filters, &chunk);
    assert_int_equal(filters, 1); /* deflate alone: scores recur whole (layout.c) */
    assert_int_equal(chunk, 100);
    layout_of(z, "results/ns_pair", &filters, &chunk);
    assert_int_equal(filters, 1);
    layout_of(z, "results/date", &filters, &chunk);
    assert_int_equal(filters, 2); /* shuffle, deflate: runs of one date */
    layout_of(z, "fields/event", &filters, &chunk);
    assert_int_equal(chunk, 100);
    layout_of(u, "results/ns_score", &filters, &chunk);
    assert_int_equal(filters, 0);
    assert_int_equal(chunk, 100);
    layout_of(z, "dict/events", &filters, &chunk);
    assert_int_equal(chunk, 0); /* the dictionaries are contiguous */

    assert_str_attr(z, "format", "datum-archive");
    assert_str_attr(z, "engine_version", datum_version());
    assert_str_attr(z, "created", NULL);
    int64_t version = 0, n_results = 0;
    hid_t attr = H5Aopen(z, "format_version", H5P_DEFAULT);
    assert_true(H5Aread(attr, H5T_NATIVE_INT64, &version) >= 0);
    H5Aclose(attr);
    assert_int_equal(version, 1);
    attr = H5Aopen(z, "n_results", H5P_DEFAULT);
    assert_true(H5Aread(attr, H5T_NATIVE_INT64, &n_results) >= 0);
    H5Aclose(attr);
    assert_int_equal(n_results, g_n);
    for (size_t k = 0; k < N_DATASETS; k++) {
        hid_t ds = H5Dopen2(z, kDatasets[k], H5P_DEFAULT);
        assert_str_attr(ds, "description", NULL);
        if (strstr(kDatasets[k], "date")) assert_str_attr(ds, "units", "days since 1970-01-01");
        H5Dclose(ds);
    }
    H5Fclose(z);
    H5Fclose(u);
    check_round_trip("u.h5", 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_temp_dir_test(test_round_trip),      tu_temp_dir_test(test_info_and_dictionaries),
        tu_temp_dir_test(test_column_subsets),  tu_temp_dir_test(test_row_order_independence),
        tu_temp_dir_test(test_runs_and_threads), tu_temp_dir_test(test_errors_in_parts_and_runs),
        tu_temp_dir_test(test_cuts_in_quoted_fields),
        tu_temp_dir_test(test_clash_in_ordered_run), tu_temp_dir_test(test_segments),
        tu_temp_dir_test(test_narrowest_types), tu_temp_dir_test(test_layout_and_attributes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
