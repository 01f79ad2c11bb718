/* batch.c - the kernels over a chunk of many fields, in parallel (OpenMP).
 *
 * Every field is computed by one thread from its own rows only and written to
 * its own output slots, so the output does not depend on the thread count or
 * the schedule. Workspace is allocated once per call and per thread, sized by
 * the largest field of the chunk: nothing is allocated per field. */
#include "datum_alloc.h"
#include "internal.h"

#include <math.h>
#include <omp.h>

/* Per-thread scratch for a field of up to max_n rows. */
typedef struct {
    int32_t *real;   /* the field's real scores */
    int32_t *work;   /* 2n + 1 for the kernels */
    uint32_t *where; /* row of each real score */
    double *raw;     /* cross-IMP of each real score */
} scratch;

size_t datum_largest_field(const datum_fields *in)
{
    size_t max_n = 0;
    for (size_t f = 0; f < in->n_fields; f++) {
        size_t n = (size_t)(in->offset[f + 1] - in->offset[f]);
        if (n > max_n) max_n = n;
    }
    return max_n;
}

static void scratch_free(scratch *s, int count)
{
    if (!s) return;
    for (int t = 0; t < count; t++) {
        datum_free(s[t].real);
        datum_free(s[t].work);
        datum_free(s[t].where);
        datum_free(s[t].raw);
    }
    datum_free(s);
}

/* NULL when out of memory (recorded in ctx). */
static scratch *scratch_alloc(datum_ctx *ctx, int count, size_t max_n)
{
    scratch *s = datum_calloc(ctx, (size_t)count, sizeof *s);
    if (!s) return NULL;
    for (int t = 0; t < count; t++) {
        s[t].real = datum_malloc(ctx, max_n + 1, sizeof *s[t].real);
        s[t].work = datum_malloc(ctx, 2 * max_n + 1, sizeof *s[t].work);
        s[t].where = datum_malloc(ctx, max_n + 1, sizeof *s[t].where);
        s[t].raw = datum_malloc(ctx, max_n + 1, sizeof *s[t].raw);
        if (!s[t].real || !s[t].work || !s[t].where || !s[t].raw) {
            scratch_free(s, count);
            return NULL;
        }
    }
    return s;
}

/* Gathers the real scores of rows [0, n) into s->real / s->where; returns
 * how many there are. With range, *lo and *hi receive the least and the
 * greatest score of all n rows (n > 0), adjusted ones included. */
static inline __attribute__((always_inline)) size_t gather(const int32_t *score,
                                                           const uint8_t *adjusted, size_t n,
                                                           scratch *s, int range, int32_t *lo,
                                                           int32_t *hi)
{
    /* Every row written, the next slot taken when it is real: no branch,
     * and the arrays in registers (s->real and s->where were read again
     * after each store). */
    int32_t *real = s->real;
    uint32_t *where = s->where;
    size_t m = 0;
    int32_t low = range ? score[0] : 0, high = low;
#define RANGE(v) (low = range && (v) < low ? (v) : low, high = range && (v) > high ? (v) : high)
    if (!adjusted) {
        for (size_t i = 0; i < n; i++) real[i] = score[i], where[i] = (uint32_t)i, RANGE(score[i]);
        m = n;
    } else {
        for (size_t i = 0; i < n; i++) {
            real[m] = score[i];
            where[m] = (uint32_t)i;
            RANGE(score[i]);
            m += adjusted[i] == DATUM_ADJ_NONE;
        }
    }
#undef RANGE
    if (range) *lo = low, *hi = high;
    return m;
}

static size_t gather_real(const int32_t *score, const uint8_t *adjusted, size_t n, scratch *s)
{
    return gather(score, adjusted, n, s, 0, NULL, NULL);
}

