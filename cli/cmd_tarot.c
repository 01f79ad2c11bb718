/* cmd_tarot.c - `datum tarot`: a tarot Attaque-Défense archive scored event
 * by event (the kernel ranks one séance per call): the per-étui and ranking
 * CSVs, the roadmap sheets and their index, or the two rankings printed.
 * Every output is written aside and put in place only once all is done. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "cli.h"
#include "datum_tarot_io.h"

#include <stdlib.h>
#include <string.h>

static const char kHelp[] =
    "usage: datum tarot TAROT.h5 [--rankings RANKING.csv] [--etuis ETUIS.csv]\n"
    "                   [--sheets DIR] [--exact] [--reference fft|minority|mean]\n"
    "                   [--bonus-etuis N] [--event NAME] [--ranking]\n"
    "\n"
    "Scores a tarot Attaque-Défense archive (datum import --format tarot): each\n"
    "étui's reference note, each result's PM, percentage and regularity bonus,\n"
    "and per event (séance) the separate Attack and Defense rankings. Without an\n"
    "output option both rankings are printed.\n"
    "\n"
    "  --rankings FILE     side,id,etuis,pm,regularity,bonus,penalties,total,rank\n"
    "                      (an event column comes first if several events are scored)\n"
    "  --etuis FILE        event,etui,position,attacker,defense,score,reference,diff,\n"
    "                      pm_attack,pct_attack,reg_attack,pm_defense,pct_defense,reg_defense\n"
    "  --sheets DIR        a roadmap sheet per attacker and per defense (HTML, A4, in\n"
    "                      French): attaque-ID.html, defense-ID.html and index.html\n"
    "                      (one subdirectory per event if several are scored)\n"
    "  --exact             no rounding to 0.01 of the reference note and the PM\n"
    "  --reference RULE    fft: steps 1 and 2 (default); minority: step 1 only;\n"
    "                      mean: the plain mean\n"
    "  --bonus-etuis N     starting bonus coefficient from N étuis for every side\n"
    "                      (default: the étuis each side played)\n"
    "  --event NAME        score this event only\n"
    "  --ranking           print the rankings as well as writing files\n";

typedef struct {
    const char *rankings, *etuis, *sheets, *reference, *event;
    int exact, print, bonus_etuis;
} tarot_job;

/* Per defense, for the sheets: its players, their classes, and how an
 * attacker's sheet names it. */
typedef struct {
    char **players, **classes, **label;
} defense_text;

/* Everything one event needs, sized for the largest event. */
typedef struct {
    uint64_t *offset;
    datum_tarot_etui *etuis;
    datum_tarot_line *lines;
    datum_tarot_standing *attack, *defense;
    uint8_t *defense_class;
    double *attack_penalty, *defense_penalty;
    int32_t *order;                 /* ranked sides, best first */
    uint64_t *first, *list;         /* a side's results: list[first[s] .. first[s+1]) */
    datum_tarot_sheet_line *sheet;  /* one sheet's lines */
} workspace;

/* The outputs being written. */
typedef struct {
    datum_csv_writer *rankings, *etuis;
    datum_tarot_sheet_dir *sheets;
    datum_tarot_index_event *index; /* per scored event */
    size_t n_index;
    char **hrefs; /* every href of the index (owned) */
    size_t n_hrefs;
} outputs;

static int set_bonus_etuis(cli_parser *p, const char *value, void *target)
{
    int64_t v;
    if (datum_parse_int(value, strlen(value), 1, 1000, &v) != DATUM_PARSE_OK)
        return cli_usage_error(p, "--bonus-etuis takes a number of étuis from 1 to 1000, not '%s'",
                               value);
    *(int *)target = (int)v;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Text                                                                     */

/* "a, b, c" of three strings; NULL if out of memory. */
static char *join3(const char *prefix, const char *a, const char *b, const char *c,
                   const char *suffix)
{
    size_t n = strlen(prefix) + strlen(a) + strlen(b) + strlen(c) + strlen(suffix) + 5;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s%s, %s, %s%s", prefix, a, b, c, suffix);
    return s;
}

static void defense_text_free(defense_text *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (t->players) free(t->players[i]);
        if (t->classes) free(t->classes[i]);
        if (t->label) free(t->label[i]);
    }
    free(t->players);
    free(t->classes);
    free(t->label);
}

