/* test_output.c - the HDF5 output of a run: create, declare columns, write,
 * commit (renamed into place, self-describing) or abort (nothing left). */
#include "io_test_util.h"
#include "datum_io.h"
#include "huffman.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static datum_ctx *g_ctx;
static datum_archive *g_archive;

static int setup(void **state)
{
    const char *paths[] = {"r.csv"};
    tu_enter_temp_dir(state);
    assert_int_equal(datum_ctx_create(&g_ctx), DATUM_OK);
    tu_write("r.csv", "event,date,section,board,table,ns_pair,ew_pair,ns_score\n"
                      "E,2024-03-02,A,2,1,P1,P2,420\n"
                      "E,2024-03-02,A,2,2,P3,P4,-50\n"
                      "E,2024-03-02,A,1,1,P1,P2,100\n");
    assert_int_equal(datum_import_csv(g_ctx, paths, 1, "a.h5", NULL), DATUM_OK);
    assert_int_equal(datum_archive_open(g_ctx, "a.h5", &g_archive), DATUM_OK);
    return 0;
}

static int teardown(void **state)
{
    datum_archive_close(&g_archive);
    datum_ctx_free(&g_ctx);
    tu_leave_temp_dir(state);
    return 0;
}

static char *read_str_attr(hid_t obj, const char *name)
{
    hid_t attr = H5Aopen(obj, name, H5P_DEFAULT), type = H5Aget_type(attr);
    char *s = NULL, *copy;
    assert_true(attr >= 0 && H5Aread(attr, type, &s) >= 0);
    copy = strdup(s);
    H5free_memory(s);
    H5Tclose(type);
    H5Aclose(attr);
    return copy;
}

static void assert_str_attr(hid_t obj, const char *name, const char *expected)
{
    char *s = read_str_attr(obj, name);
    assert_string_equal(s, expected);
    free(s);
}

