/*
 * evaluate.c - what a researcher checks ratings with: correlation with known
 * strengths, and out-of-sample prediction of later boards from the model's
 * own equation (seed 000): the expected Butler of pair j on a field is
 *     v_j - v(a) + (1/(L-1)) sum_ao v - (1/(L-1)) sum_mo v.
 */
#include "rate_internal.h"

#include <math.h>

double datum_rate_pearson(size_t n, const double *x, const double *y, const double *weight,
                          int weighted, size_t *count)
{
    double sw = 0, mx = 0, my = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(weight[i] > 0) || !isfinite(x[i]) || !isfinite(y[i])) continue;
        double w = weighted ? weight[i] : 1.0;
        sw += w;
        mx += w * x[i];
        my += w * y[i];
        used++;
    }
    if (count) *count = used;
    if (used < 2) return NAN;
    mx /= sw;
    my /= sw;
    double sxx = 0, syy = 0, sxy = 0; /* second pass: centred sums */
    for (size_t i = 0; i < n; i++) {
        if (!(weight[i] > 0) || !isfinite(x[i]) || !isfinite(y[i])) continue;
        double w = weighted ? weight[i] : 1.0, dx = x[i] - mx, dy = y[i] - my;
        sxx += w * dx * dx;
        syy += w * dy * dy;
        sxy += w * dx * dy;
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

static void predict_one(datum_rate_prediction *acc, double vj, double predicted, double actual)
{
    if (!isfinite(vj)) {
        acc->skipped++;
        return;
    }
    double e = actual - predicted;
    acc->count++;
    acc->sum_err2 += e * e;
    acc->sp += predicted;
    acc->sy += actual;
    acc->spp += predicted * predicted;
    acc->syy += actual * actual;
    acc->spy += predicted * actual;
}

int datum_rate_predict(datum_ctx *ctx, const datum_rate_window *window, const datum_method *m,
                       const datum_rate_chunk *c, uint32_t n_pairs, const double *rating,
                       datum_rate_prediction *acc)
{
    rate_kept k = {0};
    int rc = rate_keep(ctx, window, m, c, n_pairs, &k);
    for (size_t f = 0; rc == DATUM_OK && f < k.n_fields; f++) {
        uint64_t a = k.offset[f], b = k.offset[f + 1];
        double L1 = (double)(b - a - 1), sum_ns = 0, sum_ew = 0;
#define V(j) (isfinite(rating[j]) ? rating[j] : 0.0) /* unrated pairs count as average */
        for (uint64_t i = a; i < b; i++) {
            sum_ns += V(k.ns[i]);
            sum_ew += V(k.ew[i]);
        }
        for (uint64_t i = a; i < b; i++) {
            double vn = V(k.ns[i]), ve = V(k.ew[i]);
            /* NS: opponent ve, allies the other EW pairs, indirect opponents the other NS. */
            predict_one(acc, rating[k.ns[i]], vn - ve + ((sum_ew - ve) - (sum_ns - vn)) / L1,
                        k.ns_imps[i]);
            predict_one(acc, rating[k.ew[i]], ve - vn + ((sum_ns - vn) - (sum_ew - ve)) / L1,
                        k.ew_imps[i]);
        }
#undef V
    }
    rate_kept_free(&k);
    return rc;
}

void datum_rate_prediction_summary(const datum_rate_prediction *acc, double *rmse, double *corr)
{
    double n = (double)acc->count;
    *rmse = acc->count ? sqrt(acc->sum_err2 / n) : NAN;
    double vp = acc->spp - acc->sp * acc->sp / n, vy = acc->syy - acc->sy * acc->sy / n;
    double cov = acc->spy - acc->sp * acc->sy / n;
    *corr = acc->count > 1 && vp > 0 && vy > 0 ? cov / sqrt(vp * vy) : NAN;
}
