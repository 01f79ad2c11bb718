/*
 * peel.c - where null directions beyond the structure can hide, found without
 * factorising A: x is a null vector when x(NS_t) - x(EW_t) = c_b for every
 * table t of every field b, for some offsets c. Eliminating, as one would by
 * hand:
 *  - a pair whose live tables are all against one opponent X: its value is
 *    x_X -/+ c_b from its first table; its other tables only say that their
 *    fields share an offset (their classes merge). Its tables die.
 *  - a class of fields with a single live table: its offset is free to match
 *    it, so that table says nothing more; it dies.
 * A pair left without a live table is peeled. What remains (the core) has
 * every pair against at least two opponents and every class with two tables.
 * A null vector that vanishes on the core is supported on the peeled pairs,
 * and there it is a null vector of the principal submatrix A_PP (x'Ax = 0
 * with A positive semidefinite): so the pieces of P can be searched one by
 * one, small factorisations instead of the whole (sparse.c).
 */
#include "rate_internal.h"

#include <string.h>

/* Pairs with more live tables than this are not checked for being leaves:
 * the check scans them, and such pairs are almost never leaves. */
#define PEEL_MAX_DEGREE 64

typedef struct {
    uint32_t *parent; /* union-find over layouts: classes of fields sharing an offset */
    uint64_t *size;   /* live tables of a class (at its root) */
    uint32_t *next;   /* layouts of a class, as a circular list */
} classes;

static uint32_t cls_find(classes *c, uint32_t x)
{
    while (c->parent[x] != x) {
        c->parent[x] = c->parent[c->parent[x]];
        x = c->parent[x];
    }
    return x;
}

static uint32_t cls_union(classes *c, uint32_t a, uint32_t b)
{
    a = cls_find(c, a);
    b = cls_find(c, b);
    if (a == b) return a;
    if (b < a) {
        uint32_t x = a;
        a = b;
        b = x;
    }
    c->parent[b] = a;
    c->size[a] += c->size[b];
    uint32_t na = c->next[a]; /* splice the two circular lists */
    c->next[a] = c->next[b];
    c->next[b] = na;
    return a;
}

typedef struct {
    const datum_rate_problem *p;
    const rate_structure *s;
    classes cls;
    uint8_t *live;      /* per table */
    uint32_t *degree;   /* per pair: live tables */
    uint32_t *queue;    /* pairs (tagged 0) and classes (tagged 1), bit 31 */
    uint8_t *queued;    /* per pair */
    size_t head, tail, cap;
} peeler;

static void push(peeler *q, uint32_t item)
{
    q->queue[q->tail] = item; /* each push is paid by a table's death or the start */
    q->tail = (q->tail + 1) % q->cap;
}

static void kill_table(peeler *q, uint32_t t)
{
    const datum_rate_problem *p = q->p;
    q->live[t] = 0;
    uint32_t root = cls_find(&q->cls, q->s->t_layout[t]);
    if (--q->cls.size[root] <= 1) push(q, root | 0x80000000u);
    int32_t side[2] = {p->t_ns[t], p->t_ew[t]};
    for (int k = 0; k < 2; k++) {
        uint32_t j = (uint32_t)side[k];
        if (--q->degree[j] <= PEEL_MAX_DEGREE && !q->queued[j]) {
            q->queued[j] = 1;
            push(q, j);
        }
    }
}

/* A pair: peeled if it has no live table; if all its live tables face one
 * opponent, they die and their classes merge. */
static void visit_pair(peeler *q, uint32_t j, uint8_t *peeled)
{
    const datum_rate_problem *p = q->p;
    const rate_structure *s = q->s;
    q->queued[j] = 0;
    if (peeled[j]) return;
    int32_t opponent = -1;
    for (uint64_t e = s->app_off[j]; e < s->app_off[j + 1]; e++) {
        uint32_t t = s->app_table[e];
        if (!q->live[t]) continue;
        int32_t o = (uint32_t)p->t_ns[t] == j ? p->t_ew[t] : p->t_ns[t];
        if (opponent >= 0 && o != opponent) return; /* two opponents: stays */
        opponent = o;
    }
    peeled[j] = 1;
    uint32_t first = UINT32_MAX;
    for (uint64_t e = s->app_off[j]; e < s->app_off[j + 1]; e++) {
        uint32_t t = s->app_table[e];
        if (!q->live[t]) continue;
        uint32_t l = s->t_layout[t];
        first = first == UINT32_MAX ? l : cls_union(&q->cls, first, l);
        kill_table(q, t);
    }
}

/* A class with one live table: the table dies. */
static void visit_class(peeler *q, uint32_t c)
{
    const datum_rate_problem *p = q->p;
    if (cls_find(&q->cls, c) != c || q->cls.size[c] != 1) return;
    uint32_t l = c;
    do {
        for (uint64_t t = p->lay_off[l]; t < p->lay_off[l + 1]; t++)
            if (q->live[t]) {
                kill_table(q, (uint32_t)t);
                return;
            }
        l = q->cls.next[l];
    } while (l != c);
}

int rate_peel(datum_ctx *ctx, const datum_rate_problem *p, const rate_structure *s,
              const uint8_t *consider, uint8_t *peeled)
{
    peeler q = {.p = p, .s = s};
    size_t nl = p->n_layouts, nt = p->n_tables;
    q.cap = (size_t)s->n + 3 * nt + 1; /* every push: a start or a table's death */
    q.cls.parent = datum_malloc(ctx, nl + 1, sizeof *q.cls.parent);
    q.cls.size = datum_malloc(ctx, nl + 1, sizeof *q.cls.size);
    q.cls.next = datum_malloc(ctx, nl + 1, sizeof *q.cls.next);
    q.live = datum_malloc(ctx, nt + 1, 1);
    q.degree = datum_malloc(ctx, (size_t)s->n + 1, sizeof *q.degree);
    q.queued = datum_calloc(ctx, (size_t)s->n + 1, 1);
    q.queue = datum_malloc(ctx, q.cap, sizeof *q.queue);
    int rc = q.cls.parent && q.cls.size && q.cls.next && q.live && q.degree && q.queued && q.queue
                 ? DATUM_OK : DATUM_E_NOMEM;
    if (rc == DATUM_OK) {
        memset(peeled, 0, s->n);
        memset(q.live, 1, nt);
        for (uint32_t l = 0; l < nl; l++) {
            q.cls.parent[l] = q.cls.next[l] = l;
            q.cls.size[l] = p->lay_off[l + 1] - p->lay_off[l];
        }
        for (uint32_t j = 0; j < s->n; j++) {
            q.degree[j] = (uint32_t)(s->app_off[j + 1] - s->app_off[j]);
            if (consider[j] && q.degree[j] <= PEEL_MAX_DEGREE) {
                q.queued[j] = 1;
                push(&q, j);
            }
        }
        while (q.head != q.tail) {
            uint32_t item = q.queue[q.head];
            q.head = (q.head + 1) % q.cap;
            if (item & 0x80000000u) visit_class(&q, item & 0x7fffffffu);
            else if (consider[item]) visit_pair(&q, item, peeled);
        }
    }
    datum_free(q.cls.parent); datum_free(q.cls.size); datum_free(q.cls.next);
    datum_free(q.live); datum_free(q.degree); datum_free(q.queued); datum_free(q.queue);
    return rc;
}
