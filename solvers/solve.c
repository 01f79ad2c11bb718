/*
 * solve.c - datum_rate_solve: structure, assembly, the dense components, the
 * sparse ones, then the residuals that say how good the answer is.
 */
#include "rate_internal.h"

#include <math.h>
#include <string.h>

static int check_options(datum_ctx *ctx, const datum_rate_options *o)
{
    /* As unsigned, NONE is above NESDIS too: NONE and NATURAL are for the statistics. */
    if ((unsigned)o->solver > DATUM_RATE_ITERATIVE || (unsigned)o->ordering > DATUM_RATE_ORDER_NESDIS)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "unknown solver %d or ordering %d", (int)o->solver,
                              (int)o->ordering);
    if (!(o->ridge >= 0) || !isfinite(o->ridge))
        return datum_ctx_fail(ctx, DATUM_E_ARG, "the ridge must be a number >= 0");
    if (!(o->tolerance > 0 && o->tolerance < 1))
        return datum_ctx_fail(ctx, DATUM_E_ARG, "the tolerance must be in (0, 1)");
    if (!(o->memory > 0) || !(o->flops > 0))
        return datum_ctx_fail(ctx, DATUM_E_ARG, "the memory and flop budgets must be positive");
    if (o->max_iterations < 1 || o->dense_max < 0 || o->block_size < 1 || o->max_numeric < 0)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "bad iteration, block or dense-size limits");
    const datum_rate_calibration *c = o->calibration;
    if (c && !(c->factor_flops > 0 && c->block_flops > 0 && c->matvec > 0 && c->solve > 0 &&
               c->analyse > 0))
        return datum_ctx_fail(ctx, DATUM_E_ARG, "the calibration's rates must be positive");
    return DATUM_OK;
}

void datum_rate_result_free(datum_rate_result **r)
{
    if (!r || !*r) return;
    datum_free((*r)->rating);
    datum_free((*r)->boards);
    datum_free((*r)->butler_per_board);
    datum_free((*r)->component);
    datum_free((*r)->component_null);
    datum_free(*r);
    *r = NULL;
}

static datum_rate_result *result_create(datum_ctx *ctx, const datum_rate_problem *p)
{
    datum_rate_result *r = datum_calloc(ctx, 1, sizeof *r);
    if (!r) return NULL;
    uint32_t n = p->n_pairs;
    r->n_pairs = n;
    r->rating = datum_malloc(ctx, n, sizeof *r->rating);
    r->boards = datum_malloc(ctx, n, sizeof *r->boards);
    r->butler_per_board = datum_malloc(ctx, n, sizeof *r->butler_per_board);
    r->component = datum_malloc(ctx, n, sizeof *r->component);
    if (!r->rating || !r->boards || !r->butler_per_board || !r->component) {
        datum_rate_result_free(&r);
        return NULL;
    }
    for (uint32_t j = 0; j < n; j++) {
        int rated = p->n[j] > 0;
        r->rating[j] = NAN;
        r->boards[j] = p->n[j];
        r->butler_per_board[j] = rated ? p->r[j] / p->n[j] : NAN;
        r->component[j] = -1;
        r->stats.pairs += rated;
    }
    r->stats.ordering = DATUM_RATE_ORDER_NONE;
    return r;
}

/* Component counts of the structure into the statistics. */
static void count_structure(const rate_structure *s, datum_rate_stats *st)
{
    st->components = s->n_acomp;
    st->opponent_components = s->n_ocomp;
    st->fixed_components = s->n_fixed;
    st->groups = s->n_group;
    st->null_structural = s->n_ocomp + s->n_group;
    for (uint32_t c = 0; c < s->n_acomp; c++) {
        st->dense_components += s->acomp_dense[c];
        if (s->acomp_size[c] > st->largest_component) st->largest_component = s->acomp_size[c];
    }
    for (uint32_t c = 0; c < s->n_acomp; c++) {
        if (s->acomp_dense[c]) continue;
        int certified = s->acomp_certified[c];
        st->certified_components += (uint32_t)certified;
        st->certified_pairs += certified ? s->acomp_size[c] : 0;
        st->searched_components += (uint32_t)!certified;
        st->searched_pairs += certified ? 0 : s->acomp_size[c];
    }
    st->certify_rounds = s->certify_rounds;
    for (uint32_t c = 0; c < s->n_ocomp; c++)
        if (s->acomp_dense[s->oacomp[c]]) st->null_dense_structural++;
    for (uint32_t c = 0; c < s->n_ocomp; c++) /* a group counts once, at its first component */
        if (s->ogroup[c] >= 0 && s->gfirst[s->ogroup[c]] == (int32_t)c && s->acomp_dense[s->oacomp[c]])
            st->null_dense_structural++;
}

/* The residuals: ||A v - r||, ||r - r_c|| and the relative residual of the
 * system solved, ||(A + ridge W) v - r_c|| / ||r_c||. When conjugate
 * gradients left A y on every row (sp->ax_valid), the rows of the pairs
 * they solved are taken from it: v differs from y there by a null vector,
 * which A maps to 0 (to rounding, as a product of v would have it), and A
 * joins no two components, so only the other components' rows need a
 * product (none when every rated pair was in the solve). */
