/* rate_petsc.c - `datum-mpi rate`: the ratings of the problems of every
 * process's slice, summed and solved on PETSc (docs/scale-out.md, "Rate").
 * The only file that includes PETSc's headers.
 *
 * Each process assembles the entries of A its layouts give (the library's
 * assembly, datum_rate_problem_entries) into one distributed MPIAIJ matrix
 * through PETSc's coordinate assembly, which sends the entries of rows
 * another process owns to it; r and n are summed by MPI. The structural null
 * space (opponent components, groups of fixed-direction components) comes
 * from the slices' union-finds merged on rank 0 and is given to PETSc as a
 * function (MatNullSpaceSetFunction: a projection in O(pairs), where vectors
 * would cost one per component); r is projected on the range (r_c), CG with
 * Jacobi or block Jacobi (as asked, or by the serial auto choice without its
 * direct path) solves A v = r_c to the tolerance, and v is put
 * in the serial program's gauge: W-orthogonal to the
 * null space, every opponent component's board-weighted mean 0 and, in a
 * group, each direction's. */
#include "cli.h"
#include "datum_alloc.h"
#include "mpi_driver.h"

#include <math.h>
#include <petscksp.h>
#include <string.h>

_Static_assert(sizeof(PetscInt) == sizeof(int32_t) && sizeof(PetscScalar) == sizeof(double),
               "the library's coordinates go to PETSc as they are: 32-bit indices, real scalars");

/* Projection on the complement of the structural null space in the metric
 * diag(m) (m NULL: the identity), applied to the rows lo..hi-1 this process
 * owns; sums over the others through MPI. The indicators of the opponent
 * components and, per group g, t_g = sum_{C in g} (s_C - sigma_C / m_C 1_C)
 * (s_C: +1 on C's NS pairs, -1 on its EW pairs), which is orthogonal to every
 * indicator: the projection is one after the other. */
typedef struct {
    const datum_rate_null_structure *s;
    PetscInt lo, hi;
    const double *m;
    double *mc, *sc; /* per opponent component: sum m, sum m s */
    double *tt;      /* per group: <t_g, t_g>_m */
    double *sums;    /* scratch: n_ocomp + n_group */
} projector;

static double weight(const projector *q, PetscInt j) { return q->m ? q->m[j] : 1.0; }

static void all_sum(double *v, uint32_t n)
{
    if (n == 0) return;
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    mpi_stat.bytes_sent += (uint64_t)n * sizeof *v;
}

static int projector_init(datum_ctx *ctx, projector *q, const datum_rate_null_structure *s,
                          PetscInt lo, PetscInt hi, const double *m)
{
    uint32_t no = s->n_ocomp, ng = s->n_group;
    *q = (projector){.s = s, .lo = lo, .hi = hi, .m = m};
    q->mc = datum_calloc(ctx, no + 1, sizeof *q->mc);
    q->sc = datum_calloc(ctx, no + 1, sizeof *q->sc);
    q->tt = datum_calloc(ctx, ng + 1, sizeof *q->tt);
    q->sums = datum_calloc(ctx, no + ng + 1, sizeof *q->sums);
    int rc = q->mc && q->sc && q->tt && q->sums ? DATUM_OK : DATUM_E_NOMEM;
    if (!mpi_all_ok(rc == DATUM_OK)) /* before the sums: every process stops, none waits */
        return rc != DATUM_OK ? rc : mpi_other_failed(ctx);
    for (PetscInt j = lo; j < hi; j++) {
        int32_t c = s->ocomp[j];
        if (c < 0) continue;
        q->mc[c] += weight(q, j);
        q->sc[c] += weight(q, j) * s->sign[j];
    }
    all_sum(q->mc, no);
    all_sum(q->sc, no);
    for (uint32_t c = 0; c < no; c++)
        if (s->ogroup[c] >= 0) q->tt[s->ogroup[c]] += q->mc[c] - q->sc[c] * q->sc[c] / q->mc[c];
    return DATUM_OK;
}

