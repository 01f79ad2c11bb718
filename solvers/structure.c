/*
 * structure.c - who plays whom: the appearance index (pair -> tables), the
 * connected components of A, the opponent components, the fixed-direction
 * groups and the pins of the gauge (docs/methods.md, "Ratings").
 *
 * The components are sequential union-find over the stored tables,
 * O(tables), numbered in pair order: the same archive gives the same
 * numbers. The appearance index is a counting sort, in parallel, whose
 * result does not depend on the thread count. The certificate of the null
 * space closes the structure's equations (below).
 */
#include "rate_internal.h"

#include <omp.h>
#include <string.h>

/* Union-find with path halving; the smaller index becomes the root, so the
 * result does not depend on the order of the unions. */
static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = find(parent, a);
    b = find(parent, b);
    if (a < b) parent[b] = a;
    else if (b < a) parent[a] = b;
}

static uint32_t *identity(datum_ctx *ctx, uint32_t n)
{
    uint32_t *parent = datum_malloc(ctx, n, sizeof *parent);
    if (parent)
        for (uint32_t i = 0; i < n; i++) parent[i] = i;
    return parent;
}

/* label[i] = number of i's root among the roots, in index order, for the i
 * with keep[i] (all if keep is NULL), else -1. Returns the count. */
static uint32_t number_roots(uint32_t *parent, uint32_t n, const uint8_t *keep, int32_t *label)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (keep && !keep[i]) {
            label[i] = -1;
            continue;
        }
        uint32_t root = find(parent, i);
        label[i] = root == i ? (int32_t)count++ : label[root];
    }
    return count;
}

/* The layout of every table (the certificate's rules C and D, peeling, the
 * blocks and the assembly read it); built when first needed, then kept. */
static int build_table_layouts(datum_ctx *ctx, const datum_rate_problem *p, rate_structure *s)
{
    if (s->t_layout) return DATUM_OK;
    s->t_layout = datum_malloc(ctx, p->n_tables ? p->n_tables : 1, sizeof *s->t_layout);
    if (!s->t_layout) return DATUM_E_NOMEM;
    int64_t nl = (int64_t)p->n_layouts;
#pragma omp parallel for num_threads(datum_ctx_threads(ctx)) schedule(static)
    for (int64_t l = 0; l < nl; l++)
        for (uint64_t t = p->lay_off[l]; t < p->lay_off[l + 1]; t++) s->t_layout[t] = (uint32_t)l;
    return DATUM_OK;
}

/* The appearance lists, a counting sort of the tables by pair: each thread
 * counts, then places, the tables of its own range; a pair's list is in
 * table order whatever the ranges, so the index is the same for any
 * thread count. */
static int build_index(datum_ctx *ctx, const datum_rate_problem *p, rate_structure *s)
{
    size_t nt = p->n_tables, n = s->n;
    int threads = datum_ctx_threads(ctx);
    s->app_off = datum_calloc(ctx, n + 1, sizeof *s->app_off);
    s->app_table = datum_malloc(ctx, 2 * nt + 1, sizeof *s->app_table);
    uint64_t *next = datum_calloc(ctx, (size_t)threads * (n + 1), sizeof *next); /* per range, pair */
    if (!s->app_off || !s->app_table || !next) {
        datum_free(next);
        return DATUM_E_NOMEM;
    }
#pragma omp parallel num_threads(threads)
    {
        int r = omp_get_thread_num();
        size_t t0 = nt * (size_t)r / (size_t)threads, t1 = nt * (size_t)(r + 1) / (size_t)threads;
        uint64_t *mine = next + (size_t)r * (n + 1);
        for (size_t t = t0; t < t1; t++) {
            mine[p->t_ns[t]]++;
            mine[p->t_ew[t]]++;
        }
#pragma omp barrier
#pragma omp single
        {
            uint64_t at = 0;
            for (size_t j = 0; j < n; j++) { /* where each range's tables of pair j start */
                s->app_off[j] = at;
                for (int q = 0; q < threads; q++) {
                    uint64_t count = next[(size_t)q * (n + 1) + j];
                    next[(size_t)q * (n + 1) + j] = at;
                    at += count;
                }
            }
            s->app_off[n] = at;
        }
        for (size_t t = t0; t < t1; t++) {
            s->app_table[mine[p->t_ns[t]]++] = (uint32_t)t;
            s->app_table[mine[p->t_ew[t]]++] = (uint32_t)t;
        }
    }
    datum_free(next);
    return build_table_layouts(ctx, p, s);
}

