/*
 * choose.c - the auto choice among the direct path, Jacobi CG and block CG:
 * seconds predicted from what is known before the numeric work (nnz(A),
 * CHOLMOD's analysis, the convergence of a short Jacobi trial) and the rates
 * of the machine (a calibration: built in per BLAS family, or a file).
 * docs/methods.md "The solver choice" and docs/performance.md "Ratings".
 */
#include "datum_rate.h"
#include "datum_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The smallest trial worth running: a few iterations say nothing of the rate. */
#define TRIAL_MIN 20
/* Block CG's iterations as a fraction of Jacobi's (decade 206/220, national
 * 278/420 in docs/performance.md; a model, not a measurement of the archive). */
#define BLOCK_ITERATION_RATIO 0.7
/* The block factors' flops per pair and squared block size (dense blocks
 * give 1/3; the partition's separators make more: 2.9 on a mixed federation). */
#define BLOCK_FLOPS_PER_PAIR_BS2 3.0

void datum_rate_calibration_builtin(datum_rate_calibration *cal)
{
    const char *blas = datum_rate_blas_library();
    /* Measured on the project's machine (2-core AMD EPYC, docs/performance.md)
     * on the 8,000-pair mixed federation: CHOLMOD's supernodal factorisation
     * (8.8e10 flops: 47.5 s reference, 4.1 s OpenBLAS, 10.0 s BLIS); Jacobi
     * and block CG on 2 threads (3.0e9 and 1.4e9 entries a second), halved
     * for one; the analysis (AMD then METIS) on it and on decade. */
    *cal = (datum_rate_calibration){.factor_flops = 1.9e9, .block_flops = 1.9e9, .matvec = 1.5e9,
                                    .solve = 7.0e8, .analyse = 6.0e6};
    const char *family = "reference BLAS";
    if (strstr(blas, "openblas")) {
        cal->factor_flops = cal->block_flops = 2.0e10;
        family = "OpenBLAS";
    } else if (strstr(blas, "blis")) {
        cal->factor_flops = cal->block_flops = 8.8e9;
        family = "BLIS";
    }
    snprintf(cal->source, sizeof cal->source, "built-in, %s", family);
}

int datum_rate_calibration_read(datum_ctx *ctx, const char *path, datum_rate_calibration *cal)
{
    static const char *const kNames[] = {"factor_flops", "block_flops", "matvec", "solve", "analyse"};
    double *field[] = {&cal->factor_flops, &cal->block_flops, &cal->matvec, &cal->solve,
                       &cal->analyse};
    FILE *f = fopen(path, "r");
    if (!f) return datum_ctx_fail(ctx, DATUM_E_IO, "cannot read %s", path);
    char line[256];
    int rc = DATUM_OK;
    for (int no = 1; rc == DATUM_OK && fgets(line, sizeof line, f); no++) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char name[64], value[64], extra[2];
        int n = sscanf(line, "%63s %63s %1s", name, value, extra);
        if (n <= 0) continue;
        size_t k = 0;
        while (k < 5 && strcmp(name, kNames[k]) != 0) k++;
        if (n != 2 || k == 5 ||
            datum_parse_real(value, strlen(value), 0, INFINITY, field[k]) != DATUM_PARSE_OK ||
            !(*field[k] > 0))
            rc = datum_ctx_fail(ctx, DATUM_E_INPUT,
                                "%s:%d: expected `NAME VALUE` with NAME one of factor_flops, "
                                "block_flops, matvec, solve, analyse and VALUE a positive number",
                                path, no);
    }
    fclose(f);
    if (rc == DATUM_OK) snprintf(cal->source, sizeof cal->source, "file %s", path);
    return rc;
}

/* Seconds of one CG iteration's mat-vec and vector work (about 8 vector
 * entries a pair: the updates, the dot products, the preconditioner). */
static double iteration_seconds(const datum_rate_forecast *f, const datum_rate_calibration *cal)
{
    return (f->matrix_nnz + 8 * f->pairs) / cal->matvec;
}

/* Jacobi's iterations from the trial: the rest at the trial's rate. */
static double jacobi_iterations(const datum_rate_forecast *f)
{
    if (f->trial_residual <= f->tolerance) return f->trial_iterations;
    if (!(f->trial_rate < 1) || !(f->trial_rate > 0)) return INFINITY;
    return f->trial_iterations + ceil(log(f->tolerance / f->trial_residual) / log(f->trial_rate));
}

