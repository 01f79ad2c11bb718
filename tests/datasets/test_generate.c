/* test_generate.c - the synthetic federation: the scoring table against
 * known scores, the same archive for 1 and 2 threads, and the structure of
 * the small preset (Howell pairs change direction, Mitchell pairs do not,
 * teams matches of four tables, every score legal, the truth stored and
 * recovered by Butler scoring); the mixing, attendance and turnover options
 * measured on the archive alone (visitors, members of several clubs,
 * congress weekends, session sizes, partnerships over the years); bad
 * option values refused, each named. */
#include "alloc_loop.h"
#include "io_test_util.h"
#include "generate.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void test_bridge_score(void **state)
{
    static const struct {
        int level, strain, doubled, vulnerable, tricks, score;
    } known[] = {
        {4, DATUM_SPADES, 0, 0, 10, 420},   {3, DATUM_NOTRUMP, 0, 1, 10, 630},
        {1, DATUM_NOTRUMP, 1, 1, 6, -200},  {7, DATUM_NOTRUMP, 2, 1, 13, 2980},
        {2, DATUM_CLUBS, 1, 0, 8, 180},     {1, DATUM_NOTRUMP, 0, 0, 7, 90},
        {1, DATUM_NOTRUMP, 0, 0, 9, 150},   {2, DATUM_HEARTS, 0, 0, 8, 110},
        {3, DATUM_DIAMONDS, 0, 1, 10, 130}, {4, DATUM_HEARTS, 0, 1, 11, 650},
        {5, DATUM_CLUBS, 0, 0, 11, 400},    {6, DATUM_SPADES, 0, 0, 12, 980},
        {6, DATUM_NOTRUMP, 0, 1, 12, 1440}, {7, DATUM_HEARTS, 0, 1, 13, 2210},
        {7, DATUM_CLUBS, 0, 0, 13, 1440},   {4, DATUM_SPADES, 0, 1, 9, -100},
        {3, DATUM_NOTRUMP, 0, 0, 6, -150},  {4, DATUM_SPADES, 1, 0, 7, -500},
        {4, DATUM_SPADES, 1, 0, 6, -800},   {5, DATUM_DIAMONDS, 1, 1, 8, -800},
        {4, DATUM_HEARTS, 1, 0, 10, 590},   {4, DATUM_HEARTS, 1, 1, 11, 990},
        {1, DATUM_SPADES, 2, 1, 8, 1120},   {2, DATUM_DIAMONDS, 1, 1, 9, 380},
        {2, DATUM_HEARTS, 1, 1, 8, 670},    {1, DATUM_NOTRUMP, 1, 0, 9, 380},
        {3, DATUM_NOTRUMP, 2, 0, 7, -600},  {7, DATUM_NOTRUMP, 2, 1, 0, -7600},
        {1, DATUM_CLUBS, 0, 0, 13, 190},    {2, DATUM_SPADES, 1, 0, 8, 470},
        {1, DATUM_NOTRUMP, 2, 1, 13, 3160}, /* the highest score there is */
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        int s = datum_bridge_score(known[i].level, (datum_strain)known[i].strain, known[i].doubled,
                                   known[i].vulnerable, known[i].tricks);
        if (s != known[i].score)
            fail_msg("case %zu: %d%d X%d vul %d tricks %d: %d, not %d", i, known[i].level,
                     known[i].strain, known[i].doubled, known[i].vulnerable, known[i].tricks, s,
                     known[i].score);
    }
    /* Every score: made iff positive, within the bounds (-7600: 13 down
     * redoubled vulnerable), more tricks always better. */
    for (int level = 1; level <= 7; level++)
        for (int strain = 0; strain <= 4; strain++)
            for (int x = 0; x <= 2; x++)
                for (int v = 0; v <= 1; v++)
                    for (int t = 0; t <= 13; t++) {
                        int s = datum_bridge_score(level, (datum_strain)strain, x, v, t);
                        assert_true((s > 0) == (t >= 6 + level));
                        assert_true(s >= -7600 && s <= 3160);
                        if (t > 0)
                            assert_true(
                                s > datum_bridge_score(level, (datum_strain)strain, x, v, t - 1));
                    }
    assert_int_equal(datum_bridge_score(8, DATUM_CLUBS, 0, 0, 13), 0);
    static const int vul[17] = {0, 0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2};
    for (int b = 1; b <= 16; b++) {
        assert_int_equal(datum_board_vulnerability(b), vul[b]);
        assert_int_equal(datum_board_vulnerability(b + 16), vul[b]);
    }
}