static int defense_text_build(datum_ctx *ctx, const datum_tarot_data *d, defense_text *t)
{
    t->players = calloc(d->n_defenses + 1, sizeof *t->players);
    t->classes = calloc(d->n_defenses + 1, sizeof *t->classes);
    t->label = calloc(d->n_defenses + 1, sizeof *t->label);
    if (!t->players || !t->classes || !t->label)
        return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < d->n_defenses; i++) {
        const int32_t *p = d->defense_player + 3 * (size_t)i;
        char prefix[64];
        t->players[i] = join3("", d->player[p[0]], d->player[p[1]], d->player[p[2]], "");
        t->classes[i] = join3("", datum_tarot_class_code(d->player_class[p[0]]),
                              datum_tarot_class_code(d->player_class[p[1]]),
                              datum_tarot_class_code(d->player_class[p[2]]), "");
        snprintf(prefix, sizeof prefix, "%.40s (", d->defense[i]);
        t->label[i] = join3(strlen(d->defense[i]) > 40 ? "" : prefix, d->player[p[0]],
                            d->player[p[1]], d->player[p[2]],
                            strlen(d->defense[i]) > 40 ? "" : ")");
        if (!t->players[i] || !t->classes[i] || !t->label[i])
            return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    }
    return DATUM_OK;
}

/* "14/03/2026", or "14/03/2026 – 15/03/2026" for an event over two days. */
static void french_dates(int32_t first, int32_t last, char out[96])
{
    char a[DATUM_DATE_SIZE], b[DATUM_DATE_SIZE];
    datum_format_date(first, a);
    datum_format_date(last, b);
    int n = snprintf(out, 96, "%.2s/%.2s/%.4s", a + 8, a + 5, a);
    if (last != first) snprintf(out + n, (size_t)(96 - n), " – %.2s/%.2s/%.4s", b + 8, b + 5, b);
}

/* ------------------------------------------------------------------------ */
/* Scoring one event                                                        */

static int workspace_alloc(datum_ctx *ctx, const datum_tarot_data *d, workspace *w)
{
    uint64_t etuis = 0, results = 0;
    for (uint32_t e = 0; e < d->n_events; e++) {
        uint64_t n = d->event_etuis[e + 1] - d->event_etuis[e];
        uint64_t r = d->etui_offset[d->event_etuis[e + 1]] - d->etui_offset[d->event_etuis[e]];
        if (n > etuis) etuis = n;
        if (r > results) results = r;
    }
    size_t sides = d->n_players > d->n_defenses ? d->n_players : d->n_defenses;
    w->offset = calloc(etuis + 1, sizeof *w->offset);
    w->etuis = calloc(etuis + 1, sizeof *w->etuis);
    w->lines = calloc(results + 1, sizeof *w->lines);
    w->attack = calloc(d->n_players + 1, sizeof *w->attack);
    w->defense = calloc(d->n_defenses + 1, sizeof *w->defense);
    w->defense_class = calloc(3 * (size_t)d->n_defenses + 1, 1);
    w->attack_penalty = calloc(d->n_players + 1, sizeof *w->attack_penalty);
    w->defense_penalty = calloc(d->n_defenses + 1, sizeof *w->defense_penalty);
    w->order = calloc(sides + 1, sizeof *w->order);
    w->first = calloc(sides + 2, sizeof *w->first);
    w->list = calloc(results + 1, sizeof *w->list);
    w->sheet = calloc(results + 1, sizeof *w->sheet);
    if (!w->offset || !w->etuis || !w->lines || !w->attack || !w->defense || !w->defense_class ||
        !w->attack_penalty || !w->defense_penalty || !w->order || !w->first || !w->list ||
        !w->sheet)
        return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < 3 * d->n_defenses; i++)
        w->defense_class[i] = d->player_class[d->defense_player[i]];
    return DATUM_OK;
}