void datum_rate_choose(const datum_rate_forecast *f, const datum_rate_calibration *cal,
                       datum_rate_choice *out)
{
    memset(out, 0, sizeof *out);
    double t_iter = iteration_seconds(f, cal);
    for (int k = 0; k < DATUM_RATE_PATHS; k++) out->seconds[k] = out->iterations[k] = NAN;
    if (!f->analysed && f->trial_iterations == 0) {
        double analyse = f->matrix_nnz / cal->analyse;
        double budget = fmin(fmax(floor(analyse / t_iter), TRIAL_MIN), f->max_iterations);
        out->trial = 1;
        out->trial_budget = (int)budget;
        out->path = DATUM_RATE_PATH_JACOBI;
        out->iterations[DATUM_RATE_PATH_JACOBI] = budget;
        out->seconds[DATUM_RATE_PATH_JACOBI] = budget * t_iter;
        snprintf(out->reason, sizeof out->reason,
                 "trying Jacobi CG for %d iterations, the predicted cost of the analysis "
                 "(%.3g s); converging within them, it is the fastest path",
                 out->trial_budget, analyse);
        return;
    }
    /* Direct: the factorisation and two solves (one refinement step). */
    double direct = f->factor_flops / cal->factor_flops + 4 * f->factor_nnz / cal->solve;
    int fits = f->factor_bytes <= f->memory && f->factor_flops <= f->flops;
    out->iterations[DATUM_RATE_PATH_DIRECT] = 0;
    out->seconds[DATUM_RATE_PATH_DIRECT] = !f->analysed ? NAN : fits ? direct : INFINITY;
    double it = jacobi_iterations(f);
    if (it > f->max_iterations) it = INFINITY;
    out->iterations[DATUM_RATE_PATH_JACOBI] = it;
    out->seconds[DATUM_RATE_PATH_JACOBI] = it * t_iter;
    /* Block CG: blocks of block_size pairs (their factor about dense, but
     * never more than the whole factor), fewer iterations, two block solves
     * each. */
    double bs = fmin(fmax(f->block_size, 1), f->pairs);
    double block_flops = BLOCK_FLOPS_PER_PAIR_BS2 * f->pairs * bs * bs;
    double block_nnz = f->pairs * bs;
    if (f->analysed) {
        block_flops = fmin(block_flops, f->factor_flops);
        block_nnz = fmin(block_nnz, f->factor_nnz);
    }
    double it_block = f->block_size <= 1 ? it : ceil(BLOCK_ITERATION_RATIO * it);
    out->iterations[DATUM_RATE_PATH_BLOCK] = it_block;
    out->seconds[DATUM_RATE_PATH_BLOCK] =
        block_flops / cal->block_flops + it_block * (t_iter + 2 * block_nnz / cal->solve);
    int best = -1;
    for (int k = 0; k < DATUM_RATE_PATHS; k++)
        if (isfinite(out->seconds[k]) && (best < 0 || out->seconds[k] < out->seconds[best])) best = k;
    static const char *const kName[] = {"direct", "Jacobi CG", "block CG"};
    if (best < 0) { /* nothing converges in the limits: the direct path if it fits, else Jacobi */
        best = fits && f->analysed ? DATUM_RATE_PATH_DIRECT : DATUM_RATE_PATH_JACOBI;
        snprintf(out->reason, sizeof out->reason,
                 "no path predicted to finish within the limits; %s as the fallback", kName[best]);
    } else {
        char direct_text[48]; /* not analysed: datum-mpi, which has no direct path */
        if (f->analysed) snprintf(direct_text, sizeof direct_text, "direct %.3g s%s, ",
                                  out->seconds[0], fits ? "" : " (over the budgets)");
        else direct_text[0] = '\0';
        snprintf(out->reason, sizeof out->reason,
                 "least predicted time: %sJacobi CG %.3g s (%.0f iterations), block CG %.3g s; %s",
                 direct_text, out->seconds[1], it, out->seconds[2], kName[best]);
    }
    out->path = (datum_rate_path)best;
}

int datum_rate_auto_begin(datum_rate_stats *st, const datum_rate_options *opt, double pairs,
                          double matrix_nnz)
{
    st->chose = 1;
    if (opt->calibration) st->calibration = *opt->calibration;
    else datum_rate_calibration_builtin(&st->calibration);
    st->forecast = (datum_rate_forecast){.pairs = pairs, .matrix_nnz = matrix_nnz,
                                         .memory = opt->memory, .flops = opt->flops,
                                         .block_size = opt->block_size,
                                         .max_iterations = opt->max_iterations,
                                         .tolerance = opt->tolerance};
    datum_rate_choose(&st->forecast, &st->calibration, &st->choice);
    return st->choice.trial_budget;
}

int datum_rate_auto_trial(datum_rate_stats *st, int iterations, int budget, double residual,
                          const double *trace)
{
    datum_rate_forecast *f = &st->forecast;
    int it = iterations, half = it / 2;
    f->trial_iterations = it > 0 ? it : 1;
    f->trial_residual = residual;
    int converged = residual <= f->tolerance;
    /* Stopped before its budget without converging: CG stagnated (a null
     * direction it cannot see, or rounding), no rate to extrapolate. */
    int stalled = it < budget && !converged;
    f->trial_rate = !stalled && it > half && trace[half] > 0
                        ? pow(trace[it] / trace[half], 1.0 / (it - half)) : 1;
    return converged;
}
