/* teams.c - teams match totals (§5): per match and board the aggregate of a
 * team's own-perspective scores converted to IMPs, and per match, within one
 * (event, section), the totals of each team. Memory is bounded by the number
 * of matches. */
#include "datum_alloc.h"
#include "jobs_internal.h"

#include <math.h>

/* A match's state within the current (event, section). */
typedef struct {
    datum_match_total total;
    uint64_t stamp;     /* 1 + the field (archive numbering) last seen in; 0: not in the block */
    uint64_t first_row; /* its first row in that field (chunk numbering) */
    int64_t tables;     /* its tables in that field */
} match_state;

struct match_table {
    const datum_archive *a;
    datum_csv_writer *totals;
    datum_teams_block_fn on_block;
    void *user;
    match_state *m;           /* by match index */
    uint32_t *touched;        /* matches of the current (event, section), first seen first */
    uint32_t n_touched;
    uint32_t *in_field;       /* matches of the current field */
    datum_match_total *block; /* the flushed block's totals, in order */
    uint32_t block_event, block_section;
    int in_block;
};

int match_table_create(datum_ctx *ctx, const datum_archive *a, uint32_t n_matches,
                       datum_csv_writer *totals, datum_teams_block_fn on_block, void *user,
                       match_table **out)
{
    *out = NULL;
    match_table *t = datum_calloc(ctx, 1, sizeof *t);
    if (!t) return DATUM_E_NOMEM;
    *t = (match_table){.a = a, .totals = totals, .on_block = on_block, .user = user};
    t->m = datum_calloc(ctx, (size_t)n_matches + 1, sizeof *t->m);
    t->touched = t->m ? datum_malloc(ctx, (size_t)n_matches + 1, sizeof *t->touched) : NULL;
    t->in_field = t->touched ? datum_malloc(ctx, (size_t)n_matches + 1, sizeof *t->in_field) : NULL;
    t->block = t->in_field ? datum_malloc(ctx, (size_t)n_matches + 1, sizeof *t->block) : NULL;
    if (!t->block) {
        match_table_free(&t);
        return DATUM_E_NOMEM;
    }
    *out = t;
    return DATUM_OK;
}

void match_table_free(match_table **t)
{
    if (!t || !*t) return;
    datum_free((*t)->m);
    datum_free((*t)->touched);
    datum_free((*t)->in_field);
    datum_free((*t)->block);
    datum_free(*t);
    *t = NULL;
}

static void header(datum_csv_writer *w, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) datum_csv_str(w, names[i]);
    datum_csv_end_row(w);
}

void match_table_matches_header(datum_csv_writer *w)
{
    static const char *const kCols[] = {"event", "section", "board", "match", "team",
                                        "opponent", "tables", "aggregate", "imps"};
    header(w, kCols, 9);
}

void match_table_totals_header(datum_csv_writer *w)
{
    static const char *const kCols[] = {"event", "section", "match", "team", "opponent",
                                        "boards", "imps_won", "imps_lost", "net"};
    header(w, kCols, 9);
}

static void write_totals_rows(const match_table *t, const datum_teams_block *b)
{
    const datum_archive *a = t->a;
    for (size_t i = 0; i < b->n_matches; i++) {
        const datum_match_total *s = &b->matches[i];
        for (int side = 0; side < 2; side++) {
            datum_csv_str(t->totals, datum_archive_event(a, b->event));
            datum_csv_str(t->totals, datum_archive_section(a, b->section));
            datum_csv_str(t->totals, datum_archive_match(a, s->match));
            datum_csv_str(t->totals, datum_archive_team(a, (uint32_t)(side ? s->team_b : s->team_a)));
            datum_csv_str(t->totals, datum_archive_team(a, (uint32_t)(side ? s->team_a : s->team_b)));
            datum_csv_int(t->totals, s->boards);
            double won = side ? s->imps_lost : s->imps_won;
            double lost = side ? s->imps_won : s->imps_lost;
            datum_csv_real(t->totals, won);
            datum_csv_real(t->totals, lost);
            datum_csv_real(t->totals, won - lost);
            datum_csv_end_row(t->totals);
        }
    }
}