static void workspace_free(workspace *w)
{
    free(w->offset); free(w->etuis); free(w->lines); free(w->attack); free(w->defense);
    free(w->defense_class); free(w->attack_penalty); free(w->defense_penalty); free(w->order);
    free(w->first); free(w->list); free(w->sheet);
}

/* The event's first result and its number of results. */
static void event_results(const datum_tarot_data *d, uint32_t e, uint64_t *first, uint64_t *n)
{
    *first = d->etui_offset[d->event_etuis[e]];
    *n = d->etui_offset[d->event_etuis[e + 1]] - *first;
}

static int score_event(datum_ctx *ctx, const datum_tarot_options *opt, const datum_tarot_data *d,
                       uint32_t e, workspace *w)
{
    uint64_t e0 = d->event_etuis[e], n_etuis = d->event_etuis[e + 1] - e0, r0, nr;
    event_results(d, e, &r0, &nr);
    for (uint64_t k = 0; k <= n_etuis; k++) w->offset[k] = d->etui_offset[e0 + k] - r0;
    datum_tarot_net_penalties(d->n_penalties, d->penalty_event, d->penalty_side, d->penalty_id,
                              d->penalty_pm, (int32_t)e, w->attack_penalty, d->n_players,
                              w->defense_penalty, d->n_defenses);
    datum_tarot_tournament t = {.n_etuis = n_etuis,
                                .offset = w->offset,
                                .score = d->result_score + r0,
                                .attacker = d->result_attacker + r0,
                                .defense = d->result_defense + r0,
                                .n_attackers = d->n_players,
                                .n_defenses = d->n_defenses,
                                .attacker_class = d->player_class,
                                .defense_class = w->defense_class,
                                .attacker_penalty = w->attack_penalty,
                                .defense_penalty = w->defense_penalty};
    return datum_tarot_score_tournament(ctx, opt, &t, w->etuis, w->lines, w->attack, w->defense);
}

/* The ranked sides of one kind into w->order, best first (ties by
 * identifier: indices follow the sorted identifiers). Returns how many. */
static size_t rank_order(const datum_tarot_standing *st, size_t n, workspace *w)
{
    /* Counting sort on the rank (1..n), stable in index order. */
    uint64_t *count = w->first;
    memset(count, 0, (n + 2) * sizeof *count);
    size_t ranked = 0;
    for (size_t i = 0; i < n; i++)
        if (st[i].rank > 0) count[st[i].rank]++, ranked++;
    for (size_t r = 1; r <= n + 1; r++) count[r] += count[r - 1];
    for (size_t i = 0; i < n; i++)
        if (st[i].rank > 0) w->order[count[st[i].rank - 1]++] = (int32_t)i;
    return ranked;
}

/* Groups the event's results by side: side s's results (relative to the
 * event's first) are list[first[s] .. first[s+1]), in étui order. */
static void group_by_side(const int32_t *side_of, uint64_t n, size_t n_sides, workspace *w)
{
    memset(w->first, 0, (n_sides + 2) * sizeof *w->first);
    for (uint64_t r = 0; r < n; r++) w->first[side_of[r] + 2]++;
    for (size_t s = 2; s <= n_sides + 1; s++) w->first[s] += w->first[s - 1];
    for (uint64_t r = 0; r < n; r++) w->list[w->first[side_of[r] + 1]++] = r;
}

/* ------------------------------------------------------------------------ */
/* Outputs                                                                  */

static void write_etuis_header(datum_csv_writer *c)
{
    static const char *const kCols[] = {
        "event", "etui", "position", "attacker", "defense", "score", "reference", "diff",
        "pm_attack", "pct_attack", "reg_attack", "pm_defense", "pct_defense", "reg_defense"};
    for (size_t i = 0; i < sizeof kCols / sizeof *kCols; i++) datum_csv_str(c, kCols[i]);
    datum_csv_end_row(c);
}

