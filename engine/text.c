/* text.c - the parsers of datum_text.h: integers, reals, calendar dates. */
#include "datum_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* DATUM_PARSE_EMPTY if s[0..len) is empty or only blanks, else OK. */
static int empty_or_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!is_blank(s[i])) return DATUM_PARSE_OK;
    return DATUM_PARSE_EMPTY;
}

/* Digits s[*i..) while they last: their count into *n_digits, the value into
 * *v (saturated at UINT64_MAX with *overflow set). */
static void read_digits(const char *s, size_t len, size_t *i, size_t *n_digits, uint64_t *v,
                        int *overflow)
{
    size_t start = *i;
    for (; *i < len && is_digit(s[*i]); ++*i) {
        unsigned d = (unsigned)(s[*i] - '0');
        if (*v > (UINT64_MAX - d) / 10) *overflow = 1, *v = UINT64_MAX;
        else *v = *v * 10 + d;
    }
    *n_digits = *i - start;
}

/* The integer core: [+-]digits, its sign and magnitude (RANGE past 2^64-1). */
static int parse_magnitude(const char *s, size_t len, int *negative, uint64_t *magnitude)
{
    if (empty_or_blank(s, len) != DATUM_PARSE_OK) return DATUM_PARSE_EMPTY;
    size_t i = 0, n_digits;
    *negative = s[0] == '-';
    if (s[0] == '-' || s[0] == '+') i = 1;
    uint64_t v = 0;
    int overflow = 0;
    read_digits(s, len, &i, &n_digits, &v, &overflow);
    if (n_digits == 0 || i != len) return DATUM_PARSE_SYNTAX;
    if (overflow) return DATUM_PARSE_RANGE;
    *magnitude = v;
    return DATUM_PARSE_OK;
}

int datum_parse_int_general(const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out)
{
    int negative;
    uint64_t m;
    int rc = parse_magnitude(s, len, &negative, &m);
    if (rc != DATUM_PARSE_OK) return rc;
    /* -(2^63) is the one magnitude of 2^63 that fits. */
    if (m > (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) return DATUM_PARSE_RANGE;
    int64_t v = negative ? (m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    if (v < lo || v > hi) return DATUM_PARSE_RANGE;
    *out = v;
    return DATUM_PARSE_OK;
}

int datum_parse_uint(const char *s, size_t len, uint64_t hi, uint64_t *out)
{
    int negative;
    uint64_t m;
    int rc = parse_magnitude(s, len, &negative, &m);
    if (rc != DATUM_PARSE_OK) return rc;
    if (negative) return DATUM_PARSE_SYNTAX;
    if (m > hi) return DATUM_PARSE_RANGE;
    *out = m;
    return DATUM_PARSE_OK;
}

/* ------------------------------------------------------------------------ */

/* Length of the decimal real spelled at the start of s[0..len) (the grammar
 * of datum_parse_real), 0 if none. */
static size_t real_length(const char *s, size_t len)
{
    size_t i = 0, n;
    uint64_t ignored = 0;
    int overflow = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    read_digits(s, len, &i, &n, &ignored, &overflow);
    if (n == 0) return 0;
    if (i < len && s[i] == '.') {
        i++;
        read_digits(s, len, &i, &n, &ignored, &overflow);
        if (n == 0) return 0;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        read_digits(s, len, &i, &n, &ignored, &overflow);
        if (n == 0) return 0;
    }
    return i;
}

int datum_parse_real(const char *s, size_t len, double lo, double hi, double *out)
{
    if (empty_or_blank(s, len) != DATUM_PARSE_OK) return DATUM_PARSE_EMPTY;
    if (real_length(s, len) != len) return DATUM_PARSE_SYNTAX;
    char text[DATUM_REAL_MAX_LEN + 1]; /* strtod needs a terminated string */
    if (len > DATUM_REAL_MAX_LEN) return DATUM_PARSE_SYNTAX;
    memcpy(text, s, len);
    text[len] = '\0';
    double v = strtod(text, NULL);
    if (!isfinite(v) || !(v >= lo && v <= hi)) return DATUM_PARSE_RANGE;
    *out = v;
    return DATUM_PARSE_OK;
}

/* ------------------------------------------------------------------------ */

static int is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int datum_date_valid(int y, int m, int d)
{
    static const int days_in_month[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 &&
           d <= days_in_month[m - 1] + (m == 2 && is_leap(y));
}

int32_t datum_days_from_civil(int y, int m, int d)
{
    /* H. Hinnant's days_from_civil: years counted from March, so that the
     * leap day ends the year. y >= 1 keeps every quotient non-negative. */
    y -= m <= 2;
    int era = y / 400;
    int yoe = y - era * 400;
    int doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (int32_t)(era * 146097 + doe - 719468);
}

void datum_civil_from_days(int32_t days, int *y, int *m, int *d)
{
    /* H. Hinnant's civil_from_days, in 64 bits for any int32_t. */
    int64_t z = (int64_t)days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

/* One run of `letter` (run letters long) of a date layout at s[*i..len):
 * 1..4 digits for a lone Y, 1..2 for a lone M or D, else exactly run digits. */
static int date_part(const char *s, size_t len, size_t *i, char letter, size_t run, int *value)
{
    size_t lo = run > 1 ? run : 1, hi = run > 1 ? run : letter == 'Y' ? 4 : 2, n;
    uint64_t v = 0;
    int overflow = 0;
    read_digits(s, *i + hi < len ? *i + hi : len, i, &n, &v, &overflow);
    if (n < lo || (*i < len && is_digit(s[*i]))) return DATUM_PARSE_SYNTAX;
    *value = (int)v;
    return DATUM_PARSE_OK;
}

int datum_parse_date(const char *s, size_t len, const char *layout, int32_t *days)
{
    static const char kParts[] = "YMD";
    if (empty_or_blank(s, len) != DATUM_PARSE_OK) return DATUM_PARSE_EMPTY;
    int part[3] = {0, 0, 0}; /* year, month, day */
    size_t i = 0;
    for (const char *p = layout; *p;) {
        const char *which = strchr(kParts, *p);
        size_t run = 1;
        while (which && p[run] == *p) run++;
        if (which) {
            if (date_part(s, len, &i, *p, run, &part[which - kParts]) != DATUM_PARSE_OK)
                return DATUM_PARSE_SYNTAX;
        } else if (i == len || s[i++] != *p) { /* a literal */
            return DATUM_PARSE_SYNTAX;
        }
        p += run;
    }
    if (i != len) return DATUM_PARSE_SYNTAX;
    if (!datum_date_valid(part[0], part[1], part[2])) return DATUM_PARSE_RANGE;
    *days = datum_days_from_civil(part[0], part[1], part[2]);
    return DATUM_PARSE_OK;
}

char *datum_format_date(int32_t days, char out[DATUM_DATE_SIZE])
{
    int y, m, d;
    datum_civil_from_days(days, &y, &m, &d);
    snprintf(out, DATUM_DATE_SIZE, "%04d-%02d-%02d", y, m, d);
    return out;
}
