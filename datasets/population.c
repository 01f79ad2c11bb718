/*
 * population.c - the plan of a synthetic federation: clubs of lognormal
 * size, their players and partnerships year by year (turnover, second
 * partnerships), the teams leagues, and every event in archive order (the
 * event names sort as they are planned). Serial and small: no result here.
 */
#include "gen_internal.h"
#include "datum_text.h"

#include <stdio.h>
#include <string.h>

/* Room for one more element in a growable array of the plan. */
#define GROW(g, arr, n, cap) datum_reserve((g)->ctx, &(arr), &(cap), (size_t)(n) + 1, sizeof *(arr))

static int new_player(plan *g, double mean, rng *r, uint32_t *id)
{
    int rc = GROW(g, g->skill, g->n_players, g->players_cap);
    if (rc != DATUM_OK) return rc;
    g->skill[g->n_players] = mean + PLAYER_SD * normal(r);
    *id = g->n_players++;
    return DATUM_OK;
}

static int new_pair(plan *g, uint32_t a, uint32_t b, uint32_t c, rng *r, uint32_t *id)
{
    int rc = GROW(g, g->pairs, g->n_pairs, g->pairs_cap);
    if (rc != DATUM_OK) return rc;
    g->pairs[g->n_pairs] =
        (pair){{a, b}, c, (g->skill[a] + g->skill[b]) / 2 + CHEMISTRY_SD * normal(r)};
    *id = g->n_pairs++;
    return DATUM_OK;
}

static int add_active(plan *g, uint32_t p)
{
    int rc = GROW(g, g->home.pairs, g->home.n, g->home.cap);
    if (rc == DATUM_OK) g->home.pairs[g->home.n++] = p;
    return rc;
}

void gen_shuffle(rng *r, uint32_t *a, uint32_t n)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = below(r, i), t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* One club: its members and partnerships year by year. Partnerships last
 * while both players stay (and mostly do); the free players pair up anew;
 * a few players have a second partnership. */
