/* slices.c - a problem held in slices, one per process of datum-mpi
 * (mpi/rate_petsc.c): what each slice's layouts say about the structure
 * (union-finds, merged across the slices), the structural null space of the
 * whole from the merged unions, and each slice's entries of A. The
 * union-finds, the groups and the assembly are structure.c's and
 * assemble.c's, run on the slice. */
#include "rate_internal.h"

#include <string.h>

int datum_rate_problem_unions(datum_ctx *ctx, const datum_rate_problem *p, datum_rate_unions *out)
{
    rate_unions u;
    memset(out, 0, sizeof *out);
    if (rate_unions_init(ctx, p->n_pairs, &u) != DATUM_OK) return DATUM_E_NOMEM;
    rate_unite_layouts(p, &u);
    *out = (datum_rate_unions){p->n_pairs, u.fa, u.fo, u.seen};
    return DATUM_OK;
}

void datum_rate_unions_merge(datum_rate_unions *u, const uint32_t *fa, const uint32_t *fo,
                             const uint8_t *seen)
{
    rate_unite_roots(u->fa, fa, u->n_pairs);
    rate_unite_roots(u->fo, fo, u->n_pairs);
    for (uint32_t j = 0; j < u->n_pairs; j++) u->seen[j] |= seen[j];
}

void datum_rate_unions_free(datum_rate_unions *u)
{
    datum_free(u->fa);
    datum_free(u->fo);
    datum_free(u->seen);
    memset(u, 0, sizeof *u);
}

void datum_rate_unite(uint32_t *parent, const uint32_t *other, uint32_t n)
{
    rate_unite_roots(parent, other, n);
}

void datum_rate_null_structure_free(datum_rate_null_structure *s)
{
    datum_free(s->acomp);
    datum_free(s->ocomp);
    datum_free(s->sign);
    datum_free(s->ofixed);
    datum_free(s->ogroup);
    memset(s, 0, sizeof *s);
}

int datum_rate_null_structure_create(datum_ctx *ctx, datum_rate_unions *u, const double *n,
                                     datum_rate_null_structure *s)
{
    memset(s, 0, sizeof *s);
    uint32_t np = u->n_pairs;
    s->n_pairs = np;
    uint8_t *rated = datum_malloc(ctx, np ? np : 1, 1);
    s->acomp = datum_malloc(ctx, np ? np : 1, sizeof *s->acomp);
    s->ocomp = datum_malloc(ctx, np ? np : 1, sizeof *s->ocomp);
    s->sign = datum_calloc(ctx, np ? np : 1, sizeof *s->sign);
    if (!rated || !s->acomp || !s->ocomp || !s->sign) {
        datum_free(rated);
        datum_rate_null_structure_free(s);
        return DATUM_E_NOMEM;
    }
    for (uint32_t j = 0; j < np; j++) {
        rated[j] = n[j] > 0;
        s->sign[j] = u->seen[j] == 1 ? 1 : u->seen[j] == 2 ? -1 : 0;
    }
    s->n_acomp = rate_number_roots(u->fa, np, rated, s->acomp);
    s->n_ocomp = rate_number_roots(u->fo, np, rated, s->ocomp);
    s->ofixed = datum_malloc(ctx, s->n_ocomp ? s->n_ocomp : 1, 1);
    s->ogroup = datum_malloc(ctx, s->n_ocomp ? s->n_ocomp : 1, sizeof *s->ogroup);
    int rc = s->ofixed && s->ogroup ? DATUM_OK : DATUM_E_NOMEM;
    if (rc == DATUM_OK) {
        memset(s->ofixed, 1, s->n_ocomp);
        for (uint32_t j = 0; j < np; j++)
            if (rated[j] && s->sign[j] == 0) s->ofixed[s->ocomp[j]] = 0;
        for (uint32_t c = 0; c < s->n_ocomp; c++) s->ogroup[c] = -1;
    }
    datum_free(rated);
    if (rc != DATUM_OK) datum_rate_null_structure_free(s);
    return rc;
}

void datum_rate_problem_fixed(const datum_rate_problem *p, const datum_rate_null_structure *s,
                              uint32_t *fg, uint8_t *tainted)
{
    rate_unite_fixed(p, s->ocomp, s->ofixed, fg, tainted);
}

void datum_rate_null_structure_groups(datum_rate_null_structure *s, uint32_t *fg, uint8_t *tainted)
{
    rate_number_groups(fg, tainted, s->ofixed, s->n_ocomp, s->ogroup, &s->n_group, &s->n_fixed);
}

int datum_rate_problem_entries(datum_ctx *ctx, const datum_rate_problem *p, uint64_t *nnz,
                               int32_t **row, int32_t **col, double **val)
{
    rate_matrix a;
    memset(&a, 0, sizeof a);
    *nnz = 0;
    *row = *col = NULL;
    *val = NULL;
    int rc = rate_matrix_assemble(ctx, p, &a);
    if (rc == DATUM_OK) {
        size_t n = a.nnz ? (size_t)a.nnz : 1;
        *row = datum_malloc(ctx, n, sizeof **row);
        *col = datum_malloc(ctx, n, sizeof **col);
        *val = datum_malloc(ctx, n, sizeof **val);
        rc = *row && *col && *val ? DATUM_OK : DATUM_E_NOMEM;
    }
    for (uint32_t b = 0; rc == DATUM_OK && b < a.n_blocks; b++) {
        const rate_block *k = &a.blocks[b];
        for (uint32_t c = 0; c < RATE_BLOCK_COLS; c++) /* A stored once: both triangles out */
            for (uint64_t e = k->colptr[c]; e < k->colptr[c + 1]; e++) {
                int32_t i = k->row[e], j = (int32_t)(b * RATE_BLOCK_COLS + c);
                (*row)[*nnz] = i;
                (*col)[*nnz] = j;
                (*val)[(*nnz)++] = k->val[e];
                if (i == j) continue;
                (*row)[*nnz] = j;
                (*col)[*nnz] = i;
                (*val)[(*nnz)++] = k->val[e];
            }
    }
    rate_matrix_free(&a);
    if (rc != DATUM_OK) {
        datum_free(*row);
        datum_free(*col);
        datum_free(*val);
        *row = *col = NULL;
        *val = NULL;
        *nnz = 0;
    }
    return rc;
}