static void projector_free(projector *q)
{
    datum_free(q->mc);
    datum_free(q->sc);
    datum_free(q->tt);
    datum_free(q->sums);
}

/* x (rows lo..hi-1) minus its projection on the null space. Collective. */
static void project(const projector *q, double *x)
{
    const datum_rate_null_structure *s = q->s;
    uint32_t no = s->n_ocomp, ng = s->n_group;
    double *sum = q->sums, *gsum = q->sums + no;
    memset(sum, 0, (no + ng) * sizeof *sum);
    for (PetscInt j = q->lo; j < q->hi; j++)
        if (s->ocomp[j] >= 0) sum[s->ocomp[j]] += weight(q, j) * x[j - q->lo];
    all_sum(sum, no);
    for (PetscInt j = q->lo; j < q->hi; j++)
        if (s->ocomp[j] >= 0) x[j - q->lo] -= sum[s->ocomp[j]] / q->mc[s->ocomp[j]];
    if (ng == 0) return;
    /* x is now m-orthogonal to every indicator: <x, t_g> = sum over g of m x s. */
    for (PetscInt j = q->lo; j < q->hi; j++) {
        int32_t c = s->ocomp[j], g = c >= 0 ? s->ogroup[c] : -1;
        if (g >= 0) gsum[g] += weight(q, j) * x[j - q->lo] * s->sign[j];
    }
    all_sum(gsum, ng);
    for (PetscInt j = q->lo; j < q->hi; j++) {
        int32_t c = s->ocomp[j], g = c >= 0 ? s->ogroup[c] : -1;
        if (g >= 0 && q->tt[g] > 0)
            x[j - q->lo] -= gsum[g] / q->tt[g] * (s->sign[j] - q->sc[c] / q->mc[c]);
    }
}

static PetscErrorCode remove_null(MatNullSpace sp, Vec v, void *user)
{
    (void)sp;
    PetscScalar *x;
    PetscCall(VecGetArray(v, &x));
    project(user, x);
    PetscCall(VecRestoreArray(v, &x));
    return 0;
}