static void generate_with(const char *path, int threads, const datum_generate_options *o)
{
    datum_ctx *ctx = NULL;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_ctx_set_threads(ctx, threads), DATUM_OK);
    int rc = datum_generate(ctx, o, path, NULL, NULL);
    if (rc != DATUM_OK) fail_msg("%s", datum_ctx_message(ctx));
    datum_ctx_free(&ctx);
}

static void generate_small(const char *path, int threads, uint64_t seed, const char *mixing)
{
    datum_generate_options o;
    assert_int_equal(datum_generate_preset(&o, "small"), DATUM_OK);
    assert_int_equal(datum_generate_mixing(&o, mixing), DATUM_OK);
    o.seed = seed;
    generate_with(path, threads, &o);
}

/* Everything an archive holds, through the public interface, as bytes. */
typedef struct {
    char *bytes;
    size_t len, cap;
} blob;

static void put(blob *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = 2 * (b->len + n);
        b->bytes = realloc(b->bytes, b->cap);
        assert_non_null(b->bytes);
    }
    memcpy(b->bytes + b->len, p, n);
    b->len += n;
}

/* An archive open for reading, with a context of its own. */
typedef struct {
    datum_ctx *ctx;
    datum_archive *a;
    datum_archive_info info;
} opened;

static opened open_archive(const char *path)
{
    opened o = {0};
    assert_int_equal(datum_ctx_create(&o.ctx), DATUM_OK);
    assert_int_equal(datum_archive_open(o.ctx, path, &o.a), DATUM_OK);
    datum_archive_get_info(o.a, &o.info);
    return o;
}

static void close_archive(opened *o)
{
    datum_archive_close(&o->a);
    datum_ctx_free(&o->ctx);
}

static blob contents(const char *path)
{
    opened o = open_archive(path);
    datum_archive *a = o.a;
    const datum_archive_info info = o.info;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    blob b = {0};
    const uint64_t summary[] = {info.n_results,
                                info.n_fields,
                                info.n_events,
                                info.n_sections,
                                info.n_pairs,
                                info.n_teams,
                                info.n_matches,
                                (uint64_t)info.first_date,
                                (uint64_t)info.last_date};
    put(&b, summary, sizeof summary);
    typedef const char *(*entry_fn)(const datum_archive *, uint32_t);
    const entry_fn dict[] = {datum_archive_event, datum_archive_section, datum_archive_pair,
                             datum_archive_team, datum_archive_match};
    const uint32_t size[] = {info.n_events, info.n_sections, info.n_pairs, info.n_teams,
                             info.n_matches};
    for (int k = 0; k < 5; k++)
        for (uint32_t i = 0; i < size[k]; i++) put(&b, dict[k](a, i), strlen(dict[k](a, i)) + 1);
    double *truth = calloc(info.n_pairs, sizeof *truth);
    assert_int_equal(datum_archive_read_truth(o.ctx, a, truth), DATUM_OK);
    put(&b, truth, info.n_pairs * sizeof *truth);
    free(truth);
    assert_int_equal(datum_chunk_reader_create(o.ctx, a, DATUM_COL_ALL, 50000, &r), DATUM_OK);
    while (datum_chunk_reader_next(r, &c) == DATUM_OK && c.n_fields) {
        put(&b, c.offset, (c.n_fields + 1) * sizeof *c.offset);
        put(&b, c.field_event, c.n_fields * 4);
        put(&b, c.field_section, c.n_fields * 4);
        put(&b, c.field_board, c.n_fields * 4);
        put(&b, c.field_date, c.n_fields * 4);
        const int32_t *rows[] = {c.table, c.ns_pair, c.ew_pair, c.ns_score,
                                 c.date,  c.ns_team, c.ew_team, c.match};
        for (int k = 0; k < 8; k++) put(&b, rows[k], c.n_rows * 4);
        put(&b, c.adjusted, c.n_rows);
    }
    datum_chunk_reader_free(&r);
    close_archive(&o);
    return b;
}