static int check_method(datum_ctx *ctx, const datum_method *m)
{
    if (datum_rule_check(&m->rule) != DATUM_OK)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "invalid datum rule parameters");
    if ((unsigned)m->scale.kind > DATUM_SCALE_LINEAR ||
        (unsigned)m->cross_divisor > DATUM_DIVISOR_TABLES_SCALED)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "invalid scale or divisor");
    return DATUM_OK;
}

/* What one field contributes: computes field f (rows first .. first+n-1). */
typedef void (*field_fn)(const void *job, int64_t f, size_t first, size_t n, scratch *s);

/* Runs fn over every field of in, in parallel, with per-thread scratch. */
static int for_each_field(datum_ctx *ctx, const datum_fields *in, field_fn fn, const void *job)
{
    int threads = datum_ctx_threads(ctx);
    scratch *all = scratch_alloc(ctx, threads, datum_largest_field(in));
    if (!all) return DATUM_E_NOMEM;
#pragma omp parallel num_threads(threads)
    {
        scratch *s = &all[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 256)
        for (int64_t f = 0; f < (int64_t)in->n_fields; f++) {
            size_t first = (size_t)in->offset[f];
            fn(job, f, first, (size_t)(in->offset[f + 1] - first), s);
        }
    }
    scratch_free(all, threads);
    return DATUM_OK;
}

typedef struct {
    const datum_method *m;
    const datum_fields *in;
    double *datum, *ns_imps, *ew_imps;     /* Butler outputs */
    double *ns_raw, *ns_avg; int32_t *terms; /* cross-IMP outputs */
    const datum_mp_method *mp;               /* matchpoints */
    const uint32_t *target;
    double *top, *ns_mp, *ew_mp;
} job_t;

/* Butler of method m on field f (rows first .. first + n - 1) with datum d,
 * nr of whose n rows are real (the others adjusted), the scores of the n rows
 * known to lie in [lo, hi] (INT32_MIN, INT32_MAX: not known). */
static void butler_rows(const datum_method *m, const datum_fields *in, int64_t f, size_t first,
                        size_t n, size_t nr, datum_value d, int32_t lo, int32_t hi, double *datum,
                        double *ns_imps, double *ew_imps)
{
    /* No adjusted row in the field (the usual case): no pass for their awards. */
    const uint8_t *adj = in->adjusted && nr < n ? in->adjusted + first : NULL;
    datum[f] = datum_value_double(d);
    datum_field_butler_within(&m->scale, &m->award, in->ns_score + first, adj, n, d, lo, hi,
                              ns_imps + first, ew_imps + first);
}

/* Butler of method m on field f whose real scores are gathered in s (nr of them). */
static void butler_gathered(const datum_method *m, const datum_fields *in, int64_t f, size_t first,
                            size_t n, size_t nr, scratch *s, double *datum, double *ns_imps,
                            double *ew_imps)
{
    datum_value d;
    datum_field_datum(&m->rule, s->real, nr, s->work, &d);
    butler_rows(m, in, f, first, n, nr, d, INT32_MIN, INT32_MAX, datum, ns_imps, ew_imps);
}

static void score_field(const void *arg, int64_t f, size_t first, size_t n, scratch *s)
{
    const job_t *job = arg;
    const uint8_t *adj = job->in->adjusted ? job->in->adjusted + first : NULL;
    size_t nr = gather_real(job->in->ns_score + first, adj, n, s);
    butler_gathered(job->m, job->in, f, first, n, nr, s, job->datum, job->ns_imps, job->ew_imps);
}

int datum_score_fields(datum_ctx *ctx, const datum_method *m, const datum_fields *in,
                       double *datum, double *ns_imps, double *ew_imps)
{
    if (check_method(ctx, m) != DATUM_OK) return DATUM_E_ARG;
    job_t job = {.m = m, .in = in, .datum = datum, .ns_imps = ns_imps, .ew_imps = ew_imps};
    return for_each_field(ctx, in, score_field, &job);
}