void rate_unions_free(rate_unions *u)
{
    datum_free(u->fa);
    datum_free(u->fo);
    datum_free(u->seen);
    rate_facts_free(&u->facts);
    memset(u, 0, sizeof *u);
}

int rate_unions_init(datum_ctx *ctx, uint32_t n, rate_unions *u)
{
    memset(u, 0, sizeof *u);
    u->n = n;
    u->fa = identity(ctx, n);
    u->fo = identity(ctx, n);
    u->seen = datum_calloc(ctx, n ? n : 1, 1);
    if (u->fa && u->fo && u->seen) return DATUM_OK;
    rate_unions_free(u);
    return DATUM_E_NOMEM;
}

/* Unites the pairs of p's layouts not seen yet by u. */
static void unite_layouts(const datum_rate_problem *p, rate_unions *u)
{
    for (size_t l = u->layouts_done; l < p->n_layouts; l++) {
        uint32_t first = (uint32_t)p->t_ns[p->lay_off[l]];
        for (uint64_t t = p->lay_off[l]; t < p->lay_off[l + 1]; t++) {
            uint32_t ns = (uint32_t)p->t_ns[t], ew = (uint32_t)p->t_ew[t];
            unite(u->fa, first, ns);
            unite(u->fa, first, ew);
            unite(u->fo, ns, ew);
            u->seen[ns] |= 1; /* bit 1: NS, bit 2: EW */
            u->seen[ew] |= 2;
        }
    }
    u->layouts_done = p->n_layouts;
}

/* Components of A (pairs sharing a field) and of the opponent graph, from
 * the unions kept in `kept` (brought up to date) or from scratch. */
static int build_components(datum_ctx *ctx, const datum_rate_problem *p, rate_structure *s,
                            const uint8_t *rated, rate_unions *kept)
{
    rate_unions fresh = {0};
    rate_unions *u = kept ? kept : &fresh;
    int rc = kept ? DATUM_OK : rate_unions_init(ctx, s->n, &fresh);
    s->acomp = datum_malloc(ctx, s->n, sizeof *s->acomp);
    s->ocomp = datum_malloc(ctx, s->n, sizeof *s->ocomp);
    s->sign = datum_calloc(ctx, s->n, sizeof *s->sign);
    if (rc != DATUM_OK || !s->acomp || !s->ocomp || !s->sign) {
        rate_unions_free(&fresh);
        return DATUM_E_NOMEM;
    }
    unite_layouts(p, u);
    for (uint32_t j = 0; j < s->n; j++)
        s->sign[j] = u->seen[j] == 1 ? 1 : u->seen[j] == 2 ? -1 : 0;
    s->n_acomp = number_roots(u->fa, s->n, rated, s->acomp);
    s->n_ocomp = number_roots(u->fo, s->n, rated, s->ocomp);
    rate_unions_free(&fresh);
    return DATUM_OK;
}

void rate_unite_fixed(const datum_rate_problem *p, const int32_t *ocomp, const uint8_t *ofixed,
                      uint32_t *fg, uint8_t *tainted)
{
    for (size_t l = 0; l < p->n_layouts; l++) {
        int32_t first = -1, mixed = 0;
        for (uint64_t t = p->lay_off[l]; t < p->lay_off[l + 1]; t++) {
            int32_t c = ocomp[p->t_ns[t]];
            if (!ofixed[c]) mixed = 1;
            else if (first < 0) first = c;
            else unite(fg, (uint32_t)first, (uint32_t)c);
        }
        if (first >= 0 && mixed) tainted[first] = 1;
    }
}