static void test_determinism(void **state)
{
    /* High mixing: visitors, members of several clubs, many congresses. */
    generate_small("one.h5", 1, 7, "high");
    generate_small("two.h5", 2, 7, "high");
    generate_small("other.h5", 2, 8, "high");
    blob one = contents("one.h5"), two = contents("two.h5"), other = contents("other.h5");
    assert_int_equal(one.len, two.len);
    assert_memory_equal(one.bytes, two.bytes, one.len);
    assert_true(one.len != other.len || memcmp(one.bytes, other.bytes, one.len) != 0);
    free(one.bytes);
    free(two.bytes);
    free(other.bytes);

    datum_ctx *ctx = NULL;
    datum_generate_options o;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_generate_options medium;
    assert_int_equal(datum_generate_preset(&o, "small"), DATUM_OK);
    assert_true(o.multi_club == 0 && o.visitors_region == 0 && o.regionals == 4 && o.nationals == 1);
    assert_true(o.attendance == 0.44 && o.leave_rate == 0.06 && o.partnership_keep == 0.9);
    assert_int_equal(datum_generate_preset(&medium, "small"), DATUM_OK);
    assert_int_equal(datum_generate_mixing(&medium, "medium"), DATUM_OK);
    assert_int_equal(datum_generate_preset(&o, "decade"), DATUM_OK);
    assert_int_equal(o.clubs, 200);
    assert_true(o.multi_club == medium.multi_club && o.visitors_region == medium.visitors_region &&
                o.visitors_nation == medium.visitors_nation && o.regionals == medium.regionals &&
                o.nationals == medium.nationals && o.visitors_region > 0);
    assert_int_equal(datum_generate_preset(&o, "national"), DATUM_OK);
    assert_int_equal(o.clubs, 1000);
    assert_true(o.multi_club == medium.multi_club && o.regionals == medium.regionals);
    assert_int_equal(datum_generate_preset(&o, "huge"), DATUM_E_ARG);
    assert_int_equal(datum_generate_mixing(&o, "extreme"), DATUM_E_ARG);
    assert_true(o.multi_club == medium.multi_club); /* untouched */
    o.boards = 1;
    assert_failure(ctx, datum_generate(ctx, &o, "x.h5", NULL, NULL), DATUM_E_ARG,
                   "generate: clubs 1..9999, years 1..50, sessions a week 1..7, boards 2..99, "
                   "first year 1900..2100");
    /* The mixing, attendance and turnover options out of range: each named. */
    static const struct {
        size_t offset;
        double value;
        const char *message;
    } bad[] = {
        {offsetof(datum_generate_options, multi_club), 1.5, "multi_club is 1.5, not in 0..1"},
        {offsetof(datum_generate_options, visitors_region), -0.1,
         "visitors_region is -0.1, not in 0..0.9"},
        {offsetof(datum_generate_options, visitors_nation), NAN, "visitors_nation is nan"},
        {offsetof(datum_generate_options, regional_share), 2, "regional_share is 2, not in 0..1"},
        {offsetof(datum_generate_options, attendance), 0, "attendance is 0, not in 0.01..1"},
        {offsetof(datum_generate_options, leave_rate), 1.01, "leave_rate is 1.01, not in 0..1"},
        {offsetof(datum_generate_options, partnership_keep), -1,
         "partnership_keep is -1, not in 0..1"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        datum_ctx_clear(ctx);
        assert_int_equal(datum_generate_preset(&o, "small"), DATUM_OK);
        memcpy((char *)&o + bad[k].offset, &bad[k].value, sizeof(double));
        assert_int_equal(datum_generate(ctx, &o, "x.h5", NULL, NULL), DATUM_E_ARG);
        if (!strstr(datum_ctx_message(ctx), bad[k].message))
            fail_msg("'%s' does not say '%s'", datum_ctx_message(ctx), bad[k].message);
    }
    datum_ctx_clear(ctx);
    assert_int_equal(datum_generate_preset(&o, "small"), DATUM_OK);
    o.visitors_region = 0.6, o.visitors_nation = 0.5;
    assert_failure(ctx, datum_generate(ctx, &o, "x.h5", NULL, NULL), DATUM_E_ARG,
                   "generate: visitors_region + visitors_nation is 1.1, not in 0..0.9");
    datum_ctx_clear(ctx);
    o.visitors_nation = 0, o.regionals = 53;
    assert_failure(ctx, datum_generate(ctx, &o, "x.h5", NULL, NULL), DATUM_E_ARG,
                   "generate: regionals is 53, not in 0..52");
    datum_ctx_clear(ctx);
    o.regionals = 4, o.nationals = -1;
    assert_failure(ctx, datum_generate(ctx, &o, "x.h5", NULL, NULL), DATUM_E_ARG,
                   "generate: nationals is -1, not in 0..12");
    assert_false(tu_exists("x.h5"));
    datum_ctx_free(&ctx);
}

/* Legal North-South scores for each vulnerability (bit 0 NS, bit 1 EW). */
static unsigned char g_legal[4][2 * 7600 + 1];

static void make_legal(void)
{
    for (int v = 0; v < 4; v++) {
        g_legal[v][7600] = 1; /* passed out */
        for (int level = 1; level <= 7; level++)
            for (int strain = 0; strain <= 4; strain++)
                for (int x = 0; x <= 2; x++)
                    for (int t = 0; t <= 13; t++) {
                        g_legal[v][7600 + datum_bridge_score(level, (datum_strain)strain, x, v & 1,
                                                             t)] = 1;
                        g_legal[v][7600 - datum_bridge_score(level, (datum_strain)strain, x, v >> 1,
                                                             t)] = 1;
                    }
    }
}

/* Direction seen for each pair in one (event, section): bit 0 NS, bit 1 EW. */
typedef struct {
    unsigned char *dir;
    uint32_t *touched;
    size_t n_touched;
} directions;

static void test_small_structure(void **state)
{
    datum_ctx *ctx = NULL;
    datum_archive *a = NULL;
    datum_chunk_reader *r = NULL;
    datum_archive_info info;
    datum_chunk c;
    generate_small("s.h5", 2, 1, "low");
    make_legal();
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_archive_open(ctx, "s.h5", &a), DATUM_OK);
    datum_archive_get_info(a, &info);
    printf("# small: %llu results, %llu fields, %u events, %u pairs, %u teams, %u matches\n",
           (unsigned long long)info.n_results, (unsigned long long)info.n_fields, info.n_events,
           info.n_pairs, info.n_teams, info.n_matches);
    assert_true(info.n_results > 70000 && info.n_results < 150000);
    assert_true(info.has_truth && info.has_teams && info.has_adjusted);
    assert_true(info.n_teams >= 4 && info.n_matches >= 6);

    double *truth = calloc(info.n_pairs, sizeof *truth), sum = 0, sum2 = 0;
    assert_int_equal(datum_archive_read_truth(ctx, a, truth), DATUM_OK);
    for (uint32_t p = 0; p < info.n_pairs; p++) sum += truth[p], sum2 += truth[p] * truth[p];
    double sd = sqrt(sum2 / info.n_pairs - (sum / info.n_pairs) * (sum / info.n_pairs));
    assert_true(sd > 0.6 && sd < 1.4);

    directions d = {calloc(info.n_pairs, 1), calloc(info.n_pairs, sizeof(uint32_t)), 0};
    double *imps = calloc(info.n_pairs, sizeof *imps);
    int64_t *boards = calloc(info.n_pairs, sizeof *boards);
    double *datum = NULL, *ns_imps = NULL, *ew_imps = NULL;
    uint64_t howell = 0, mitchell = 0, teams_rows = 0, adjusted = 0;
    int64_t group_event = -1, group_section = -1;
    datum_method m;
    assert_int_equal(datum_method_init(&m, "mean"), DATUM_OK);
    assert_int_equal(datum_chunk_reader_create(ctx, a, DATUM_COL_ALL, 1 << 16, &r), DATUM_OK);
    for (;;) {
        assert_int_equal(datum_chunk_reader_next(r, &c), DATUM_OK);
        /* An (event, section) ends: its pairs all changed direction (a
         * Howell) or none did (a Mitchell, a congress, a league round). */
        for (uint64_t f = 0; f <= c.n_fields; f++) {
            int last = c.n_fields == 0;
            if (!last && f == c.n_fields) break;
            if (last || c.field_event[f] != group_event || c.field_section[f] != group_section) {
                size_t both = 0;
                for (size_t i = 0; i < d.n_touched; i++) both += d.dir[d.touched[i]] == 3;
                if (both && both != d.n_touched)
                    fail_msg("%s section %lld: %zu of %zu pairs changed direction",
                             datum_archive_event(a, (uint32_t)group_event),
                             (long long)group_section, both, d.n_touched);
                if (d.n_touched &&
                    strncmp(datum_archive_event(a, (uint32_t)group_event), "Club", 4) == 0)
                    *(both ? &howell : &mitchell) += 1;
                else if (d.n_touched) assert_int_equal(both, 0);
                for (size_t i = 0; i < d.n_touched; i++) d.dir[d.touched[i]] = 0;
                d.n_touched = 0;
                if (last) break;
                group_event = c.field_event[f];
                group_section = c.field_section[f];
            }
            int league = strncmp(datum_archive_event(a, c.field_event[f]), "League", 6) == 0;
            int vul = datum_board_vulnerability(c.field_board[f]);
            assert_true(c.offset[f + 1] - c.offset[f] >= 2);
            for (uint64_t i = c.offset[f]; i < c.offset[f + 1]; i++) {
                const int32_t seat[2] = {c.ns_pair[i], c.ew_pair[i]};
                for (int s = 0; s < 2; s++) {
                    if (!d.dir[seat[s]]) d.touched[d.n_touched++] = (uint32_t)seat[s];
                    d.dir[seat[s]] |= (unsigned char)(1 << s);
                }
                if (c.adjusted[i]) adjusted++;
                else if (!g_legal[vul][7600 + c.ns_score[i]])
                    fail_msg("row %llu: %d is not a legal score on board %d",
                             (unsigned long long)(c.first_row + i), c.ns_score[i],
                             c.field_board[f]);
                assert_int_equal(c.match[i] >= 0, league);
                assert_true(c.date[i] >= info.first_date && c.date[i] <= info.last_date);
            }
            if (!league) continue;
            /* Matches of four tables: tables 4k+1..4k+4, the home team NS at
             * the first two, the visitors at the other two. */
            for (uint64_t i = c.offset[f]; i < c.offset[f + 1]; i += 4) {
                assert_true(i + 4 <= c.offset[f + 1]);
                for (int t = 0; t < 4; t++) {
                    assert_int_equal(c.match[i + t], c.match[i]);
                    assert_int_equal((c.table[i + t] - 1) % 4, t);
                    int32_t home = t < 2 ? c.ns_team[i + t] : c.ew_team[i + t];
                    int32_t away = t < 2 ? c.ew_team[i + t] : c.ns_team[i + t];
                    assert_int_equal(home, c.ns_team[i]);
                    assert_int_equal(away, c.ew_team[i]);
                    assert_true(home != away);
                }
                teams_rows += 4;
            }
        }
        if (c.n_fields == 0) break;
        /* Butler, as datum score does it. */
        datum = realloc(datum, c.n_fields * sizeof *datum);
        ns_imps = realloc(ns_imps, c.n_rows * sizeof *ns_imps);
        ew_imps = realloc(ew_imps, c.n_rows * sizeof *ew_imps);
        datum_fields in = {c.n_fields, c.offset, c.ns_score, c.adjusted};
        assert_int_equal(datum_score_fields(ctx, &m, &in, datum, ns_imps, ew_imps), DATUM_OK);
        datum_pairs_accumulate(c.n_rows, c.ns_pair, c.ew_pair, ns_imps, ew_imps, imps, boards);
    }
    printf("# %llu Howell and %llu Mitchell club sections, %llu teams rows, %llu adjusted\n",
           (unsigned long long)howell, (unsigned long long)mitchell, (unsigned long long)teams_rows,
           (unsigned long long)adjusted);
    assert_true(howell > 10 && mitchell > 10 && teams_rows > 1000 && adjusted > 0);

    /* The truth shows through: Butler per board follows the strengths. */
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, n = 0;
    for (uint32_t p = 0; p < info.n_pairs; p++) {
        if (boards[p] < 200) continue;
        double x = truth[p], y = imps[p] / (double)boards[p];
        sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y, n++;
    }
    double corr = (sxy - sx * sy / n) / sqrt((sxx - sx * sx / n) * (syy - sy * sy / n));
    printf("# Butler per board against the truth: correlation %.3f over %.0f pairs\n", corr, n);
    assert_true(n > 50 && corr > 0.6);
    datum_chunk_reader_free(&r);
    datum_archive_close(&a);
    datum_ctx_free(&ctx);
    free(truth);
    free(d.dir);
    free(d.touched);
    free(imps);
    free(boards);
    free(datum);
    free(ns_imps);
    free(ew_imps);
}