static void write_etuis_rows(datum_csv_writer *c, const datum_tarot_data *d, uint32_t e,
                             const workspace *w)
{
    uint64_t e0 = d->event_etuis[e], r0, nr;
    event_results(d, e, &r0, &nr);
    for (uint64_t k = 0; k < d->event_etuis[e + 1] - e0; k++)
        for (uint64_t r = w->offset[k]; r < w->offset[k + 1]; r++) {
            const datum_tarot_line *l = &w->lines[r];
            datum_csv_str(c, d->event[e]);
            datum_csv_int(c, d->etui_number[e0 + k]);
            datum_csv_int(c, d->result_position[r0 + r]);
            datum_csv_str(c, d->player[d->result_attacker[r0 + r]]);
            datum_csv_str(c, d->defense[d->result_defense[r0 + r]]);
            datum_csv_int(c, d->result_score[r0 + r]);
            datum_csv_real(c, w->etuis[k].reference);
            const double v[] = {l->diff, l->pm_attack, l->pct_attack, l->reg_attack,
                                l->pm_defense, l->pct_defense, l->reg_defense};
            for (size_t i = 0; i < sizeof v / sizeof *v; i++) datum_csv_real(c, v[i]);
            datum_csv_end_row(c);
        }
}

static void write_rankings_header(datum_csv_writer *c, int with_event)
{
    static const char *const kCols[] = {"side", "id", "etuis", "pm", "regularity",
                                        "bonus", "penalties", "total", "rank"};
    if (with_event) datum_csv_str(c, "event");
    for (size_t i = 0; i < sizeof kCols / sizeof *kCols; i++) datum_csv_str(c, kCols[i]);
    datum_csv_end_row(c);
}

static void write_ranking_rows(datum_csv_writer *c, const char *event, const char *side,
                               char *const *ids, const datum_tarot_standing *st,
                               const int32_t *order, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const datum_tarot_standing *s = &st[order[k]];
        if (event) datum_csv_str(c, event);
        datum_csv_str(c, side);
        datum_csv_str(c, ids[order[k]]);
        datum_csv_int(c, s->etuis);
        datum_csv_real(c, s->pm);
        datum_csv_real(c, s->regularity);
        datum_csv_real(c, s->bonus);
        datum_csv_real(c, s->penalties);
        datum_csv_real(c, s->total);
        datum_csv_int(c, s->rank);
        datum_csv_end_row(c);
    }
}

static void print_ranking(const char *title, const char *who, char *const *ids,
                          const datum_tarot_standing *st, const int32_t *order, size_t n)
{
    printf("\n%s\n%4s %9s %8s %10s %7s %9s %5s  %s\n", title, "rank", "total", "pm",
           "regularity", "bonus", "penalties", "étuis", who);
    for (size_t k = 0; k < n; k++) {
        const datum_tarot_standing *s = &st[order[k]];
        printf("%4d %9.3f %8.2f %10.2f %7.3f %9.3f %5d  %s\n", (int)s->rank, s->total, s->pm,
               s->regularity, s->bonus, s->penalties, (int)s->etuis, ids[order[k]]);
    }
}

/* "SUB/PREFIXid.html" (SUB omitted when NULL) into out. */
static int sheet_file(datum_ctx *ctx, const char *sub, const char *prefix, const char *id,
                      char *out, size_t size)
{
    char name[256];
    if (datum_tarot_file_name(prefix, id, ".html", name, sizeof name) != DATUM_OK)
        return datum_ctx_fail(ctx, DATUM_E_INPUT,
                              "identifier \"%.60s\" is too long for a file name", id);
    snprintf(out, size, "%s%s%s", sub ? sub : "", sub ? "/" : "", name);
    return DATUM_OK;
}

