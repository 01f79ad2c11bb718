/* test_bridge_score.c - the scoring function, the contract and result
 * parsers and the legality check, against scores from the Laws' table. */
#include "test_util.h"

#include <string.h>

#include "datum.h"

static int ns(const char *contract, const char *declarer, const char *result, int vul)
{
    datum_contract c;
    int tricks = 0;
    assert_int_equal(datum_contract_parse(contract, strlen(contract), &c), DATUM_OK);
    if (c.level == 0) return 0;
    assert_int_equal(datum_result_parse(result, strlen(result), c.level, &tricks), DATUM_OK);
    int d = datum_declarer_parse(declarer, strlen(declarer));
    assert_true(d >= 0);
    return datum_bridge_ns_score(&c, d, vul, tricks);
}

static void test_known_scores(void **state)
{
    (void)state;
    /* vul: 0 none, 1 NS, 2 EW, 3 all. */
    assert_int_equal(ns("4S", "N", "=", 0), 420);
    assert_int_equal(ns("4S", "S", "10", 1), 620);
    assert_int_equal(ns("4S", "E", "=", 1), -420);
    assert_int_equal(ns("4S", "W", "=", 2), -620);
    assert_int_equal(ns("3NT", "N", "+1", 0), 430);
    assert_int_equal(ns("3N", "N", "9", 3), 600);
    assert_int_equal(ns("1NTX", "S", "-1", 1), -200);
    assert_int_equal(ns("1NTX", "E", "-1", 1), 100);
    assert_int_equal(ns("2HXX", "N", "=", 0), 640);
    assert_int_equal(ns("2hxx", "n", "+1", 3), 1240);
    assert_int_equal(ns("4S*", "N", "-3", 0), 500 * -1);
    assert_int_equal(ns("4S**", "N", "-1", 0), -200);
    assert_int_equal(ns("6NT", "N", "=", 1), 1440);
    assert_int_equal(ns("7C", "W", "13", 0), -1440);
    assert_int_equal(ns("2C", "S", "7", 0), -50);
    assert_int_equal(ns("5DX", "E", "8", 3), 800);
    assert_int_equal(ns("3DX", "N", "=", 0), 470);
    assert_int_equal(ns("1NTXX", "N", "13", 3), 3160);
    assert_int_equal(ns("Pass", "", "", 0), 0);
    assert_int_equal(ns("AP", "", "", 3), 0);
    assert_int_equal(ns(" PO ", "", "", 3), 0);
}

