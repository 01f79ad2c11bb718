/* test_text.c - the one parser of each kind (datum_text.h): whole integers,
 * reals, calendar dates, and the calendar. The day counts were computed with
 * Python's datetime (date.toordinal() - date(1970, 1, 1).toordinal()), and
 * outside its years 1..9999 by shifting whole 400-year cycles of 146097 days. */
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "datum_text.h"

/* datum_parse_int on a C string, with *out preset to a sentinel. */
static int int_of(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    *out = 777;
    return datum_parse_int(s, strlen(s), lo, hi, out);
}

static void test_int_whole_strings(void **state)
{
    (void)state;
    int64_t v;
    assert_int_equal(int_of("0", INT64_MIN, INT64_MAX, &v), DATUM_PARSE_OK);
    assert_int_equal(v, 0);
    assert_int_equal(int_of("+170", INT64_MIN, INT64_MAX, &v), DATUM_PARSE_OK);
    assert_int_equal(v, 170);
    assert_int_equal(int_of("-50", INT64_MIN, INT64_MAX, &v), DATUM_PARSE_OK);
    assert_int_equal(v, -50);
    assert_int_equal(int_of("007", INT64_MIN, INT64_MAX, &v), DATUM_PARSE_OK);
    assert_int_equal(v, 7);
    assert_int_equal(int_of("-0", INT64_MIN, INT64_MAX, &v), DATUM_PARSE_OK);
    assert_int_equal(v, 0);
    /* Empty and blank: their own status. */
    static const char *const empty[] = {"", " ", "\t", "  \t \r\n"};
    for (size_t i = 0; i < sizeof empty / sizeof *empty; i++) {
        assert_int_equal(int_of(empty[i], INT64_MIN, INT64_MAX, &v), DATUM_PARSE_EMPTY);
        assert_int_equal(v, 777);
    }
    /* Blanks around, signs alone or doubled, junk, other bases: not integers. */
    static const char *const bad[] = {" 5", "5 ", "5\t", "\t5", "1 000", "+", "-", "--5", "+-5",
                                      "5-", "5x", "x5", "0x10", "1e3", "1.0", "1,000", "٣"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(int_of(bad[i], INT64_MIN, INT64_MAX, &v), DATUM_PARSE_SYNTAX);
        assert_int_equal(v, 777);
    }
    /* The length is the text: a NUL inside is a wrong character; the bytes
     * after len are not read. */
    assert_int_equal(datum_parse_int("5\0", 2, 0, 9, &v), DATUM_PARSE_SYNTAX);
    assert_int_equal(datum_parse_int("123", 2, 0, 999, &v), DATUM_PARSE_OK);
    assert_int_equal(v, 12);
    assert_int_equal(datum_parse_int("123", 0, 0, 999, &v), DATUM_PARSE_EMPTY);
}

/* Every length of nines, both signs, against the value built here: the
 * short ones (one pass) and the long ones (the general path) agree on the
 * value, the bounds and the overflow at 19 digits. */
static void test_int_lengths(void **state)
{
    (void)state;
    char text[32];
    uint64_t nines = 0;
    for (int d = 1; d <= 20; d++) {
        int fits = d <= 18; /* 19 nines pass INT64_MAX */
        nines = nines * 10 + 9;
        for (int negative = 0; negative <= 1; negative++) {
            int64_t v, want = fits ? (negative ? -(int64_t)nines : (int64_t)nines) : 0;
            snprintf(text, sizeof text, "%s%.*s", negative ? "-" : "", d, "99999999999999999999");
            if (!fits) {
                assert_int_equal(int_of(text, INT64_MIN, INT64_MAX, &v), DATUM_PARSE_RANGE);
                continue;
            }
            assert_int_equal(int_of(text, INT64_MIN, INT64_MAX, &v), DATUM_PARSE_OK);
            assert_true(v == want);
            assert_int_equal(int_of(text, want, want, &v), DATUM_PARSE_OK);
            assert_int_equal(int_of(text, want + 1, INT64_MAX, &v), DATUM_PARSE_RANGE);
            assert_int_equal(int_of(text, INT64_MIN, want - 1, &v), DATUM_PARSE_RANGE);
            text[d / 2 + negative] = 'x'; /* a wrong character anywhere is not a number */
            assert_int_equal(int_of(text, INT64_MIN, INT64_MAX, &v), DATUM_PARSE_SYNTAX);
        }
    }
}

