/* totals.c - per-pair raw totals of cross-IMPs, the totals of matchpoints,
 * and the stored type of the output columns of a Butler run. */
#include "datum_jobs.h"

#include <math.h>

void datum_pairs_accumulate_raw(size_t n_rows, const int32_t *ns_pair, const int32_t *ew_pair,
                                const double *ns_raw, double *raw)
{
    for (size_t r = 0; r < n_rows; r++) {
        if (isnan(ns_raw[r])) continue; /* no score */
        raw[ns_pair[r]] += ns_raw[r];
        raw[ew_pair[r]] -= ns_raw[r];
    }
}

/* The two halves of datum_pairs_accumulate_mp, one a thread: the
 * matchpoints and the North-South boards, then the tops and the boards.
 * restrict: the arrays never overlap, so the pointers and the row's values
 * stay in registers across the stores. */
static void add_mp_sums(uint64_t n_rows, const int32_t *restrict ns_pair,
                        const int32_t *restrict ew_pair, const double *restrict ns_mp,
                        const double *restrict ew_mp, double *restrict mp,
                        int64_t *restrict ns_boards)
{
    for (uint64_t r = 0; r < n_rows; r++) {
        int32_t ns = ns_pair[r], ew = ew_pair[r];
        mp[ns] += ns_mp[r];
        mp[ew] += ew_mp[r];
        ns_boards[ns]++;
    }
}

static void add_mp_counts(uint64_t n_fields, const uint64_t *restrict offset,
                          const int32_t *restrict ns_pair, const int32_t *restrict ew_pair,
                          const double *restrict field_top, double *restrict top,
                          int64_t *restrict boards)
{
    for (uint64_t f = 0; f < n_fields; f++) {
        double t = field_top[f];
        for (uint64_t r = offset[f]; r < offset[f + 1]; r++) {
            int32_t ns = ns_pair[r], ew = ew_pair[r];
            top[ns] += t;
            top[ew] += t;
            boards[ns]++;
            boards[ew]++;
        }
    }
}

void datum_pairs_accumulate_mp(uint64_t n_fields, const uint64_t *offset, const int32_t *ns_pair,
                               const int32_t *ew_pair, const double *ns_mp, const double *ew_mp,
                               const double *field_top, double *mp, double *top,
                               int64_t *boards, int64_t *ns_boards, int threads)
{
    uint64_t n_rows = offset[n_fields];
    if (threads < 2 || n_rows < 65536) /* waking a thread would cost more */
        threads = 1;
    /* Every array takes its additions in row order, whatever the number of
     * threads; with two, each thread has its own arrays. */
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int part = 0; part < 2; part++) {
        if (part == 0) add_mp_sums(n_rows, ns_pair, ew_pair, ns_mp, ew_mp, mp, ns_boards);
        else add_mp_counts(n_fields, offset, ns_pair, ew_pair, field_top, top, boards);
    }
}

datum_store_type datum_imps_store_type(const datum_method *m)
{
    const double award[3] = {m->award.plus, m->award.average, m->award.minus};
    int ints = !m->scale.halved, floats = 1;
    for (int i = 0; i < 3; i++) {
        /* The range first: converting a double out of int8's range is undefined. */
        ints &= award[i] >= -128 && award[i] <= 127 && award[i] == (double)(int8_t)award[i];
        floats &= (double)(float)award[i] == award[i];
    }
    if (m->scale.kind != DATUM_SCALE_WBF || !floats) return DATUM_STORE_F64;
    return ints ? DATUM_STORE_I8 : DATUM_STORE_F32;
}

datum_store_type datum_datums_store_type(const datum_method *m)
{
    int integral = m->rule.rounding != DATUM_ROUND_NONE || m->rule.center == DATUM_CENTER_PAR;
    return integral ? DATUM_STORE_F32 : DATUM_STORE_F64;
}