static int plan_club(plan *g, uint32_t c)
{
    const int years = g->o.years;
    rng r = stream(g->o.seed, TAG_CLUB, c, 0);
    club *cl = &g->clubs[c];
    double members = MEMBERS_MEDIAN * exp(MEMBERS_SIGMA * normal(&r));
    cl->members = members < MEMBERS_MIN   ? MEMBERS_MIN
                  : members > MEMBERS_MAX ? MEMBERS_MAX
                                          : (int)members;
    cl->region = (int)((uint64_t)c * (uint64_t)g->n_regions / (uint64_t)g->o.clubs);
    cl->howell = c % 2 == 0; /* half the clubs play Howells when they are small enough */
    cl->mean = CLUB_MEAN_SD * normal(&r);
    cl->attendance = g->o.attendance * (1 + ATTENDANCE_SPREAD * (2 * uniform(&r) - 1));
    if (cl->attendance > 1) cl->attendance = 1;
    int order[7] = {0, 1, 2, 3, 4, 5, 6};
    for (int i = 7; i > 1; i--) {
        int j = (int)below(&r, (uint32_t)i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    cl->n_days = g->o.sessions_per_week;
    for (int i = 0; i < cl->n_days; i++) cl->days[i] = order[i];
    for (int i = 1; i < cl->n_days; i++) /* in week order */
        for (int j = i; j > 0 && cl->days[j] < cl->days[j - 1]; j--) {
            int t = cl->days[j];
            cl->days[j] = cl->days[j - 1];
            cl->days[j - 1] = t;
        }

    int n = cl->members, rc = DATUM_OK;
    uint32_t *member = datum_calloc(g->ctx, (size_t)n, sizeof *member);
    uint32_t *partner = datum_calloc(g->ctx, (size_t)n, sizeof *partner); /* pair id or UINT32_MAX */
    uint32_t *second = datum_calloc(g->ctx, (size_t)n, sizeof *second), n_second = 0;
    uint32_t *fresh = datum_calloc(g->ctx, (size_t)n, sizeof *fresh);
    if (!member || !partner || !second || !fresh) rc = DATUM_E_NOMEM;
    for (int i = 0; i < n && rc == DATUM_OK; i++) {
        rc = new_player(g, cl->mean, &r, &member[i]);
        partner[i] = UINT32_MAX;
    }
    for (int y = 0; y < years && rc == DATUM_OK; y++) {
        rng ry = stream(g->o.seed, TAG_CLUB_YEAR, c, (uint64_t)y);
        g->home.offset[(size_t)c * years + y] = g->home.n;
        /* Players leave (their partnerships end); new players come. */
        for (int i = 0; y > 0 && i < n && rc == DATUM_OK; i++)
            if (uniform(&ry) < g->o.leave_rate) {
                uint32_t p = partner[i];
                for (int k = 0; p != UINT32_MAX && k < n; k++)
                    if (partner[k] == p) partner[k] = UINT32_MAX;
                rc = new_player(g, cl->mean, &ry, &member[i]);
            }
        /* Partnerships end; the free players pair up. */
        for (int i = 0; y > 0 && i < n; i++) {
            uint32_t p = partner[i];
            if (p == UINT32_MAX || g->pairs[p].players[0] != member[i]) continue;
            if (uniform(&ry) >= g->o.partnership_keep)
                for (int k = 0; k < n; k++)
                    if (partner[k] == p) partner[k] = UINT32_MAX;
        }
        uint32_t n_fresh = 0;
        for (int i = 0; i < n; i++)
            if (partner[i] == UINT32_MAX) fresh[n_fresh++] = (uint32_t)i;
        gen_shuffle(&ry, fresh, n_fresh);
        for (uint32_t k = 0; k + 1 < n_fresh && rc == DATUM_OK; k += 2) {
            uint32_t p = UINT32_MAX, a = fresh[k], b = fresh[k + 1];
            rc = new_pair(g, member[a], member[b], c, &ry, &p);
            partner[a] = partner[b] = p;
        }
        uint32_t n_primary = 0;
        for (int i = 0; i < n && rc == DATUM_OK; i++) {
            uint32_t p = partner[i];
            if (p != UINT32_MAX && g->pairs[p].players[0] == member[i]) {
                rc = add_active(g, p);
                n_primary++;
            }
        }
        /* Second partnerships: some last, new ones between two members. */
        uint32_t kept = 0;
        for (uint32_t k = 0; k < n_second; k++) {
            const pair *p = &g->pairs[second[k]];
            int stay = 0;
            for (int i = 0; i < n; i++)
                stay += member[i] == p->players[0] || member[i] == p->players[1];
            if (stay == 2 && uniform(&ry) < SECOND_KEEP) second[kept++] = second[k];
        }
        n_second = kept;
        uint32_t want = (uint32_t)lround(SECOND_SHARE * n_primary);
        while (n_second < want && n_second < (uint32_t)n && rc == DATUM_OK) {
            uint32_t a = below(&ry, (uint32_t)n), b = below(&ry, (uint32_t)n);
            if (a == b || (partner[a] != UINT32_MAX && partner[a] == partner[b])) continue;
            rc = new_pair(g, member[a], member[b], c, &ry, &second[n_second++]);
        }
        for (uint32_t k = 0; k < n_second && rc == DATUM_OK; k++) rc = add_active(g, second[k]);
    }
    datum_free(member);
    datum_free(partner);
    datum_free(second);
    datum_free(fresh);
    return rc;
}

static const uint32_t *list_of(const plan *g, const club_lists *l, uint32_t c, int y, uint32_t *n)
{
    size_t k = (size_t)c * g->o.years + y;
    *n = (uint32_t)(l->offset[k + 1] - l->offset[k]);
    return l->pairs + l->offset[k];
}

const uint32_t *gen_club_year(const plan *g, uint32_t c, int y, uint32_t *n)
{
    return list_of(g, &g->home, c, y, n);
}

void gen_region_clubs(const plan *g, int region, uint32_t *lo, uint32_t *hi)
{
    /* Club c is in region c * regions / clubs (rounded down). */
    uint64_t clubs = (uint64_t)g->o.clubs, regions = (uint64_t)g->n_regions;
    *lo = (uint32_t)(((uint64_t)region * clubs + regions - 1) / regions);
    *hi = (uint32_t)(((uint64_t)region * clubs + clubs + regions - 1) / regions);
}

/* The clubs other than the home club h that a partnership is also a member
 * of (multi_club): none, or 1 or 2 (as likely) of its region. Returns how
 * many, in other[]. */
static int other_clubs(const plan *g, uint32_t p, uint32_t h, uint32_t other[2])
{
    rng r = stream(g->o.seed, TAG_MULTI, p, 0);
    if (uniform(&r) >= g->o.multi_club) return 0;
    uint32_t lo, hi;
    gen_region_clubs(g, g->clubs[h].region, &lo, &hi);
    uint32_t n = hi - lo - 1, want = 1 + below(&r, 2), k = 0; /* n: the region's other clubs */
    if (want > n) want = n;
    while (k < want) {
        uint32_t c = lo + below(&r, n);
        c += c >= h; /* skip the home club */
        if (k == 0 || other[0] != c) other[k++] = c;
    }
    return (int)k;
}

/* The member lists: per club and year, the club's own partnerships then
 * those of the region's other clubs that are also members (counted, then
 * placed: two passes over the home lists). */
static int plan_members(plan *g)
{
    const size_t years = (size_t)g->o.years, cells = (size_t)g->o.clubs * years;
    uint64_t *at = datum_calloc(g->ctx, cells + 1, sizeof *at);
    g->members.offset = datum_calloc(g->ctx, cells + 1, sizeof *g->members.offset);
    if (!at || !g->members.offset) {
        datum_free(at);
        return DATUM_E_NOMEM;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t c = 0; c < (uint32_t)g->o.clubs; c++)
            for (size_t y = 0; y < years; y++) {
                uint32_t n;
                const uint32_t *a = gen_club_year(g, c, (int)y, &n);
                if (pass == 1) memcpy(g->members.pairs + at[c * years + y], a, n * sizeof *a);
                at[c * years + y] += n;
            }
        for (uint32_t c = 0; c < (uint32_t)g->o.clubs; c++)
            for (size_t y = 0; y < years; y++) {
                uint32_t n, other[2];
                const uint32_t *a = gen_club_year(g, c, (int)y, &n);
                for (uint32_t i = 0; i < n; i++)
                    for (int k = 0, m = other_clubs(g, a[i], c, other); k < m; k++) {
                        uint64_t *slot = &at[other[k] * years + y];
                        if (pass == 1) g->members.pairs[*slot] = a[i];
                        ++*slot;
                    }
            }
        if (pass == 1) break;
        uint64_t total = 0; /* counts to offsets */
        for (size_t k = 0; k < cells; k++) {
            g->members.offset[k] = total;
            total += at[k];
            at[k] = g->members.offset[k];
        }
        g->members.offset[cells] = total;
        g->members.n = (uint32_t)total;
        g->members.pairs = datum_calloc(g->ctx, total + 1, sizeof *g->members.pairs);
        if (!g->members.pairs) {
            datum_free(at);
            return DATUM_E_NOMEM;
        }
    }
    datum_free(at);
    return DATUM_OK;
}

/* Up to `want` pairs of pool[0..n) (shuffled in place) with no player in
 * two of them, into s->picked; returns how many. */
uint32_t gen_pick_pairs(const plan *g, scratch *s, rng *r, uint32_t n, uint32_t want)
{
    uint32_t got = 0, stamp = ++s->stamp;
    for (uint32_t i = 0; i < n && got < want; i++) {
        uint32_t j = i + below(r, n - i), p = s->pool[j];
        s->pool[j] = s->pool[i];
        s->pool[i] = p;
        const uint32_t *pl = g->pairs[p].players;
        if (s->busy[pl[0]] == stamp || s->busy[pl[1]] == stamp) continue;
        s->busy[pl[0]] = s->busy[pl[1]] = stamp;
        s->picked[got++] = p;
    }
    return got;
}

int gen_pick_visitor(const plan *g, scratch *s, rng *r, uint32_t lo, uint32_t hi, uint32_t skip_lo,
                     uint32_t skip_hi, int y, uint32_t *got)
{
    uint32_t clubs = (hi - lo) - (skip_hi - skip_lo);
    for (int t = 0; clubs > 0 && t < VISIT_TRIES; t++) {
        uint32_t c = lo + below(r, clubs), n;
        if (c >= skip_lo) c += skip_hi - skip_lo;
        const uint32_t *a = gen_club_year(g, c, y, &n);
        if (n == 0) continue;
        uint32_t p = a[below(r, n)];
        const uint32_t *pl = g->pairs[p].players;
        if (s->busy[pl[0]] == s->stamp || s->busy[pl[1]] == s->stamp) continue;
        s->busy[pl[0]] = s->busy[pl[1]] = s->stamp;
        s->picked[(*got)++] = p;
        return 1;
    }
    return 0;
}

int gen_gather(const plan *g, const club_lists *l, scratch *s, uint32_t lo, uint32_t hi, int y,
               uint32_t *n)
{
    *n = 0;
    for (uint32_t c = lo; c < hi; c++) {
        uint32_t k;
        const uint32_t *a = list_of(g, l, c, y, &k);
        if (datum_reserve(g->ctx, &s->pool, &s->pool_cap, *n + k, sizeof *s->pool) != DATUM_OK)
            return DATUM_E_NOMEM;
        memcpy(s->pool + *n, a, k * sizeof *a);
        *n += k;
    }
    return datum_reserve(g->ctx, &s->picked, &s->picked_cap, *n + 1, sizeof *s->picked);
}

/* ------------------------------------------------------------------------ */
/* Teams leagues                                                            */

/* The next division number of year y. */
static int number_in_year(const plan *g, int y)
{
    const division *last = g->n_divisions ? &g->divisions[g->n_divisions - 1] : NULL;
    return last && last->year == y ? last->number + 1 : 0;
}

/* A division of 4 or 6 teams of four partnerships from one region, no
 * player in two teams; fewer teams if the region is short of pairs. */
static int plan_division(plan *g, scratch *s, int y, int d)
{
    rng r = stream(g->o.seed, TAG_LEAGUE, (uint64_t)y, (uint64_t)d);
    int region = d % g->n_regions;
    uint32_t lo, hi, n = 0;
    gen_region_clubs(g, region, &lo, &hi);
    int rc = gen_gather(g, &g->home, s, lo, hi, y, &n);
    if (rc != DATUM_OK) return rc;
    int teams = uniform(&r) < 0.5 ? 4 : 6;
    uint32_t got = gen_pick_pairs(g, s, &r, n, 4u * (uint32_t)teams);
    teams = (int)(got / 8) * 2; /* an even number of teams */
    if (teams < 4) return DATUM_OK;
    rc = GROW(g, g->divisions, g->n_divisions, g->divisions_cap);
    if (rc != DATUM_OK) return rc;
    division *v = &g->divisions[g->n_divisions];
    *v = (division){y, number_in_year(g, y), region, teams, g->n_teams, g->n_matches, NULL};
    if (!(v->pairs = datum_calloc(g->ctx, 4u * (uint32_t)teams, sizeof *v->pairs)))
        return DATUM_E_NOMEM;
    memcpy(v->pairs, s->picked, 4u * (uint32_t)teams * sizeof *v->pairs);
    g->n_divisions++;
    g->n_teams += (uint32_t)teams;
    g->n_matches += (uint32_t)(teams - 1) * (uint32_t)teams; /* double round robin, n/2 a round */
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Events, in archive order                                                 */

static int add_event(plan *g, event e, uint64_t max_tables)
{
    int rc = GROW(g, g->events, g->n_events, g->events_cap);
    if (rc != DATUM_OK) return rc;
    g->events[g->n_events++] = e;
    g->max_results += max_tables * (uint64_t)g->o.boards;
    return DATUM_OK;
}

int gen_congress_tables(uint32_t pool, double share)
{
    double t = share * pool / 2 + 1;
    return t > SECTIONS_MAX * SECTION_SPLIT ? SECTIONS_MAX * SECTION_SPLIT : (int)t;
}

/* The Saturday of week w (0..51) of year y: the day of congress weekend
 * (both sessions on it); 1970-01-01, day 0, was a Thursday. */
static int32_t weekend(const plan *g, int y, int w)
{
    int32_t jan1 = g->jan1[y], weekday = ((jan1 + 4) % 7 + 7) % 7; /* 0: Sunday */
    return jan1 + (6 - weekday) + 7 * w;
}

static int plan_events(plan *g)
{
    const int years = g->o.years;
    int rc = DATUM_OK;
    for (uint32_t c = 0; c < (uint32_t)g->o.clubs && rc == DATUM_OK; c++)
        for (int y = 0; y < years && rc == DATUM_OK; y++) {
            rng r = stream(g->o.seed, TAG_SESSIONS, c, (uint64_t)y);
            uint32_t n;
            gen_club_year(g, c, y, &n);
            for (int w = 0; w < 52 && rc == DATUM_OK; w++)
                for (int k = 0; k < g->clubs[c].n_days && rc == DATUM_OK; k++)
                    if (uniform(&r) >= HOLIDAY_RATE)
                        rc = add_event(g,
                                       (event){EV_CLUB, 0, (uint16_t)y, c, 0,
                                               g->jan1[y] + 7 * w + g->clubs[c].days[k]},
                                       n / 2);
        }
    for (uint32_t d = 0; d < g->n_divisions && rc == DATUM_OK; d++) {
        const division *v = &g->divisions[d];
        for (int round = 0; round < 2 * (v->n_teams - 1) && rc == DATUM_OK; round++)
            rc = add_event(g,
                           (event){EV_LEAGUE, 0, (uint16_t)v->year, d, (uint32_t)round,
                                   g->jan1[v->year] + 14 + 21 * round},
                           2u * (uint32_t)v->n_teams);
    }
    for (int y = 0; y < years && rc == DATUM_OK; y++)
        for (int q = 0; q < g->o.nationals && rc == DATUM_OK; q++)
            for (int session = 0; session < 2 && rc == DATUM_OK; session++)
                rc = add_event(g,
                               (event){EV_NATIONAL, (uint8_t)session, (uint16_t)y, 0, (uint32_t)q,
                                       weekend(g, y, (52 * q + 20) / g->o.nationals)},
                               SECTIONS_MAX * SECTION_SPLIT);
    for (int region = 0; region < g->n_regions && rc == DATUM_OK; region++)
        for (int y = 0; y < years && rc == DATUM_OK; y++)
            for (int q = 0; q < g->o.regionals && rc == DATUM_OK; q++)
                for (int session = 0; session < 2 && rc == DATUM_OK; session++)
                    rc = add_event(g,
                                   (event){EV_REGIONAL, (uint8_t)session, (uint16_t)y,
                                           (uint32_t)region, (uint32_t)q,
                                           weekend(g, y, (52 * q + 2) / g->o.regionals)},
                                   SECTIONS_MAX * SECTION_SPLIT);
    return rc;
}

/* Names are built with every number reduced to its field's width (the
 * values are in range; the modulo shows the compiler that nothing is cut). */

void gen_event_name(const plan *g, const event *e, char out[NAME_SIZE])
{
    char day[DATUM_DATE_SIZE]; /* YYYY-MM-DD: the years are 1900..2150 */
    unsigned year = (unsigned)(g->o.first_year + e->year) % 10000u, session = e->session % 9u + 1;
    datum_format_date(e->date, day);
    switch (e->kind) {
    case EV_CLUB: snprintf(out, NAME_SIZE, "Club %04u %.10s", (e->who + 1) % 10000u, day); break;
    case EV_LEAGUE:
        snprintf(out, NAME_SIZE, "League %04u D%03u R%02u", year,
                 (unsigned)(g->divisions[e->who].number + 1) % 1000u, (e->round + 1) % 100u);
        break;
    case EV_NATIONAL: snprintf(out, NAME_SIZE, "National %.10s S%u", day, session); break;
    default: snprintf(out, NAME_SIZE, "Regional R%03u %.10s S%u", (e->who + 1) % 1000u, day, session);
    }
}

void gen_plan_free(plan *g)
{
    for (uint32_t d = 0; d < g->n_divisions; d++) datum_free(g->divisions[d].pairs);
    datum_free(g->divisions);
    datum_free(g->clubs);
    datum_free(g->pairs);
    datum_free(g->skill);
    datum_free(g->home.offset);
    datum_free(g->home.pairs);
    datum_free(g->members.offset);
    datum_free(g->members.pairs);
    datum_free(g->events);
    datum_free(g->jan1);
}

int gen_scratch_init(const plan *g, scratch *s)
{
    memset(s, 0, sizeof *s);
    s->busy = datum_calloc(g->ctx, g->n_players, sizeof *s->busy);
    return s->busy ? DATUM_OK : DATUM_E_NOMEM;
}

void gen_scratch_free(scratch *s)
{
    datum_free(s->busy);
    datum_free(s->pool);
    datum_free(s->picked);
}

int gen_plan_build(plan *g)
{
    const int years = g->o.years;
    int rc = DATUM_OK;
    g->n_regions = (g->o.clubs + REGION_CLUBS - 1) / REGION_CLUBS;
    g->clubs = datum_calloc(g->ctx, (size_t)g->o.clubs, sizeof *g->clubs);
    g->home.offset = datum_calloc(g->ctx, (size_t)g->o.clubs * years + 1, sizeof *g->home.offset);
    g->jan1 = datum_calloc(g->ctx, (size_t)years + 1, sizeof *g->jan1);
    if (!g->clubs || !g->home.offset || !g->jan1) return DATUM_E_NOMEM;
    for (int y = 0; y <= years; y++) g->jan1[y] = datum_days_from_civil(g->o.first_year + y, 1, 1);
    for (uint32_t c = 0; c < (uint32_t)g->o.clubs && rc == DATUM_OK; c++) rc = plan_club(g, c);
    if (rc != DATUM_OK) return rc;
    g->home.offset[(size_t)g->o.clubs * years] = g->home.n;
    if ((rc = plan_members(g)) != DATUM_OK) return rc;
    scratch s;
    if ((rc = gen_scratch_init(g, &s)) != DATUM_OK) return rc;
    int per_year = (g->o.clubs + CLUBS_PER_DIVISION / 2) / CLUBS_PER_DIVISION;
    for (int y = 0; y < years && rc == DATUM_OK; y++)
        for (int d = 0; d < (per_year > 0 ? per_year : 1) && rc == DATUM_OK; d++)
            rc = plan_division(g, &s, y, d);
    gen_scratch_free(&s);
    return rc == DATUM_OK ? plan_events(g) : rc;
}