static void read_values(hid_t f, const char *path, hid_t memtype, void *out)
{
    hid_t ds = H5Dopen2(f, path, H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_true(H5Dread(ds, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
    H5Dclose(ds);
}

static void test_commit(void **state)
{
    const char *keys[] = {"method", "rule"}, *values[] = {"butler", "nbb"};
    datum_output *o = NULL;
    assert_int_equal(datum_output_create(g_ctx, "out.h5", g_archive, "datum score a.h5", keys,
                                         values, 2, NULL, &o),
                     DATUM_OK);
    assert_int_equal(tu_count_files(), 3); /* r.csv, a.h5 and the temporary file */
    assert_false(tu_exists("out.h5"));
    int datum = datum_output_add_column(o, "fields", "datum", 2, "datum per field");
    int terms = datum_output_add_int_column(o, "results", "terms", 3, "comparisons");
    int imps = datum_output_add_column(o, "pairs", "imps", 4, NULL);
    assert_int_equal(datum, 0);
    assert_int_equal(terms, 1);
    assert_int_equal(imps, 2);
    int none = datum_output_add_column(o, "pairs", "none", 0, "an empty column");
    assert_int_equal(none, 3);
    assert_int_equal(datum_output_write(o, none, 0, 0, NULL), DATUM_OK);
    const double d[2] = {100.0, NAN}, p[4] = {1.5, -1.5, 0.25, -0.25};
    const int64_t t[3] = {7, -1, INT64_MAX};
    assert_int_equal(datum_output_write(o, datum, 0, 1, d), DATUM_OK);
    assert_int_equal(datum_output_write(o, datum, 1, 1, d + 1), DATUM_OK);
    assert_int_equal(datum_output_write(o, terms, 0, 3, t), DATUM_OK);
    assert_int_equal(datum_output_write(o, imps, 0, 4, p), DATUM_OK);
    assert_int_equal(datum_output_commit(&o), DATUM_OK);
    assert_null(o);
    assert_int_equal(tu_count_files(), 3);

    hid_t f = H5Fopen("out.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_str_attr(f, "format", "datum-output");
    assert_str_attr(f, "engine_version", datum_version());
    assert_str_attr(f, "command", "datum score a.h5");
    assert_str_attr(f, "source", "a.h5");
    assert_str_attr(f, "method", "butler");
    assert_str_attr(f, "rule", "nbb");
    double dd[2], pp[4];
    int64_t tt[3], board[2];
    read_values(f, "fields/datum", H5T_NATIVE_DOUBLE, dd);
    read_values(f, "results/terms", H5T_NATIVE_INT64, tt);
    read_values(f, "pairs/imps", H5T_NATIVE_DOUBLE, pp);
    read_values(f, "fields/board", H5T_NATIVE_INT64, board);
    assert_true(dd[0] == 100.0 && isnan(dd[1]));
    assert_memory_equal(tt, t, sizeof t);
    assert_memory_equal(pp, p, sizeof p);
    assert_int_equal(board[0], 1);
    assert_int_equal(board[1], 2);
    char *pairs[4];
    hid_t pds = H5Dopen2(f, "dict/pairs", H5P_DEFAULT), ptype = H5Dget_type(pds);
    read_values(f, "dict/pairs", ptype, pairs);
    H5Tclose(ptype);
    H5Dclose(pds);
    for (uint32_t i = 0; i < 4; i++) {
        assert_string_equal(pairs[i], datum_archive_pair(g_archive, i));
        H5free_memory(pairs[i]);
    }
    hid_t ds = H5Dopen2(f, "fields/datum", H5P_DEFAULT);
    assert_str_attr(ds, "description", "datum per field");
    H5Dclose(ds);
    ds = H5Dopen2(f, "pairs/none", H5P_DEFAULT);
    hid_t space = H5Dget_space(ds);
    assert_int_equal(H5Sget_simple_extent_npoints(space), 0);
    H5Sclose(space);
    H5Dclose(ds);
    H5Fclose(f);
}

/* Sequential writes go through the parallel chunk codec (h5chunk.c) in
 * batches of whole chunks; an out-of-order write moves the column back to the
 * library's path. Either way HDF5 must read back exactly what was written,
 * compressed or not, with 1 or 2 threads. */
static void test_chunked_writes(void **state)
{
    enum { N = 1000 };
    static double v[N], w[N], back[N];
    for (int i = 0; i < N; i++) {
        v[i] = (double)(i % 49) - 24.0 + (i % 7 == 0 ? 0.5 : 0.0);
        w[i] = (double)(i % 49) - 24.0; /* integers: fit int8 */
    }
    for (int variant = 0; variant < 4; variant++) {
        datum_write_options opt = DATUM_WRITE_OPTIONS_INIT;
        opt.chunk_rows = 64; /* 15.6 chunks: a padded last chunk, several batches */
        opt.compress = variant % 2;
        datum_ctx_set_threads(g_ctx, 1 + variant / 2);
        datum_output *o = NULL;
        assert_int_equal(datum_output_create(g_ctx, "c.h5", g_archive, "t", NULL, NULL, 0, &opt, &o),
                         DATUM_OK);
        int seq = datum_output_add_column(o, "results", "sequential", N, NULL);
        int mixed = datum_output_add_column(o, "results", "mixed", N, NULL);
        int single = datum_output_add_stored_column(o, "results", "single", N, NULL, DATUM_STORE_F32);
        int single_mixed = datum_output_add_stored_column(o, "results", "single_mixed", N, NULL,
                                                          DATUM_STORE_F32);
        int tiny = datum_output_add_stored_column(o, "results", "tiny", N, NULL, DATUM_STORE_I8);
        for (int first = 0; first < N; first += 37) { /* pieces that straddle chunks */
            int count = first + 37 <= N ? 37 : N - first;
            assert_int_equal(datum_output_write(o, seq, (uint64_t)first, (uint64_t)count, v + first), DATUM_OK);
            assert_int_equal(datum_output_write(o, single, (uint64_t)first, (uint64_t)count, v + first), DATUM_OK);
            assert_int_equal(datum_output_write(o, tiny, (uint64_t)first, (uint64_t)count, w + first), DATUM_OK);
        }
        assert_int_equal(datum_output_write(o, mixed, 0, 300, v), DATUM_OK);
        assert_int_equal(datum_output_write(o, mixed, 500, 500, v + 500), DATUM_OK); /* a gap */
        assert_int_equal(datum_output_write(o, mixed, 300, 200, v + 300), DATUM_OK);
        assert_int_equal(datum_output_write(o, single_mixed, 0, 100, v), DATUM_OK);
        assert_int_equal(datum_output_write(o, single_mixed, 600, 400, v + 600), DATUM_OK);
        assert_int_equal(datum_output_write(o, single_mixed, 100, 500, v + 100), DATUM_OK);
        assert_int_equal(datum_output_commit(&o), DATUM_OK);
        hid_t f = H5Fopen("c.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
        assert_true(f >= 0);
        read_values(f, "results/sequential", H5T_NATIVE_DOUBLE, back);
        assert_memory_equal(back, v, sizeof v);
        read_values(f, "results/mixed", H5T_NATIVE_DOUBLE, back);
        assert_memory_equal(back, v, sizeof v);
        const char *singles[] = {"results/single", "results/single_mixed"};
        for (int k = 0; k < 2; k++) { /* stored as float32, exact for these values */
            hid_t ds = H5Dopen2(f, singles[k], H5P_DEFAULT), type = H5Dget_type(ds);
            assert_true(H5Tequal(type, H5T_IEEE_F32LE) > 0);
            H5Tclose(type);
            H5Dclose(ds);
            read_values(f, singles[k], H5T_NATIVE_DOUBLE, back);
            assert_memory_equal(back, v, sizeof v);
        }
        hid_t ds = H5Dopen2(f, "results/tiny", H5P_DEFAULT), type = H5Dget_type(ds);
        assert_true(H5Tequal(type, H5T_STD_I8LE) > 0);
        H5Tclose(type);
        H5Dclose(ds);
        read_values(f, "results/tiny", H5T_NATIVE_DOUBLE, back);
        assert_memory_equal(back, w, sizeof w);
        H5Fclose(f);
    }
    datum_ctx_set_threads(g_ctx, 1);
}

/* Writes v[0..n) as the output column results/NAME of PATH, stored as
 * `type` in chunks of `chunk`, `step` values a write, on 2 threads. */
static void write_one_column(const char *path, const char *name, datum_store_type type,
                             size_t chunk, size_t step, const double *v, size_t n)
{
    datum_write_options opt = DATUM_WRITE_OPTIONS_INIT;
    opt.chunk_rows = chunk;
    datum_ctx_set_threads(g_ctx, 2);
    datum_output *o = NULL;
    assert_int_equal(datum_output_create(g_ctx, path, g_archive, "t", NULL, NULL, 0, &opt, &o),
                     DATUM_OK);
    int c = datum_output_add_stored_column(o, "results", name, n, NULL, type);
    for (size_t first = 0; first < n; first += step) {
        uint64_t count = n - first < step ? n - first : step;
        assert_int_equal(datum_output_write(o, c, first, count, v + first), DATUM_OK);
    }
    assert_int_equal(datum_output_commit(&o), DATUM_OK);
    datum_ctx_set_threads(g_ctx, 1);
}

/* int8 columns are deflated by our Huffman-only encoder (huffman.c): HDF5's
 * own deflate filter must read them back, chunks of IMPs (Huffman blocks),
 * of one value (LZ77) and the padded last one alike. */
static void test_int8_entropy_coded(void **state)
{
    enum { CHUNK = 65536, N = 3 * CHUNK + 1234 };
    test_rng r = test_rng_seeded("test_int8_entropy_coded", 7);
    double *v = malloc(N * sizeof *v), *back = malloc(N * sizeof *back);
    int8_t *raw = malloc(N), *as_int8 = malloc(N);
    assert_true(v && back && raw && as_int8);
    for (int i = 0; i < N; i++) {
        int diff = test_rng_score(&r) - test_rng_score(&r);
        raw[i] = (int8_t)(i / CHUNK == 1 ? 3 : datum_imp_wbf(diff)); /* chunk 1: one value */
        v[i] = raw[i];
    }
    write_one_column("h.h5", "imps", DATUM_STORE_I8, CHUNK, 10000, v, N);
    hid_t f = H5Fopen("h.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    read_values(f, "results/imps", H5T_NATIVE_DOUBLE, back);
    assert_memory_equal(back, v, N * sizeof *v);
    read_values(f, "results/imps", H5T_NATIVE_INT8, as_int8);
    assert_memory_equal(as_int8, raw, N);
    /* Chunk 0 is exactly our encoder's stream, not libdeflate's. */
    hid_t ds = H5Dopen2(f, "results/imps", H5P_DEFAULT);
    hsize_t offset = 0, stored = 0;
    assert_true(ds >= 0 && H5Dget_chunk_storage_size(ds, &offset, &stored) >= 0);
    size_t cap = io_huffman_zlib_bound(CHUNK);
    unsigned char *z = malloc(cap);
    assert_non_null(z);
    assert_int_equal(stored, io_huffman_zlib_compress(NULL, raw, CHUNK, z, cap));
    assert_true(stored < CHUNK * 7 / 10); /* 5.3 bits of entropy a byte */
    offset = CHUNK; /* one value: LZ77's runs, not Huffman's bit a byte */
    assert_true(H5Dget_chunk_storage_size(ds, &offset, &stored) >= 0 && stored < CHUNK / 100);
    H5Dclose(ds);
    H5Fclose(f);
    free(z);
    free(v);
    free(back);
    free(raw);
    free(as_int8);
}

/* Float64 columns of repeated values (matchpoints) are deflated as repeats
 * (io_f64_zlib_compress): HDF5's own deflate filter must read them back,
 * the padded last chunk too, and chunk 0 is exactly our encoder's stream. */
static void test_f64_repeats(void **state)
{
    enum { CHUNK = 65536, N = 2 * CHUNK + 777 };
    test_rng r = test_rng_seeded("test_f64_repeats", 11);
    double *v = malloc(N * sizeof *v), *back = malloc(N * sizeof *back);
    assert_true(v && back);
    for (int i = 0; i < N; i++) /* halves, and thirds of a field factored from 3 to 4 */
        v[i] = test_rng_range(&r, 0, 3) ? 0.5 * (double)test_rng_range(&r, 0, 24)
                                        : ((double)test_rng_range(&r, 0, 4) + 1) * 4.0 / 3.0 - 1;
    write_one_column("m.h5", "mp", DATUM_STORE_F64_REPEATS, CHUNK, 30000, v, N);
    hid_t f = H5Fopen("m.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    read_values(f, "results/mp", H5T_NATIVE_DOUBLE, back);
    assert_memory_equal(back, v, N * sizeof *v);
    hid_t ds = H5Dopen2(f, "results/mp", H5P_DEFAULT), type = H5Dget_type(ds);
    assert_true(H5Tequal(type, H5T_IEEE_F64LE) > 0);
    hsize_t offset = 0, stored = 0;
    assert_true(H5Dget_chunk_storage_size(ds, &offset, &stored) >= 0);
    size_t cap = io_huffman_zlib_bound(8 * CHUNK);
    unsigned char *z = malloc(cap), *scratch = malloc(io_f64_zlib_scratch(CHUNK));
    assert_true(z && scratch);
    assert_int_equal(stored, io_f64_zlib_compress(NULL, v, CHUNK, scratch, z, cap));
    assert_true(stored < CHUNK * 2); /* 34 values: under 2 bytes a value */
    H5Tclose(type);
    H5Dclose(ds);
    H5Fclose(f);
    free(z);
    free(scratch);
    free(v);
    free(back);
}

/* Reads a whole file into memory; *n its size. */
static unsigned char *file_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    unsigned char *b = malloc(*n + 1);
    assert_true(b && fread(b, 1, *n, f) == *n);
    fclose(f);
    return b;
}

/* Values written in place (datum_output_slot) make the same file as the
 * same values copied by datum_output_write, byte for byte: the same chunks
 * in the same batches, across a batch's end too; a slot is refused where the
 * column cannot take the values in place, and the copy path takes over. */
static void test_slots(void **state)
{
    enum { CHUNK = 64, N = 1000, STEP = 60 }; /* pieces that straddle chunks and batches */
    static double v[N], back[N];
    for (int i = 0; i < N; i++) v[i] = (double)(i % 17) + (i % 5 == 0 ? 1.0 / 3.0 : 0.0);
    for (int in_place = 0; in_place < 2; in_place++) {
        datum_write_options opt = DATUM_WRITE_OPTIONS_INIT;
        opt.chunk_rows = CHUNK;
        datum_ctx_set_threads(g_ctx, 2);
        datum_output *o = NULL;
        assert_int_equal(datum_output_create(g_ctx, in_place ? "slot.h5" : "copy.h5", g_archive,
                                             "t", NULL, NULL, 0, &opt, &o),
                         DATUM_OK);
        int mp = datum_output_add_stored_column(o, "results", "mp", N, NULL, DATUM_STORE_F64_REPEATS);
        int other = datum_output_add_column(o, "results", "other", N, NULL);
        for (int first = 0; first < N; first += STEP) {
            uint64_t count = first + STEP <= N ? STEP : (uint64_t)(N - first);
            double *slot = in_place ? datum_output_slot(o, mp, (uint64_t)first, count) : NULL;
            assert_true(!in_place || slot); /* a chunk at most: always room for it */
            if (slot) memcpy(slot, v + first, count * sizeof *v);
            assert_int_equal(datum_output_write(o, mp, (uint64_t)first, count, slot ? slot : v + first),
                             DATUM_OK);
            assert_int_equal(datum_output_write(o, other, (uint64_t)first, count, v + first), DATUM_OK);
        }
        assert_int_equal(datum_output_commit(&o), DATUM_OK);
    }
    datum_ctx_set_threads(g_ctx, 1);
    size_t n_slot, n_copy;
    unsigned char *a = file_bytes("slot.h5", &n_slot), *b = file_bytes("copy.h5", &n_copy);
    assert_int_equal(n_slot, n_copy);
    assert_memory_equal(a, b, n_slot);
    free(a);
    free(b);
    hid_t f = H5Fopen("slot.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    read_values(f, "results/mp", H5T_NATIVE_DOUBLE, back);
    assert_memory_equal(back, v, sizeof v);
    H5Fclose(f);

    /* Refused: out of order, more than the buffer holds, narrowed or
     * integer columns, a column written out of order before. */
    datum_write_options opt = DATUM_WRITE_OPTIONS_INIT;
    opt.chunk_rows = CHUNK;
    datum_output *o = NULL;
    assert_int_equal(datum_output_create(g_ctx, "r.h5", g_archive, "t", NULL, NULL, 0, &opt, &o),
                     DATUM_OK);
    int c = datum_output_add_column(o, "results", "c", N, NULL);
    int narrow = datum_output_add_stored_column(o, "results", "f32", N, NULL, DATUM_STORE_F32);
    int ints = datum_output_add_int_column(o, "results", "i", N, NULL);
    int gap = datum_output_add_column(o, "results", "gap", N, NULL);
    assert_null(datum_output_slot(o, c, 1, 10));
    assert_null(datum_output_slot(o, c, 0, 5 * CHUNK + 1));
    assert_non_null(datum_output_slot(o, c, 0, 5 * CHUNK));
    assert_null(datum_output_slot(o, c, 0, N + 1));
    assert_null(datum_output_slot(o, narrow, 0, 10));
    assert_null(datum_output_slot(o, ints, 0, 10));
    assert_null(datum_output_slot(o, 99, 0, 10));
    assert_int_equal(datum_output_write(o, gap, 10, 10, v), DATUM_OK);
    assert_null(datum_output_slot(o, gap, 20, 10));
    assert_null(datum_output_slot(o, gap, 0, 10));
    double *slot = datum_output_slot(o, c, 0, 100);
    assert_non_null(slot);
    memcpy(slot, v, 100 * sizeof *v);
    assert_int_equal(datum_output_write(o, c, 0, 100, slot), DATUM_OK);
    assert_null(datum_output_slot(o, c, 0, 10)); /* no longer the next element */
    assert_int_equal(datum_output_write(o, c, 100, N - 100, v + 100), DATUM_OK); /* copied */
    assert_int_equal(datum_output_commit(&o), DATUM_OK);
    f = H5Fopen("r.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    read_values(f, "results/c", H5T_NATIVE_DOUBLE, back);
    assert_memory_equal(back, v, sizeof v);
    H5Fclose(f);
}

static void test_abort(void **state)
{
    datum_output *o = NULL;
    tu_write("out.h5", "old");
    assert_int_equal(
        datum_output_create(g_ctx, "out.h5", g_archive, "cmd", NULL, NULL, 0, NULL, &o), DATUM_OK);
    int c = datum_output_add_column(o, "results", "x", 3, "x");
    const double v[3] = {1, 2, 3};
    assert_int_equal(datum_output_write(o, c, 0, 3, v), DATUM_OK);
    datum_output_abort(&o);
    assert_null(o);
    datum_output_abort(&o); /* accepts NULL */
    datum_output_abort(NULL);
    assert_int_equal(tu_count_files(), 3);
    char *old = tu_read("out.h5", NULL);
    assert_string_equal(old, "old");
    free(old);
}

static void test_errors(void **state)
{
    const char *reserved[] = {"source"}, *twice[] = {"k", "k"}, *values[] = {"a", "b"};
    datum_output *o = NULL;
    assert_failure(
        g_ctx,
        datum_output_create(g_ctx, "out.h5", g_archive, "cmd", reserved, values, 1, NULL, &o),
        DATUM_E_ARG, "output attribute \"source\" is empty, reserved or repeated");
    assert_failure(
        g_ctx, datum_output_create(g_ctx, "out.h5", g_archive, "cmd", twice, values, 2, NULL, &o),
        DATUM_E_ARG, "output attribute \"k\" is empty, reserved or repeated");
    assert_failure(
        g_ctx,
        datum_output_create(g_ctx, "nodir/out.h5", g_archive, "cmd", NULL, NULL, 0, NULL, &o),
        DATUM_E_IO, "cannot create nodir/out.h5: No such file or directory");
    assert_null(o);
    assert_int_equal(tu_count_files(), 2);

    assert_int_equal(
        datum_output_create(g_ctx, "out.h5", g_archive, "cmd", NULL, NULL, 0, NULL, &o), DATUM_OK);
    assert_failure(g_ctx, datum_output_add_column(o, "teams", "x", 1, ""), DATUM_E_ARG,
                   "output group \"teams\" is not fields, results, pairs or history");
    assert_failure(g_ctx, datum_output_add_column(o, "fields", "a/b", 1, ""), DATUM_E_ARG,
                   "bad output column name \"a/b\"");
    assert_failure(g_ctx, datum_output_add_column(o, "fields", "board", 2, ""), DATUM_E_ARG,
                   "output column fields/board already exists");
    int c = datum_output_add_column(o, "fields", "datum", 2, "");
    assert_true(c >= 0);
    assert_failure(g_ctx, datum_output_add_column(o, "fields", "datum", 2, ""), DATUM_E_ARG,
                   "output column fields/datum already exists");
    const double v[3] = {1, 2, 3};
    assert_failure(g_ctx, datum_output_write(o, c, 1, 2, v), DATUM_E_ARG,
                   "cannot write 2 elements from 1 into fields/datum of 2");
    assert_failure(g_ctx, datum_output_write(o, 99, 0, 1, v), DATUM_E_ARG, "no output column 99");
    assert_int_equal(datum_output_write(o, c, 2, 0, v), DATUM_OK); /* nothing, at the end */
    datum_output_abort(&o);
    assert_int_equal(tu_count_files(), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunked_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_int8_entropy_coded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_f64_repeats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
