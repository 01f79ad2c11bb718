/* test_alloc_failure.c - every allocation of io/ made to fail in turn: each
 * failure must come back as DATUM_E_NOMEM, leave no file behind and leak
 * nothing (LeakSanitizer checks at exit).
 *
 * io/ allocates only through calloc and realloc (io_calloc, io_reserve); this
 * program is linked with --wrap for both, so the wrappers below see exactly
 * the calls made from the static libraries and from this file, not those
 * inside HDF5 or libc. */
#include "alloc_fail.h"
#include "io_test_util.h"
#include "datum_io.h"
#include "datum_tarot_io.h"

#include <string.h>
#include <unistd.h>


#define CSV                                                                                        \
    "event,date,section,board,table,ns_pair,ew_pair,ns_score,adjusted\n"                           \
    "E,2024-03-02,A,1,1,P1,P2,420,\n"                                                              \
    "E,2024-03-02,A,1,2,P3,P4,,A+\n"                                                               \
    "E,2024-03-02,B,2,1,P5,P6,-50,\n"


static int import(datum_ctx *ctx)
{
    const char *paths[] = {"r.csv"};
    return datum_import_csv(ctx, paths, 1, "a.h5", NULL);
}

static void test_import(void **state)
{
    tu_write("r.csv", CSV);
    tu_fail_each_allocation(import, 1);
}

/* Opens a.h5 and reads it, in chunks of one field. */
static int read_archive(datum_ctx *ctx)
{
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    int rc = datum_archive_open(ctx, "a.h5", &a);
    if (rc == DATUM_OK) rc = datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 1, &r);
    while (rc == DATUM_OK) {
        rc = datum_chunk_reader_next(r, &c);
        if (c.n_fields == 0) break;
    }
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    return rc;
}

/* Writes out.h5 from a.h5 and commits it; then removes it again. */
static int write_output(datum_ctx *ctx)
{
    const char *keys[] = {"method"}, *values[] = {"butler"};
    const double v[2] = {1.5, 2.5};
    datum_archive *a = NULL;
    datum_output *o = NULL;
    int rc = datum_archive_open(ctx, "a.h5", &a), c = 0;
    if (rc == DATUM_OK)
        rc = datum_output_create(ctx, "out.h5", a, "cmd", keys, values, 1, NULL, &o);
    if (rc == DATUM_OK) rc = c = datum_output_add_column(o, "fields", "datum", 2, "d");
    if (rc >= 0) rc = datum_output_write(o, c, 0, 2, v);
    if (rc == DATUM_OK) rc = datum_output_commit(&o);
    datum_output_abort(&o);
    datum_archive_close(&a);
    remove("out.h5");
    return rc;
}

static int write_csv(datum_ctx *ctx)
{
    datum_csv_writer *w = NULL;
    int rc = datum_csv_create(ctx, "out.csv", &w);
    if (rc == DATUM_OK) {
        datum_csv_str(w, "a,b");
        datum_csv_real(w, 0.1);
        datum_csv_end_row(w);
        rc = datum_csv_commit(&w);
    }
    remove("out.csv");
    return rc;
}

static void test_read_and_write(void **state)
{
    datum_ctx *ctx = NULL;
    tu_write("r.csv", CSV);
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(import(ctx), DATUM_OK);
    datum_ctx_free(&ctx);
    tu_fail_each_allocation(read_archive, 2);
    tu_fail_each_allocation(write_output, 2);
    tu_fail_each_allocation(write_csv, 2);
}

/* The tarot import, archive reader and directory of sheets. */
static const datum_tarot_inputs kTarot = {"ad.csv", "players.csv", "defenses.csv", "pen.csv"};

static int tarot_import(datum_ctx *ctx)
{
    return datum_tarot_import_csv(ctx, &kTarot, "t.h5", NULL);
}

/* Reads t.h5, writes a sheet and the index into a new directory, then
 * removes them again. */
static int tarot_read_and_sheets(datum_ctx *ctx)
{
    datum_tarot_data *d = NULL;
    datum_tarot_sheet_dir *dir = NULL;
    datum_tarot_sheet s = {DATUM_TAROT_ATTACK, "E", "14/03/2026", "A", NULL, "1C", NULL, 0,
                           {.rank = 1}, 1};
    int rc = datum_tarot_archive_read(ctx, "t.h5", &d);
    if (rc == DATUM_OK) rc = datum_tarot_sheet_dir_create(ctx, "sheets", &dir);
    if (rc == DATUM_OK) rc = datum_tarot_sheet_dir_add(dir, "e/attaque-A.html", &s);
    if (rc == DATUM_OK) rc = datum_tarot_sheet_dir_add_index(dir, "index.html", NULL, 0);
    if (rc == DATUM_OK) rc = datum_tarot_sheet_dir_commit(&dir);
    datum_tarot_sheet_dir_abort(&dir);
    datum_tarot_data_free(&d);
    remove("sheets/e/attaque-A.html");
    remove("sheets/index.html");
    rmdir("sheets/e");
    rmdir("sheets");
    return rc;
}

static void test_tarot(void **state)
{
    tu_write("ad.csv", "event,date,etui,contract,position,attacker,defense,score\n"
                       "E,2026-03-14,1,G,1,A,D1,62\n"
                       "E,2026-03-14,1,G,2,B,D2,-40\n"
                       "E,2026-03-14,2,GC,1,B,D1,150\n");
    tu_write("players.csv", "player,classement\nA,1C\nB,NC\nC,1K\nE,2T\nF,3P\nG,4C\n");
    tu_write("defenses.csv", "defense,player1,player2,player3\nD1,C,E,F\nD2,G,C,F\n");
    tu_write("pen.csv", "event,side,id,pm\nE,attack,A,1.5\nE,defense,D2,-1\n");
    tu_fail_each_allocation(tarot_import, 4);
    tu_fail_each_allocation(tarot_read_and_sheets, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_temp_dir_test(test_import),
        tu_temp_dir_test(test_read_and_write),
        tu_temp_dir_test(test_tarot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
