/*
 * datum_text.h - the one parser of each kind of value datum reads as text
 * (whole integers, decimal reals, calendar dates) and the calendar itself.
 * Every reader (CSV, PBN, USEBIO, tarot) and every command-line option goes
 * through these, so that a value means the same thing wherever it is written.
 *
 * The rules, for every parser below:
 *  - The text is s[0..len): exactly those bytes, no NUL needed (a NUL inside
 *    is just a wrong character). Callers cut the value out of its line first.
 *  - Blanks (space, tab, CR, LF) are never skipped: " 5" and "5 " are not
 *    integers. A text that is empty or only blanks is reported as
 *    DATUM_PARSE_EMPTY, apart from a wrong spelling, so that a reader decides
 *    itself whether an empty field means "absent" or is an error.
 *  - On any status other than DATUM_PARSE_OK, *out is left untouched.
 *  - Pure: no allocation, no I/O, no global state, safe from any thread.
 *    (datum_parse_real converts through strtod, which reads the locale's
 *    decimal point: datum runs in the "C" LC_NUMERIC locale.)
 *
 * The statuses are not DATUM_E_* error codes: the parsers take no context;
 * a caller turns a status into its own message ("FILE:LINE: column NAME:
 * ...") and error code.
 */
#ifndef DATUM_TEXT_H
#define DATUM_TEXT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    DATUM_PARSE_OK = 0,     /* *out holds the value */
    DATUM_PARSE_EMPTY = 1,  /* len == 0, or only blanks */
    DATUM_PARSE_SYNTAX = 2, /* not spelled as the parser's kind of value */
    DATUM_PARSE_RANGE = 3   /* well spelled, but outside the bounds (an integer
                               past 64 bits; a real past DBL_MAX; a day that is
                               not in the calendar, such as 2024-02-31) */
} datum_parse_status;

/* ------------------------------------------------------------------------ */
/* Integers                                                                 */

/* datum_parse_int's general path (a '+', blanks, 19 digits or more, every
 * error), for the texts its inline common case leaves. */
int datum_parse_int_general(const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out);

/* A decimal integer: an optional sign (+ or -) then one or more ASCII digits
 * (leading zeros allowed), nothing else. *out receives it if lo <= v <= hi.
 * Returns a datum_parse_status; DATUM_PARSE_RANGE also for any value outside
 * the int64 range (e.g. 9223372036854775808), never a wrapped value.
 * Inline: the common case ('-' or nothing, then at most 18 digits: no
 * overflow possible) in one pass where it is called (the CSV import's
 * boards, tables and scores, three a row), anything else by
 * datum_parse_int_general. */
static inline int datum_parse_int(const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out)
{
    size_t sign = len > 0 && s[0] == '-', i = sign;
    if (len > sign && len - sign <= 18) {
        int64_t v = 0;
        for (; i < len && (unsigned char)(s[i] - '0') < 10; i++) v = v * 10 + (s[i] - '0');
        if (i == len) {
            v = sign ? -v : v;
            if (v < lo || v > hi) return DATUM_PARSE_RANGE;
            *out = v;
            return DATUM_PARSE_OK;
        }
    }
    return datum_parse_int_general(s, len, lo, hi, out);
}

/* The same for an unsigned value 0..hi (up to UINT64_MAX): an optional '+',
 * then digits; a '-' is DATUM_PARSE_SYNTAX ("-0" too). */
int datum_parse_uint(const char *s, size_t len, uint64_t hi, uint64_t *out);

/* ------------------------------------------------------------------------ */
/* Reals                                                                    */

#define DATUM_REAL_MAX_LEN 64 /* longer texts are not reals (DATUM_PARSE_SYNTAX) */

/* A decimal real: an optional sign, digits, optionally '.' and digits, then
 * optionally an exponent (e or E, an optional sign, digits): "2", "-1.5",
 * "1e-9", "2.5E+3". Not ".5", "5.", hexadecimal, "inf" or "nan", nor more
 * than DATUM_REAL_MAX_LEN bytes. *out receives the nearest double if it is
 * finite and lo <= v <= hi; an overflow (1e999) is DATUM_PARSE_RANGE, an
 * underflow gives 0 or a subnormal. */
int datum_parse_real(const char *s, size_t len, double lo, double hi, double *out);

/* ------------------------------------------------------------------------ */
/* Calendar dates: the proleptic Gregorian calendar, years 1 to 9999, as     */
/* days since 1970-01-01 (negative before).                                 */

/* Days since 1970-01-01 of the date y-m-d, which must be a real day with
 * 1 <= y <= 9999 (see datum_date_valid). */
int32_t datum_days_from_civil(int y, int m, int d);
/* The date of a day count: the inverse of datum_days_from_civil for any
 * int32_t days (years outside 1..9999 included, year 0 being 1 BC). */
void datum_civil_from_days(int32_t days, int *y, int *m, int *d);
/* 1 if y-m-d is a day of the calendar: 1 <= y <= 9999, 1 <= m <= 12 and
 * 1 <= d <= the month's length (February: 29 in a leap year, a year divisible
 * by 4 but not by 100 unless by 400), else 0. */
int datum_date_valid(int y, int m, int d);

/* The ISO spelling of dates: what the results CSV, the tarot CSV and the
 * command-line options read, and what datum writes. */
#define DATUM_DATE_ISO "YYYY-MM-DD"

/* A date written as `layout` says, into days since 1970-01-01. In the layout,
 * a run of Y, M or D stands for the year, the month or the day: a run of one
 * letter takes 1 to 4 digits (Y) or 1 to 2 (M, D), a longer run exactly as
 * many digits as letters; any other character must appear as it is. So
 * DATUM_DATE_ISO reads "2024-02-29" only, "Y.M.D" reads "2024.2.29" and
 * "2024.02.29", "D/M/YYYY" reads "29/2/2024" and "29/02/2024". The layout
 * names each of Y, M and D once. Returns DATUM_PARSE_OK, EMPTY, SYNTAX (not
 * the layout), or RANGE (not a day of the calendar: datum_date_valid). */
int datum_parse_date(const char *s, size_t len, const char *layout, int32_t *days);

/* Room for any datum_format_date text: "-5877641-06-23" and its NUL. */
#define DATUM_DATE_SIZE 16
/* The date of a day count as YYYY-MM-DD into out (at least 4 digits of year,
 * a '-' before a negative one; any int32_t days). Returns out. */
char *datum_format_date(int32_t days, char out[DATUM_DATE_SIZE]);

#ifdef __cplusplus
}
#endif

#endif