/* ------------------------------------------------------------------------ */
/* Mixing, attendance and turnover, measured on the archive alone            */

/* What an archive shows, read through the public interface only: per pair
 * and club, the club sessions ("Club NNNN ...") the pair played there; the
 * rows of club sessions; the congress events and whether they fall on a
 * Saturday (docs/cli.md). A pair sitting twice in one board fails. */
typedef struct {
    uint32_t n_pairs, clubs;
    uint32_t *played; /* [pair * clubs + club] */
    uint64_t club_rows;
    uint32_t regionals, nationals, congress_fields_off_saturday;
} club_view;

static club_view view_clubs(const char *path, uint32_t clubs)
{
    opened o = open_archive(path);
    datum_archive *a = o.a;
    const datum_archive_info info = o.info;
    datum_chunk_reader *r = NULL;
    datum_chunk c;
    club_view v = {0};
    v.n_pairs = info.n_pairs, v.clubs = clubs;
    v.played = calloc((size_t)info.n_pairs * clubs, sizeof *v.played);
    int32_t *club_of = calloc(info.n_events, sizeof *club_of); /* -1: not a club session */
    char *congress = calloc(info.n_events, 1);
    uint32_t *last_event = malloc(info.n_pairs * sizeof *last_event);
    uint64_t *last_field = malloc(info.n_pairs * sizeof *last_field);
    assert_true(v.played && club_of && congress && last_event && last_field);
    memset(last_event, 0xff, info.n_pairs * sizeof *last_event);
    memset(last_field, 0xff, info.n_pairs * sizeof *last_field);
    for (uint32_t e = 0; e < info.n_events; e++) {
        const char *name = datum_archive_event(a, e);
        club_of[e] = strncmp(name, "Club ", 5) == 0 ? atoi(name + 5) - 1 : -1;
        assert_true(club_of[e] < (int32_t)clubs);
        v.regionals += congress[e] = strncmp(name, "Regional ", 9) == 0;
        if (strncmp(name, "National ", 9) == 0) v.nationals++, congress[e] = 1;
    }
    assert_int_equal(datum_chunk_reader_create(o.ctx, a, DATUM_COL_ALL, 1 << 16, &r), DATUM_OK);
    while (datum_chunk_reader_next(r, &c) == DATUM_OK && c.n_fields) {
        for (uint64_t f = 0; f < c.n_fields; f++) {
            uint32_t e = c.field_event[f];
            uint64_t field = c.first_field + f;
            if (congress[e] && ((c.field_date[f] + 4) % 7 + 7) % 7 != 6) /* day 0: a Thursday */
                v.congress_fields_off_saturday++;
            for (uint64_t i = c.offset[f]; i < c.offset[f + 1]; i++) {
                const int32_t seat[2] = {c.ns_pair[i], c.ew_pair[i]};
                for (int k = 0; k < 2; k++) {
                    uint32_t p = (uint32_t)seat[k];
                    if (last_field[p] == field)
                        fail_msg("pair %s twice on one board of %s", datum_archive_pair(a, p),
                                 datum_archive_event(a, e));
                    last_field[p] = field;
                    if (club_of[e] >= 0 && last_event[p] != e)
                        v.played[(size_t)p * clubs + (uint32_t)club_of[e]]++;
                    last_event[p] = e;
                }
                v.club_rows += club_of[e] >= 0;
            }
        }
    }
    datum_chunk_reader_free(&r);
    close_archive(&o);
    free(club_of);
    free(congress);
    free(last_event);
    free(last_field);
    return v;
}

