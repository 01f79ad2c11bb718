/* test_tarot_archive.c - the tarot import and archive: what is stored and
 * read back (sorted, order-free), the checks of the reader on damaged or
 * foreign files, and the directory of sheets written as a whole. The
 * command line's bad-input cases are in tests/e2e/test_tarot.py. */
#include "io_test_util.h"
#include "datum_tarot_io.h"

#include <hdf5.h>
#include <string.h>
#include <sys/stat.h>

static const char kPlayers[] = "player,classement,club\n"
                               "Zoé,1C,x\n"
                               "Ana,3T,x\n"
                               "Bea,1K,x\n"
                               "Cid,1t,x\n" /* case is ignored */
                               "Dan,2T,x\n"
                               "Eve,NC,x\n";
static const char kDefenses[] = "player3,defense,player1,player2\n" /* any column order */
                                "Dan,D2,Eve,Ana\n"
                                "Dan,D1,Bea,Cid\n";
/* Two events, rows in no order; the autumn event's étui 3 is played once. */
static const char kResults[] = "event,date,etui,contract,position,attacker,defense,score\n"
                               "Spring,2026-03-14,2,GS,1,Zoé,D2,-240\n"
                               "Spring,2026-03-14,1,G,2,Ana,D2,60\n"
                               "Autumn,2026-10-03,3,GC,5,Zoé,D1,186\n"
                               "Spring,2026-03-15,1,G,1,Zoé,D1,62\n"
                               "Spring,2026-03-14,2,GS,2,Ana,D1,120\n";
static const char kPenalties[] = "event,side,id,pm\n"
                                 "Spring,defense,D1,-1\n"
                                 "Spring,attack,Ana,2.5\n";

static void write_inputs(void)
{
    tu_write("players.csv", kPlayers);
    tu_write("defenses.csv", kDefenses);
    tu_write("ad.csv", kResults);
    tu_write("pen.csv", kPenalties);
}

static const datum_tarot_inputs kInputs = {"ad.csv", "players.csv", "defenses.csv", "pen.csv"};

static datum_tarot_data *import_and_read(datum_ctx *ctx, const datum_tarot_inputs *in)
{
    datum_tarot_data *d = NULL;
    assert_int_equal(datum_tarot_import_csv(ctx, in, "t.h5", NULL), DATUM_OK);
    assert_int_equal(datum_tarot_archive_read(ctx, "t.h5", &d), DATUM_OK);
    return d;
}

