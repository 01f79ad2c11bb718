/* test_teams.c - the teams columns (ns_team, ew_team, match): imported
 * into /dict/teams, /dict/matches and three /results columns, read back
 * through the chunk reader (-1 outside a teams match, NULL when not asked
 * for or absent), and every bad input refused with FILE:LINE: column. */
#include "io_test_util.h"
#include "datum_io.h"

#include <string.h>

#define HEADER "event,date,section,board,table,ns_pair,ew_pair,ns_score\n"
#define TEAMS_HEADER                                                                               \
    "event,date,section,board,table,ns_pair,ew_pair,ns_score,ns_team,ew_team,match\n"

/* A teams-of-eight division: matches "M1" (Lions v Bears) and "M2" (Owls v
 * Cats) at tables 1-4 and 5-8, boards 1 and 2. Table 4m+1 and 4m+2: the home
 * team North-South; 4m+3 and 4m+4: the visitors. Pairs are TEAM-1..TEAM-4. */
static void write_division(const char *path)
{
    static const char *const home[] = {"Lions", "Owls"}, *const away[] = {"Bears", "Cats"};
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f, TEAMS_HEADER);
    for (int board = 1; board <= 2; board++)
        for (int m = 0; m < 2; m++)
            for (int t = 0; t < 4; t++) {
                const char *ns = t < 2 ? home[m] : away[m], *ew = t < 2 ? away[m] : home[m];
                fprintf(f, "League R1,2024-03-05,,%d,%d,%s-%d,%s-%d,%d,%s,%s,M%d\n", board,
                        4 * m + t + 1, ns, t % 2 + 1, ew, t % 2 + 3, 10 * (t + board), ns, ew,
                        m + 1);
            }
    assert_int_equal(fclose(f), 0);
}

static void test_round_trip(void **state)
{
    datum_ctx *ctx = NULL;
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_archive_info info;
    datum_chunk c;
    const char *paths[] = {"teams.csv", "pairs.csv"};
    write_division("teams.csv");
    tu_write("pairs.csv", HEADER "Club,2024-03-04,A,1,1,N1,E1,420\n"
                                 "Club,2024-03-04,A,1,2,N2,E2,-50\n");
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_import_csv(ctx, paths, 2, "a.h5", NULL), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, "a.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.has_teams, 1);
    assert_int_equal(info.n_teams, 4);
    assert_int_equal(info.n_matches, 2);
    assert_int_equal(info.n_fields, 3);
    assert_string_equal(datum_archive_team(a, 0), "Bears"); /* sorted by bytes */
    assert_string_equal(datum_archive_team(a, 3), "Owls");
    assert_null(datum_archive_team(a, 4));
    assert_string_equal(datum_archive_match(a, 1), "M2");
    assert_null(datum_archive_match(a, 2));

    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_int_equal(c.n_rows, 18);
    assert_non_null(c.ns_team);
    assert_non_null(c.ew_team);
    assert_non_null(c.match);
    /* "Club" comes first: its results are outside any match. */
    assert_string_equal(datum_archive_event(a, c.field_event[0]), "Club");
    for (uint64_t i = 0; i < 2; i++) {
        assert_int_equal(c.ns_team[i], -1);
        assert_int_equal(c.ew_team[i], -1);
        assert_int_equal(c.match[i], -1);
    }
    for (uint64_t f = 1; f < 3; f++)
        for (uint64_t i = c.offset[f]; i < c.offset[f + 1]; i++) {
            int t = c.table[i] - 1, m = t / 4;
            const char *ns = datum_archive_team(a, (uint32_t)c.ns_team[i]);
            const char *ew = datum_archive_team(a, (uint32_t)c.ew_team[i]);
            assert_string_equal(datum_archive_match(a, (uint32_t)c.match[i]), m ? "M2" : "M1");
            assert_string_equal(t % 4 < 2 ? ns : ew, m ? "Owls" : "Lions");
            assert_string_equal(t % 4 < 2 ? ew : ns, m ? "Cats" : "Bears");
            /* The pair belongs to its team. */
            assert_int_equal(strncmp(datum_archive_pair(a, (uint32_t)c.ns_pair[i]), ns, strlen(ns)),
                             0);
        }
    datum_chunk_reader_free(&r);

    /* Not asked for: NULL. */
    assert_int_equal(
        datum_chunk_reader_create(ctx, a, DATUM_COL_NS_SCORE | DATUM_COL_MATCH, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_null(c.ns_team);
    assert_null(c.ew_team);
    assert_non_null(c.match);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);

    /* An archive without teams has none, asked for or not. */
    assert_int_equal(datum_import_csv(ctx, paths + 1, 1, "p.h5", NULL), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, "p.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    assert_int_equal(info.has_teams, 0);
    assert_int_equal(info.n_teams, 0);
    assert_int_equal(info.n_matches, 0);
    assert_null(datum_archive_team(a, 0));
    assert_null(datum_archive_match(a, 0));
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 100, &r), DATUM_OK);
    assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
    assert_int_equal(c.n_rows, 2);
    assert_null(c.ns_team);
    assert_null(c.ew_team);
    assert_null(c.match);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
}