static void test_int_bounds_and_overflow(void **state)
{
    (void)state;
    int64_t v;
    assert_int_equal(int_of("1", 1, 9, &v), DATUM_PARSE_OK);
    assert_int_equal(int_of("9", 1, 9, &v), DATUM_PARSE_OK);
    assert_int_equal(v, 9);
    assert_int_equal(int_of("0", 1, 9, &v), DATUM_PARSE_RANGE);
    assert_int_equal(int_of("10", 1, 9, &v), DATUM_PARSE_RANGE);
    assert_int_equal(int_of("-1000001", -1000000, 1000000, &v), DATUM_PARSE_RANGE);
    assert_int_equal(v, 777);
    assert_int_equal(int_of("9223372036854775807", INT64_MIN, INT64_MAX, &v), DATUM_PARSE_OK);
    assert_true(v == INT64_MAX);
    assert_int_equal(int_of("-9223372036854775808", INT64_MIN, INT64_MAX, &v), DATUM_PARSE_OK);
    assert_true(v == INT64_MIN);
    static const char *const over[] = {"9223372036854775808", "-9223372036854775809",
                                       "+18446744073709551615", "18446744073709551616",
                                       "99999999999999999999999999999999999999999"};
    for (size_t i = 0; i < sizeof over / sizeof *over; i++) {
        assert_int_equal(int_of(over[i], INT64_MIN, INT64_MAX, &v), DATUM_PARSE_RANGE);
        assert_int_equal(v, 777);
    }
    /* A value past 32 bits is in range only if the bounds say so. */
    assert_int_equal(int_of("2147483648", INT32_MIN, INT32_MAX, &v), DATUM_PARSE_RANGE);
    assert_int_equal(int_of("2147483648", INT64_MIN, INT64_MAX, &v), DATUM_PARSE_OK);
    assert_true(v == 2147483648LL);
}

static void test_uint(void **state)
{
    (void)state;
    uint64_t v = 777;
    assert_int_equal(datum_parse_uint("18446744073709551615", 20, UINT64_MAX, &v), DATUM_PARSE_OK);
    assert_true(v == UINT64_MAX);
    assert_int_equal(datum_parse_uint("+42", 3, UINT64_MAX, &v), DATUM_PARSE_OK);
    assert_true(v == 42);
    v = 777;
    assert_int_equal(datum_parse_uint("18446744073709551616", 20, UINT64_MAX, &v),
                     DATUM_PARSE_RANGE);
    assert_int_equal(datum_parse_uint("11", 2, 10, &v), DATUM_PARSE_RANGE);
    assert_int_equal(datum_parse_uint("-1", 2, UINT64_MAX, &v), DATUM_PARSE_SYNTAX);
    assert_int_equal(datum_parse_uint("-0", 2, UINT64_MAX, &v), DATUM_PARSE_SYNTAX);
    assert_int_equal(datum_parse_uint(" 1", 2, UINT64_MAX, &v), DATUM_PARSE_SYNTAX);
    assert_int_equal(datum_parse_uint("  ", 2, UINT64_MAX, &v), DATUM_PARSE_EMPTY);
    assert_true(v == 777);
}

static int real_of(const char *s, double lo, double hi, double *out)
{
    *out = 777;
    return datum_parse_real(s, strlen(s), lo, hi, out);
}