static void test_round_trip(void **state)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    write_inputs();
    datum_tarot_data *d = import_and_read(ctx, &kInputs);
    assert_int_equal(tu_count_files(), 5); /* the inputs and t.h5: no temporary file */

    /* Names once, sorted by their bytes. */
    assert_int_equal(d->n_events, 2);
    assert_string_equal(d->event[0], "Autumn");
    assert_string_equal(d->event[1], "Spring");
    assert_int_equal(d->n_players, 6);
    const char *players[] = {"Ana", "Bea", "Cid", "Dan", "Eve", "Zoé"};
    const int classes[] = {DATUM_TAROT_3T, DATUM_TAROT_1K, DATUM_TAROT_1T,
                           DATUM_TAROT_2T, DATUM_TAROT_NC, DATUM_TAROT_1C};
    for (int i = 0; i < 6; i++) {
        assert_string_equal(d->player[i], players[i]);
        assert_int_equal(d->player_class[i], classes[i]);
    }
    assert_int_equal(d->n_defenses, 2);
    assert_string_equal(d->defense[0], "D1");
    const int32_t d1[3] = {1, 2, 3}, d2[3] = {4, 0, 3}; /* player1..3 as given */
    assert_memory_equal(d->defense_player, d1, sizeof d1);
    assert_memory_equal(d->defense_player + 3, d2, sizeof d2);

    /* Étuis by (event, number); results by position within. */
    assert_int_equal(d->n_etuis, 3);
    const int32_t etui_event[3] = {0, 1, 1}, etui_number[3] = {3, 1, 2};
    const uint8_t contract[3] = {DATUM_TAROT_GARDE_CONTRE, DATUM_TAROT_GARDE,
                                 DATUM_TAROT_GARDE_SANS};
    const uint64_t offset[4] = {0, 1, 3, 5};
    assert_memory_equal(d->etui_event, etui_event, sizeof etui_event);
    assert_memory_equal(d->etui_number, etui_number, sizeof etui_number);
    assert_memory_equal(d->etui_contract, contract, sizeof contract);
    assert_memory_equal(d->etui_offset, offset, sizeof offset);
    const uint64_t event_etuis[3] = {0, 1, 3};
    assert_memory_equal(d->event_etuis, event_etuis, sizeof event_etuis);
    assert_int_equal(d->n_results, 5);
    const int32_t position[5] = {5, 1, 2, 1, 2}, attacker[5] = {5, 5, 0, 5, 0},
                  defense[5] = {0, 0, 1, 1, 0}, score[5] = {186, 62, 60, -240, 120};
    assert_memory_equal(d->result_position, position, sizeof position);
    assert_memory_equal(d->result_attacker, attacker, sizeof attacker);
    assert_memory_equal(d->result_defense, defense, sizeof defense);
    assert_memory_equal(d->result_score, score, sizeof score);
    assert_int_equal(d->result_date[1], 20527); /* 2026-03-15 */
    assert_int_equal(d->event_first_date[1], 20526);
    assert_int_equal(d->event_last_date[1], 20527);
    assert_int_equal(d->event_first_date[0], d->event_last_date[0]);

    /* Penalties by (event, side, id). */
    assert_int_equal(d->n_penalties, 2);
    assert_int_equal(d->penalty_event[0], 1);
    assert_int_equal(d->penalty_side[0], DATUM_TAROT_ATTACK);
    assert_int_equal(d->penalty_id[0], 0);
    assert_true(d->penalty_pm[0] == 2.5);
    assert_int_equal(d->penalty_side[1], DATUM_TAROT_DEFENSE);
    assert_true(d->penalty_pm[1] == -1);
    datum_tarot_data_free(&d);
    assert_null(d);
    datum_tarot_data_free(&d); /* accepts NULL */

    /* Without penalties; the same file whatever the order of the rows. */
    size_t len1, len2;
    datum_tarot_inputs in = kInputs;
    in.penalties = NULL;
    d = import_and_read(ctx, &in);
    assert_int_equal(d->n_penalties, 0);
    datum_tarot_data_free(&d);
    char *first = tu_read("t.h5", &len1);
    tu_write("ad.csv", "event,date,etui,contract,position,attacker,defense,score\n"
                       "Spring,2026-03-14,2,GS,2,Ana,D1,120\n"
                       "Spring,2026-03-15,1,G,1,Zoé,D1,62\n"
                       "Autumn,2026-10-03,3,GC,5,Zoé,D1,186\n"
                       "Spring,2026-03-14,1,G,2,Ana,D2,60\n"
                       "Spring,2026-03-14,2,GS,1,Zoé,D2,-240\n");
    assert_int_equal(datum_tarot_import_csv(ctx, &in, "t.h5", NULL), DATUM_OK);
    char *second = tu_read("t.h5", &len2);
    assert_int_equal(len1, len2);
    assert_memory_equal(first, second, len1);
    free(first);
    free(second);
    datum_ctx_free(&ctx);
}

static void test_import_failures_leave_nothing(void **state)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    write_inputs();
    tu_write("t.h5", "old");
    tu_write("ad.csv", "event,date,etui,contract,position,attacker,defense,score\n"
                       "Spring,2026-03-14,1,G,1,Zoé,D2,62\n"
                       "Spring,2026-03-14,1,G,2,Ana,D1,0\n");
    assert_failure(ctx, datum_tarot_import_csv(ctx, &kInputs, "t.h5", NULL), DATUM_E_INPUT,
                   "ad.csv:3: column score: a score of 0 is impossible in tarot (a contract is "
                   "won or lost by at least 25 points)");
    tu_write("ad.csv", "event,date,etui,contract,position,attacker,defense,score\n"
                       "Spring,2026-03-14,1,G,1,Zoé,D2,62\n"
                       "Spring,2026-03-14,1,G,2,Zoé,D1,60\n");
    assert_failure(ctx, datum_tarot_import_csv(ctx, &kInputs, "t.h5", NULL), DATUM_E_INPUT,
                   "ad.csv:3: column attacker: attacker \"Zoé\" already plays étui 1 of event "
                   "\"Spring\" at ad.csv:2");
    /* 2026 is not a leap year; the 31st of February is in no year. */
    tu_write("ad.csv", "event,date,etui,contract,position,attacker,defense,score\n"
                       "Spring,2026-03-14,1,G,1,Zoé,D2,62\n"
                       "Spring,2026-02-29,1,G,2,Ana,D1,60\n");
    assert_failure(ctx, datum_tarot_import_csv(ctx, &kInputs, "t.h5", NULL), DATUM_E_INPUT,
                   "ad.csv:3: column date: \"2026-02-29\" is not a date (YYYY-MM-DD)");
    tu_write("ad.csv", "event,date,etui,contract,position,attacker,defense,score\n"
                       "Spring,2024-02-31,1,G,1,Zoé,D2,62\n");
    assert_failure(ctx, datum_tarot_import_csv(ctx, &kInputs, "t.h5", NULL), DATUM_E_INPUT,
                   "ad.csv:2: column date: \"2024-02-31\" is not a date (YYYY-MM-DD)");
    tu_write("players.csv", "player,classement\nAna,1Z\n");
    assert_failure(ctx, datum_tarot_import_csv(ctx, &kInputs, "t.h5", NULL), DATUM_E_INPUT,
                   "players.csv:2: column classement: \"1Z\" is not a national classification "
                   "(1N, 1P, 1C, 1K, 1T, 2P, 2C, 2K, 2T, 3P, 3C, 3K, 3T, 4P, 4C, 4K, 4T or NC)");
    tu_write("players.csv", "");
    assert_failure(ctx, datum_tarot_import_csv(ctx, &kInputs, "t.h5", NULL), DATUM_E_INPUT,
                   "players.csv: empty file (a header row is required)");
    datum_tarot_inputs none = {NULL, "players.csv", "defenses.csv", NULL};
    assert_int_equal(datum_tarot_import_csv(ctx, &none, "t.h5", NULL), DATUM_E_ARG);
    datum_ctx_clear(ctx);
    size_t len;
    char *old = tu_read("t.h5", &len);
    assert_string_equal(old, "old"); /* untouched, and no temporary file beside it */
    free(old);
    assert_int_equal(tu_count_files(), 5);
    datum_ctx_free(&ctx);
}