static int residuals(datum_ctx *ctx, const datum_rate_problem *p, const rate_matrix *a,
                     const rate_sparse *sp, double ridge, const double *v, const double *rc,
                     datum_rate_stats *st, double *av_out)
{
    uint32_t n = p->n_pairs;
    double *av = datum_malloc(ctx, n, sizeof *av), *x = datum_malloc(ctx, n, sizeof *x);
    uint8_t *rest = sp->ax_valid ? datum_malloc(ctx, n, 1) : NULL;
    if (!av || !x || (sp->ax_valid && !rest)) {
        datum_free(av);
        datum_free(x);
        datum_free(rest);
        return DATUM_E_NOMEM;
    }
    int any = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (rest) any |= rest[j] = p->n[j] > 0 && !sp->sparse[j];
        x[j] = p->n[j] > 0 && (!rest || rest[j]) ? v[j] : 0;
    }
    if (!rest || any) rate_matvec(ctx, a, rest, x, av);
    for (uint32_t j = 0; rest && j < n; j++)
        if (!rest[j]) av[j] = sp->sparse[j] ? sp->ax[j] : 0;
    double res = 0, least = 0, sys = 0, rcn = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (!(p->n[j] > 0)) continue;
        double d = av[j] - p->r[j], e = p->r[j] - rc[j], f = av[j] + ridge * p->n[j] * v[j] - rc[j];
        res += d * d;
        least += e * e;
        sys += f * f;
        rcn += rc[j] * rc[j];
    }
    st->residual = sqrt(res);
    st->least_residual = sqrt(least);
    st->range_residual = rcn > 0 ? sqrt(sys / rcn) : sqrt(sys);
    if (av_out) memcpy(av_out, av, n * sizeof *av_out);
    datum_free(av);
    datum_free(x);
    datum_free(rest);
    return DATUM_OK;
}

/* The structure, built beside the assembly (it reads p only). */
typedef struct {
    const datum_rate_problem *p;
    int dense_max;
    rate_unions *kept;
    rate_structure *s;
} structure_job;

static int build_structure(datum_ctx *ctx, void *arg)
{
    structure_job *b = arg;
    return rate_structure_build(ctx, b->p, b->dense_max, b->kept, b->s);
}

int rate_solve_with(datum_ctx *ctx, datum_rate_problem *p, const datum_rate_options *options,
                    rate_matrix *given, rate_unions *kept, rate_reuse *reuse,
                    const double *ax_start, double *av_out, datum_rate_result **out)
{
    datum_rate_options opt = options ? *options : (datum_rate_options)DATUM_RATE_OPTIONS_INIT;
    *out = NULL;
    int rc = check_options(ctx, &opt);
    if (rc != DATUM_OK) return rc;
    p->sealed = 1;
    datum_rate_result *res = result_create(ctx, p);
    if (!res) return DATUM_E_NOMEM;
    datum_rate_stats *st = &res->stats;
    rate_structure s = {0};
    rate_matrix own = {0}, *a = given ? given : &own;
    rate_sparse sp = {0};
    double *dense_v = NULL, *rc_all = NULL;
    if (st->pairs == 0) {
        *out = res;
        return DATUM_W_EMPTY;
    }
    double t0 = rate_now();
    structure_job build = {p, opt.dense_max, kept, &s};
    rate_side_job job = {build_structure, &build};
    rc = given ? build_structure(ctx, &build) : rate_matrix_assemble_beside(ctx, p, a, &job);
    if (rc != DATUM_OK) goto done;
    st->time_assemble = rate_now() - t0;
    st->matrix_nnz = (double)a->nnz;
    count_structure(&s, st);

    dense_v = datum_calloc(ctx, p->n_pairs, sizeof *dense_v);
    rc_all = datum_calloc(ctx, p->n_pairs, sizeof *rc_all);
    if (!dense_v || !rc_all) {
        rc = DATUM_E_NOMEM;
        goto done;
    }
    if ((rc = rate_dense_solve(ctx, p, &s, a, opt.ridge, dense_v, rc_all, &st->null_dense)) < 0)
        goto done;
    sp = (rate_sparse){.p = p, .s = &s, .a = a, .opt = &opt, .reuse = reuse,
                       .ax_start = opt.warm_start ? ax_start : NULL};
    if ((rc = rate_sparse_solve(ctx, &sp, st)) < 0) goto done;

    for (uint32_t j = 0; j < p->n_pairs; j++) {
        int32_t c = s.acomp[j];
        if (c < 0) continue;
        res->component[j] = c;
        if (s.acomp_dense[c]) {
            res->rating[j] = dense_v[j];
        } else {
            res->rating[j] = sp.y[j];
            rc_all[j] = sp.rc[j];
        }
    }
    res->n_components = s.n_acomp;
    res->component_null = datum_malloc(ctx, s.n_acomp + 1, 1);
    if (!res->component_null) {
        rc = DATUM_E_NOMEM;
        goto done;
    }
    for (uint32_t c = 0; c < s.n_acomp; c++)
        res->component_null[c] = s.acomp_dense[c]       ? DATUM_RATE_NULL_DENSE
                                 : s.acomp_certified[c] ? DATUM_RATE_NULL_STRUCTURE
                                 : st->path == DATUM_RATE_DIRECT ? DATUM_RATE_NULL_FACTOR
                                                                 : DATUM_RATE_NULL_SEARCH;
    st->null_total = st->null_structural - st->null_dense_structural + st->null_numeric + st->null_dense;
    if ((rc = residuals(ctx, p, a, &sp, opt.ridge, res->rating, rc_all, st, av_out)) != DATUM_OK)
        goto done;
    st->converged = st->range_residual <= opt.tolerance;
    rc = st->converged ? DATUM_OK : DATUM_W_INACCURATE;
done:
    rate_sparse_free(&sp);
    rate_matrix_free(&own);
    rate_structure_free(&s);
    datum_free(dense_v);
    datum_free(rc_all);
    if (rc < 0) {
        datum_rate_result_free(&res);
        return rc;
    }
    *out = res;
    return rc;
}

int datum_rate_solve(datum_ctx *ctx, datum_rate_problem *p, const datum_rate_options *options,
                     datum_rate_result **out)
{
    return rate_solve_with(ctx, p, options, NULL, NULL, NULL, NULL, NULL, out);
}