/* rank 0 merges the slices' union-finds and every process gets the result. */
static int merged_unions(datum_ctx *ctx, datum_rate_problem *p, datum_rate_unions *u)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rc = datum_rate_problem_unions(ctx, p, u);
    if (!mpi_all_ok(rc == DATUM_OK)) return rc != DATUM_OK ? rc : mpi_other_failed(ctx);
    uint32_t n = u->n_pairs;
    uint32_t *fa = rank == 0 ? datum_malloc(ctx, (size_t)n + 1, sizeof *fa) : NULL;
    uint32_t *fo = rank == 0 ? datum_malloc(ctx, (size_t)n + 1, sizeof *fo) : NULL;
    uint8_t *seen = rank == 0 ? datum_malloc(ctx, (size_t)n + 1, 1) : NULL;
    rc = rank != 0 || (fa && fo && seen) ? DATUM_OK : DATUM_E_NOMEM;
    if (!mpi_all_ok(rc == DATUM_OK)) rc = rc != DATUM_OK ? rc : mpi_other_failed(ctx);
    /* One slice at a time (memory O(pairs) on rank 0, not O(processes x pairs)). */
    for (int k = 1; rc == DATUM_OK && k < size; k++) {
        if (rank == k) {
            MPI_Send(u->fa, (int)n, MPI_UINT32_T, 0, 2, MPI_COMM_WORLD);
            MPI_Send(u->fo, (int)n, MPI_UINT32_T, 0, 3, MPI_COMM_WORLD);
            MPI_Send(u->seen, (int)n, MPI_UINT8_T, 0, 4, MPI_COMM_WORLD);
            mpi_stat.bytes_sent += (uint64_t)n * 9;
        } else if (rank == 0) {
            MPI_Recv(fa, (int)n, MPI_UINT32_T, k, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(fo, (int)n, MPI_UINT32_T, k, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(seen, (int)n, MPI_UINT8_T, k, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            datum_rate_unions_merge(u, fa, fo, seen);
        }
    }
    datum_free(fa);
    datum_free(fo);
    datum_free(seen);
    if (rc != DATUM_OK) return rc;
    MPI_Bcast(u->fa, (int)n, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(u->fo, (int)n, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(u->seen, (int)n, MPI_UINT8_T, 0, MPI_COMM_WORLD);
    if (rank == 0) mpi_stat.bytes_sent += (uint64_t)n * 9 * (uint64_t)(size - 1);
    return DATUM_OK;
}

/* The groups of fixed-direction components, the slices' merged the same way. */
static int merged_groups(datum_ctx *ctx, datum_rate_problem *p, datum_rate_null_structure *s)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint32_t no = s->n_ocomp;
    int any = 0;
    for (uint32_t c = 0; c < no; c++) any |= s->ofixed[c];
    if (!any) return DATUM_OK; /* the same on every process */
    uint32_t *fg = datum_malloc(ctx, (size_t)no + 1, sizeof *fg);
    uint32_t *other = rank == 0 ? datum_malloc(ctx, (size_t)no + 1, sizeof *other) : NULL;
    uint8_t *tainted = datum_calloc(ctx, (size_t)no + 1, 1);
    int rc = fg && tainted && (rank != 0 || other) ? DATUM_OK : DATUM_E_NOMEM;
    if (mpi_all_ok(rc == DATUM_OK)) {
        for (uint32_t c = 0; c < no; c++) fg[c] = c;
        datum_rate_problem_fixed(p, s, fg, tainted);
        for (int k = 1; k < size; k++) {
            if (rank == k) MPI_Send(fg, (int)no, MPI_UINT32_T, 0, 5, MPI_COMM_WORLD);
            if (rank == 0) {
                MPI_Recv(other, (int)no, MPI_UINT32_T, k, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                datum_rate_unite(fg, other, no);
            }
        }
        MPI_Bcast(fg, (int)no, MPI_UINT32_T, 0, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, tainted, (int)no, MPI_UINT8_T, MPI_MAX, MPI_COMM_WORLD);
        mpi_stat.bytes_sent += (uint64_t)no * (rank == 0 ? 4 * (uint64_t)(size - 1) : 4) + no;
        datum_rate_null_structure_groups(s, fg, tainted);
    } else {
        rc = rc != DATUM_OK ? rc : mpi_other_failed(ctx);
    }
    datum_free(fg);
    datum_free(other);
    datum_free(tainted);
    return rc;
}

/* The solve proper, on the whole's n and r (every process's copy) and this
 * slice's entries; v (all pairs, every process) and the stats. */
typedef struct {
    const datum_rate_null_structure *s;
    const double *n, *r;
    uint32_t n_pairs;
    uint64_t nnz;
    int32_t *row, *col;
    double *val;
    const datum_rate_options *opt;
    double *v;
    datum_rate_stats *stats;
} petsc_job;

/* CG from x = 0 on A x = rhs to the tolerance, at most max_it iterations,
 * preconditioned by Jacobi or (block) by block Jacobi with an incomplete
 * Cholesky of each process's block; the residual norms of every iteration in
 * trace (max_it + 1 of them) unless NULL. PETSC_OPTIONS (-pc_type gamg,
 * -log_view, ...) are applied last and override both. */
static PetscErrorCode cg_run(Mat A, Vec rhs, Vec x, int block, const datum_rate_options *opt,
                             PetscInt max_it, PetscReal *trace, PetscInt *its)
{
    KSP ksp;
    PC pc;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    /* The preconditioned residual: each row scaled by its diagonal, its
     * pair's boards, so that a component of old, decayed boards converges
     * as far as a recent one (the unpreconditioned one would stop when the
     * heavy components are done). */
    PetscCall(KSPSetNormType(ksp, KSP_NORM_PRECONDITIONED));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, block ? PCBJACOBI : PCJACOBI));
    if (block) { /* incomplete Cholesky of each process's block, which may be singular */
        PetscBool set;
        PetscCall(PetscOptionsHasName(NULL, NULL, "-sub_pc_type", &set));
        if (!set) PetscCall(PetscOptionsSetValue(NULL, "-sub_pc_type", "icc"));
        PetscCall(PetscOptionsHasName(NULL, NULL, "-sub_pc_factor_shift_type", &set));
        if (!set) PetscCall(PetscOptionsSetValue(NULL, "-sub_pc_factor_shift_type", "positive_definite"));
    }
    PetscCall(KSPSetTolerances(ksp, opt->tolerance, 0.0, PETSC_DEFAULT, max_it));
    if (trace) PetscCall(KSPSetResidualHistory(ksp, trace, max_it + 1, PETSC_TRUE));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(ksp, rhs, x));
    PetscCall(KSPGetIterationNumber(ksp, its));
    PetscCall(KSPDestroy(&ksp));
    return 0;
}

static PetscErrorCode solve_petsc(datum_ctx *ctx, petsc_job *job)
{
    PetscInt N = (PetscInt)job->n_pairs;
    Mat A;
    Vec b, x, rc_vec, res;
    MatNullSpace null;
    double t0 = MPI_Wtime();

    /* A: the slices' entries (with, from rank 0, a 1 on the diagonal of every
     * pair without a kept board), summed by PETSc's coordinate assembly,
     * straight from the library's arrays (PetscInt is int32_t here). */
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
    PetscCall(MatSetType(A, MATAIJ));
    /* A is symmetric and its entries come column by column: given as rows,
     * they arrive grouped by row, which PETSc's sort of them handles in
     * about two thirds of the time (decade: 1.5 s instead of 2.2 s). */
    PetscCall(MatSetPreallocationCOO(A, (PetscCount)job->nnz, (PetscInt *)job->col,
                                     (PetscInt *)job->row));
    PetscCall(MatSetValuesCOO(A, job->val, ADD_VALUES));
    datum_free(job->row); /* their copy is PETSc's now: the peak is one of them */
    datum_free(job->col);
    datum_free(job->val);
    job->row = job->col = NULL;
    job->val = NULL;
    PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
    MatInfo info;
    PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
    job->stats->matrix_nnz = info.nz_used;

    /* r_c = r minus its projection on the null space; b its local rows. */
    PetscInt lo, hi;
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecGetOwnershipRange(b, &lo, &hi));
    projector euclid = {0}, boards = {0};
    if (projector_init(ctx, &euclid, job->s, lo, hi, NULL) != DATUM_OK ||
        projector_init(ctx, &boards, job->s, lo, hi, job->n) != DATUM_OK) {
        projector_free(&euclid);
        projector_free(&boards);
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory (projections)");
    }
    PetscScalar *a;
    PetscCall(VecGetArray(b, &a));
    for (PetscInt j = lo; j < hi; j++) a[j - lo] = job->n[j] > 0 ? job->r[j] : 0.0;
    PetscCall(VecRestoreArray(b, &a));
    PetscCall(VecDuplicate(b, &rc_vec));
    PetscCall(VecCopy(b, rc_vec));
    PetscCall(VecGetArray(rc_vec, &a));
    project(&euclid, a);
    PetscCall(VecRestoreArray(rc_vec, &a));
    PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_FALSE, 0, NULL, &null));
    PetscCall(MatNullSpaceSetFunction(null, remove_null, &euclid));
    PetscCall(MatSetNullSpace(A, null));
    PetscCall(MatSetTransposeNullSpace(A, null));
    job->stats->time_assemble = MPI_Wtime() - t0;

    /* CG to the tolerance; with --solver auto, first the serial program's
     * trial and choice (datum_rate_choose), without the direct path. */
    t0 = MPI_Wtime();
    const datum_rate_options *opt = job->opt;
    datum_rate_stats *st = job->stats;
    int block = opt->solver == DATUM_RATE_ITERATIVE && opt->block_size > 1;
    PetscInt its = 0;
    /* The serial program solves components of at most dense_max pairs
     * densely and chooses only for the others: with none, no choice here. */
    int sparse = opt->dense_max <= 0 || st->largest_component > (uint32_t)opt->dense_max;
    if (opt->solver == DATUM_RATE_AUTO && sparse) {
        PetscInt budget = datum_rate_auto_begin(st, opt, (double)st->pairs, info.nz_used);
        PetscReal *trace = datum_malloc(ctx, (size_t)budget + 1, sizeof *trace);
        if (!trace) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory (the trial's residuals)");
        PetscCall(cg_run(A, rc_vec, x, 0, opt, budget, trace, &its));
        st->time_trial = MPI_Wtime() - t0;
        /* PETSc's criterion is the serial one, relative to the first residual. */
        int finished = datum_rate_auto_trial(st, (int)its, (int)budget,
                                             trace[0] > 0 ? trace[its] / trace[0] : 0, trace);
        datum_free(trace);
        if (!finished) { /* the choice, then that path from 0 */
            datum_rate_choose(&st->forecast, &st->calibration, &st->choice);
            block = st->choice.path == DATUM_RATE_PATH_BLOCK;
            PetscCall(cg_run(A, rc_vec, x, block, opt, opt->max_iterations, NULL, &its));
        }
    } else {
        PetscCall(cg_run(A, rc_vec, x, block, opt, opt->max_iterations, NULL, &its));
    }
    st->iterations = (int)its;
    st->block_size = block ? opt->block_size : 1;
    int size_world;
    MPI_Comm_size(MPI_COMM_WORLD, &size_world);
    st->blocks = block ? (uint32_t)size_world : 0;
    mpi_stat.iterations = (uint64_t)its;

    /* Residuals: ||A v - r||, ||r - r_c|| (the least), ||A v - r_c|| / ||r_c||. */
    PetscReal nr, nrc, nres, nls;
    PetscCall(VecDuplicate(b, &res));
    PetscCall(MatMult(A, x, res));
    PetscCall(VecAXPY(res, -1.0, rc_vec));
    PetscCall(VecNorm(res, NORM_2, &nres));
    PetscCall(VecNorm(rc_vec, NORM_2, &nrc));
    PetscCall(VecAXPY(res, 1.0, rc_vec)); /* A v */
    PetscCall(VecAXPY(res, -1.0, b));     /* A v - r */
    PetscCall(VecNorm(res, NORM_2, &nr));
    PetscCall(VecWAXPY(res, -1.0, rc_vec, b));
    PetscCall(VecNorm(res, NORM_2, &nls));
    job->stats->residual = nr;
    job->stats->least_residual = nls;
    job->stats->range_residual = nrc > 0 ? nres / nrc : 0.0;
    job->stats->converged = job->stats->range_residual <= job->opt->tolerance;

    /* The gauge, then every rating to every process. */
    PetscCall(VecGetArray(x, &a));
    project(&boards, a);
    PetscCall(VecRestoreArray(x, &a));
    VecScatter to_all;
    Vec all;
    PetscCall(VecScatterCreateToAll(x, &to_all, &all));
    PetscCall(VecScatterBegin(to_all, x, all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(to_all, x, all, INSERT_VALUES, SCATTER_FORWARD));
    mpi_stat.bytes_sent += (uint64_t)(hi - lo) * sizeof(double) * 2; /* about: to each, its rows */
    const PetscScalar *v;
    PetscCall(VecGetArrayRead(all, &v));
    for (uint32_t j = 0; j < job->n_pairs; j++) job->v[j] = v[j];
    PetscCall(VecRestoreArrayRead(all, &v));
    job->stats->time_solve = MPI_Wtime() - t0;

    projector_free(&euclid);
    projector_free(&boards);
    PetscCall(VecScatterDestroy(&to_all));
    PetscCall(VecDestroy(&all));
    PetscCall(VecDestroy(&res));
    PetscCall(VecDestroy(&rc_vec));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(MatNullSpaceDestroy(&null));
    PetscCall(MatDestroy(&A));
    return 0;
}

/* Rank 0: a 1 on the diagonal of every pair without a kept board, appended
 * to the entries (its row of A is empty: PETSc then solves v_j = 0). */
static int unrated_diagonal(datum_ctx *ctx, const double *n, uint32_t np, petsc_job *job)
{
    size_t extra = 0, cap = (size_t)job->nnz;
    for (uint32_t j = 0; j < np; j++) extra += !(n[j] > 0);
    if (extra == 0) return DATUM_OK;
    void *const arrays[] = {&job->row, &job->col, &job->val};
    const size_t sizes[] = {sizeof *job->row, sizeof *job->col, sizeof *job->val};
    int rc = datum_reserve_all(ctx, &cap, (size_t)job->nnz + extra, 3, arrays, sizes);
    for (uint32_t j = 0; rc == DATUM_OK && j < np; j++)
        if (!(n[j] > 0)) {
            job->row[job->nnz] = job->col[job->nnz] = (int32_t)j;
            job->val[job->nnz++] = 1.0;
        }
    return rc;
}

int cli_rate_summary(datum_ctx *ctx, datum_rate_summary *s)
{
    (void)ctx;
    uint64_t counts[5] = {s->fields, s->fields_one, s->rows, s->rows_outside, s->layouts};
    MPI_Allreduce(MPI_IN_PLACE, counts, 5, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    /* The dates of slices that kept nothing are 0: out of the range. */
    int32_t lo = s->fields ? s->first_date : INT32_MAX, hi = s->fields ? s->last_date : INT32_MIN;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT32_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
    mpi_stat.bytes_sent += sizeof counts + 2 * sizeof lo;
    s->fields = counts[0];
    s->fields_one = counts[1];
    s->rows = counts[2];
    s->rows_outside = counts[3];
    s->layouts = counts[4];
    s->first_date = counts[0] ? lo : 0;
    s->last_date = counts[0] ? hi : 0;
    /* s->pairs, the pairs with a kept row, is the solve's (stats.pairs). */
    return DATUM_OK;
}

static int petsc_started;

void mpi_rate_finish(void)
{
    if (petsc_started) PetscFinalize();
    petsc_started = 0;
}

int cli_rate_solve(datum_ctx *ctx, datum_rate_problem *p, const datum_rate_options *opt,
                   datum_rate_result **out)
{
    *out = NULL;
    if (!petsc_started) {
        if (PetscInitializeNoArguments() != 0)
            return datum_ctx_fail(ctx, DATUM_E_NUMERIC, "PETSc could not start");
        petsc_started = 1;
    }
    mpi_phase_since_start(MPI_PHASE_ROWS); /* options, the slice read and scored */
    mpi_phase_begin(MPI_PHASE_ASSEMBLE);
    uint32_t np = datum_rate_problem_pairs(p);
    size_t len = (size_t)np + 1;
    /* The whole's n and r: the slices' summed. */
    double *n = datum_malloc(ctx, len, sizeof *n), *r = datum_malloc(ctx, len, sizeof *r);
    datum_rate_result *res = datum_calloc(ctx, 1, sizeof *res);
    int rc = n && r && res ? DATUM_OK : DATUM_E_NOMEM, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    datum_rate_unions u = {0};
    datum_rate_null_structure s = {0};
    petsc_job job = {.n_pairs = np, .opt = opt};
    if (!mpi_all_ok(rc == DATUM_OK)) {
        rc = rc != DATUM_OK ? rc : mpi_other_failed(ctx);
        goto done;
    }
    memcpy(n, datum_rate_problem_boards(p), np * sizeof *n);
    memcpy(r, datum_rate_problem_butler(p), np * sizeof *r);
    all_sum(n, np);
    all_sum(r, np);
    if ((rc = merged_unions(ctx, p, &u)) != DATUM_OK) goto done;
    rc = datum_rate_null_structure_create(ctx, &u, n, &s);
    if (!mpi_all_ok(rc == DATUM_OK)) {
        rc = rc != DATUM_OK ? rc : mpi_other_failed(ctx);
        goto done;
    }
    if ((rc = merged_groups(ctx, p, &s)) != DATUM_OK) goto done;
    rc = datum_rate_problem_entries(ctx, p, &job.nnz, &job.row, &job.col, &job.val);
    if (rc == DATUM_OK && rank == 0) rc = unrated_diagonal(ctx, n, np, &job);
    res->n_pairs = np;
    res->rating = datum_malloc(ctx, len, sizeof *res->rating);
    res->boards = datum_malloc(ctx, len, sizeof *res->boards);
    res->butler_per_board = datum_malloc(ctx, len, sizeof *res->butler_per_board);
    res->component = datum_malloc(ctx, len, sizeof *res->component);
    res->component_null = datum_calloc(ctx, (size_t)s.n_acomp + 1, 1);
    if (rc == DATUM_OK && !(res->rating && res->boards && res->butler_per_board &&
                            res->component && res->component_null))
        rc = DATUM_E_NOMEM;
    mpi_phase_end(MPI_PHASE_ASSEMBLE);
    if (!mpi_all_ok(rc == DATUM_OK)) {
        rc = rc != DATUM_OK ? rc : mpi_other_failed(ctx);
        goto done;
    }

    datum_rate_stats *st = &res->stats;
    uint32_t *size = datum_calloc(ctx, (size_t)s.n_acomp + 1, sizeof *size);
    if (!size) {
        rc = DATUM_E_NOMEM; /* the solve below is collective: every process goes on */
    }
    for (uint32_t j = 0; size && j < np; j++)
        if (s.acomp[j] >= 0) size[s.acomp[j]]++;
    for (uint32_t c = 0; size && c < s.n_acomp; c++)
        if (size[c] > st->largest_component) st->largest_component = size[c];
    datum_free(size);
    st->components = s.n_acomp;
    st->opponent_components = s.n_ocomp;
    st->fixed_components = s.n_fixed;
    st->groups = s.n_group;
    st->null_structural = st->null_total = s.n_ocomp + s.n_group;
    st->null_complete = 0; /* the structure's, not searched beyond (docs/scale-out.md) */
    st->path = DATUM_RATE_ITERATIVE;
    st->ordering = DATUM_RATE_ORDER_NONE;
    for (uint32_t j = 0; j < np; j++) st->pairs += n[j] > 0;

    mpi_phase_begin(MPI_PHASE_SOLVE);
    job.s = &s;
    job.n = n;
    job.r = r;
    job.v = res->rating;
    job.stats = st;
    if (st->pairs > 0 && solve_petsc(ctx, &job) != 0)
        rc = datum_ctx_fail(ctx, DATUM_E_NUMERIC, "PETSc failed to solve the ratings (its "
                                                  "message is above)");
    mpi_phase_end(MPI_PHASE_SOLVE);
    for (uint32_t j = 0; rc == DATUM_OK && j < np; j++) {
        int rated = n[j] > 0;
        res->boards[j] = n[j];
        res->butler_per_board[j] = rated ? r[j] / n[j] : NAN;
        res->component[j] = s.acomp[j];
        if (!rated) res->rating[j] = NAN;
    }
    res->n_components = s.n_acomp;
    if (rc == DATUM_OK)
        rc = st->pairs == 0 ? DATUM_W_EMPTY : st->converged ? DATUM_OK : DATUM_W_INACCURATE;
done:
    datum_free(job.row);
    datum_free(job.col);
    datum_free(job.val);
    datum_rate_null_structure_free(&s);
    datum_rate_unions_free(&u);
    datum_free(n);
    datum_free(r);
    if (rc < 0) datum_rate_result_free(&res);
    *out = res;
    return rc;
}