/* One side's sheet, and its index entry. */
static int write_sheet(datum_ctx *ctx, const datum_tarot_data *d, const defense_text *dt,
                       uint32_t e, int attack, int32_t side, size_t n_ranked, const char *sub,
                       const char *dates, workspace *w, outputs *o,
                       datum_tarot_index_entry *entry)
{
    uint64_t e0 = d->event_etuis[e], r0, nr, k = 0;
    event_results(d, e, &r0, &nr);
    const datum_tarot_standing *st = attack ? &w->attack[side] : &w->defense[side];
    size_t n_lines = 0;
    for (uint64_t i = w->first[side]; i < w->first[side + 1]; i++) {
        uint64_t r = w->list[i];
        while (w->offset[k + 1] <= r) k++; /* results come in étui order */
        const datum_tarot_line *l = &w->lines[r];
        const datum_tarot_etui *et = &w->etuis[k];
        w->sheet[n_lines++] = (datum_tarot_sheet_line){
            d->etui_number[e0 + k], datum_tarot_contract_code(d->etui_contract[e0 + k]),
            attack ? dt->label[d->result_defense[r0 + r]] : d->player[d->result_attacker[r0 + r]],
            d->result_score[r0 + r], et->n_positive, et->n_negative, et->reference,
            attack ? l->pm_attack : l->pm_defense, attack ? l->pct_attack : l->pct_defense,
            attack ? l->reg_attack : l->reg_defense};
    }
    const char *id = attack ? d->player[side] : d->defense[side];
    datum_tarot_sheet sheet = {attack ? DATUM_TAROT_ATTACK : DATUM_TAROT_DEFENSE,
                               d->event[e], dates, id,
                               attack ? NULL : dt->players[side],
                               attack ? datum_tarot_class_code(d->player_class[side])
                                      : dt->classes[side],
                               w->sheet, n_lines, *st, (int32_t)n_ranked};
    char name[600];
    int rc = sheet_file(ctx, sub, attack ? "attaque-" : "defense-", id, name, sizeof name);
    if (rc == DATUM_OK) rc = datum_tarot_sheet_dir_add(o->sheets, name, &sheet);
    char *href = rc == DATUM_OK ? strdup(name) : NULL;
    if (rc == DATUM_OK && !href) rc = datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    if (href) o->hrefs[o->n_hrefs++] = href;
    *entry = (datum_tarot_index_entry){href, id, attack ? NULL : dt->players[side], st->etuis,
                                       st->total, st->rank};
    return rc;
}

/* The sheets of one event: every ranked attacker and defense. */
static int write_event_sheets(datum_ctx *ctx, const datum_tarot_data *d, const defense_text *dt,
                              uint32_t e, int several, workspace *w, outputs *o)
{
    uint64_t r0, nr;
    event_results(d, e, &r0, &nr);
    char sub[256], dates[96];
    if (several && datum_tarot_file_name("", d->event[e], "", sub, sizeof sub) != DATUM_OK)
        return datum_ctx_fail(ctx, DATUM_E_INPUT, "event name \"%.60s\" is too long for a "
                                                  "directory name", d->event[e]);
    french_dates(d->event_first_date[e], d->event_last_date[e], dates);
    datum_tarot_index_event *ix = &o->index[o->n_index++];
    *ix = (datum_tarot_index_event){d->event[e], NULL, NULL, NULL, 0, 0};
    ix->date = strdup(dates);
    datum_tarot_index_entry *entries[2] = {calloc(d->n_players + 1, sizeof *entries[0]),
                                           calloc(d->n_defenses + 1, sizeof *entries[1])};
    ix->attack = entries[0];
    ix->defense = entries[1];
    if (!ix->date || !entries[0] || !entries[1])
        return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    int rc = DATUM_OK;
    for (int attack = 1; attack >= 0 && rc == DATUM_OK; attack--) {
        const datum_tarot_standing *st = attack ? w->attack : w->defense;
        size_t n_sides = attack ? d->n_players : d->n_defenses;
        size_t ranked = rank_order(st, n_sides, w);
        group_by_side(attack ? d->result_attacker + r0 : d->result_defense + r0, nr, n_sides, w);
        for (size_t k = 0; k < ranked && rc == DATUM_OK; k++)
            rc = write_sheet(ctx, d, dt, e, attack, w->order[k], ranked, several ? sub : NULL,
                             dates, w, o, &entries[!attack][k]);
        if (attack) ix->n_attack = ranked;
        else ix->n_defense = ranked;
    }
    return rc;
}

