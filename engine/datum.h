/*
 * datum.h - the engine's public contract: context, IMP scales, datum rules,
 * Butler and cross-IMP kernels, and the batch driver over many board fields.
 *
 * Conventions (every function below follows them):
 *  - Return codes: DATUM_OK (0) on success, a negative DATUM_E_* on error, a
 *    positive DATUM_W_* for a warning that left usable output.
 *  - Functions taking a datum_ctx record any error in it (code + message),
 *    retrievable with datum_ctx_code() / datum_ctx_message().
 *  - Kernels (datum_field_*, datum_imp*) are pure: const inputs, caller-owned
 *    outputs and workspace, no allocation, no I/O, no global state; they are
 *    safe to call concurrently from any number of threads.
 *  - Scores are North-South's; East-West's own score is the negation.
 *
 * The mathematics is defined in docs/methods.md (the project's copy of the
 * scoring contract); section numbers "§n" below refer to it.
 */
#ifndef DATUM_H
#define DATUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Return codes                                                             */

enum {
    DATUM_OK = 0,
    DATUM_E_NOMEM = -1,   /* an allocation failed */
    DATUM_E_ARG = -2,     /* invalid argument or option (usage error) */
    DATUM_E_INPUT = -3,   /* bad input data (CSV row, value out of range) */
    DATUM_E_IO = -4,      /* a file could not be opened, read or written */
    DATUM_E_FORMAT = -5,  /* not a datum archive, corrupt or unsupported */
    DATUM_E_NUMERIC = -6, /* a numerical method failed */
    DATUM_W_EMPTY = 1,    /* warning: nothing to compute (e.g. no real score) */
    DATUM_W_INACCURATE = 2, /* warning: a numerical result missed its tolerance */
    DATUM_W_SCORE = 3       /* warning: an input score was suspect (impossible) but kept */
};

/* Short English name of a return code ("ok", "out of memory", ...). */
const char *datum_strerror(int code);

/* Engine version, e.g. "0.1.0"; recorded in every output file. */
const char *datum_version(void);

/* ------------------------------------------------------------------------ */
/* Context: thread count, progress callback and the error state.            */

typedef struct datum_ctx datum_ctx;

/* Progress callback: done out of total units of the current job. Called from
 * the calling thread only, never from inside a parallel region. */
typedef void (*datum_progress_fn)(void *user, uint64_t done, uint64_t total);

/* Creates a context with 1 thread and no error. *out receives it; the caller
 * frees it with datum_ctx_free. Returns DATUM_OK or DATUM_E_NOMEM. */
int datum_ctx_create(datum_ctx **out);
/* Frees the context; accepts NULL and *ctx == NULL; sets *ctx to NULL. */
void datum_ctx_free(datum_ctx **ctx);

/* Thread count for the parallel drivers, 1..1024. Results never depend on
 * it. The threads are started here (OpenMP's pool), so that a system that
 * cannot give them their stacks is an error here, not the end of the program
 * in the middle of a job. Returns DATUM_OK, DATUM_E_ARG, or DATUM_E_NOMEM
 * (the threads could not be started; the count is left as it was), and
 * records the error. */
int datum_ctx_set_threads(datum_ctx *ctx, int threads);
int datum_ctx_threads(const datum_ctx *ctx);
/* The thread count OpenMP would use by default: OMP_NUM_THREADS when set,
 * else the processors this process may run on (its affinity mask, so a
 * `taskset` or a container's CPU set is respected), capped at 1024. Never
 * fails: 1 when nothing can be learnt. */
int datum_available_threads(void);

void datum_ctx_set_progress(datum_ctx *ctx, datum_progress_fn fn, void *user);
/* Reports progress through the callback, if any (library-internal use). */
void datum_ctx_progress(datum_ctx *ctx, uint64_t done, uint64_t total);

/* Warnings: messages about input kept as it is (a suspect score). A reader
 * reports each one through the callback set here (the CLI prints them on
 * stderr) and the context counts them. Called from the calling thread only. */
typedef void (*datum_warning_fn)(void *user, const char *message);
/* Sets the callback (NULL: warnings are only counted) and its first argument. */
void datum_ctx_set_warning(datum_ctx *ctx, datum_warning_fn fn, void *user);
/* Warnings issued through ctx since its creation. */
uint64_t datum_ctx_warnings(const datum_ctx *ctx);
/* Formats a warning (printf-style, a complete message such as "FILE:LINE:
 * ..."), counts it and passes it to the callback, if any (library-internal
 * use). Messages longer than 1023 bytes are cut. */