static void test_real(void **state)
{
    (void)state;
    double v;
    static const struct {
        const char *text;
        double value;
    } good[] = {{"2", 2},         {"-1.5", -1.5},    {"+0.25", 0.25},   {"1e-9", 1e-9},
                {"2.5E+3", 2500}, {"007.50", 7.5},   {"-0", -0.0},      {"12.34", 12.34},
                {"1e-400", 0}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        assert_int_equal(real_of(good[i].text, -DBL_MAX, DBL_MAX, &v), DATUM_PARSE_OK);
        assert_true(v == good[i].value);
    }
    static const char *const bad[] = {".5", "5.", "+.5", "1e", "1e+", "e5", "0x1p3", "inf",
                                      "-inf", "nan", "NAN", " 1", "1 ", "1,5", "1.5.2", "--1",
                                      "1.5G", "++1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(real_of(bad[i], -DBL_MAX, DBL_MAX, &v), DATUM_PARSE_SYNTAX);
        assert_true(v == 777);
    }
    assert_int_equal(real_of("", -DBL_MAX, DBL_MAX, &v), DATUM_PARSE_EMPTY);
    assert_int_equal(real_of(" \t", -DBL_MAX, DBL_MAX, &v), DATUM_PARSE_EMPTY);
    assert_int_equal(real_of("1e999", -DBL_MAX, DBL_MAX, &v), DATUM_PARSE_RANGE);
    assert_int_equal(real_of("-1e999", -DBL_MAX, DBL_MAX, &v), DATUM_PARSE_RANGE);
    assert_int_equal(real_of("50", 0, 50, &v), DATUM_PARSE_OK);
    assert_int_equal(real_of("50.0001", 0, 50, &v), DATUM_PARSE_RANGE);
    assert_int_equal(real_of("-0.5", 0, 50, &v), DATUM_PARSE_RANGE);
    assert_true(v == 777);
    /* A prefix given by its length ("1.5" of "1.5G"), and a number cut short
     * by len though digits follow (strtod must not read on). */
    assert_int_equal(datum_parse_real("1.5G", 3, 0, 10, &v), DATUM_PARSE_OK);
    assert_true(v == 1.5);
    assert_int_equal(datum_parse_real("12345", 2, 0, 1e9, &v), DATUM_PARSE_OK);
    assert_true(v == 12);
    char longest[DATUM_REAL_MAX_LEN + 2];
    memset(longest, '1', sizeof longest);
    assert_int_equal(datum_parse_real(longest, DATUM_REAL_MAX_LEN, 0, DBL_MAX, &v), DATUM_PARSE_OK);
    assert_int_equal(datum_parse_real(longest, DATUM_REAL_MAX_LEN + 1, 0, DBL_MAX, &v),
                     DATUM_PARSE_SYNTAX);
}

static int date_of(const char *s, const char *layout, int32_t *days)
{
    *days = 777;
    return datum_parse_date(s, strlen(s), layout, days);
}