static void outputs_free(outputs *o)
{
    datum_csv_abort(&o->rankings);
    datum_csv_abort(&o->etuis);
    datum_tarot_sheet_dir_abort(&o->sheets);
    for (size_t i = 0; i < o->n_index; i++) {
        free((void *)o->index[i].date);
        free((void *)o->index[i].attack);
        free((void *)o->index[i].defense);
    }
    for (size_t i = 0; i < o->n_hrefs; i++) free(o->hrefs[i]);
    free(o->index);
    free(o->hrefs);
}

static int open_outputs(datum_ctx *ctx, const tarot_job *job, const datum_tarot_data *d,
                        int with_event, outputs *o)
{
    int rc = DATUM_OK;
    if (job->rankings && (rc = datum_csv_create(ctx, job->rankings, &o->rankings)) == DATUM_OK)
        write_rankings_header(o->rankings, with_event);
    if (rc == DATUM_OK && job->etuis &&
        (rc = datum_csv_create(ctx, job->etuis, &o->etuis)) == DATUM_OK)
        write_etuis_header(o->etuis);
    if (rc == DATUM_OK && job->sheets) {
        rc = datum_tarot_sheet_dir_create(ctx, job->sheets, &o->sheets);
        o->index = calloc(d->n_events + 1, sizeof *o->index);
        o->hrefs = calloc(2 * d->n_results + 1, sizeof *o->hrefs); /* two sides a result at most */
        if (rc == DATUM_OK && (!o->index || !o->hrefs))
            rc = datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory");
    }
    return rc;
}

/* Commits everything, or nothing if any part failed before. */
static int commit_outputs(datum_ctx *ctx, outputs *o)
{
    int rc = DATUM_OK;
    if (o->sheets)
        rc = datum_tarot_sheet_dir_add_index(o->sheets, "index.html", o->index, o->n_index);
    if (rc == DATUM_OK && o->rankings) rc = datum_csv_commit(&o->rankings);
    if (rc == DATUM_OK && o->etuis) rc = datum_csv_commit(&o->etuis);
    if (rc == DATUM_OK && o->sheets) rc = datum_tarot_sheet_dir_commit(&o->sheets);
    (void)ctx;
    return rc;
}

/* ------------------------------------------------------------------------ */

static int parse_reference(cli_parser *p, const char *text, datum_tarot_reference *out)
{
    static const char *const kRules[] = {"mean", "minority", "fft"}; /* the enum's order */
    for (int i = 0; i < 3; i++)
        if (strcmp(text, kRules[i]) == 0) {
            *out = (datum_tarot_reference)i;
            return 0;
        }
    return cli_usage_error(p, "--reference takes fft, minority or mean, not '%s'", text);
}

