/* published.c - datum's North-South and East-West figures of every line
 * against the ones the scoring program published (USEBIO and PBN imports
 * keep them in the archive). */
#include "datum_alloc.h"
#include "datum_jobs.h"

#include <math.h>

/* A value rounded half-way either way is off by exactly the tolerance, which
 * binary fractions may put a hair above (0.14 - 0.135 > 0.005). */
#define SLACK 1e-9

struct datum_published {
    datum_published_summary s;
    size_t max_shown;
    datum_published_disagreement *first; /* max_shown */
};

int datum_published_create(datum_ctx *ctx, const datum_archive *a, const char *path,
                           datum_published_method own, double tolerance, size_t max_shown,
                           datum_published **out)
{
    if (out) *out = NULL;
    if (!ctx || !a || !path || !out || !(tolerance >= 0))
        return datum_ctx_fail(ctx, DATUM_E_ARG, "datum_published_create: invalid argument");
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    if (!info.has_published)
        return datum_ctx_fail(ctx, DATUM_E_INPUT,
                              "%s: no published figures to compare with (only a USEBIO import "
                              "whose lines have NS/EW_*_POINTS, or a PBN import whose tables "
                              "have IMP_NS or MP_NS, has them)",
                              path);
    datum_published *p = datum_calloc(ctx, 1, sizeof *p);
    if (!p) return DATUM_E_NOMEM;
    p->first = datum_calloc(ctx, max_shown, sizeof *p->first);
    if (!p->first) {
        datum_free(p);
        return DATUM_E_NOMEM;
    }
    p->s.own = own;
    p->s.tolerance = tolerance;
    p->s.shown = p->first;
    p->max_shown = max_shown;
    *out = p;
    return DATUM_OK;
}

/* Whether a computed figure is the published one (false when it is NaN). */
static int agrees(const datum_published *p, double published, double mine)
{
    return fabs(published - mine) <= p->s.tolerance + SLACK;
}

void datum_published_add(datum_published *p, const datum_chunk *c, const double *ns,
                         const double *ew)
{
    datum_published_summary *s = &p->s;
    for (uint64_t f = 0; f < c->n_fields; f++)
        for (uint64_t r = c->offset[f]; r < c->offset[f + 1]; r++) {
            double published = c->published_ns[r], mine = ns[r];
            if (!isnan(c->published_ew[r])) {
                s->ew_compared++;
                s->ew_agree += agrees(p, c->published_ew[r], ew ? ew[r] : 0.0 - mine);
            }
            if (isnan(published)) continue;
            s->by_method[c->published_method[r]]++;
            s->compared++;
            if (agrees(p, published, mine)) {
                s->agree++;
            } else if (s->n_shown < p->max_shown) {
                p->first[s->n_shown++] =
                    (datum_published_disagreement){c->field_event[f], c->field_section[f],
                                                   c->field_board[f], c->table[r],
                                                   published,         mine};
            }
        }
}

void datum_published_get(const datum_published *p, datum_published_summary *out)
{
    *out = p->s;
}

void datum_published_free(datum_published **p)
{
    if (!p || !*p) return;
    datum_free((*p)->first);
    datum_free(*p);
    *p = NULL;
}