/* The divisor as a fraction, ns_avg = raw * num / den. TABLES_SCALED's
 * (t-1)*real/t is no whole number: multiplying by t first (exact) keeps one
 * rounding, so that an exact 3.125 is not 3.12499... when it is rounded to
 * hundredths like RealBridge's figures. */
typedef struct {
    double num, den;
} ratio;

static ratio cross_divisor(datum_divisor divisor, size_t t, size_t real)
{
    switch (divisor) {
    case DATUM_DIVISOR_N_MINUS_1: return (ratio){1.0, (double)(real - 1)};
    case DATUM_DIVISOR_N: return (ratio){1.0, (double)real};
    case DATUM_DIVISOR_TABLES_SCALED:
        if (t == real) return (ratio){1.0, (double)(real - 1)}; /* bit for bit n-1 */
        return (ratio){(double)t, (double)(t - 1) * (double)real};
    case DATUM_DIVISOR_NONE:
    default: return (ratio){1.0, 1.0};
    }
}

/* Cross-IMPs of method m on field f (rows first .. first + n - 1) whose real
 * scores are gathered in s (nr of them, s->where their rows), within [lo, hi]
 * (INT32_MIN, INT32_MAX: not known). */
static void cross_gathered(const datum_method *m, size_t first, size_t n, size_t nr, scratch *s,
                           int32_t lo, int32_t hi, double *ns_raw, double *ns_avg, int32_t *terms)
{
    /* Rows without a figure: the adjusted ones, or all of a lone result's
     * (with every row real and compared, each is written below). */
    for (size_t i = first; (nr < n || nr < 2) && i < first + n; i++) {
        ns_raw[i] = ns_avg[i] = NAN;
        terms[i] = 0;
    }
    if (nr < 2) return; /* a lone result has nothing to be compared with */
    if (lo == INT32_MIN && hi == INT32_MAX) datum_field_cross(&m->scale, s->real, nr, s->work, s->raw);
    else datum_field_cross_within(&m->scale, s->real, nr, lo, hi, s->work, s->raw);
    ratio d = cross_divisor(m->cross_divisor, n, nr);
    for (size_t j = 0; j < nr; j++) {
        size_t row = first + s->where[j];
        ns_raw[row] = s->raw[j];
        ns_avg[row] = s->raw[j] * d.num / d.den; /* num == 1: exactly raw / den */
        terms[row] = (int32_t)(nr - 1);
    }
}

static void cross_field(const void *arg, int64_t f, size_t first, size_t n, scratch *s)
{
    const job_t *job = arg;
    const uint8_t *adj = job->in->adjusted ? job->in->adjusted + first : NULL;
    size_t nr = gather_real(job->in->ns_score + first, adj, n, s);
    cross_gathered(job->m, first, n, nr, s, INT32_MIN, INT32_MAX, job->ns_raw, job->ns_avg, job->terms);
}

int datum_cross_fields(datum_ctx *ctx, const datum_method *m, const datum_fields *in,
                       double *ns_raw, double *ns_avg, int32_t *terms)
{
    if (check_method(ctx, m) != DATUM_OK) return DATUM_E_ARG;
    job_t job = {.m = m, .in = in, .ns_raw = ns_raw, .ns_avg = ns_avg, .terms = terms};
    return for_each_field(ctx, in, cross_field, &job);
}

/* Butler methods whose datums datum_fields_many takes at once. */
enum { MANY_RULES = DATUM_FIELD_DATUMS_MAX };

typedef struct {
    const datum_fields *in;
    size_t count;
    const datum_field_kernel *k;
} many_t;