static void test_month_ends(void **state)
{
    (void)state;
    /* The last day of every month of 2023 and of 2024 (leap), and its day count. */
    static const int last[2][12] = {{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
                                    {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}};
    static const int32_t count[2][12] = {
        {19388, 19416, 19447, 19477, 19508, 19538, 19569, 19600, 19630, 19661, 19691, 19722},
        {19753, 19782, 19813, 19843, 19874, 19904, 19935, 19966, 19996, 20027, 20057, 20088}};
    for (int k = 0; k < 2; k++)
        for (int m = 0; m < 12; m++) {
            char text[32];
            int32_t days;
            snprintf(text, sizeof text, "%d-%02d-%02d", 2023 + k, m + 1, last[k][m]);
            assert_int_equal(date_of(text, DATUM_DATE_ISO, &days), DATUM_PARSE_OK);
            assert_int_equal(days, count[k][m]);
            snprintf(text, sizeof text, "%d-%02d-%02d", 2023 + k, m + 1, last[k][m] + 1);
            assert_int_equal(date_of(text, DATUM_DATE_ISO, &days), DATUM_PARSE_RANGE);
            assert_int_equal(days, 777);
            assert_int_equal(datum_date_valid(2023 + k, m + 1, last[k][m]), 1);
            assert_int_equal(datum_date_valid(2023 + k, m + 1, last[k][m] + 1), 0);
        }
}

static void test_leap_years(void **state)
{
    (void)state;
    int32_t days;
    assert_int_equal(date_of("2000-02-29", DATUM_DATE_ISO, &days), DATUM_PARSE_OK);
    assert_int_equal(days, 11016);
    assert_int_equal(date_of("2024-02-29", DATUM_DATE_ISO, &days), DATUM_PARSE_OK);
    assert_int_equal(days, 19782);
    assert_int_equal(date_of("1600-02-29", DATUM_DATE_ISO, &days), DATUM_PARSE_OK);
    assert_int_equal(days, -135081);
    assert_int_equal(date_of("1900-02-29", DATUM_DATE_ISO, &days), DATUM_PARSE_RANGE);
    assert_int_equal(date_of("2023-02-29", DATUM_DATE_ISO, &days), DATUM_PARSE_RANGE);
    assert_int_equal(date_of("2100-02-29", DATUM_DATE_ISO, &days), DATUM_PARSE_RANGE);
    assert_int_equal(days, 777);
    assert_int_equal(date_of("1900-02-28", DATUM_DATE_ISO, &days), DATUM_PARSE_OK);
    assert_int_equal(days, -25509);
    assert_int_equal(date_of("1900-03-01", DATUM_DATE_ISO, &days), DATUM_PARSE_OK);
    assert_int_equal(days, -25508);
}

static void test_date_range_and_spelling(void **state)
{
    (void)state;
    int32_t days;
    assert_int_equal(date_of("1970-01-01", DATUM_DATE_ISO, &days), DATUM_PARSE_OK);
    assert_int_equal(days, 0);
    assert_int_equal(date_of("1969-12-31", DATUM_DATE_ISO, &days), DATUM_PARSE_OK);
    assert_int_equal(days, -1);
    assert_int_equal(date_of("0001-01-01", DATUM_DATE_ISO, &days), DATUM_PARSE_OK);
    assert_int_equal(days, -719162);
    assert_int_equal(date_of("9999-12-31", DATUM_DATE_ISO, &days), DATUM_PARSE_OK);
    assert_int_equal(days, 2932896);
    static const char *const range[] = {"0000-12-31", "2024-00-10", "2024-13-01", "2024-01-00",
                                        "2024-01-32", "2024-04-31", "2024-02-31"};
    for (size_t i = 0; i < sizeof range / sizeof *range; i++) {
        assert_int_equal(date_of(range[i], DATUM_DATE_ISO, &days), DATUM_PARSE_RANGE);
        assert_int_equal(days, 777);
    }
    static const char *const spelling[] = {"2024-1-01", "24-01-01",    "2024/01/01", "2024-01-01x",
                                           "2024-01-01 ", " 2024-01-01", "20240-01-01", "2024-001-01",
                                           "2024-01-1",  "+2024-01-01", "2024--1-01", "2024-01"};
    for (size_t i = 0; i < sizeof spelling / sizeof *spelling; i++) {
        assert_int_equal(date_of(spelling[i], DATUM_DATE_ISO, &days), DATUM_PARSE_SYNTAX);
        assert_int_equal(days, 777);
    }
    assert_int_equal(date_of("", DATUM_DATE_ISO, &days), DATUM_PARSE_EMPTY);
    assert_int_equal(date_of("   ", DATUM_DATE_ISO, &days), DATUM_PARSE_EMPTY);
}

static void test_other_layouts(void **state)
{
    (void)state;
    int32_t days;
    /* PBN's: one to four digits of year, one or two of month and day. */
    assert_int_equal(date_of("2024.02.29", "Y.M.D", &days), DATUM_PARSE_OK);
    assert_int_equal(days, 19782);
    assert_int_equal(date_of("2024.2.29", "Y.M.D", &days), DATUM_PARSE_OK);
    assert_int_equal(days, 19782);
    assert_int_equal(date_of("1.1.1", "Y.M.D", &days), DATUM_PARSE_OK);
    assert_int_equal(days, -719162);
    assert_int_equal(date_of("2024.02.31", "Y.M.D", &days), DATUM_PARSE_RANGE);
    assert_int_equal(date_of("2012.02.31", "Y.M.D", &days), DATUM_PARSE_RANGE);
    assert_int_equal(date_of("2024.002.01", "Y.M.D", &days), DATUM_PARSE_SYNTAX);
    assert_int_equal(date_of("20240.2.1", "Y.M.D", &days), DATUM_PARSE_SYNTAX);
    assert_int_equal(date_of("2024-02-01", "Y.M.D", &days), DATUM_PARSE_SYNTAX);
    assert_int_equal(date_of("2024.02.", "Y.M.D", &days), DATUM_PARSE_SYNTAX);
    /* USEBIO's: day and month first, the year in four digits. */
    assert_int_equal(date_of("29/02/2024", "D/M/YYYY", &days), DATUM_PARSE_OK);
    assert_int_equal(days, 19782);
    assert_int_equal(date_of("1/3/2024", "D/M/YYYY", &days), DATUM_PARSE_OK);
    assert_int_equal(days, 19783);
    assert_int_equal(date_of("31/02/2024", "D/M/YYYY", &days), DATUM_PARSE_RANGE);
    assert_int_equal(date_of("29/02/2023", "D/M/YYYY", &days), DATUM_PARSE_RANGE);
    assert_int_equal(date_of("29/02/24", "D/M/YYYY", &days), DATUM_PARSE_SYNTAX);
    assert_int_equal(date_of("02/29/2024", "D/M/YYYY", &days), DATUM_PARSE_RANGE);
    assert_int_equal(days, 777);
}

static void test_calendar_round_trip(void **state)
{
    (void)state;
    char text[DATUM_DATE_SIZE];
    assert_string_equal(datum_format_date(0, text), "1970-01-01");
    assert_string_equal(datum_format_date(19782, text), "2024-02-29");
    assert_string_equal(datum_format_date(-719162, text), "0001-01-01");
    assert_string_equal(datum_format_date(2932896, text), "9999-12-31");
    /* Outside 1..9999: still the proleptic calendar (year 0 = 1 BC). */
    assert_string_equal(datum_format_date(-719163, text), "0000-12-31");
    assert_string_equal(datum_format_date(INT32_MAX, text), "5881580-07-11");
    assert_string_equal(datum_format_date(INT32_MIN, text), "-5877641-06-23");
    /* Every day of years 1..9999: the text reads back as the same day, and
     * consecutive days are consecutive dates. */
    int py = 0, pm = 12, pd = 31; /* 0000-12-31, day 0001-01-01 - 1 */
    for (int32_t d = -719162; d <= 2932896; d++) {
        int y, m, dd;
        datum_civil_from_days(d, &y, &m, &dd);
        int next_day = y == py && m == pm && dd == pd + 1;
        int next_month = y == py && m == pm + 1 && dd == 1;
        int next_year = y == py + 1 && m == 1 && dd == 1 && pm == 12 && pd == 31;
        if (!(next_day || ((next_month || next_year) && !datum_date_valid(py, pm, pd + 1))))
            fail_msg("day %d: %d-%d-%d after %d-%d-%d", (int)d, y, m, dd, py, pm, pd);
        assert_true(datum_date_valid(y, m, dd));
        if (datum_days_from_civil(y, m, dd) != d) fail_msg("day %d back as another", (int)d);
        if (d % 997 == 0) { /* the text too, on a sample */
            int32_t back;
            datum_format_date(d, text);
            assert_int_equal(datum_parse_date(text, strlen(text), DATUM_DATE_ISO, &back),
                             DATUM_PARSE_OK);
            assert_int_equal(back, d);
        }
        py = y, pm = m, pd = dd;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_whole_strings),
        cmocka_unit_test(test_int_lengths),
        cmocka_unit_test(test_int_bounds_and_overflow),
        cmocka_unit_test(test_uint),
        cmocka_unit_test(test_real),
        cmocka_unit_test(test_month_ends),
        cmocka_unit_test(test_leap_years),
        cmocka_unit_test(test_date_range_and_spelling),
        cmocka_unit_test(test_other_layouts),
        cmocka_unit_test(test_calendar_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