/* Importing these files fails with this message; nothing is written. */
static void expect_error(const char *a_csv, const char *b_csv, const char *message)
{
    datum_ctx *ctx = NULL;
    const char *paths[] = {"a.csv", "b.csv"};
    int files = tu_count_files();
    tu_write("a.csv", a_csv);
    if (b_csv) tu_write("b.csv", b_csv);
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_failure(ctx, datum_import_csv(ctx, paths, b_csv ? 2 : 1, "out.h5", NULL), DATUM_E_INPUT,
                   message);
    assert_false(tu_exists("out.h5"));
    remove("a.csv");
    remove("b.csv");
    assert_int_equal(tu_count_files(), files);
    datum_ctx_free(&ctx);
}

#define ROW(table, ns, ew, match)                                                                  \
    "L,2024-03-05,,1," table ",P" table "N,P" table "E,10," ns "," ew "," match "\n"

static void test_bad_input(void **state)
{
    expect_error("event,date,section,board,table,ns_pair,ew_pair,ns_score,ns_team,ew_team\n"
                 "L,2024-03-05,,1,1,P1,P2,10,T1,T2\n",
                 NULL,
                 "a.csv:1: column match: missing from the header (ns_team, ew_team and match come "
                 "together)");
    expect_error(TEAMS_HEADER ROW("1", "T1", "T2", "M1") ROW("2", "", "T2", "M1"), NULL,
                 "a.csv:3: column ns_team: empty (a name is required)");
    expect_error(TEAMS_HEADER ROW("1", "T1", "T2", ""), NULL,
                 "a.csv:2: column match: empty (a name is required)");
    expect_error(TEAMS_HEADER ROW("1", "T1", "T1", "M1"), NULL,
                 "a.csv:2: column ew_team: \"T1\" is also the NS team");
    /* A table of match M1 between other teams. */
    expect_error(TEAMS_HEADER ROW("1", "T1", "T2", "M1") ROW("2", "T2", "T1", "M1")
                     ROW("3", "T1", "T3", "M1"),
                 NULL,
                 "a.csv:4: column ew_team: team \"T3\" is not in match \"M1\" of event \"L\" "
                 "section \"\" board 1 (teams \"T1\" and \"T2\" at a.csv:2)");
    expect_error(TEAMS_HEADER ROW("1", "T1", "T2", "M1") ROW("2", "T4", "T1", "M1"), NULL,
                 "a.csv:3: column ns_team: team \"T4\" is not in match \"M1\" of event \"L\" "
                 "section \"\" board 1 (teams \"T1\" and \"T2\" at a.csv:2)");
    /* A team in two matches on the same board. */
    expect_error(TEAMS_HEADER ROW("1", "T1", "T2", "M1") ROW("5", "T3", "T1", "M2"), NULL,
                 "a.csv:3: column ew_team: team \"T1\" already plays match \"M1\" of event \"L\" "
                 "section \"\" board 1 at a.csv:2");
    /* A field with teams results and others. */
    expect_error(TEAMS_HEADER ROW("1", "T1", "T2", "M1"), HEADER "L,2024-03-05,,1,2,X1,X2,50\n",
                 "a.csv:2: column match: event \"L\" section \"\" board 1 also has a result "
                 "outside any match, at b.csv:2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        tu_temp_dir_test(test_round_trip),
        tu_temp_dir_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