/* The documented regions: of 10 clubs, in club order. */
static uint32_t region_of(uint32_t club, uint32_t clubs)
{
    uint32_t regions = (clubs + 9) / 10;
    return (uint32_t)((uint64_t)club * regions / clubs);
}

/* A pair's home club as the archive shows it: where it played most. */
static uint32_t home_club(const club_view *v, uint32_t p)
{
    const uint32_t *n = v->played + (size_t)p * v->clubs;
    uint32_t best = 0;
    for (uint32_t c = 1; c < v->clubs; c++)
        if (n[c] > n[best]) best = c;
    return best;
}

/* |measured - expected| within 4 standard deviations of a share measured on
 * n independent draws, plus `bias` for what the measure cannot see. */
static void assert_share(const char *what, double measured, double expected, double n, double bias)
{
    double tolerance = 4 * sqrt(expected * (1 - expected) / n) + bias;
    printf("# %s: %.4f (expected %.4f +- %.4f, %.0f draws)\n", what, measured, expected, tolerance,
           n);
    if (fabs(measured - expected) > tolerance)
        fail_msg("%s: %.4f, expected %.4f +- %.4f", what, measured, expected, tolerance);
}

/* 20 clubs (2 regions) for a year, 2 sessions a week of 4 boards. */
static datum_generate_options two_regions(const char *mixing)
{
    datum_generate_options o;
    assert_int_equal(datum_generate_preset(&o, "small"), DATUM_OK);
    assert_int_equal(datum_generate_mixing(&o, mixing), DATUM_OK);
    o.seed = 11, o.clubs = 20, o.years = 1, o.sessions_per_week = 2, o.boards = 4;
    return o;
}

