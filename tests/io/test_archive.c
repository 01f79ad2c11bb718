/* test_archive.c - opening what is not a good archive: a missing file, a
 * folder, text, a cut archive, a foreign HDF5 file, another format version,
 * datasets of the wrong length or with values out of range, a damaged
 * chunk. Each gives a clear error (never a crash, never an HDF5 stack). */
#include "io_test_util.h"
#include "io_internal.h"

#include <hdf5.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static datum_ctx *g_ctx;

static int setup(void **state)
{
    tu_enter_temp_dir(state);
    assert_int_equal(datum_ctx_create(&g_ctx), DATUM_OK);
    /* Three fields of 4 results on 12 pairs, compressed in chunks of 4. */
    const char *paths[] = {"r.csv"};
    datum_write_options opt = DATUM_WRITE_OPTIONS_INIT;
    opt.chunk_rows = 4;
    FILE *f = fopen("r.csv", "wb");
    assert_non_null(f);
    fprintf(f, "event,date,section,board,table,ns_pair,ew_pair,ns_score\n");
    for (int board = 1; board <= 3; board++)
        for (int table = 1; table <= 4; table++)
            fprintf(f, "E,2024-03-02,A,%d,%d,N%d,E%d,%d\n", board, table, table, table,
                    10 * table * board);
    fclose(f);
    assert_int_equal(datum_import_csv(g_ctx, paths, 1, "good.h5", &opt), DATUM_OK);
    return 0;
}

static int teardown(void **state)
{
    datum_ctx_free(&g_ctx);
    tu_leave_temp_dir(state);
    return 0;
}

static void copy_file(const char *from, const char *to, size_t max_bytes)
{
    size_t n;
    char *bytes = tu_read(from, &n);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    if (n > max_bytes) n = max_bytes;
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
    free(bytes);
}

/* Opening path fails with this code and message. */
static void expect_open_error(const char *path, int code, const char *message)
{
    datum_archive *a = NULL;
    assert_failure(g_ctx, datum_archive_open(g_ctx, path, &a), code, message);
    assert_null(a);
}

/* Opens path and reads it to the end; returns the first error (recorded). */
static int read_all(const char *path, size_t max_rows)
{
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_chunk c = {0};
    int rc = datum_archive_open(g_ctx, path, &a);
    if (rc == DATUM_OK) rc = datum_chunk_reader_create(g_ctx, a, DATUM_COL_ALL, max_rows, &r);
    while (rc == DATUM_OK) {
        rc = datum_chunk_reader_next(r, &c);
        if (c.n_fields == 0) break; /* the end, or an error */
    }
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    return rc;
}

/* Copies good.h5 to path and opens the copy for writing. */
static hid_t edit_copy(const char *path)
{
    copy_file("good.h5", path, SIZE_MAX);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    return f;
}

