/* published.c - `--compare-published` of datum score and datum cross: datum's
 * North-South and East-West figures of every line against the ones the
 * scoring program published (USEBIO imports keep them in the archive),
 * reported on stderr. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>

/* Figures are published to two decimals: agreeing within half a unit of
 * the last one means the same figure once rounded. */
#define TOLERANCE 0.005
/* A value rounded half-way either way is off by exactly TOLERANCE, which
 * binary fractions may put a hair above (0.14 - 0.135 > 0.005). */
#define SLACK 1e-9
enum { SHOWN = 10 }; /* disagreements listed */

typedef struct {
    uint32_t event, section;
    int32_t board, table;
    double published, computed;
} disagreement;

struct cli_published {
    const datum_archive *a;
    datum_published_method own;
    uint64_t compared, agree;       /* North-South */
    uint64_t ew_compared, ew_agree; /* East-West, where published */
    uint64_t by_method[DATUM_PUBLISHED_COUNT]; /* lines compared, by published method */
    disagreement first[SHOWN];
};

int cli_published_create(datum_ctx *ctx, const datum_archive *a, const char *path,
                         datum_published_method own, cli_published **out)
{
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    *out = NULL;
    if (!info.has_published)
        return datum_ctx_fail(ctx, DATUM_E_INPUT,
                              "%s: no published figures to compare with (only a USEBIO import "
                              "whose lines have NS/EW_*_POINTS has them)",
                              path);
    cli_published *p = calloc(1, sizeof *p);
    if (!p) return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    p->a = a;
    p->own = own;
    *out = p;
    return DATUM_OK;
}

/* Whether a computed figure is the published one (false when it is NaN). */
static int agrees(double published, double mine)
{
    return fabs(published - mine) <= TOLERANCE + SLACK;
}

void cli_published_add(cli_published *p, const datum_chunk *c, const double *ns,
                       const double *ew)
{
    for (uint64_t f = 0; f < c->n_fields; f++)
        for (uint64_t r = c->offset[f]; r < c->offset[f + 1]; r++) {
            double published = c->published_ns[r], mine = ns[r];
            if (!isnan(c->published_ew[r])) {
                p->ew_compared++;
                p->ew_agree += agrees(c->published_ew[r], ew ? ew[r] : 0.0 - mine);
            }
            if (isnan(published)) continue;
            p->by_method[c->published_method[r]]++;
            if (agrees(published, mine)) {
                p->agree++;
            } else if (p->compared - p->agree < SHOWN) {
                p->first[p->compared - p->agree] =
                    (disagreement){c->field_event[f], c->field_section[f], c->field_board[f],
                                   c->table[r],       published,           mine};
            }
            p->compared++;
        }
}

void cli_published_report(const cli_published *p, FILE *out)
{
    char a[32], b[32];
    uint64_t differ = p->compared - p->agree;
    fprintf(out, "published: %llu of %llu lines agree (tolerance %g)\n",
            (unsigned long long)p->agree, (unsigned long long)p->compared, TOLERANCE);
    if (differ)
        fprintf(out, "published: first disagreements (event, section, board, table, published, "
                     "computed):\n");
    for (uint64_t i = 0; i < differ && i < SHOWN; i++) {
        const disagreement *d = &p->first[i];
        fprintf(out, "published:   \"%s\", \"%s\", %d, %d, %s, %s\n",
                datum_archive_event(p->a, d->event),
                datum_archive_section(p->a, d->section), (int)d->board, (int)d->table,
                datum_format_real(d->published, a),
                isnan(d->computed) ? "none" : datum_format_real(d->computed, b));
    }
    if (differ > SHOWN)
        fprintf(out, "published:   ... and %llu more\n", (unsigned long long)(differ - SHOWN));
    if (p->ew_compared)
        fprintf(out, "published: East-West: %llu of %llu lines agree\n",
                (unsigned long long)p->ew_agree, (unsigned long long)p->ew_compared);
    /* Matchpoints against IMPs can only disagree: say so rather than let the
     * count speak alone. (imps and other name no method: no note.) */
    for (int m = DATUM_PUBLISHED_BUTLER; m <= DATUM_PUBLISHED_MATCHPOINTS; m++)
        if (m != (int)p->own && p->by_method[m])
            fprintf(out, "published: note: %llu of these lines publish %s figures, datum "
                         "computes %s\n",
                    (unsigned long long)p->by_method[m], datum_published_method_name(m),
                    datum_published_method_name((int)p->own));
}

void cli_published_free(cli_published **p)
{
    if (!p) return;
    free(*p);
    *p = NULL;
}