/* Opens t.h5 for writing with HDF5, to damage it. */
static hid_t open_rw(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen("t.h5", H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    return f;
}

/* Imports the inputs again, then overwrites the int32 dataset `name`. */
static void damage(datum_ctx *ctx, const char *name, const int32_t *values)
{
    assert_int_equal(datum_tarot_import_csv(ctx, &kInputs, "t.h5", NULL), DATUM_OK);
    hid_t f = open_rw(), ds = H5Dopen2(f, name, H5P_DEFAULT);
    assert_true(ds >= 0 &&
                H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0);
    H5Dclose(ds);
    H5Fclose(f);
}

static void expect_read_failure(datum_ctx *ctx, int code, const char *message)
{
    datum_tarot_data *d = (datum_tarot_data *)1;
    assert_int_equal(datum_tarot_archive_read(ctx, "t.h5", &d), code);
    assert_null(d);
    assert_string_equal(datum_ctx_message(ctx), message);
    datum_ctx_clear(ctx);
}

static void test_damaged_and_foreign_files(void **state)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    write_inputs();
    datum_tarot_data *d = NULL;
    assert_int_equal(datum_tarot_archive_read(ctx, "none.h5", &d), DATUM_E_IO);
    assert_string_equal(datum_ctx_message(ctx), "cannot open none.h5: No such file or directory");
    datum_ctx_clear(ctx);
    tu_write("t.h5", "not HDF5");
    expect_read_failure(ctx, DATUM_E_FORMAT, "t.h5: not an HDF5 file (or damaged)");

    /* A bridge archive is not a tarot archive. */
    tu_write("bridge.csv", "event,date,section,board,table,ns_pair,ew_pair,ns_score\n"
                           "E,2024-01-01,A,1,1,N,S,100\n");
    const char *bridge[] = {"bridge.csv"};
    assert_int_equal(datum_import_csv(ctx, bridge, 1, "t.h5", NULL), DATUM_OK);
    expect_read_failure(ctx, DATUM_E_FORMAT,
                        "t.h5: not a tarot archive (format \"datum-archive\")");

    assert_int_equal(datum_tarot_import_csv(ctx, &kInputs, "t.h5", NULL), DATUM_OK);
    hid_t f = open_rw();
    int64_t v = 2;
    hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
    assert_true(a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, &v) >= 0);
    H5Aclose(a);
    H5Fclose(f);
    expect_read_failure(ctx, DATUM_E_FORMAT,
                        "t.h5: tarot archive format version 2 is not supported (this datum reads "
                        "version 1)");

    assert_int_equal(datum_tarot_import_csv(ctx, &kInputs, "t.h5", NULL), DATUM_OK);
    f = open_rw();
    assert_true(H5Ldelete(f, "results/score", H5P_DEFAULT) >= 0);
    H5Fclose(f);
    expect_read_failure(ctx, DATUM_E_FORMAT,
                        "t.h5: damaged tarot archive: results/score is missing");

    /* An index out of its dictionary. */
    const int32_t attacker[5] = {5, 5, 0, 6, 0};
    damage(ctx, "results/attacker", attacker);
    expect_read_failure(ctx, DATUM_E_FORMAT,
                        "t.h5: damaged tarot archive: results/attacker[3] = 6 is out of range (0 "
                        "to 5)");

    /* A score of zero, which the import never writes; étuis out of order. */
    const int32_t scores[5] = {186, 62, 0, -240, 120}, numbers[3] = {3, 2, 1};
    damage(ctx, "results/score", scores);
    expect_read_failure(ctx, DATUM_E_FORMAT,
                        "t.h5: damaged tarot archive: result 2 has a score of 0");
    damage(ctx, "etuis/etui", numbers);
    expect_read_failure(ctx, DATUM_E_FORMAT, "t.h5: damaged tarot archive: étui 2 is out of order");
    datum_ctx_free(&ctx);
}