/* Replaces a dataset of the copy by `n` values of type `type`. */
static void replace_dataset(hid_t f, const char *path, hid_t type, const int64_t *values, hsize_t n)
{
    assert_true(H5Ldelete(f, path, H5P_DEFAULT) >= 0);
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t ds = H5Dcreate2(f, path, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_true(H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0);
    H5Dclose(ds);
    H5Sclose(space);
}

/* Sets (or adds, as int32) an integer root attribute. */
static void set_int_attr(hid_t f, const char *name, int64_t value)
{
    hid_t attr = H5I_INVALID_HID;
    if (H5Aexists(f, name) > 0) {
        attr = H5Aopen(f, name, H5P_DEFAULT);
    } else {
        hid_t space = H5Screate(H5S_SCALAR);
        attr = H5Acreate2(f, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
        H5Sclose(space);
    }
    assert_true(attr >= 0);
    assert_true(H5Awrite(attr, H5T_NATIVE_INT64, &value) >= 0);
    H5Aclose(attr);
}

static void test_good_archive(void **state)
{
    assert_int_equal(read_all("good.h5", 5), DATUM_OK);
    assert_int_equal(datum_ctx_code(g_ctx), DATUM_OK);
}

static void test_not_an_archive(void **state)
{
    expect_open_error("none.h5", DATUM_E_IO, "cannot open none.h5: No such file or directory");
    assert_int_equal(mkdir("folder.h5", 0777), 0);
    expect_open_error("folder.h5", DATUM_E_IO, "cannot open folder.h5: Is a directory");
    tu_write("notes.txt", "event,date\nthis is not HDF5\n");
    expect_open_error("notes.txt", DATUM_E_FORMAT, "notes.txt: not an HDF5 file (or damaged)");
    tu_write("empty.h5", "");
    expect_open_error("empty.h5", DATUM_E_FORMAT, "empty.h5: not an HDF5 file (or damaged)");

    /* A foreign HDF5 file, as any other program would write it. */
    hsize_t n = 3;
    int values[3] = {1, 2, 3};
    hid_t f = H5Fcreate("foreign.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t ds = H5Dcreate2(f, "x", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    H5Dclose(ds);
    H5Sclose(space);
    H5Fclose(f);
    expect_open_error("foreign.h5", DATUM_E_FORMAT, "foreign.h5: not a datum archive");
}

static void test_cut_archive(void **state)
{
    size_t size;
    free(tu_read("good.h5", &size));
    copy_file("good.h5", "half.h5", size / 2);
    datum_archive *a = NULL;
    int rc = datum_archive_open(g_ctx, "half.h5", &a);
    assert_int_equal(rc, DATUM_E_FORMAT);
    assert_null(a);
    assert_string_equal(datum_ctx_message(g_ctx), "half.h5: not an HDF5 file (or damaged)");
    datum_ctx_clear(g_ctx);
    /* Cut anywhere: an error or, past the data, a complete read; never a crash. */
    for (size_t cut = 0; cut < size; cut += size / 23 + 1) {
        copy_file("good.h5", "cut.h5", cut);
        rc = read_all("cut.h5", 5);
        assert_true(rc == DATUM_E_FORMAT || rc == DATUM_E_IO);
        assert_int_equal(strncmp(datum_ctx_message(g_ctx), "cut.h5: ", 8), 0);
        datum_ctx_clear(g_ctx);
    }
}

/* Opening a copy of the good archive whose integer attribute name is value
 * fails with DATUM_E_FORMAT and message. */
static void expect_attr_refused(const char *path, const char *name, int64_t value,
                                const char *message)
{
    hid_t f = edit_copy(path);
    set_int_attr(f, name, value);
    H5Fclose(f);
    expect_open_error(path, DATUM_E_FORMAT, message);
}

static void test_version_and_attributes(void **state)
{
    expect_attr_refused(
        "v2.h5", "format_version", 3,
        "v2.h5: archive format version 3 is not supported (this datum reads versions 1 to 2)");

    hid_t f = edit_copy("noversion.h5");
    assert_true(H5Adelete(f, "format_version") >= 0);
    H5Fclose(f);
    expect_open_error("noversion.h5", DATUM_E_FORMAT,
                      "noversion.h5: damaged archive: no format_version attribute");

    expect_attr_refused("count.h5", "n_results", 13,
                        "count.h5: damaged archive: results/table has 12 elements, expected 13");

    f = edit_copy("other.h5");
    assert_true(H5Adelete(f, "format") >= 0);
    hid_t space = H5Screate(H5S_SCALAR), type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, 12); /* a fixed-length string, as some writers make */
    hid_t attr = H5Acreate2(f, "format", type, space, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(H5Awrite(attr, type, "datum-output") >= 0);
    H5Aclose(attr);
    H5Tclose(type);
    H5Sclose(space);
    H5Fclose(f);
    expect_open_error("other.h5", DATUM_E_FORMAT,
                      "other.h5: not a datum archive (format \"datum-output\")");
}

static void test_bad_datasets(void **state)
{
    static const int64_t eleven[11] = {0}, offsets[4] = {0, 8, 4, 12}, start[4] = {1, 4, 8, 12};
    hid_t f = edit_copy("short.h5");
    replace_dataset(f, "results/ns_score", H5T_STD_I16LE, eleven, 11);
    H5Fclose(f);
    expect_open_error("short.h5", DATUM_E_FORMAT,
                      "short.h5: damaged archive: results/ns_score has 11 elements, expected 12");

    f = edit_copy("missing.h5");
    assert_true(H5Ldelete(f, "results/date", H5P_DEFAULT) >= 0);
    H5Fclose(f);
    expect_open_error("missing.h5", DATUM_E_FORMAT,
                      "missing.h5: damaged archive: results/date is missing");

    f = edit_copy("float.h5");
    assert_true(H5Ldelete(f, "fields/board", H5P_DEFAULT) >= 0);
    hsize_t n = 3;
    hid_t space = H5Screate_simple(1, &n, NULL);
    H5Dclose(H5Dcreate2(f, "fields/board", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT));
    H5Sclose(space);
    H5Fclose(f);
    expect_open_error("float.h5", DATUM_E_FORMAT,
                      "float.h5: damaged archive: fields/board is not a 1-D integer dataset");

    f = edit_copy("order.h5");
    replace_dataset(f, "fields/offset", H5T_STD_U8LE, offsets, 4);
    H5Fclose(f);
    expect_open_error("order.h5", DATUM_E_FORMAT,
                      "order.h5: damaged archive: fields/offset decreases at element 2");

    f = edit_copy("first.h5");
    replace_dataset(f, "fields/offset", H5T_STD_U8LE, start, 4);
    H5Fclose(f);
    expect_open_error("first.h5", DATUM_E_FORMAT,
                      "first.h5: damaged archive: fields/offset[0] is 1, not 0");

    /* has_published promises the published columns: reals, one per result. */
    expect_attr_refused("nopub.h5", "has_published", 1,
                        "nopub.h5: damaged archive: results/published_ns is missing");
    f = edit_copy("intpub.h5");
    set_int_attr(f, "has_published", 1);
    n = 12;
    space = H5Screate_simple(1, &n, NULL);
    H5Dclose(H5Dcreate2(f, "results/published_ns", H5T_STD_I8LE, space, H5P_DEFAULT,
                        H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(space);
    H5Fclose(f);
    expect_open_error("intpub.h5", DATUM_E_FORMAT,
                      "intpub.h5: damaged archive: results/published_ns is not a 1-D real dataset");
    expect_attr_refused("pub2.h5", "has_published", 2,
                        "pub2.h5: damaged archive: a summary attribute is out of range");
    /* Likewise has_published_percent, which an archive without percentages
     * lacks (it reads as 0). */
    expect_attr_refused("nopct.h5", "has_published_percent", 1,
                        "nopct.h5: damaged archive: results/published_ns_percent is missing");
    expect_attr_refused("pct2.h5", "has_published_percent", 2,
                        "pct2.h5: damaged archive: a summary attribute is out of range");
}

static void test_values_out_of_range(void **state)
{
    int64_t pairs[12] = {0}, boards[3] = {1, 0, 3}, events[3] = {0, 0, -1};
    pairs[9] = 8; /* there are 8 pairs: 0..7 */
    hid_t f = edit_copy("pair.h5");
    replace_dataset(f, "results/ns_pair", H5T_STD_U8LE, pairs, 12);
    H5Fclose(f);
    assert_failure(g_ctx, read_all("pair.h5", 5), DATUM_E_FORMAT,
                   "pair.h5: damaged archive: results/ns_pair[9] = 8 is out of range (0 to 7)");
    assert_failure(g_ctx, read_all("pair.h5", 100), DATUM_E_FORMAT,
                   "pair.h5: damaged archive: results/ns_pair[9] = 8 is out of range (0 to 7)");

    f = edit_copy("board.h5");
    replace_dataset(f, "fields/board", H5T_STD_I8LE, boards, 3);
    H5Fclose(f);
    assert_failure(
        g_ctx, read_all("board.h5", 100), DATUM_E_FORMAT,
        "board.h5: damaged archive: fields/board[1] = 0 is out of range (1 to 2147483647)");

    /* A negative index is not silently clipped to 0 by the type conversion. */
    f = edit_copy("event.h5");
    replace_dataset(f, "fields/event", H5T_STD_I8LE, events, 3);
    H5Fclose(f);
    assert_failure(g_ctx, read_all("event.h5", 100), DATUM_E_FORMAT,
                   "event.h5: damaged archive: cannot read fields/event, elements 0 to 2");
}

static void test_damaged_chunk(void **state)
{
    /* Overwrite the compressed bytes of the second chunk of ns_score. */
    hid_t f = H5Fopen("good.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5Dopen2(f, "results/ns_score", H5P_DEFAULT), space = H5Dget_space(ds);
    hsize_t offset = 0, size = 0;
    haddr_t addr = 0;
    unsigned mask = 0;
    assert_true(H5Dget_chunk_info(ds, space, 1, &offset, &mask, &addr, &size) >= 0);
    assert_int_equal(offset, 4);
    H5Sclose(space);
    H5Dclose(ds);
    H5Fclose(f);
    copy_file("good.h5", "chunk.h5", SIZE_MAX);
    FILE *fp = fopen("chunk.h5", "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, (long)addr, SEEK_SET), 0);
    for (hsize_t i = 0; i < size; i++) fputc(0xA5, fp);
    fclose(fp);
    assert_failure(g_ctx, read_all("chunk.h5", 4), DATUM_E_FORMAT,
                   "chunk.h5: damaged archive: cannot read results/ns_score, elements 4 to 7");
}

/* rdcc_nbytes of a dataset's chunk cache. */
static size_t cache_bytes(hid_t ds)
{
    hid_t dapl = H5Dget_access_plist(ds);
    size_t slots = 0, bytes = 0;
    double w0 = 0;
    assert_true(H5Pget_chunk_cache(dapl, &slots, &bytes, &w0) >= 0);
    H5Pclose(dapl);
    return bytes;
}

/* A chunk larger than HDF5's default 1 MiB cache gets a cache that holds it,
 * when created and when opened: without it every partial read or write
 * decompresses the whole chunk again (seconds instead of milliseconds). */
static void test_chunk_cache(void **state)
{
    datum_write_options opt = DATUM_WRITE_OPTIONS_INIT;
    io_dataset_desc big = {"big", "4 MiB chunks", NULL}, small = {"small", "64 KiB chunks", NULL};
    hid_t f = io_h5_create_file("cache.h5");
    hid_t ds = io_h5_create_dataset(f, &big, H5T_STD_I32LE, (uint64_t)1 << 21, &opt);
    assert_true(ds >= 0);
    assert_int_equal(cache_bytes(ds), (size_t)4 << 20);
    H5Dclose(ds);
    ds = io_h5_create_dataset(f, &small, H5T_STD_I32LE, (uint64_t)1 << 14, &opt);
    assert_int_equal(cache_bytes(ds), (size_t)1 << 20); /* HDF5's default serves */
    H5Dclose(ds);
    H5Fclose(f);
    f = io_h5_open_file("cache.h5");
    ds = io_h5_open_dataset(f, "big");
    assert_int_equal(cache_bytes(ds), (size_t)4 << 20);
    H5Dclose(ds);
    H5Fclose(f);
}

/* Large columns are widened and range-checked by several threads: the value
 * reported must still be the first one out of range. */
static void test_first_bad_value_in_a_large_column(void **state)
{
    enum { FIELDS = 40000 }; /* 80000 rows: past the parallel threshold */
    size_t cap = (size_t)FIELDS * 2 * 48 + 64, len = 0;
    char *csv = malloc(cap);
    len += (size_t)snprintf(csv + len, cap - len, "event,date,section,board,table,ns_pair,ew_pair,ns_score\n");
    for (int f = 0; f < FIELDS; f++)
        for (int t = 1; t <= 2; t++)
            len += (size_t)snprintf(csv + len, cap - len, "E,2024-03-02,A,%d,%d,P%d,Q%d,%d\n", f + 1, t,
                                    2 * (f % 500) + t, 2 * (f % 500) + t, 10 * (f % 7));
    tu_write("big.csv", csv);
    free(csv);
    const char *paths[] = {"big.csv"};
    assert_int_equal(datum_import_csv(g_ctx, paths, 1, "big.h5", NULL), DATUM_OK);
    /* Two pair indices beyond the dictionary of 2000 pairs (P1..P1000, Q1..Q1000),
     * the first at row 70001. */
    hid_t f = H5Fopen("big.h5", H5F_ACC_RDWR, H5P_DEFAULT), ds = H5Dopen2(f, "results/ns_pair", H5P_DEFAULT);
    hid_t space = H5Dget_space(ds);
    const int32_t huge = 30000;
    for (hsize_t row = 70001; row <= 75001; row += 5000) {
        hsize_t one = 1;
        hid_t mem = H5Screate_simple(1, &one, NULL);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, &row, NULL, &one, NULL);
        assert_true(H5Dwrite(ds, H5T_NATIVE_INT32, mem, space, H5P_DEFAULT, &huge) >= 0);
        H5Sclose(mem);
    }
    H5Sclose(space);
    H5Dclose(ds);
    H5Fclose(f);
    for (int threads = 1; threads <= 2; threads++) {
        datum_ctx_set_threads(g_ctx, threads);
        assert_failure(g_ctx, read_all("big.h5", (size_t)1 << 20), DATUM_E_FORMAT,
                       "big.h5: damaged archive: results/ns_pair[70001] = 30000 is out of range (0 to 1999)");
    }
    datum_ctx_set_threads(g_ctx, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_good_archive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_an_archive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cut_archive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version_and_attributes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_datasets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_values_out_of_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_chunk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_bad_value_in_a_large_column, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_cache, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