static void test_visitors(void **state)
{
    datum_generate_options o = two_regions("low");
    o.visitors_region = 0.2, o.visitors_nation = 0.05, o.regionals = 5, o.nationals = 3;
    generate_with("visitors.h5", 2, &o);
    club_view v = view_clubs("visitors.h5", 20);
    /* Each seat of a club session: a visitor of another club of the region
     * with probability 0.2, of the other region with 0.05. A pair is a
     * visitor where it is not at home (where it plays most). */
    double seats = 0, other_club = 0, other_region = 0;
    for (uint32_t p = 0; p < v.n_pairs; p++) {
        uint32_t home = home_club(&v, p);
        for (uint32_t c = 0; c < v.clubs; c++) {
            uint32_t n = v.played[(size_t)p * v.clubs + c];
            seats += n;
            other_club += c != home ? n : 0;
            other_region += region_of(c, 20) != region_of(home, 20) ? n : 0;
        }
    }
    /* bias: a pair whose visits outnumber its home sessions is misread
     * (none expected at these shares: 0.005 allowed) */
    assert_share("club-session pairs from another club", other_club / seats, 0.25, seats, 0.005);
    assert_share("club-session pairs from the other region", other_region / seats, 0.05, seats,
                 0.005);
    /* Congress weekends: 5 regionals a year in each of 2 regions, 3
     * nationals; two sessions each, on Saturdays. */
    assert_int_equal(v.regionals, 2 * 5 * 2);
    assert_int_equal(v.nationals, 3 * 2);
    assert_int_equal(v.congress_fields_off_saturday, 0);
    free(v.played);
}