static void many_field(const void *arg, int64_t f, size_t first, size_t n, scratch *s)
{
    const many_t *job = arg;
    const uint8_t *adj = job->in->adjusted ? job->in->adjusted + first : NULL;
    /* The range of all the field's scores, for the Butler rows. */
    int32_t lo = INT32_MIN, hi = INT32_MAX;
    size_t nr = n ? gather(job->in->ns_score + first, adj, n, s, 1, &lo, &hi) : 0;
    for (size_t i = 0; i < job->count; i++) {
        const datum_field_kernel *k = &job->k[i];
        if (k->cross) cross_gathered(k->m, first, n, nr, s, lo, hi, k->a, k->b, k->terms);
    }
    /* The Butler methods' datums by groups, the field's sum and extremes
     * found once per group; then each method's rows. */
    for (size_t i = 0; i < job->count;) {
        const datum_field_kernel *butler[MANY_RULES];
        const datum_rule *rule[MANY_RULES];
        datum_value d[MANY_RULES];
        size_t nb = 0;
        for (; i < job->count && nb < MANY_RULES; i++)
            if (!job->k[i].cross) butler[nb] = &job->k[i], rule[nb++] = &job->k[i].m->rule;
        if (nb) datum_field_datums(nb, rule, s->real, nr, s->work, d);
        for (size_t b = 0; b < nb; b++)
            butler_rows(butler[b]->m, job->in, f, first, n, nr, d[b], lo, hi, butler[b]->datum,
                        butler[b]->a, butler[b]->b);
    }
}

size_t datum_fields_scratch_bytes(size_t largest_field)
{
    size_t n = largest_field + 1;
    return n * sizeof(double) + (4 * n + 1) * sizeof(int32_t) + sizeof(double);
}

void datum_fields_many_range(const datum_fields *in, size_t f0, size_t f1, size_t count,
                             const datum_field_kernel *k, void *space, size_t largest_field)
{
    size_t n = largest_field + 1;
    scratch s;
    s.raw = space; /* the doubles first: each part stays aligned */
    s.real = (int32_t *)(s.raw + n);
    s.where = (uint32_t *)(s.real + n);
    s.work = (int32_t *)(s.where + n);
    many_t job = {in, count, k};
    for (size_t f = f0; f < f1; f++) {
        size_t first = (size_t)in->offset[f];
        many_field(&job, (int64_t)f, first, (size_t)(in->offset[f + 1] - first), &s);
    }
}

int datum_fields_check(datum_ctx *ctx, size_t count, const datum_field_kernel *k)
{
    for (size_t i = 0; i < count; i++)
        if (check_method(ctx, k[i].m) != DATUM_OK) return DATUM_E_ARG;
    return DATUM_OK;
}

int datum_fields_many(datum_ctx *ctx, const datum_fields *in, size_t count,
                      const datum_field_kernel *k)
{
    if (datum_fields_check(ctx, count, k) != DATUM_OK) return DATUM_E_ARG;
    many_t job = {in, count, k};
    return for_each_field(ctx, in, many_field, &job);
}

static void matchpoint_field(const void *arg, int64_t f, size_t first, size_t n, scratch *s)
{
    const job_t *job = arg;
    const uint8_t *adj = job->in->adjusted ? job->in->adjusted + first : NULL;
    job->top[f] = datum_field_matchpoints(job->mp, job->in->ns_score + first, adj, n,
                                          job->target ? job->target[f] : 0, s->work,
                                          job->ns_mp + first, job->ew_mp + first);
}

int datum_matchpoint_fields(datum_ctx *ctx, const datum_mp_method *m, const datum_fields *in,
                            const uint32_t *target, double *top, double *ns_mp, double *ew_mp)
{
    const datum_mp_awards *a = &m->award;
    if (!(a->plus >= 0 && a->plus <= 1 && a->average >= 0 && a->average <= 1 && a->minus >= 0 &&
          a->minus <= 1))
        return datum_ctx_fail(ctx, DATUM_E_ARG, "matchpoint awards must be shares between 0 and 1");
    job_t job = {.in = in, .mp = m, .target = target, .top = top, .ns_mp = ns_mp, .ew_mp = ew_mp};
    return for_each_field(ctx, in, matchpoint_field, &job);
}