/* Ends the current (event, section): its match totals go out. */
static int flush_block(match_table *t)
{
    if (!t->in_block) return DATUM_OK;
    for (uint32_t i = 0; i < t->n_touched; i++) {
        match_state *s = &t->m[t->touched[i]];
        t->block[i] = s->total;
        s->stamp = 0;
    }
    datum_teams_block b = {t->block_event, t->block_section, t->n_touched, t->block};
    t->n_touched = 0;
    t->in_block = 0;
    if (t->totals) write_totals_rows(t, &b);
    return t->on_block ? t->on_block(t->user, &b) : DATUM_OK;
}

int match_table_finish(match_table *t) { return flush_block(t); }

/* Team a's view of a match board from row r (whose NS team has the view the
 * engine computed). */
static void team_a_view(const datum_chunk *c, const double *agg, const double *imps, uint64_t r,
                        int32_t team_a, double *a_agg, double *a_imps)
{
    int flip = c->ns_team[r] != team_a;
    *a_agg = flip ? 0.0 - agg[r] : agg[r];
    *a_imps = flip ? 0.0 - imps[r] : imps[r];
}

static void write_match_row(datum_csv_writer *w, const match_table *t, const datum_chunk *c,
                            uint64_t f, uint32_t match, const match_state *s, double a_agg,
                            double a_imps)
{
    const datum_archive *a = t->a;
    datum_csv_str(w, datum_archive_event(a, c->field_event[f]));
    datum_csv_str(w, datum_archive_section(a, c->field_section[f]));
    datum_csv_int(w, c->field_board[f]);
    datum_csv_str(w, datum_archive_match(a, match));
    datum_csv_str(w, datum_archive_team(a, (uint32_t)s->total.team_a));
    datum_csv_str(w, datum_archive_team(a, (uint32_t)s->total.team_b));
    datum_csv_int(w, s->tables);
    datum_csv_real(w, a_agg);
    datum_csv_real(w, a_imps);
    datum_csv_end_row(w);
}

int match_table_add(match_table *t, const datum_chunk *c, const double *agg, const double *imps,
                    datum_csv_writer *matches)
{
    for (uint64_t f = 0; f < c->n_fields; f++) {
        uint64_t stamp = c->first_field + f + 1;
        uint32_t k = 0;
        for (uint64_t r = c->offset[f]; r < c->offset[f + 1]; r++) {
            if (c->match[r] < 0) continue;
            if (!t->in_block || t->block_event != c->field_event[f] ||
                t->block_section != c->field_section[f]) {
                int rc = flush_block(t);
                if (rc < 0) return rc;
                t->in_block = 1;
                t->block_event = c->field_event[f];
                t->block_section = c->field_section[f];
            }
            match_state *s = &t->m[c->match[r]];
            if (s->stamp == 0) { /* first board of this match in the block */
                int32_t x = c->ns_team[r], y = c->ew_team[r];
                *s = (match_state){.total = {.match = (uint32_t)c->match[r],
                                             .team_a = x < y ? x : y,
                                             .team_b = x < y ? y : x}};
                t->touched[t->n_touched++] = (uint32_t)c->match[r];
            }
            if (s->stamp != stamp) {
                s->stamp = stamp;
                s->first_row = r;
                s->tables = 0;
                t->in_field[k++] = (uint32_t)c->match[r];
            }
            s->tables++;
        }
        for (uint32_t i = 0; i < k; i++) {
            match_state *s = &t->m[t->in_field[i]];
            double a_agg, a_imps;
            team_a_view(c, agg, imps, s->first_row, s->total.team_a, &a_agg, &a_imps);
            if (!isnan(a_imps)) {
                s->total.boards++;
                if (a_imps > 0) s->total.imps_won += a_imps;
                else s->total.imps_lost -= a_imps;
            }
            if (matches) write_match_row(matches, t, c, f, t->in_field[i], s, a_agg, a_imps);
        }
    }
    return DATUM_OK;
}
