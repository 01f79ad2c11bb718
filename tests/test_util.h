/* test_util.h - shared helpers of the cmocka tests. */
#ifndef DATUM_TEST_UTIL_H
#define DATUM_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

/* Seeded generator (SplitMix64) so that property tests can print and replay
 * their seed. */
typedef struct { uint64_t state; } test_rng;

static inline uint64_t test_rng_next(test_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static inline int64_t test_rng_range(test_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(test_rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Seed from DATUM_TEST_SEED or the default, printed so a failure can be replayed. */
static inline test_rng test_rng_seeded(const char *test, uint64_t fallback)
{
    const char *env = getenv("DATUM_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : fallback;
    printf("# %s: seed %llu (DATUM_TEST_SEED to replay)\n", test, (unsigned long long)seed);
    return (test_rng){seed};
}

/* A bridge-like score: mostly multiples of 10 in typical ranges, with many
 * repeats; sometimes large. */
static inline int32_t test_rng_score(test_rng *r)
{
    static const int32_t common[] = {-1100, -800, -500, -300, -200, -100, -50, 90, 110, 120,
                                     140,  170,  400,  420,  450,  620,  650, 680, 1430, 2210};
    switch (test_rng_range(r, 0, 3)) {
    case 0: return common[test_rng_range(r, 0, 19)];
    case 1: return (int32_t)(10 * test_rng_range(r, -80, 80));
    case 2: return (int32_t)test_rng_range(r, -400, 400);
    default: return (int32_t)(10 * test_rng_range(r, -760, 760));
    }
}

/* A chunk of random fields in the batch drivers' layout (datum_fields). */
typedef struct {
    size_t n_fields, n_rows;
    uint64_t *offset;
    int32_t *score;
    uint8_t *adjusted;
} test_chunk;

/* Field f has big_lo..big_hi rows when f % big_every == 0, else 1..small_hi;
 * a row is adjusted (code 1..max_code) with probability 1/adjusted_one_in. */
typedef struct {
    size_t big_every;
    int64_t big_lo, big_hi, small_hi, adjusted_one_in, max_code;
} test_chunk_shape;

/* Bridge-like scores (test_rng_score); free with test_chunk_free. */
static inline test_chunk test_chunk_random(test_rng *rng, size_t n_fields, test_chunk_shape s)
{
    test_chunk c = {n_fields, 0, (uint64_t *)calloc(n_fields + 1, sizeof(uint64_t)), NULL, NULL};
    for (size_t f = 0; f < n_fields; f++) {
        int64_t n = f % s.big_every == 0 ? test_rng_range(rng, s.big_lo, s.big_hi)
                                         : test_rng_range(rng, 1, s.small_hi);
        c.offset[f + 1] = c.offset[f] + (uint64_t)n;
    }
    c.n_rows = c.offset[n_fields];
    c.score = (int32_t *)malloc(c.n_rows * sizeof *c.score);
    c.adjusted = (uint8_t *)calloc(c.n_rows, 1);
    for (size_t r = 0; r < c.n_rows; r++) {
        c.score[r] = test_rng_score(rng);
        if (test_rng_range(rng, 0, s.adjusted_one_in - 1) == 0)
            c.adjusted[r] = (uint8_t)test_rng_range(rng, 1, s.max_code);
    }
    return c;
}

static inline void test_chunk_free(test_chunk *c)
{
    free(c->offset);
    free(c->score);
    free(c->adjusted);
}

#endif