void rate_unite_roots(uint32_t *parent, const uint32_t *other, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) unite(parent, i, other[i]);
}

uint32_t rate_number_roots(uint32_t *parent, uint32_t n, const uint8_t *keep, int32_t *label)
{
    return number_roots(parent, n, keep, label);
}

uint32_t rate_find(uint32_t *parent, uint32_t x) { return find(parent, x); }

void rate_unite_layouts(const datum_rate_problem *p, rate_unions *u)
{
    unite_layouts(p, u);
}

/* Fixed-direction components and their groups: fixed components that share
 * a field are grouped; a group with a field holding a table of a component
 * that is not fixed has no null vector. */
static int build_groups(datum_ctx *ctx, const datum_rate_problem *p, rate_structure *s,
                        const uint8_t *rated)
{
    uint32_t no = s->n_ocomp;
    uint32_t *fg = identity(ctx, no ? no : 1);
    uint8_t *tainted = datum_calloc(ctx, no, 1);
    s->ofixed = datum_malloc(ctx, no, 1);
    s->ogroup = datum_malloc(ctx, no, sizeof *s->ogroup);
    int rc = DATUM_E_NOMEM;
    if (!fg || !tainted || !s->ofixed || !s->ogroup) goto done;
    memset(s->ofixed, 1, no);
    for (uint32_t j = 0; j < s->n; j++)
        if (rated[j] && s->sign[j] == 0) s->ofixed[s->ocomp[j]] = 0;
    int any_fixed = 0;
    for (uint32_t c = 0; c < no; c++) any_fixed |= s->ofixed[c];
    if (any_fixed) rate_unite_fixed(p, s->ocomp, s->ofixed, fg, tainted); /* none fixed: no group */
    rate_number_groups(fg, tainted, s->ofixed, no, s->ogroup, &s->n_group, &s->n_fixed);
    rc = DATUM_OK;
done:
    datum_free(fg);
    datum_free(tainted);
    return rc;
}

void rate_number_groups(uint32_t *fg, uint8_t *tainted, const uint8_t *ofixed, uint32_t n_ocomp,
                        int32_t *ogroup, uint32_t *n_group, uint32_t *n_fixed)
{
    for (uint32_t c = 0; c < n_ocomp; c++) /* a taint anywhere taints the root */
        if (tainted[c]) tainted[find(fg, c)] = 1;
    *n_group = 0;
    *n_fixed = 0;
    for (uint32_t c = 0; c < n_ocomp; c++) {
        ogroup[c] = -1;
        if (!ofixed[c]) continue;
        ++*n_fixed;
        uint32_t root = find(fg, c);
        if (tainted[root]) continue;
        ogroup[c] = root == c ? (int32_t)(*n_group)++ : ogroup[root];
    }
}

/* The pins: in each opponent component of a sparse component of A, its pair
 * with the most boards (ties: the first); in each group, a pair of the other
 * direction in the group's first component, with the most boards. */