static void test_parse_errors(void **state)
{
    (void)state;
    datum_contract c = {9, DATUM_CLUBS, 9};
    const char *bad[] = {"", "0S", "8S", "4", "4Z", "4SXXX", "4S X", "4NTT", "4SP", "XX", "Passs"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(datum_contract_parse(bad[i], strlen(bad[i]), &c), DATUM_E_INPUT);
    assert_int_equal(c.level, 9); /* untouched */
    int t = -5;
    const char *bad_result[] = {"", "+", "-", "+7", "-11", "14", "1a", "==", "+1x", "1234"};
    for (size_t i = 0; i < sizeof bad_result / sizeof *bad_result; i++)
        assert_int_equal(datum_result_parse(bad_result[i], strlen(bad_result[i]), 1, &t),
                         DATUM_E_INPUT);
    assert_int_equal(t, -5);
    assert_int_equal(datum_result_parse("=", 1, 0, &t), DATUM_E_INPUT); /* no level */
    assert_int_equal(datum_result_parse("+6", 2, 1, &t), DATUM_OK);
    assert_int_equal(t, 13);
    assert_int_equal(datum_result_parse("-7", 2, 1, &t), DATUM_OK);
    assert_int_equal(t, 0);
    assert_int_equal(datum_result_parse("0", 1, 7, &t), DATUM_OK);
    assert_int_equal(t, 0);
    assert_int_equal(datum_declarer_parse("X", 1), -1);
    assert_int_equal(datum_declarer_parse("NS", 2), -1);
    assert_int_equal(datum_declarer_parse("w", 1), DATUM_WEST);
}

/* One more trick for declarer (datum compare's continuity), from the
 * Laws' table: the score read as made by the side it favours when it can
 * be, undoubled, the lowest level, clubs first. */
static void test_one_more_trick(void **state)
{
    (void)state;
    int32_t s = 12345;
    assert_int_equal(datum_bridge_one_more_trick(420, 0, &s), DATUM_OK);
    assert_int_equal(s, 450); /* 4H= -> 4H+1 not vulnerable */
    assert_int_equal(datum_bridge_one_more_trick(-420, 0, &s), DATUM_OK);
    assert_int_equal(s, -450); /* East-West's game, the same */
    assert_int_equal(datum_bridge_one_more_trick(620, 1, &s), DATUM_OK);
    assert_int_equal(s, 650); /* vulnerable */
    assert_int_equal(datum_bridge_one_more_trick(110, 0, &s), DATUM_OK);
    assert_int_equal(s, 130); /* 2C+1 (the lowest level) -> 2C+2 */
    assert_int_equal(datum_bridge_one_more_trick(-50, 0, &s), DATUM_OK);
    assert_int_equal(s, 70); /* no one makes 50: 1C by NS one down -> 1C= */
    assert_int_equal(datum_bridge_one_more_trick(100, 0, &s), DATUM_OK);
    assert_int_equal(s, 50); /* 1C by EW two down -> one down */
    s = 12345;
    assert_int_equal(datum_bridge_one_more_trick(0, 0, &s), DATUM_W_EMPTY); /* passed out */
    assert_int_equal(datum_bridge_one_more_trick(30, 0, &s), DATUM_W_EMPTY); /* no contract */
    assert_int_equal(s, 12345);
    /* 1520 not vulnerable: 7NT= has no trick more; the next reading is 1HXX+5
     * (120 + 300 + 100 + 5 x 200), and +6 is 1720. */
    assert_int_equal(datum_bridge_one_more_trick(1520, 0, &s), DATUM_OK);
    assert_int_equal(s, 1720);
}

static void test_legal(void **state)
{
    (void)state;
    for (int v = 0; v < 4; v++) {
        assert_true(datum_bridge_score_legal(0, v));
        /* 4S= not vulnerable: 420 for NS when NS are not vulnerable (no penalty
         * and no vulnerable contract gives 420). */
        assert_int_equal(datum_bridge_score_legal(420, v), !(v & 1));
        assert_int_equal(datum_bridge_score_legal(-420, v), !(v & 2));
        assert_true(datum_bridge_score_legal(-100, v)); /* one down: 50 x 2 or 100 */
        assert_false(datum_bridge_score_legal(430 + 5, v));
        assert_false(datum_bridge_score_legal(10, v));
        assert_false(datum_bridge_score_legal(-10, v));
        assert_false(datum_bridge_score_legal(7610, v));
        /* -50: NS one down not vulnerable; nothing else gives it. */
        assert_int_equal(datum_bridge_score_legal(-50, v), !(v & 1));
    }
    /* 620 is 4S= vulnerable: only when NS are vulnerable (as a plus), EW (minus). */
    assert_true(datum_bridge_score_legal(620, 1));
    assert_true(datum_bridge_score_legal(620, 3));
    assert_false(datum_bridge_score_legal(620, 0));
    assert_false(datum_bridge_score_legal(620, 2));
    assert_true(datum_bridge_score_legal(-620, 2));
    assert_false(datum_bridge_score_legal(-620, 1));
    assert_true(datum_bridge_score_legal(3160, 1));
    assert_false(datum_bridge_score_legal(3160, 2));
    assert_true(datum_bridge_score_legal(-7600, 3));
    assert_false(datum_bridge_score_legal(430, 0) == 0); /* 3NT+1 */
    assert_true(datum_bridge_score_legal(440, 0));  /* 5C+2 */
    assert_false(datum_bridge_score_legal(30, 0));  /* no contract scores 30 */
    assert_false(datum_bridge_score_legal(-30, 3));
    /* Every score the function gives is legal, for its side and vulnerability. */
    for (int v = 0; v < 2; v++)
        for (int level = 1; level <= 7; level++)
            for (int s = DATUM_CLUBS; s <= DATUM_NOTRUMP; s++)
                for (int x = 0; x <= 2; x++)
                    for (int t = 0; t <= 13; t++) {
                        int score = datum_bridge_score(level, (datum_strain)s, x, v, t);
                        assert_true(datum_bridge_score_legal(score, v));
                        assert_true(datum_bridge_score_legal(-score, v << 1));
                    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_scores),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_legal),
        cmocka_unit_test(test_one_more_trick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
