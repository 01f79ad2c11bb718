/* published.c - the report of `--compare-published` (datum score, datum
 * cross): what datum_published_* counted (jobs/), on stderr. */
#include "cli.h"

#include <math.h>

void cli_published_report(const datum_published_summary *s, const datum_archive *a, FILE *out)
{
    char x[32], y[32];
    uint64_t differ = s->compared - s->agree;
    fprintf(out, "published: %llu of %llu lines agree (tolerance %g)\n",
            (unsigned long long)s->agree, (unsigned long long)s->compared, s->tolerance);
    if (differ)
        fprintf(out, "published: first disagreements (event, section, board, table, published, "
                     "computed):\n");
    for (size_t i = 0; i < s->n_shown; i++) {
        const datum_published_disagreement *d = &s->shown[i];
        fprintf(out, "published:   \"%s\", \"%s\", %d, %d, %s, %s\n",
                datum_archive_event(a, d->event), datum_archive_section(a, d->section),
                (int)d->board, (int)d->table, datum_format_real(d->published, x),
                isnan(d->computed) ? "none" : datum_format_real(d->computed, y));
    }
    if (differ > s->n_shown)
        fprintf(out, "published:   ... and %llu more\n", (unsigned long long)(differ - s->n_shown));
    if (s->ew_compared)
        fprintf(out, "published: East-West: %llu of %llu lines agree\n",
                (unsigned long long)s->ew_agree, (unsigned long long)s->ew_compared);
    /* Matchpoints against IMPs can only disagree: say so rather than let the
     * count speak alone. (imps and other name no method: no note.) */
    for (int m = DATUM_PUBLISHED_BUTLER; m <= DATUM_PUBLISHED_MATCHPOINTS; m++)
        if (m != (int)s->own && s->by_method[m])
            fprintf(out, "published: note: %llu of these lines publish %s figures, datum "
                         "computes %s\n",
                    (unsigned long long)s->by_method[m], datum_published_method_name(m),
                    datum_published_method_name((int)s->own));
}