static int build_pins(datum_ctx *ctx, const datum_rate_problem *p, rate_structure *s)
{
    s->opin = datum_malloc(ctx, s->n_ocomp, sizeof *s->opin);
    s->gpin = datum_malloc(ctx, s->n_group, sizeof *s->gpin);
    s->gfirst = datum_malloc(ctx, s->n_group, sizeof *s->gfirst);
    s->oacomp = datum_malloc(ctx, s->n_ocomp, sizeof *s->oacomp);
    if (!s->opin || !s->gpin || !s->gfirst || !s->oacomp) return DATUM_E_NOMEM;
    for (uint32_t c = 0; c < s->n_ocomp; c++) s->opin[c] = -1;
    for (uint32_t g = 0; g < s->n_group; g++) s->gpin[g] = s->gfirst[g] = -1;
    for (uint32_t j = 0; j < s->n; j++) {
        int32_t c = s->ocomp[j];
        if (c < 0) continue;
        s->oacomp[c] = s->acomp[j];
        if (s->ogroup[c] >= 0 && s->gfirst[s->ogroup[c]] < 0) s->gfirst[s->ogroup[c]] = c;
        if (s->acomp_dense[s->acomp[j]]) continue;
        if (s->opin[c] < 0 || p->n[j] > p->n[s->opin[c]]) s->opin[c] = (int32_t)j;
    }
    for (uint32_t j = 0; j < s->n; j++) {
        int32_t c = s->ocomp[j];
        if (c < 0 || s->acomp_dense[s->acomp[j]] || s->ogroup[c] < 0) continue;
        int32_t g = s->ogroup[c];
        if (s->gfirst[g] != c || s->sign[j] == s->sign[s->opin[c]]) continue;
        if (s->gpin[g] < 0 || p->n[j] > p->n[s->gpin[g]]) s->gpin[g] = (int32_t)j;
    }
    return DATUM_OK;
}

int rate_structure_index(datum_ctx *ctx, const datum_rate_problem *p, rate_structure *s)
{
    return s->app_off ? DATUM_OK : build_index(ctx, p, s);
}

int rate_structure_build(datum_ctx *ctx, const datum_rate_problem *p, int dense_max,
                         rate_unions *kept, rate_structure *s)
{
    memset(s, 0, sizeof *s);
    s->n = p->n_pairs;
    uint8_t *rated = datum_malloc(ctx, s->n, 1);
    int rc = rated ? DATUM_OK : DATUM_E_NOMEM;
    if (rc == DATUM_OK) {
        for (uint32_t j = 0; j < s->n; j++) rated[j] = p->n[j] > 0;
        rc = build_components(ctx, p, s, rated, kept);
    }
    if (rc == DATUM_OK) rc = build_groups(ctx, p, s, rated);
    if (rc == DATUM_OK) {
        s->acomp_size = datum_calloc(ctx, s->n_acomp, sizeof *s->acomp_size);
        s->acomp_dense = datum_calloc(ctx, s->n_acomp, 1);
        if (!s->acomp_size || !s->acomp_dense) rc = DATUM_E_NOMEM;
    }
    if (rc == DATUM_OK) {
        for (uint32_t j = 0; j < s->n; j++)
            if (s->acomp[j] >= 0) s->acomp_size[s->acomp[j]]++;
        for (uint32_t c = 0; c < s->n_acomp; c++)
            s->acomp_dense[c] = s->acomp_size[c] <= (uint32_t)(dense_max > 0 ? dense_max : 0);
        rc = build_pins(ctx, p, s);
    }
    if (rc == DATUM_OK) rc = rate_structure_certify(ctx, p, s, kept ? &kept->facts : NULL);
    /* The table -> layout map of the certificate's rules C and D: given back
     * (4 bytes a table) until rate_structure_index builds it for peeling or
     * the blocks; the assembly does without. */
    datum_free(s->t_layout);
    s->t_layout = NULL;
    datum_free(rated);
    if (rc != DATUM_OK) rate_structure_free(s);
    return rc;
}

