/* test_alloc_drivers.c - the batch drivers (Butler, cross-IMP, barking, the
 * teams match, tarot) with each of their allocations refused in turn: every
 * refusal returns DATUM_E_NOMEM "out of memory", recorded, and leaks nothing
 * (alloc_loop.h). Two threads: the workspace is allocated per thread. */
#include "alloc_loop.h"
#include "datum_tarot.h"
#include "test_util.h"

#include <string.h>

enum { THREADS = 2 };

/* Random fields, some of them large, some rows adjusted. */
typedef struct {
    test_chunk chunk;
    datum_fields in;
    datum_method m;
    double *a, *b;
    int32_t *terms32;
    int64_t *terms64;
    int32_t *match, *ns_team, *ew_team;
} fields_job;

static void fields_init(fields_job *j)
{
    test_rng rng = test_rng_seeded("test_alloc_drivers", 11);
    test_chunk_shape shape = {7, 8, 30, 6, 20, 3};
    j->chunk = test_chunk_random(&rng, 60, shape);
    j->in = (datum_fields){j->chunk.n_fields, j->chunk.offset, j->chunk.score, j->chunk.adjusted};
    assert_int_equal(datum_method_init(&j->m, "mean"), DATUM_OK);
    size_t n = j->chunk.n_rows;
    j->a = malloc(n * sizeof *j->a);
    j->b = malloc(n * sizeof *j->b);
    j->terms32 = malloc(n * sizeof *j->terms32);
    j->terms64 = malloc(n * sizeof *j->terms64);
    j->match = malloc(n * sizeof *j->match);
    j->ns_team = malloc(n * sizeof *j->ns_team);
    j->ew_team = malloc(n * sizeof *j->ew_team);
    for (size_t f = 0; f < j->chunk.n_fields; f++) /* matches of two tables, teams 2m and 2m+1 */
        for (uint64_t r = j->chunk.offset[f]; r < j->chunk.offset[f + 1]; r++) {
            int32_t k = (int32_t)(r - j->chunk.offset[f]), match = k / 2;
            j->match[r] = match;
            j->ns_team[r] = 2 * match + k % 2;
            j->ew_team[r] = 2 * match + 1 - k % 2;
        }
}

static void fields_free(fields_job *j)
{
    test_chunk_free(&j->chunk);
    free(j->a); free(j->b); free(j->terms32); free(j->terms64);
    free(j->match); free(j->ns_team); free(j->ew_team);
}

static int butler(datum_ctx *ctx, void *user)
{
    fields_job *j = user;
    return datum_score_fields(ctx, &j->m, &j->in, j->a, j->b, j->b);
}

static int cross(datum_ctx *ctx, void *user)
{
    fields_job *j = user;
    return datum_cross_fields(ctx, &j->m, &j->in, j->a, j->b, j->terms32);
}

static int barking(datum_ctx *ctx, void *user)
{
    fields_job *j = user;
    return datum_barking_fields(ctx, &j->m.scale, &j->in, j->a, j->b, j->terms64);
}

static int match(datum_ctx *ctx, void *user)
{
    fields_job *j = user;
    return datum_match_fields(ctx, &j->m.scale, &j->in, j->match, j->ns_team, j->ew_team, j->a,
                              j->b, NULL);
}

static void test_batch_drivers(void **state)
{
    fields_job j;
    fields_init(&j);
    alloc_loop_scenario drivers[] = {butler, cross, barking, match};
    for (size_t d = 0; d < sizeof drivers / sizeof *drivers; d++)
        alloc_loop_run(drivers[d], &j, THREADS, NULL);
    fields_free(&j);
}

/* Two étuis: 4 attackers against 4 defenses, then 3 of them again. */
typedef struct {
    uint64_t offset[3];
    int32_t score[7], attacker[7], defense[7];
    uint8_t attacker_class[4], defense_class[12];
    datum_tarot_tournament t;
    datum_tarot_standing attack[4], defense_standing[4];
} tarot_job;

static int tarot(datum_ctx *ctx, void *user)
{
    tarot_job *j = user;
    datum_tarot_options opt = DATUM_TAROT_OPTIONS_INIT;
    return datum_tarot_score_tournament(ctx, &opt, &j->t, NULL, NULL, j->attack, j->defense_standing);
}

static void test_tarot_tournament(void **state)
{
    tarot_job j;
    memset(&j, 0, sizeof j);
    static const int32_t score[7] = {120, -40, 60, 300, 80, -20, 10};
    for (int i = 0; i < 7; i++) {
        j.score[i] = score[i];
        j.attacker[i] = i % 4;
        j.defense[i] = (i + 1) % 4;
    }
    j.offset[1] = 4;
    j.offset[2] = 7;
    j.t = (datum_tarot_tournament){2, j.offset, j.score, j.attacker, j.defense, 4, 4,
                                   j.attacker_class, j.defense_class, NULL, NULL};
    alloc_loop_run(tarot, &j, 1, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_drivers),
        cmocka_unit_test(test_tarot_tournament),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