/* Per pair: the clubs where it played at least `least` club sessions, and
 * the number of its club sessions (*total); fails if a pair plays in clubs
 * of two regions. */
static uint32_t clubs_played(const club_view *v, uint32_t p, uint32_t least, uint32_t *total)
{
    const uint32_t *n = v->played + (size_t)p * v->clubs;
    uint32_t clubs = 0, region = UINT32_MAX;
    *total = 0;
    for (uint32_t c = 0; c < v->clubs; c++) {
        if (n[c] == 0) continue;
        *total += n[c];
        clubs += n[c] >= least;
        if (region != UINT32_MAX && region_of(c, v->clubs) != region)
            fail_msg("pair %u plays in two regions without visitors", p);
        region = region_of(c, v->clubs);
    }
    return clubs;
}

static void test_multi_club(void **state)
{
    /* Low mixing: every pair plays its club sessions in one club. */
    datum_generate_options o = two_regions("low");
    generate_with("low.h5", 2, &o);
    club_view v = view_clubs("low.h5", 20);
    uint32_t total;
    for (uint32_t p = 0; p < v.n_pairs; p++)
        if (clubs_played(&v, p, 1, &total) > 1) fail_msg("pair %u plays in two clubs", p);
    free(v.played);
    /* Half the partnerships members of 1 or 2 more clubs of their region (as
     * many of each): they play in 2 clubs or 3 clubs; a member plays there
     * as often as the club's own (about 30 sessions a year), so 2 sessions
     * show a membership. Every pair counts: no selection by activity, which
     * would favour the members of several clubs (they play more). */
    o.multi_club = 0.5;
    generate_with("multi.h5", 2, &o);
    v = view_clubs("multi.h5", 20);
    double pairs = 0, two_or_more = 0, three = 0;
    for (uint32_t p = 0; p < v.n_pairs; p++) {
        uint32_t clubs = clubs_played(&v, p, 2, &total);
        pairs++;
        two_or_more += clubs >= 2;
        three += clubs == 3;
    }
    assert_share("pairs in 2 clubs or more", two_or_more / pairs, 0.5, pairs, 0.01);
    assert_share("pairs in 3 clubs", three / pairs, 0.25, pairs, 0.01);
    free(v.played);
}