static int run(datum_ctx *ctx, const char *archive, const tarot_job *job,
               const datum_tarot_options *opt)
{
    datum_tarot_data *d = NULL;
    defense_text dt = {NULL, NULL, NULL};
    workspace w;
    outputs o;
    memset(&w, 0, sizeof w);
    memset(&o, 0, sizeof o);
    int rc = datum_tarot_archive_read(ctx, archive, &d);
    uint32_t only = 0;
    if (rc == DATUM_OK && job->event) {
        while (only < d->n_events && strcmp(d->event[only], job->event) != 0) only++;
        if (only == d->n_events)
            rc = datum_ctx_fail(ctx, DATUM_E_INPUT, "%s: no event \"%s\"", archive, job->event);
    }
    int several = rc == DATUM_OK && !job->event && d->n_events > 1;
    if (rc == DATUM_OK) rc = defense_text_build(ctx, d, &dt);
    if (rc == DATUM_OK) rc = workspace_alloc(ctx, d, &w);
    if (rc == DATUM_OK) rc = open_outputs(ctx, job, d, several, &o);
    int print = job->print || (!job->rankings && !job->etuis && !job->sheets);
    for (uint32_t e = job->event ? only : 0;
         rc == DATUM_OK && e < (job->event ? only + 1 : (d ? d->n_events : 0)); e++) {
        rc = score_event(ctx, opt, d, e, &w);
        if (rc != DATUM_OK) break;
        if (o.etuis) write_etuis_rows(o.etuis, d, e, &w);
        if (o.rankings || print) {
            char dates[96];
            french_dates(d->event_first_date[e], d->event_last_date[e], dates);
            if (print)
                printf("%s%s (%s): %llu étuis\n", e > (job->event ? only : 0) ? "\n" : "",
                       d->event[e], dates,
                       (unsigned long long)(d->event_etuis[e + 1] - d->event_etuis[e]));
            for (int attack = 1; attack >= 0; attack--) {
                size_t n = attack ? d->n_players : d->n_defenses;
                const datum_tarot_standing *st = attack ? w.attack : w.defense;
                char *const *ids = attack ? d->player : d->defense;
                size_t ranked = rank_order(st, n, &w);
                if (o.rankings)
                    write_ranking_rows(o.rankings, several ? d->event[e] : NULL,
                                       attack ? "attack" : "defense", ids, st, w.order, ranked);
                if (print)
                    print_ranking(attack ? "Attack" : "Defense", attack ? "attacker" : "defense",
                                  ids, st, w.order, ranked);
            }
        }
        if (o.sheets) rc = write_event_sheets(ctx, d, &dt, e, several, &w, &o);
    }
    if (rc == DATUM_OK) rc = commit_outputs(ctx, &o);
    outputs_free(&o);
    workspace_free(&w);
    if (d) defense_text_free(&dt, d->n_defenses);
    datum_tarot_data_free(&d);
    return rc;
}

int cmd_tarot(int argc, char **argv)
{
    tarot_job job = {0};
    const cli_option table[] = {
        {"--rankings", 1, cli_set_string, &job.rankings},
        {"--etuis", 1, cli_set_string, &job.etuis},
        {"--sheets", 1, cli_set_string, &job.sheets},
        {"--exact", 0, cli_set_flag, &job.exact},
        {"--reference", 1, cli_set_string, &job.reference},
        {"--bonus-etuis", 1, set_bonus_etuis, &job.bonus_etuis},
        {"--event", 1, cli_set_string, &job.event},
        {"--ranking", 0, cli_set_flag, &job.print},
    };
    const char *positional[argc + 1];
    cli_parser p = {"tarot", positional, 0};
    int parsed = cli_parse(&p, argc, argv, table, sizeof table / sizeof *table, kHelp);
    if (parsed != 0) return parsed > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (p.n_positional != 1)
        return cli_usage_error(&p, "one tarot archive is required"), EXIT_BAD_INPUT;
    datum_tarot_options opt = DATUM_TAROT_OPTIONS_INIT;
    if (job.reference && parse_reference(&p, job.reference, &opt.reference) != 0)
        return EXIT_BAD_INPUT;
    opt.exact = job.exact;
    opt.bonus_etuis = job.bonus_etuis;

    datum_ctx *ctx;
    if (datum_ctx_create(&ctx) != DATUM_OK) return EXIT_FAILURE_RUN;
    int rc = run(ctx, positional[0], &job, &opt);
    int status = rc < 0 ? cli_fail(ctx, rc) : EXIT_OK;
    datum_ctx_free(&ctx);
    return status;
}