void rate_structure_free(rate_structure *s)
{
    datum_free(s->app_off); datum_free(s->app_table); datum_free(s->t_layout);
    datum_free(s->acomp); datum_free(s->acomp_size); datum_free(s->acomp_dense);
    datum_free(s->ocomp); datum_free(s->sign); datum_free(s->ofixed); datum_free(s->oacomp); datum_free(s->ogroup);
    datum_free(s->opin); datum_free(s->gpin); datum_free(s->gfirst);
    datum_free(s->acomp_certified);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------------------ */
/* The certificate (docs/methods.md, "A certified null space")              */

/* What the closure knows about every null vector u of a sparse component
 * (u with c_l0(u) = 0 at one layout l0 of each group): pairs in one class of
 * `pair` have equal u; layouts in one class of `lay` have offsets equal up
 * to sign (c_l = (-1)^lpar c_root), and a class with lzero has offset 0.
 * The facts (rate_facts) may be kept from one date of a history to the
 * next; the rest is scratch for one call. */
typedef struct {
    const datum_rate_problem *p;
    const rate_structure *s;
    rate_facts *f;
    const uint8_t *lsparse; /* per layout: in a sparse component; NULL: every layout */
    uint32_t *stamp, *other, *stamp2, *other2; /* per pair root, per pass */
    uint32_t *lorder, *torder; /* layouts by class, tables by smaller end */
    uint64_t *start;    /* counting sort, max(n, layouts) + 2 */
    int changed;
} closure;

static int sparse_layout(const closure *c, uint32_t l) { return !c->lsparse || c->lsparse[l]; }

static uint32_t lay_find(closure *c, uint32_t x, uint8_t *parity)
{
    uint32_t *lay = c->f->lay;
    uint8_t *lpar = c->f->lpar;
    uint32_t root = x;
    uint8_t par = 0;
    while (lay[root] != root) {
        par ^= lpar[root];
        root = lay[root];
    }
    for (uint8_t q = par; lay[x] != x;) { /* compress, keeping parities to the root */
        uint32_t next = lay[x];
        uint8_t px = lpar[x];
        lay[x] = root;
        lpar[x] = q;
        q ^= px;
        x = next;
    }
    *parity = par;
    return root;
}

/* c_a = (-1)^rel c_b: a contradiction (c = -c) makes the class 0. */
static void lay_unite(closure *c, uint32_t a, uint32_t b, uint8_t rel)
{
    rate_facts *f = c->f;
    uint8_t pa, pb;
    uint32_t ra = lay_find(c, a, &pa), rb = lay_find(c, b, &pb);
    if (ra == rb) {
        if ((pa ^ pb) != rel && !f->lzero[ra]) f->lzero[ra] = 1, c->changed = 1;
        return;
    }
    uint32_t lo = ra < rb ? ra : rb, hi = ra < rb ? rb : ra;
    f->lay[hi] = lo;
    f->lpar[hi] = pa ^ pb ^ rel;
    f->lzero[lo] |= f->lzero[hi];
    c->changed = 1;
}

static void pair_unite(closure *c, uint32_t a, uint32_t b)
{
    a = find(c->f->pair, a);
    b = find(c->f->pair, b);
    if (a == b) return;
    if (a < b) c->f->pair[b] = a;
    else c->f->pair[a] = b;
    c->changed = 1;
}

/* Table t oriented in its class's frame: u(*a) - u(*b) = c_root. */
static uint32_t oriented(closure *c, uint64_t t, uint32_t *a, uint32_t *b, uint8_t *par)
{
    uint32_t root = lay_find(c, c->s->t_layout[t], par);
    uint32_t ns = (uint32_t)c->p->t_ns[t], ew = (uint32_t)c->p->t_ew[t];
    *a = *par ? ew : ns;
    *b = *par ? ns : ew;
    return root;
}

/* Rules A and B over layouts lo .. hi-1: a class with offset 0 joins the two
 * sides of each of its tables; a table whose sides are joined gives its
 * class offset 0. */
static void pass_zero(closure *c, uint32_t lo, uint32_t hi)
{
    const datum_rate_problem *p = c->p;
    rate_facts *f = c->f;
    for (uint32_t l = lo; l < hi; l++) {
        if (!sparse_layout(c, l) || f->ldone[l]) continue;
        uint8_t par;
        uint32_t root = lay_find(c, l, &par);
        for (uint64_t t = p->lay_off[l]; t < p->lay_off[l + 1] && !f->lzero[root]; t++)
            if (find(f->pair, (uint32_t)p->t_ns[t]) == find(f->pair, (uint32_t)p->t_ew[t]))
                f->lzero[root] = 1, c->changed = 1;
        if (!f->lzero[root]) continue;
        for (uint64_t t = p->lay_off[l]; t < p->lay_off[l + 1]; t++)
            pair_unite(c, (uint32_t)p->t_ns[t], (uint32_t)p->t_ew[t]);
        f->ldone[l] = 1;
    }
}

/* Rule C over layouts lo .. hi-1: in one class, two tables whose first
 * sides are joined have their second sides joined, and the other way round. */
static void pass_class(closure *c, uint32_t lo, uint32_t hi)
{
    const datum_rate_problem *p = c->p;
    rate_facts *f = c->f;
    uint32_t nl = (uint32_t)p->n_layouts;
    memset(c->start, 0, ((size_t)nl + 2) * sizeof *c->start);
    for (uint32_t l = lo; l < hi; l++) {
        uint8_t par;
        if (sparse_layout(c, l) && !f->ldone[l]) c->start[lay_find(c, l, &par) + 2]++;
    }
    for (uint32_t k = 0; k < nl; k++) c->start[k + 2] += c->start[k + 1];
    for (uint32_t l = lo; l < hi; l++) {
        uint8_t par;
        if (sparse_layout(c, l) && !f->ldone[l]) c->lorder[c->start[lay_find(c, l, &par) + 1]++] = l;
    }
    memset(c->stamp, 0xff, c->s->n * sizeof *c->stamp);
    memset(c->stamp2, 0xff, c->s->n * sizeof *c->stamp2);
    for (uint64_t e = 0; e < c->start[nl]; e++) {
        uint32_t l = c->lorder[e];
        for (uint64_t t = p->lay_off[l]; t < p->lay_off[l + 1]; t++) {
            uint32_t a, b;
            uint8_t par;
            uint32_t root = oriented(c, t, &a, &b, &par);
            uint32_t ra = find(f->pair, a), rb = find(f->pair, b);
            if (c->stamp[ra] == root) pair_unite(c, b, c->other[ra]);
            else c->stamp[ra] = root, c->other[ra] = b;
            if (c->stamp2[rb] == root) pair_unite(c, a, c->other2[rb]);
            else c->stamp2[rb] = root, c->other2[rb] = a;
        }
    }
}

/* Rule D over the tables of layouts lo .. hi-1: two tables whose sides are
 * joined (a ~ a', b ~ b') tie their classes' offsets (c = c'); crossed
 * (a ~ b', b ~ a'), c = -c'. */
static void pass_cycles(closure *c, uint32_t lo, uint32_t hi)
{
    const datum_rate_problem *p = c->p;
    uint32_t *pair = c->f->pair;
    uint32_t n = c->s->n;
    memset(c->start, 0, ((size_t)n + 2) * sizeof *c->start);
    for (uint32_t l = lo; l < hi; l++) {
        if (!sparse_layout(c, l) || c->f->ldone[l]) continue;
        for (uint64_t t = p->lay_off[l]; t < p->lay_off[l + 1]; t++) {
            uint32_t ra = find(pair, (uint32_t)p->t_ns[t]), rb = find(pair, (uint32_t)p->t_ew[t]);
            c->start[(ra < rb ? ra : rb) + 2]++;
        }
    }
    for (uint32_t k = 0; k < n; k++) c->start[k + 2] += c->start[k + 1];
    for (uint32_t l = lo; l < hi; l++) {
        if (!sparse_layout(c, l) || c->f->ldone[l]) continue;
        for (uint64_t t = p->lay_off[l]; t < p->lay_off[l + 1]; t++) {
            uint32_t ra = find(pair, (uint32_t)p->t_ns[t]), rb = find(pair, (uint32_t)p->t_ew[t]);
            c->torder[c->start[(ra < rb ? ra : rb) + 1]++] = (uint32_t)(t - p->lay_off[lo]);
        }
    }
    memset(c->stamp, 0xff, n * sizeof *c->stamp);
    for (uint32_t x = 0; x < n; x++) {
        for (uint64_t e = c->start[x]; e < c->start[x + 1]; e++) {
            uint64_t t = p->lay_off[lo] + c->torder[e];
            uint32_t l = c->s->t_layout[t];
            uint32_t ra = find(pair, (uint32_t)p->t_ns[t]), rb = find(pair, (uint32_t)p->t_ew[t]);
            uint32_t y = ra == x ? rb : ra, flip = ra == x ? 0 : 1; /* NS side is x, or not */
            if (c->stamp[y] == x) {
                uint32_t l0 = c->other[y] >> 1, flip0 = c->other[y] & 1;
                lay_unite(c, l, l0, (uint8_t)(flip ^ flip0));
            } else {
                c->stamp[y] = x;
                c->other[y] = l << 1 | flip;
            }
        }
    }
}

/* Sparse pairs whose class is not their opponent component's: 0 when every
 * opponent component is one class. */
static uint64_t pairs_open(closure *c)
{
    const rate_structure *s = c->s;
    uint64_t open = 0;
    for (uint32_t j = 0; j < s->n; j++) {
        int32_t k = s->ocomp[j];
        if (k >= 0 && !s->acomp_dense[s->acomp[j]] &&
            find(c->f->pair, j) != find(c->f->pair, (uint32_t)s->opin[k]))
            open++;
    }
    return open;
}

void rate_facts_free(rate_facts *f)
{
    datum_free(f->pair); datum_free(f->lay); datum_free(f->lpar); datum_free(f->lzero);
    datum_free(f->ldone);
    memset(f, 0, sizeof *f);
}

/* f covers n pairs and nl layouts: the layouts added since are classes of
 * their own, not known to be 0. DATUM_OK or DATUM_E_NOMEM (f unchanged
 * but for its capacity). */
static int facts_grow(datum_ctx *ctx, rate_facts *f, uint32_t n, size_t nl)
{
    if (!f->pair && !(f->pair = identity(ctx, n ? n : 1))) return DATUM_E_NOMEM;
    void *arrays[] = {&f->lay, &f->lpar, &f->lzero, &f->ldone};
    const size_t sizes[] = {sizeof *f->lay, 1, 1, 1};
    if (datum_reserve_all(ctx, &f->layouts_cap, nl + 1, 4, arrays, sizes) != DATUM_OK)
        return DATUM_E_NOMEM;
    for (size_t l = f->n_layouts; l < nl; l++) {
        f->lay[l] = (uint32_t)l;
        f->lpar[l] = f->lzero[l] = f->ldone[l] = 0;
    }
    f->n_layouts = nl;
    return DATUM_OK;
}

static void closure_free(closure *c)
{
    datum_free(c->stamp); datum_free(c->other); datum_free(c->stamp2); datum_free(c->other2);
    datum_free(c->lorder); datum_free(c->torder); datum_free(c->start);
}

/* The layouts the first stage of rules C and D reads, out of `count` new
 * ones: a sixty-fourth, at least this many. */
#define CERTIFY_FIRST_STAGE 1024

/* Rounds of the rules over all layouts, rules C and D (the costly ones:
 * random access over the tables) over the stage's layouts only, until
 * nothing is learnt or every opponent component is one class. */
static int rounds(datum_ctx *ctx, closure *c, uint32_t lo, uint32_t hi, rate_structure *s)
{
    uint32_t nl = (uint32_t)c->p->n_layouts;
    for (c->changed = 1; c->changed;) {
        c->changed = 0;
        pass_zero(c, 0, nl);
        if (pairs_open(c) == 0) return DATUM_OK;
        if (build_table_layouts(ctx, c->p, s) != DATUM_OK) return DATUM_E_NOMEM; /* C and D read it */
        pass_class(c, lo, hi);
        pass_cycles(c, lo, hi);
        s->certify_rounds++;
    }
    return DATUM_OK;
}

int rate_structure_certify(datum_ctx *ctx, const datum_rate_problem *p, rate_structure *s,
                           rate_facts *kept)
{
    uint32_t n = s->n, nl = (uint32_t)p->n_layouts;
    size_t wide = (size_t)(n > nl ? n : nl) + 2;
    /* Kept facts hold for every later date (layouts are only appended,
     * pairs never leave); a group's seed holds for its date only. */
    int keep = kept && s->n_group == 0;
    rate_facts fresh = {0};
    rate_facts *f = keep ? kept : &fresh;
    uint32_t first = keep ? (uint32_t)kept->n_layouts : 0; /* layouts new to the facts */
    closure c = {.p = p, .s = s, .f = f};
    uint8_t *lsparse = keep ? NULL : datum_calloc(ctx, (size_t)nl + 1, 1);
    c.lsparse = lsparse;
    c.stamp = datum_malloc(ctx, (size_t)n + 1, sizeof *c.stamp);
    c.other = datum_malloc(ctx, (size_t)n + 1, sizeof *c.other);
    c.stamp2 = datum_malloc(ctx, (size_t)n + 1, sizeof *c.stamp2);
    c.other2 = datum_malloc(ctx, (size_t)n + 1, sizeof *c.other2);
    c.lorder = datum_malloc(ctx, (size_t)nl + 1, sizeof *c.lorder);
    c.torder = datum_malloc(ctx, p->n_tables + 1, sizeof *c.torder);
    c.start = datum_malloc(ctx, wide, sizeof *c.start);
    s->acomp_certified = datum_calloc(ctx, s->n_acomp + 1, 1);
    int rc = (keep || lsparse) && c.stamp && c.other && c.stamp2 && c.other2 && c.lorder &&
                     c.torder && c.start && s->acomp_certified
                 ? facts_grow(ctx, f, n, nl) : DATUM_E_NOMEM;
    if (rc == DATUM_OK && !keep) {
        uint8_t *seeded = datum_calloc(ctx, s->n_group + 1, 1);
        if (!seeded) rc = DATUM_E_NOMEM;
        for (uint32_t l = 0; rc == DATUM_OK && l < nl; l++) {
            int32_t j = p->t_ns[p->lay_off[l]], g = s->ogroup[s->ocomp[j]];
            lsparse[l] = !s->acomp_dense[s->acomp[j]];
            if (lsparse[l] && g >= 0 && !seeded[g]) /* a group's own direction: c = 0 at l */
                seeded[g] = 1, f->lzero[l] = 1;
        }
        datum_free(seeded);
    }
    /* Stages: rules C and D over a sixty-fourth of the new layouts first,
     * then four times more, up to all the new ones, then all. Rules A and B
     * spread what a stage learns over every layout cheaply, and most
     * archives need no more than the first stage. Facts learnt from some
     * tables hold for all, and the last stage reaches the closure of every
     * table, so the stages change the cost, never the certificate. */
    uint64_t span = (nl - first) / 64 > CERTIFY_FIRST_STAGE ? (nl - first) / 64 : CERTIFY_FIRST_STAGE;
    for (uint32_t lo = first;; span *= 4) {
        uint32_t hi = span < nl - lo ? lo + (uint32_t)span : nl;
        if (rc != DATUM_OK || (rc = rounds(ctx, &c, lo, hi, s)) != DATUM_OK) break;
        if (pairs_open(&c) == 0 || (lo == 0 && hi == nl)) break;
        if (hi == nl) lo = 0, span = nl;
    }
    for (uint32_t a = 0; rc == DATUM_OK && a < s->n_acomp; a++) s->acomp_certified[a] = !s->acomp_dense[a];
    for (uint32_t j = 0; rc == DATUM_OK && j < n; j++) {
        int32_t k = s->ocomp[j];
        if (k >= 0 && !s->acomp_dense[s->acomp[j]] &&
            find(f->pair, j) != find(f->pair, (uint32_t)s->opin[k]))
            s->acomp_certified[s->acomp[j]] = 0;
    }
    closure_free(&c);
    datum_free(lsparse);
    rate_facts_free(&fresh);
    return rc;
}