/* ------------------------------------------------------------------------ */
/* The directory of sheets                                                  */

static datum_tarot_sheet a_sheet(void)
{
    static const datum_tarot_sheet_line line = {1, "G", "D1", 62, 10, 1, 62.22, -0.47, 50, 1};
    datum_tarot_sheet s = {DATUM_TAROT_ATTACK, "Spring", "14/03/2026", "7", NULL, "1C", &line, 1,
                           {.etuis = 1, .pm = -0.47, .regularity = 1, .total = 0.53, .rank = 1},
                           1};
    return s;
}

static void test_sheet_dir(void **state)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_tarot_sheet s = a_sheet();
    datum_tarot_index_entry entry = {"spring/attaque-7.html", "7", NULL, 1, 0.53, 1};
    datum_tarot_index_event ev = {"Spring", "14/03/2026", &entry, NULL, 1, 0};

    /* Nothing appears until the commit; an abort leaves nothing. */
    datum_tarot_sheet_dir *dir;
    assert_int_equal(datum_tarot_sheet_dir_create(ctx, "out/", &dir), DATUM_OK);
    assert_int_equal(datum_tarot_sheet_dir_add(dir, "attaque-7.html", &s), DATUM_OK);
    assert_int_equal(tu_count_files(), 1); /* the staging directory */
    assert_false(tu_exists("out"));
    datum_tarot_sheet_dir_abort(&dir);
    assert_null(dir);
    assert_int_equal(tu_count_files(), 0);
    datum_tarot_sheet_dir_abort(&dir); /* accepts NULL */

    assert_int_equal(datum_tarot_sheet_dir_create(ctx, "out", &dir), DATUM_OK);
    assert_int_equal(datum_tarot_sheet_dir_add(dir, "spring/attaque-7.html", &s), DATUM_OK);
    assert_int_equal(datum_tarot_sheet_dir_add(dir, "spring/defense-7.html", &s), DATUM_OK);
    assert_int_equal(datum_tarot_sheet_dir_add_index(dir, "index.html", &ev, 1), DATUM_OK);
    assert_failure(ctx, datum_tarot_sheet_dir_add(dir, "spring/attaque-7.html", &s), DATUM_E_ARG,
                   "sheet file spring/attaque-7.html written twice");
    const char *bad[] = {"", "a/b/c.html", "../x.html", "/x.html", "a//b", "./x", "a/"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(datum_tarot_sheet_dir_add(dir, bad[i], &s), DATUM_E_ARG);
        datum_ctx_clear(ctx);
    }
    assert_int_equal(datum_tarot_sheet_dir_commit(&dir), DATUM_OK);
    assert_null(dir);
    assert_int_equal(tu_count_files(), 1); /* out, and no staging directory left */
    assert_true(tu_exists("out/index.html"));
    assert_true(tu_exists("out/spring/defense-7.html"));
    char *index = tu_read("out/index.html", NULL);
    assert_non_null(strstr(index, "<a href=\"spring/attaque-7.html\">7</a>"));
    free(index);

    /* Into an existing directory: its other files stay, ours are replaced. */
    tu_write("out/mine.txt", "mine");
    tu_write("out/index.html", "old");
    assert_int_equal(datum_tarot_sheet_dir_create(ctx, "out", &dir), DATUM_OK);
    assert_int_equal(datum_tarot_sheet_dir_add_index(dir, "index.html", &ev, 1), DATUM_OK);
    assert_int_equal(datum_tarot_sheet_dir_commit(&dir), DATUM_OK);
    index = tu_read("out/index.html", NULL);
    assert_non_null(strstr(index, "<!DOCTYPE html>"));
    free(index);
    assert_true(tu_exists("out/mine.txt"));

    /* Not a directory; a parent that does not exist. */
    tu_write("file", "x");
    assert_failure(ctx, datum_tarot_sheet_dir_create(ctx, "file", &dir), DATUM_E_IO,
                   "cannot write the sheets into file: Not a directory");
    assert_null(dir);
    assert_failure(ctx, datum_tarot_sheet_dir_create(ctx, "no/such", &dir), DATUM_E_IO,
                   "cannot create no/such: No such file or directory");
    datum_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_temp_dir_test(test_round_trip),
        tu_temp_dir_test(test_import_failures_leave_nothing),
        tu_temp_dir_test(test_damaged_and_foreign_files),
        tu_temp_dir_test(test_sheet_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