static void test_attendance_turnover(void **state)
{
    /* Attendance is the share of the club's partnerships at a session: 0.6
     * seats three times as many pairs as 0.2 (every board is played at every
     * table of a session, so rows follow tables). Apart from rounding and
     * the 2-table least session: 10%. */
    datum_generate_options o = two_regions("low");
    o.attendance = 0.2;
    generate_with("few.h5", 2, &o);
    club_view few = view_clubs("few.h5", 20);
    o.attendance = 0.6;
    generate_with("many.h5", 2, &o);
    club_view many = view_clubs("many.h5", 20);
    double ratio = (double)many.club_rows / (double)few.club_rows;
    printf("# club-session rows, attendance 0.6 / 0.2: %.3f\n", ratio);
    assert_true(ratio > 3 * 0.9 && ratio < 3 * 1.1);
    /* Turnover: partnerships of the first year (few.n_pairs, the same for
     * any turnover); with nobody leaving and every partnership kept, later
     * years add only the second partnerships that end (a few percent);
     * keeping a partnership with probability 0.5 and players leaving at
     * 0.3 adds at least half as many partnerships each year. */
    o.attendance = 0.44, o.years = 3, o.leave_rate = 0, o.partnership_keep = 1;
    generate_with("stay.h5", 2, &o);
    club_view stay = view_clubs("stay.h5", 20);
    o.leave_rate = 0.3, o.partnership_keep = 0.5;
    generate_with("churn.h5", 2, &o);
    club_view churn = view_clubs("churn.h5", 20);
    printf("# partnerships over 3 years / the first year's: stable %.3f, churning %.3f\n",
           (double)stay.n_pairs / few.n_pairs, (double)churn.n_pairs / few.n_pairs);
    assert_true(stay.n_pairs < 1.25 * few.n_pairs);
    assert_true(churn.n_pairs > 2.0 * few.n_pairs);
    free(few.played);
    free(many.played);
    free(stay.played);
    free(churn.played);
}

/* A federation of one club for one year, with each allocation of the
 * generator refused in turn (alloc_loop.h): out of memory every time, and
 * no archive (nor any temporary file) left in the folder. */
static int generate_tiny(datum_ctx *ctx, void *user)
{
    datum_generate_options o;
    datum_generate_summary *sum = user;
    if (datum_generate_preset(&o, "small") != DATUM_OK) return DATUM_E_ARG;
    o.seed = 7, o.clubs = 1, o.years = 1, o.sessions_per_week = 1, o.boards = 2;
    return datum_generate(ctx, &o, "tiny.h5", NULL, sum);
}

static void test_out_of_memory(void **state)
{
    datum_generate_summary sum = {0};
    alloc_loop_run(generate_tiny, &sum, 2, ".");
    assert_true(sum.results > 0);
    assert_true(tu_exists("tiny.h5"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bridge_score),
        tu_temp_dir_test(test_determinism),
        tu_temp_dir_test(test_small_structure),
        tu_temp_dir_test(test_visitors),
        tu_temp_dir_test(test_multi_club),
        tu_temp_dir_test(test_attendance_turnover),
        tu_temp_dir_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