void datum_ctx_warn(datum_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Records an error (printf-style message) and returns code. A later error
 * does not overwrite the first one until datum_ctx_clear. Safe to call from
 * several threads at once (inside a parallel region); reading the error
 * back waits until the region is over. */
int datum_ctx_fail(datum_ctx *ctx, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int datum_ctx_code(const datum_ctx *ctx);           /* DATUM_OK if none */
const char *datum_ctx_message(const datum_ctx *ctx); /* "" if none */
void datum_ctx_clear(datum_ctx *ctx);

/* ------------------------------------------------------------------------ */
/* IMP scales (§1)                                                          */

typedef enum {
    DATUM_SCALE_WBF = 0,   /* integer WBF table, 0..24 */
    DATUM_SCALE_LINEAR = 1 /* "Bastille": piecewise linear through the midpoints */
} datum_scale_kind;

typedef struct {
    datum_scale_kind kind;
    int doubled; /* convert 2*(s-d) instead of s-d (seed 002) */
    int halved;  /* divide the resulting IMPs by 2 (seed 002) */
} datum_scale;

#define DATUM_SCALE_INIT {DATUM_SCALE_WBF, 0, 0}

/* WBF IMPs of a real difference: |d| >= boundary gives the higher band. */
int datum_imp_wbf(double diff);

/* IMPs of the exact rational difference num/den (den > 0) on the scale,
 * options applied. Exact: the band (wbf) is decided in integer arithmetic and
 * the linear value is correctly rounded. Requires |num| < 2^52 / 4. */
double datum_imp_ratio(const datum_scale *scale, int64_t num, int64_t den);

/* IMPs of a real difference (convenience; floating-point comparison). */
double datum_imp(const datum_scale *scale, double diff);

/* ------------------------------------------------------------------------ */
/* Datum rules (§2)                                                         */

typedef enum {
    DATUM_CENTER_MEAN = 0,        /* (weighted, trimmed) mean */
    DATUM_CENTER_MEDIAN_LOW = 1,  /* lower middle for even n */
    DATUM_CENTER_MEDIAN_HIGH = 2, /* upper middle for even n */
    DATUM_CENTER_MEDIAN_MEAN = 3, /* mean of the two middles for even n */
    DATUM_CENTER_PAR = 4          /* zero-sum par (seed 002) */
} datum_center;

typedef enum {
    DATUM_TRIM_NONE = 0,
    DATUM_TRIM_FIXED = 1,   /* trim_count at each end */
    DATUM_TRIM_TENTH = 2,   /* ceil(n/10) at each end */
    DATUM_TRIM_PERCENT = 3  /* trim_percent % of n at each end, see trim_percent_round */
} datum_trim;

typedef enum {
    DATUM_ROUND_NONE = 0,
    DATUM_ROUND_HALF_TOWARD_ZERO = 1, /* +175 -> +170, -415 -> -410 (NBB) */
    DATUM_ROUND_HALF_AWAY = 2,        /* +175 -> +180, -415 -> -420 */
    DATUM_ROUND_HALF_UP = 3,          /* toward +infinity: -415 -> -410, +175 -> +180 */
    DATUM_ROUND_HALF_EVEN = 4,        /* to the even multiple: 175 -> 180, 165 -> 160 */
    DATUM_ROUND_TRUNCATE = 5          /* not to the nearest: toward zero, 73.3 -> 70, -96.7 -> -90
                                         (JFR Pary, docs/peers.md) */
} datum_rounding;

typedef enum {
    DATUM_PCT_CEIL = 0,   /* k = ceil(n*p/100) */
    DATUM_PCT_FLOOR = 1,  /* k = floor(n*p/100) */
    DATUM_PCT_NEAREST = 2 /* k = n*p/100 rounded, halves up */
} datum_pct_round;

/*
 * The general recipe. For a field of n real scores:
 *  - center PAR: §2 par, every other member ignored.
 *  - if small_max >= 3 and 3 <= n <= small_max: weighted mean, the single
 *    lowest and single highest weigh 1, every other score middle_weight;
 *  - else if n >= trim_min_n: drop k scores at each end, k from trim, capped
 *    at floor((n-1)/2) so that at least one score remains;
 *  - center (mean or median) of what remains;
 *  - rounding to a multiple of round_unit.
 */
typedef struct {
    datum_center center;
    datum_trim trim;
    int trim_count;          /* DATUM_TRIM_FIXED: k, >= 0 */
    double trim_percent;     /* DATUM_TRIM_PERCENT: p in [0, 50] */
    datum_pct_round trim_percent_round;
    int trim_min_n;          /* trim only fields of at least this many scores */
    int small_max;           /* weighted small fields 3..small_max; 0 = off */
    int middle_weight;       /* weight of the inner scores of a small field, >= 1 */
    datum_rounding rounding;
    int round_unit;          /* > 0, usually 10 */
} datum_rule;

/* Fills *rule with the preset: "mean", "nbb", "bastille", "par" (§2), or
 * "acbl" (drop 5% rounded up, halves to even) and "bridgewx" (ceil(n/10)
 * when n > 5, halves away from zero). Returns DATUM_OK or DATUM_E_ARG. */
int datum_rule_preset(datum_rule *rule, const char *name);

/* Checks every member's range. Returns DATUM_OK or DATUM_E_ARG. */
int datum_rule_check(const datum_rule *rule);

/* A datum as the exact rational num/den (den > 0); den == 0: no datum. */
typedef struct {
    int64_t num;
    int64_t den;
} datum_value;

/* Datum of one field's n real scores. work: n int32 of caller scratch (the
 * scores are copied and sorted there; scores itself is not modified).
 * Returns DATUM_OK, or DATUM_W_EMPTY with den = 0 when n == 0. Requires
 * |score| < 2^20 and n < 2^31 (the rational stays exact in 64 bits). */
int datum_field_datum(const datum_rule *rule, const int32_t *scores, size_t n,
                      int32_t *work, datum_value *out);

/* Rules datum_field_datums takes at once. */
#define DATUM_FIELD_DATUMS_MAX 16

/* The datums of count <= DATUM_FIELD_DATUMS_MAX rules of one field's n real
 * scores into out[0..count):
 * each datum_field_datum's bit for bit (den = 0 when n == 0), the scores
 * read once for every trimmed mean and par (their sum and extremes shared).
 * work: n int32 of caller scratch, as datum_field_datum's. Same limits. */
void datum_field_datums(size_t count, const datum_rule *const *rule, const int32_t *scores,
                        size_t n, int32_t *work, datum_value *out);

/* The datum as a double (NaN when there is none). */
double datum_value_double(datum_value v);

/* ------------------------------------------------------------------------ */
/* Adjusted results                                                         */

/* Codes of the `adjusted` column (formats.md): NS/EW awards. */
typedef enum {
    DATUM_ADJ_NONE = 0,  /* a real score */
    DATUM_ADJ_AP = 1,    /* "A+"    = A+/A- */
    DATUM_ADJ_A = 2,     /* "A"     = A/A   */
    DATUM_ADJ_AM = 3,    /* "A-"    = A-/A+ */
    DATUM_ADJ_AP_AM = 4, /* "A+/A-" */
    DATUM_ADJ_AM_AP = 5, /* "A-/A+" */
    DATUM_ADJ_A_A = 6,   /* "A/A" */
    DATUM_ADJ_AP_AP = 7, /* "A+/A+" */
    DATUM_ADJ_AM_AM = 8, /* "A-/A-" */
    /* Mixed awards (e.g. a director gives one side A+ and its opponents A
     * when a pair is absent), appended so that older archives keep their
     * codes: with them every NS/EW pair of {A+, A, A-} has a code. */
    DATUM_ADJ_AP_A = 9,  /* "A+/A" */
    DATUM_ADJ_A_AP = 10, /* "A/A+" */
    DATUM_ADJ_AM_A = 11, /* "A-/A" */
    DATUM_ADJ_A_AM = 12, /* "A/A-" */
    DATUM_ADJ_COUNT = 13
} datum_adjusted;

/* Parses a token of the adjusted column ("" -> NONE). Returns the code, or
 * -1 for an unknown token. */
int datum_adjusted_parse(const char *token, size_t len);
/* Canonical token of a code ("" for NONE). */
const char *datum_adjusted_token(int code);

/* IMPs awarded for average-plus, average and average-minus. */
typedef struct {
    double plus, average, minus;
} datum_adjusted_imps;

#define DATUM_ADJUSTED_IMPS_INIT {3.0, 0.0, -3.0}

/* NS and EW IMPs of an adjusted code (code != NONE). */
void datum_adjusted_award(const datum_adjusted_imps *award, int code, double *ns, double *ew);

/* ------------------------------------------------------------------------ */
/* Per-field kernels                                                        */

/* Butler (§3): the IMPs of n rows of one field against datum d.
 * adjusted may be NULL (all real). Real rows: ns = imp(s - d), ew = -ns;
 * adjusted rows: the fixed award. If d.den == 0 (no datum) every row must be
 * adjusted. Outputs ns_imps[n], ew_imps[n]. */
void datum_field_butler(const datum_scale *scale, const datum_adjusted_imps *award,
                        const int32_t *scores, const uint8_t *adjusted, size_t n,
                        datum_value d, double *ns_imps, double *ew_imps);

/* Cross-IMP (§4) of n real scores: raw[i] = sum_{k != i} imp(s_i - s_k).
 * work: n int32 + (n + 1) int32 of scratch (2n + 1 in all). */
void datum_field_cross(const datum_scale *scale, const int32_t *scores, size_t n,
                       int32_t *work, double *raw);

/* Matchpoints (docs/methods.md, "Matchpoints"; engine/matchpoints.c).     */

/* Shares of the field's top for average-plus, average and average-minus. */
typedef struct {
    double plus, average, minus;
} datum_mp_awards;

#define DATUM_MP_AWARDS_INIT {0.6, 0.5, 0.4}

typedef struct {
    datum_mp_awards award;
    int neuberg; /* factor the real results to the field size (Neuberg) */
    int half;    /* 1 per result beaten and 1/2 per tie (top n-1), else 2 and 1 */
    /* With neuberg: 0 scores each field to its event's largest field, 1 to
     * its own rows only (only adjusted rows make a factor; Compscore3). Read
     * by the job layer, which gives the kernel its target. */
    int neuberg_to_field;
} datum_mp_method;

#define DATUM_MP_METHOD_INIT {DATUM_MP_AWARDS_INIT, 1, 0, 0}

/* Matchpoints of the n rows of one field (adjusted may be NULL: all real).
 * With m->neuberg the field is scored as if of max(target, n) results
 * (target: the event's largest field, 0 for none): its r real results are
 * compared among themselves and factored up by Neuberg's formula when r is
 * smaller; without it, as r results. Real rows: ns_mp[i], ew_mp[i] = top -
 * ns_mp[i]; adjusted rows: their codes' shares of the top. work: n int32 of
 * scratch. Returns the top (0 when the field is scored as one result). */
double datum_field_matchpoints(const datum_mp_method *m, const int32_t *scores,
                               const uint8_t *adjusted, size_t n, size_t target, int32_t *work,
                               double *ns_mp, double *ew_mp);

/* ------------------------------------------------------------------------ */
/* ------------------------------------------------------------------------ */
/* The method of a run: everything that decides the numbers.                */

typedef enum {
    DATUM_DIVISOR_N_MINUS_1 = 0, /* average per comparison */
    DATUM_DIVISOR_N = 1,
    DATUM_DIVISOR_NONE = 2,
    /* RealBridge's, for tables that did not play (methods.md §4): with t the
     * field's rows (adjusted rows included) and n its real results, divide
     * by (t-1)*n/t, i.e. average over the t-1 other tables, an adjusted row
     * counting 0, then scale by t/n. Exactly n-1 when no row is adjusted. */
    DATUM_DIVISOR_TABLES_SCALED = 3
} datum_divisor;

typedef struct {
    datum_rule rule;
    datum_scale scale;
    datum_adjusted_imps award;
    datum_divisor cross_divisor;
} datum_method;

/* Fills *m with the preset rule `name` (see datum_rule_preset), the wbf
 * scale, the default awards and divisor n-1. Returns DATUM_OK or DATUM_E_ARG. */
int datum_method_init(datum_method *m, const char *preset);

/* ------------------------------------------------------------------------ */
/* Batch driver over a chunk of whole fields (OpenMP).                      */

/* A chunk of fields in archive layout: rows sorted by field, field f owning
 * rows offset[f] .. offset[f+1]-1 (offset[0] == 0). */
typedef struct {
    size_t n_fields;
    const uint64_t *offset;  /* n_fields + 1 */
    const int32_t *ns_score; /* per row; ignored on adjusted rows */
    const uint8_t *adjusted; /* per row datum_adjusted code, or NULL */
} datum_fields;

/* Butler over every field: datum[f] (NaN when the field has no real score),
 * ns_imps[row], ew_imps[row]. Deterministic for any thread count.
 * Returns DATUM_OK, DATUM_E_NOMEM or DATUM_E_ARG (recorded in ctx). */
int datum_score_fields(datum_ctx *ctx, const datum_method *m, const datum_fields *in,
                       double *datum, double *ns_imps, double *ew_imps);

/* Cross-IMP over every field. Per row: ns_raw, ns_avg (raw divided as
 * m->cross_divisor says; TABLES_SCALED as raw * t / ((t-1) * n), one rounding),
 * terms (the number of comparisons n-1); rows that get no score (adjusted
 * rows, or fields with fewer than 2 real scores) get terms = 0 and NaN in
 * ns_raw and ns_avg. */
int datum_cross_fields(datum_ctx *ctx, const datum_method *m, const datum_fields *in,
                       double *ns_raw, double *ns_avg, int32_t *terms);

/* One method of datum_fields_many: Butler (cross 0: datum[f], a = ns_imps,
 * b = ew_imps, as datum_score_fields) or cross-IMP (cross 1: a = ns_raw,
 * b = ns_avg, terms, as datum_cross_fields). The caller owns the arrays. */
typedef struct {
    const datum_method *m;
    int cross;
    double *datum, *a, *b;
    int32_t *terms;
} datum_field_kernel;

/* Several Butler and cross-IMP methods over every field at once: each
 * method's figures those of datum_score_fields or datum_cross_fields bit for
 * bit, each field's real scores gathered once for all of them and every
 * field read once. Deterministic for any thread count. Returns DATUM_OK,
 * DATUM_E_NOMEM or DATUM_E_ARG (a method invalid; recorded in ctx). */
int datum_fields_many(datum_ctx *ctx, const datum_fields *in, size_t count,
                      const datum_field_kernel *k);

/* DATUM_OK if every method of k[0..count) is valid, else DATUM_E_ARG
 * (recorded in ctx), as datum_fields_many checks them. */
int datum_fields_check(datum_ctx *ctx, size_t count, const datum_field_kernel *k);

/* Rows of the largest field of `in` (sizes the kernels' scratch). */
size_t datum_largest_field(const datum_fields *in);

/* Bytes of scratch datum_fields_many_range needs for fields of up to
 * largest_field rows. */
size_t datum_fields_scratch_bytes(size_t largest_field);

/* What datum_fields_many gives fields f0 .. f1 - 1 of `in`, on the calling
 * thread (any thread; disjoint ranges may run at once), without checking
 * the methods (datum_fields_check) or allocating: space holds
 * datum_fields_scratch_bytes(largest_field) bytes, aligned for doubles, and
 * no field of the range has more than largest_field rows. */
void datum_fields_many_range(const datum_fields *in, size_t f0, size_t f1, size_t count,
                             const datum_field_kernel *k, void *space, size_t largest_field);

/* Matchpoints over every field (datum_field_matchpoints): target[f] the size
 * field f is scored on with Neuberg (NULL: each field's own rows), top[f]
 * its top, ns_mp[row], ew_mp[row]. Deterministic for any thread count.
 * Returns DATUM_OK, DATUM_E_NOMEM or DATUM_E_ARG (recorded in ctx). */
int datum_matchpoint_fields(datum_ctx *ctx, const datum_mp_method *m, const datum_fields *in,
                            const uint32_t *target, double *top, double *ns_mp, double *ew_mp);

/* ------------------------------------------------------------------------ */
/* Per-pair totals                                                          */

/* Accumulates per-row IMPs into per-pair totals in row order (deterministic).
 * For each row r with ns_imps[r] not NaN: imps[ns_pair[r]] += ns_imps[r] and
 * boards[ns_pair[r]] += 1; likewise EW with ew_imps (ew_imps may be NULL: EW
 * then gets -ns_imps). Pair indices must be < n_pairs (not checked). */
void datum_pairs_accumulate(size_t n_rows, const int32_t *ns_pair, const int32_t *ew_pair,
                            const double *ns_imps, const double *ew_imps,
                            double *imps, int64_t *boards);

/* ======================================================================== */
/* Barking cross-IMPs and the teams-of-eight match (§5, seed 002;           */
/* engine/barking.c)                                                        */
/*                                                                          */
/* For the NS pair at table i of a field of n real scores:                  */
/*   raw_i = sum_{j != i} sum_{k < l; k, l not in {i, j}} wbf(s_i + s_j - s_k - s_l), */
/* (n-1)*C(n-2,2) terms. The EW pair at table i gets exactly -raw_i (its    */
/* terms are the same tables with every sign flipped, and wbf is odd).      */
/* The wbf scale only; doubled (wbf(2*sum)) and halved (IMPs / 2) apply.    */

/* Largest field (real results) the barking kernels accept. */
#define DATUM_BARKING_MAX_N 65536

/* Terms per result of a field of n real results: (n-1)*C(n-2,2) (3, 105,
 * 495 for 4, 8, 12 tables); 0 when n < 4. */
int64_t datum_barking_terms(size_t n);

/* Workspace of datum_field_barking in int64 elements:
 * 4n + 4*n(n+1)/2 + 8706 (about 2n^2 + 8.7k: 9,066 for 12 tables, 42,242
 * for 128; the fixed part is the counting grid and a table of IMPs). */
size_t datum_barking_work_len(size_t n);

/* The literal enumeration of every term (the reference; O(n^4)): raw[i] for
 * n real scores, n <= DATUM_BARKING_MAX_N, |score| < 2^20. No workspace.
 * Returns DATUM_OK; DATUM_W_EMPTY with raw[] = NaN when n < 4; DATUM_E_ARG
 * when the scale is not wbf (raw untouched). */
int datum_field_barking_literal(const datum_scale *scale, const int32_t *scores, size_t n,
                                double *raw);

/* The same raw sums, exactly, by counting by score value (O(n^2 log n),
 * far less when scores repeat). work: datum_barking_work_len(n) int64.
 * Same return codes and limits as the literal kernel. */
int datum_field_barking(const datum_scale *scale, const int32_t *scores, size_t n, int64_t *work,
                        double *raw);

/* Barking over every field of a chunk (adjusted rows take no part). Per row:
 * ns_raw, ns_avg = ns_raw / terms, terms = (m-1)*C(m-2,2) for a field of m
 * real results; rows without a score (adjusted rows, fields with fewer than
 * 4 real results) get terms = 0 and NaN. Deterministic for any thread count.
 * Returns DATUM_OK, DATUM_E_ARG (scale not wbf, field too large) or
 * DATUM_E_NOMEM (workspace: about 16 m^2 bytes per thread for the largest
 * field), recorded in ctx. */
int datum_barking_fields(datum_ctx *ctx, const datum_scale *scale, const datum_fields *in,
                         double *ns_raw, double *ns_avg, int64_t *terms);

/* One board of a teams match: team's aggregate = the sum of its own-
 * perspective scores (+s where it sits NS, -s where it sits EW) over the n
 * tables of the match (4 for teams of eight), and its IMPs on the scale (any
 * scale). The opponents' aggregate and IMPs are the negations. Returns
 * DATUM_OK, or DATUM_E_INPUT when a table does not have `team` on exactly
 * one side. */
int datum_match_board(const datum_scale *scale, const int32_t *ns_score, const int32_t *ns_team,
                      const int32_t *ew_team, size_t n, int32_t team, int64_t *aggregate,
                      double *imps);

/* Teams matches over every field of a chunk: rows of a field sharing a
 * match[] value >= 0 are one match, whose tables must all oppose the same two
 * teams. Per row: ns_aggregate (the match's aggregate on this board from the
 * row's NS team's perspective) and ns_imps (its IMPs); NaN on every row of a
 * match with an adjusted row, and on rows outside any match (match < 0). Returns DATUM_OK, DATUM_E_ARG, DATUM_E_NOMEM or
 * DATUM_E_INPUT (a match whose tables do not oppose the same two teams, one
 * NS and one EW; *bad_field, if not NULL, receives the first such field,
 * n_fields when none). */
int datum_match_fields(datum_ctx *ctx, const datum_scale *scale, const datum_fields *in,
                       const int32_t *match, const int32_t *ns_team, const int32_t *ew_team,
                       double *ns_aggregate, double *ns_imps, size_t *bad_field);
/* ======================================================================== */

/* ======================================================================== */
/* Duplicate bridge scoring (Laws of Duplicate Bridge 2017, law 77;         */
/* engine/bridge_score.c). Pure functions, safe from any thread.            */

typedef enum {
    DATUM_CLUBS = 0,
    DATUM_DIAMONDS = 1,
    DATUM_HEARTS = 2,
    DATUM_SPADES = 3,
    DATUM_NOTRUMP = 4
} datum_strain;

/* Seats, as declarers. */
enum { DATUM_NORTH = 0, DATUM_EAST = 1, DATUM_SOUTH = 2, DATUM_WEST = 3 };

/* A contract: level 1..7 (0: the board was passed out), strain, doubled 0
 * (undoubled), 1 (doubled) or 2 (redoubled). */
typedef struct {
    int level;
    datum_strain strain;
    int doubled;
} datum_contract;

/* The declaring side's score: contract level 1..7 in strain, doubled 0..2,
 * vulnerable 0 or 1, and the tricks declarer took, 0..13. Negative when the
 * contract fails (the defenders' score is its negation). E.g. 4S= not
 * vulnerable: 420; 1NTX-1 vulnerable: -200. Arguments out of range give 0. */
int datum_bridge_score(int level, datum_strain strain, int doubled, int vulnerable, int tricks);

/* Vulnerability of board number b >= 1 (the 16-board cycle of the Laws):
 * bit 0 set when North-South are vulnerable, bit 1 when East-West are. */
int datum_board_vulnerability(int board);

/* Parses a contract, case-insensitive, blanks around ignored: "4S", "3NT"
 * (or "3N"), "2HX", "2HXX" (also "*"/"**" as BridgeWebs writes doubles);
 * "Pass", "AP", "PO", "P" give level 0. Returns DATUM_OK or DATUM_E_INPUT
 * (*out untouched). */
int datum_contract_parse(const char *s, size_t len, datum_contract *out);

/* Parses a result of a contract of level 1..7 into the tricks declarer took:
 * "=" (made exactly), "+1", "-2" (relative to 6 + level), or a number of
 * tricks "0".."13". Returns DATUM_OK or DATUM_E_INPUT (also for tricks
 * outside 0..13; *tricks untouched). */
int datum_result_parse(const char *s, size_t len, int level, int *tricks);

/* DATUM_NORTH..DATUM_WEST of "N", "E", "S", "W" (any case), else -1. */
int datum_declarer_parse(const char *s, size_t len);

/* North-South's score of contract *c (level 0: 0) played by declarer
 * (DATUM_NORTH..DATUM_WEST) taking `tricks`, at the board's vulnerability
 * (bits as datum_board_vulnerability). */
int datum_bridge_ns_score(const datum_contract *c, int declarer, int vulnerability, int tricks);

/* 1 if some contract, declarer and number of tricks gives North-South the
 * score ns_score at this vulnerability (0, passed out, is legal), else 0.
 * E.g. 420 (4S=) only when NS are not vulnerable, 620 (4S=) only when they
 * are, -50 only when they are not; 30 never. At most 2940 score evaluations. */
int datum_bridge_score_legal(int32_t ns_score, int vulnerability);
/* One more trick for declarer (the continuity of `datum compare`, which has
 * no contracts: docs/methods.md, "Comparing methods"): the score ns_score
 * read as a contract played, the side it favours declaring first (a made
 * contract before a defeated one), undoubled first, the lowest level, clubs
 * to notrump, and *out receives North-South's score of the same contract
 * with declarer taking one trick more (+420 -> +450; -50 not vulnerable:
 * 1C by North-South one down -> +70; +100: East-West two down -> +50).
 * Returns DATUM_OK, or DATUM_W_EMPTY (*out untouched) when no reading exists: 0 (passed out), a score no
 * contract gives, or declarer already took 13 tricks in every reading. */
int datum_bridge_one_more_trick(int32_t ns_score, int vulnerability, int32_t *out);
/* ======================================================================== */

#ifdef __cplusplus
}
#endif
#endif /* DATUM_H */
