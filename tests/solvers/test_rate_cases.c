/* test_rate_cases.c - compensated Butler ratings on cases solved by hand, the
 * degenerate null spaces of methods.md §6, seed 000's last paragraph, and
 * the error paths. Every case runs on the dense path and, with dense_max = 0,
 * on both sparse paths (structure + CHOLMOD, structure + PCG). */
#include "rate_test_util.h"

#include <math.h>
#include <string.h>

enum { PATH_DENSE, PATH_DIRECT, PATH_ITERATIVE, PATH_JACOBI, N_PATHS };
static const char *const kPath[] = {"dense", "direct", "iterative", "jacobi"};

static datum_rate_options path_options(int path)
{
    datum_rate_options o = DATUM_RATE_OPTIONS_INIT;
    if (path != PATH_DENSE) o.dense_max = 0;
    o.solver = path == PATH_DIRECT ? DATUM_RATE_DIRECT : path == PATH_DENSE ? DATUM_RATE_AUTO
                                                                            : DATUM_RATE_ITERATIVE;
    if (path == PATH_ITERATIVE) o.block_size = 4;
    if (path == PATH_JACOBI) o.block_size = 1;
    return o;
}

static void expect_ratings(const datum_rate_result *r, const double *want, double tol, const char *what)
{
    for (uint32_t j = 0; j < r->n_pairs; j++) {
        if (isnan(want[j])) {
            if (!isnan(r->rating[j])) fail_msg("%s: pair %u rated %g, expected none", what, j, r->rating[j]);
            continue;
        }
        if (!(fabs(r->rating[j] - want[j]) <= tol))
            fail_msg("%s: pair %u rated %.17g, expected %.17g", what, j, r->rating[j], want[j]);
    }
}

/* One field of two tables: N1-E1 420, N2-E2 -50. The datum is 185, so N1 and
 * E2 win imp(235) = 6, E1 and N2 lose 6. A = u u' with u = (1,-1,-1,1) on
 * (N1,E1,N2,E2), r = 6u: the minimum-norm solution is A^+ r = 6u/4. */
static void test_two_tables_by_hand(void **state)
{
    tarch a;
    tarch_init(&a, 4);
    tarch_field(&a, 19000);
    tarch_row(&a, 0, 1, 420, 0);
    tarch_row(&a, 2, 3, -50, 0);
    const double want[] = {1.5, -1.5, -1.5, 1.5}, raw[] = {6, -6, -6, 6};
    for (int path = 0; path < N_PATHS; path++) {
        datum_rate_options o = path_options(path);
        datum_rate_result *r = rate_run(&a, NULL, &o, 1, DATUM_OK);
        expect_ratings(r, want, 1e-12, kPath[path]);
        for (int j = 0; j < 4; j++) {
            assert_float_equal(r->butler_per_board[j], raw[j], 0);
            assert_float_equal(r->boards[j], 1, 0);
            assert_int_equal(r->component[j], 0);
        }
        assert_int_equal(r->stats.null_total, 3); /* an isolated 2-table match */
        /* its group's offset fixed, each table's two pairs are equal: certified */
        assert_int_equal(r->stats.null_complete, 1);
        assert_int_equal(r->stats.certified_components, path == PATH_DENSE ? 0 : 1);
        assert_int_equal(r->stats.components, 1);
        assert_true(r->stats.residual < 1e-12 && r->stats.least_residual < 1e-12);
        datum_rate_result_free(&r);
        assert_null(r);
    }
    tarch_free(&a);
}

/* One field of three tables, scores 100, 100, -200: datum 0, NS IMPs 3, 3,
 * -5. NS IMPs do not sum to 0: A v = r is inconsistent. With d = table
 * differences, the solution is v(NS_t) = -v(EW_t) = y_t, y = centred bb /
 * (2 c), c = L/(L-1) = 3/2: y = (8/9, 8/9, -16/9). The residual is the least
 * possible, |(1/3)(1,1,1) on both sides| = sqrt(6)/3. */
static void test_three_tables_inconsistent_by_hand(void **state)
{
    tarch a;
    tarch_init(&a, 6);
    tarch_field(&a, 19000);
    tarch_row(&a, 0, 1, 100, 0);
    tarch_row(&a, 2, 3, 100, 0);
    tarch_row(&a, 4, 5, -200, 0);
    const double want[] = {8.0 / 9, -8.0 / 9, 8.0 / 9, -8.0 / 9, -16.0 / 9, 16.0 / 9};
    for (int path = 0; path < N_PATHS; path++) {
        datum_rate_options o = path_options(path);
        datum_rate_result *r = rate_run(&a, NULL, &o, 1, DATUM_OK);
        expect_ratings(r, want, 1e-12, kPath[path]);
        assert_int_equal(r->stats.null_total, 4); /* 3 opponent components + 1 group */
        assert_int_equal(r->stats.null_complete, 1);
        assert_int_equal(r->stats.certified_components, path == PATH_DENSE ? 0 : 1);
        assert_float_equal(r->stats.residual, sqrt(6) / 3, 1e-12);
        assert_float_equal(r->stats.least_residual, sqrt(6) / 3, 1e-12);
        assert_true(r->stats.range_residual < 1e-12);
        datum_rate_result_free(&r);
    }
    tarch_free(&a);
}

/* Solves on every path; checks the null dimension, the agreement with the
 * reference, (sparse paths) the split structural / numerical and whether the
 * structure certifies the null space of every component (certified: 1) or
 * leaves some to the numerical search (0). A certified null space is the
 * structural one, of the reference's dimension, and the iterative paths then
 * say search_complete without a numerical null direction. */
static void check_all_paths(const tarch *a, uint32_t null_dim, uint32_t numeric, int certified)
{
    double *ref = malloc(a->n_pairs * sizeof *ref);
    reference_info info;
    reference_solve(a, NULL, 0, ref, NULL, &info);
    assert_int_equal(info.null_dim, (int)null_dim);
    for (int path = 0; path < N_PATHS; path++) {
        datum_rate_options o = path_options(path);
        datum_rate_result *r = rate_run(a, NULL, &o, 1, DATUM_OK);
        if (r->stats.null_total != null_dim)
            fail_msg("%s: null dimension %u, expected %u", kPath[path], r->stats.null_total, null_dim);
        if (path == PATH_DENSE) {
            assert_int_equal(r->stats.null_dense, null_dim);
        } else if (path == PATH_DIRECT) {
            assert_int_equal(r->stats.null_numeric, numeric);
            assert_int_equal(r->stats.null_structural, null_dim - numeric);
        }
        if (certified < 0 && path != PATH_DENSE) /* either: what it says must hold */
            certified = r->stats.searched_components == 0;
        if (path != PATH_DENSE) {
            if ((r->stats.searched_components == 0) != certified)
                fail_msg("%s: %u components searched numerically, expected %s", kPath[path],
                         r->stats.searched_components, certified ? "none" : "some");
            assert_int_equal(r->stats.null_complete, path == PATH_DIRECT || certified);
            for (uint32_t c = 0; c < r->n_components; c++) {
                int how = r->component_null[c];
                assert_true(how == DATUM_RATE_NULL_STRUCTURE ||
                            how == (path == PATH_DIRECT ? DATUM_RATE_NULL_FACTOR : DATUM_RATE_NULL_SEARCH));
            }
            if (certified) {
                assert_int_equal(r->stats.null_structural, null_dim);
                assert_int_equal(r->stats.null_numeric, 0);
                assert_int_equal(r->stats.certified_components, r->stats.components);
                assert_int_equal(r->stats.certified_pairs, r->stats.pairs);
            }
        } else {
            assert_int_equal(r->stats.certified_components + r->stats.searched_components, 0);
            assert_int_equal(r->component_null[0], DATUM_RATE_NULL_DENSE);
        }
        double d = max_diff(a->n_pairs, r->rating, ref);
        if (!(d < 1e-9)) fail_msg("%s: differs from the reference by %g", kPath[path], d);
        datum_rate_result_free(&r);
    }
    free(ref);
}

/* An isolated teams-of-eight evening: 8 tables, each pair facing one opponent
 * all evening in a fixed direction: 8 indicators + 1 group = 9. */
static void test_teams_of_eight_evening(void **state)
{
    test_rng rng = test_rng_seeded("teams_of_eight", 8);
    tarch a;
    tarch_init(&a, 16);
    int32_t ns[8], ew[8];
    for (int t = 0; t < 8; t++) ns[t] = 2 * t, ew[t] = 2 * t + 1;
    tarch_event(&a, &rng, 19000, 1, 8, 6, ns, ew, NULL);
    check_all_paths(&a, 9, 0, 1);
    tarch_free(&a);
}

/* A Mitchell: NS stay, EW move; one component that never changes
 * direction: its indicator and its +1/-1 split, 2. */
static void test_mitchell(void **state)
{
    test_rng rng = test_rng_seeded("mitchell", 5);
    tarch a;
    tarch_init(&a, 10);
    int32_t ns[5 * 5], ew[5 * 5];
    for (int k = 0; k < 5; k++)
        for (int t = 0; t < 5; t++) ns[k * 5 + t] = t, ew[k * 5 + t] = 5 + (t + k) % 5;
    tarch_event(&a, &rng, 19000, 5, 5, 2, ns, ew, NULL);
    check_all_paths(&a, 2, 0, 0);
    /* The minimum-norm solution: each direction's board-weighted mean is 0. */
    datum_rate_result *r = rate_run(&a, NULL, NULL, 1, DATUM_OK);
    double sum_ns = 0, sum_ew = 0;
    for (int j = 0; j < 5; j++) sum_ns += r->boards[j] * r->rating[j];
    for (int j = 5; j < 10; j++) sum_ew += r->boards[j] * r->rating[j];
    assert_true(fabs(sum_ns) < 1e-12 && fabs(sum_ew) < 1e-12);
    assert_true(r->stats.least_residual > 0); /* NS IMPs need not sum to 0 */
    datum_rate_result_free(&r);
    tarch_free(&a);
}

/* 8 pairs, 4 tables, a fresh seating and fresh directions every round. */
static void add_howell(tarch *a, test_rng *rng, int32_t first, int32_t date)
{
    int32_t ns[6 * 4], ew[6 * 4];
    int32_t order[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    for (int k = 0; k < 6; k++) {
        for (int i = 7; i > 0; i--) {
            int s = (int)test_rng_range(rng, 0, i);
            int32_t x = order[i];
            order[i] = order[s];
            order[s] = x;
        }
        for (int t = 0; t < 4; t++) {
            int flip = (k + t) % 2;
            ns[k * 4 + t] = first + order[2 * t + flip];
            ew[k * 4 + t] = first + order[2 * t + 1 - flip];
        }
    }
    tarch_event(a, rng, date, 6, 4, 2, ns, ew, NULL);
}

/* A well-mixed Howell: only the constant, 1. */
static void test_howell(void **state)
{
    test_rng rng = test_rng_seeded("howell", 11);
    tarch a;
    tarch_init(&a, 8);
    add_howell(&a, &rng, 0, 19000);
    check_all_paths(&a, 1, 0, -1); /* certified or not: the seating is random */
    tarch_free(&a);
}

/* A 2-table match hanging off a Howell: X (a Howell pair) against Y, who
 * plays nowhere else, and Z against U. Indicators: the Howell with Y, and
 * {Z, U}; the group {Z, U} shares its fields with a mixed component, so no
 * structural group; and one more null direction, e_Y - s_{ZU}/2, that only
 * the numbers find (a zero pivot on the sparse paths): 3. */
static void test_hanging_match(void **state)
{
    test_rng rng = test_rng_seeded("hanging", 12);
    tarch a;
    tarch_init(&a, 11);
    add_howell(&a, &rng, 0, 19000);
    int32_t ns[2] = {0, 9}, ew[2] = {8, 10};
    tarch_event(&a, &rng, 19001, 1, 2, 3, ns, ew, NULL);
    check_all_paths(&a, 3, 1, 0);
    tarch_free(&a);
}

/* Fields given as tables: layout k seats ns[k][t] against ew[k][t], t <
 * tables, one board each (scores 10 x (pair numbers), any will do). */
static void add_layouts(tarch *a, int layouts, int tables, const int32_t *ns, const int32_t *ew)
{
    for (int k = 0; k < layouts; k++) {
        tarch_field(a, 19000 + k);
        for (int t = 0; t < tables; t++)
            tarch_row(a, ns[k * tables + t], ew[k * tables + t],
                      10 * (7 * ns[k * tables + t] - 3 * ew[k * tables + t] + k), 0);
    }
}

/* A fixed-direction component the structure decides: NS pairs 0, 1, 2 and EW
 * pairs 3, 4, 5 in three layouts X = {0-3, 1-4, 2-5}, Y = {0-4, 1-5, 2-3},
 * Z = {0-3, 1-5, 2-4}. By hand: a null vector u less the group vector that
 * makes c_X = 0 has u0 = u3, u1 = u4, u2 = u5 (X); Z's table 0-3 then has a
 * difference 0, so c_Z = 0: u1 = u5 and u2 = u4; Y's table 1-5 now has
 * difference 0, so c_Y = 0 and u0 = u4: u is constant. Null space: the
 * indicator and the group, 2, certified. */
static void test_group_certified(void **state)
{
    tarch a;
    tarch_init(&a, 6);
    const int32_t ns[] = {0, 1, 2, 0, 1, 2, 0, 1, 2}, ew[] = {3, 4, 5, 4, 5, 3, 3, 5, 4};
    add_layouts(&a, 3, 3, ns, ew);
    check_all_paths(&a, 2, 0, 1);
    tarch_free(&a);
}

/* Pairs in both directions, connected: L1 = {0-1, 2-3}, L2 = {1-0, 2-3},
 * L3 = {0-2, 1-3}, L4 = {2-0, 1-3}. By hand: 0 and 1 meet both ways in L1
 * and L2, so c1 = -c2; 2 and 3 the same way, so c1 = c2: c1 = c2 = 0 and
 * u0 = u1, u2 = u3. Likewise L3 and L4 (0-2 both ways, 1-3 the same way):
 * c3 = c4 = 0, u0 = u2: only the constant, 1, certified. */
static void test_both_directions_certified(void **state)
{
    tarch a;
    tarch_init(&a, 4);
    const int32_t ns[] = {0, 2, 1, 2, 0, 1, 2, 1}, ew[] = {1, 3, 0, 3, 2, 3, 0, 3};
    add_layouts(&a, 4, 2, ns, ew);
    check_all_paths(&a, 1, 0, 1);
    tarch_free(&a);
}

/* More layouts than the certificate's first stage reads (solvers/structure.c:
 * rules C and D over the first 1,024 layouts, then four times more): 1,500
 * rounds of one Mitchell (NS 0-4 stay, EW 5-9 move) say nothing about the
 * split of the directions, which is a null vector of them alone; five rounds
 * at the end, where every table but the first turns round, rule it out (the
 * first table's meeting gives c = c' with its Mitchell round, the others
 * c = -c': c = 0). Only the constant, 1, and the certificate must see it
 * although its first stage cannot. */
static void test_certified_after_first_stage(void **state)
{
    enum { MITCHELL = 1500, TURNED = 5, T = 5 };
    tarch a;
    tarch_init(&a, 10);
    static int32_t ns[(MITCHELL + TURNED) * T], ew[(MITCHELL + TURNED) * T];
    for (int k = 0; k < MITCHELL + TURNED; k++)
        for (int t = 0; t < T; t++) {
            int32_t x = t, y = 5 + (t + k) % 5, turned = k >= MITCHELL && t > 0;
            ns[k * T + t] = turned ? y : x;
            ew[k * T + t] = turned ? x : y;
        }
    add_layouts(&a, MITCHELL + TURNED, T, ns, ew);
    check_all_paths(&a, 1, 0, 1);
    tarch_free(&a);
}

/* The same without L4: u = 1 on {0, 1}, 0 on {2, 3} has differences 0 in L1
 * and L2 and 1 at both tables of L3: a null vector beyond the constant, which
 * the structure must not certify away. Null dimension 2 (1 found by the
 * factorisation); the iterative paths say their search is not complete. */
static void test_both_directions_extra(void **state)
{
    tarch a;
    tarch_init(&a, 4);
    const int32_t ns[] = {0, 2, 1, 2, 0, 1}, ew[] = {1, 3, 0, 3, 2, 3};
    add_layouts(&a, 3, 2, ns, ew);
    reference_info info;
    double ref[4];
    reference_solve(&a, NULL, 0, ref, NULL, &info);
    assert_int_equal(info.null_dim, 2);
    for (int path = PATH_DIRECT; path < N_PATHS; path++) {
        datum_rate_options o = path_options(path);
        datum_rate_result *r = rate_run(&a, NULL, &o, 1, RATE_OK_OR_INACCURATE);
        assert_int_equal(r->stats.searched_components, 1);
        assert_int_equal(r->stats.searched_pairs, 4);
        assert_int_equal(r->stats.certified_components, 0);
        assert_int_equal(r->stats.null_complete, path == PATH_DIRECT);
        assert_int_equal(r->component_null[0],
                         path == PATH_DIRECT ? DATUM_RATE_NULL_FACTOR : DATUM_RATE_NULL_SEARCH);
        if (path == PATH_DIRECT) {
            assert_int_equal(r->stats.null_total, 2);
            assert_true(max_diff(4, r->rating, ref) < 1e-9);
        }
        datum_rate_result_free(&r);
    }
    tarch_free(&a);
}

/* Two components: the certified group above (pairs 0-5) and a 5-table
 * Mitchell (pairs 6-15), whose null space is structural too (2) but decided
 * by arithmetic (an odd number of tables), not by the closure: searched.
 * Per component: structure, then the numerical search. */
static void test_components_each_their_way(void **state)
{
    test_rng rng = test_rng_seeded("mixed_components", 7);
    tarch a;
    tarch_init(&a, 16);
    const int32_t gns[] = {0, 1, 2, 0, 1, 2, 0, 1, 2}, gew[] = {3, 4, 5, 4, 5, 3, 3, 5, 4};
    add_layouts(&a, 3, 3, gns, gew);
    int32_t ns[5 * 5], ew[5 * 5];
    for (int k = 0; k < 5; k++)
        for (int t = 0; t < 5; t++) ns[k * 5 + t] = 6 + t, ew[k * 5 + t] = 11 + (t + k) % 5;
    tarch_event(&a, &rng, 19100, 5, 5, 2, ns, ew, NULL);
    check_all_paths(&a, 4, 0, 0);
    for (int path = PATH_DIRECT; path < N_PATHS; path++) {
        datum_rate_options o = path_options(path);
        datum_rate_result *r = rate_run(&a, NULL, &o, 1, DATUM_OK);
        assert_int_equal(r->n_components, 2);
        assert_int_equal(r->component[0], 0);
        assert_int_equal(r->component[6], 1);
        assert_int_equal(r->component_null[0], DATUM_RATE_NULL_STRUCTURE);
        assert_int_equal(r->component_null[1],
                         path == PATH_DIRECT ? DATUM_RATE_NULL_FACTOR : DATUM_RATE_NULL_SEARCH);
        assert_int_equal(r->stats.certified_pairs, 6);
        assert_int_equal(r->stats.searched_pairs, 10);
        datum_rate_result_free(&r);
    }
    tarch_free(&a);
}

/* One-table fields and adjusted rows take no part; rows outside the window
 * neither. */
static void test_skipped_rows(void **state)
{
    tarch a;
    tarch_init(&a, 8);
    tarch_field(&a, 19000); /* one table: skipped */
    tarch_row(&a, 4, 5, 420, 0);
    tarch_field(&a, 19000); /* two tables, one adjusted: skipped */
    tarch_row(&a, 4, 5, 0, 1);
    tarch_row(&a, 6, 7, 100, 0);
    tarch_field(&a, 19000); /* the hand case */
    tarch_row(&a, 0, 1, 420, 0);
    tarch_row(&a, 2, 3, -50, 0);
    tarch_row(&a, 4, 5, 0, 2); /* adjusted: ignored */
    tarch_field(&a, 19500); /* after the as-of date: ignored */
    tarch_row(&a, 0, 7, 420, 0);
    tarch_row(&a, 6, 1, -50, 0);
    datum_rate_window w = {INT32_MIN, 19100, 0};
    datum_rate_result *r = rate_run(&a, &w, NULL, 1, DATUM_OK);
    const double want[] = {1.5, -1.5, -1.5, 1.5, NAN, NAN, NAN, NAN};
    expect_ratings(r, want, 1e-12, "skipped");
    assert_int_equal(r->stats.pairs, 4);
    for (int j = 4; j < 8; j++) {
        assert_int_equal(r->component[j], -1);
        assert_true(isnan(r->butler_per_board[j]));
    }
    datum_rate_result_free(&r);
    tarch_free(&a);
}

/* Seed 000, last paragraph: a pair that only ever sits against the weakest
 * opponents earns a raw Butler well above its strength; the compensated
 * rating takes the opposition into account and comes out clearly lower, near
 * the pair's true strength. 24 pairs of known strength play random 4-table
 * barometer rounds; pair 0 (strength 0) is always seated against the weakest
 * pair of the round. */
static void test_seed_weak_opponents(void **state)
{
    test_rng rng = test_rng_seeded("weak_opponents", 2000);
    enum { P = 24, T = 4 };
    double strength[P];
    strength[0] = 0;
    for (int j = 1; j < P; j++) strength[j] = -3.0 + 6.0 * (j - 1) / (P - 2);
    tarch a;
    tarch_init(&a, P);
    int32_t order[P - 1];
    for (int j = 0; j < P - 1; j++) order[j] = j + 1;
    for (int round = 0; round < 200; round++) {
        for (int i = P - 2; i > 0; i--) {
            int s = (int)test_rng_range(&rng, 0, i);
            int32_t x = order[i];
            order[i] = order[s];
            order[s] = x;
        }
        int32_t ns[T], ew[T], seat[2 * T];
        memcpy(seat + 1, order, (2 * T - 1) * sizeof *seat);
        int weakest = 1;
        for (int i = 2; i < 2 * T; i++)
            if (strength[seat[i]] < strength[seat[weakest]]) weakest = i;
        seat[0] = seat[weakest]; /* pair 0 at the weakest pair's table */
        seat[weakest] = seat[1];
        seat[1] = 0;
        for (int t = 0; t < T; t++) {
            int flip = (int)test_rng_range(&rng, 0, 1);
            ns[t] = seat[2 * t + flip];
            ew[t] = seat[2 * t + 1 - flip];
        }
        tarch_event(&a, &rng, 19000 + round, 1, T, 3, ns, ew, strength);
    }
    datum_rate_result *r = rate_run(&a, NULL, NULL, 1, DATUM_OK);
    double raw = r->butler_per_board[0], v = r->rating[0];
    print_message("# pair 0: raw Butler %.3f, compensated %.3f IMPs per board\n", raw, v);
    assert_true(raw > 2.0);      /* it beats weak opponents */
    assert_true(v < raw - 1.5);  /* clearly below */
    assert_true(fabs(v) < 1.0);  /* and near its true strength, 0, on the field's scale */
    datum_rate_result_free(&r);
    tarch_free(&a);
}

static void test_errors(void **state)
{
    datum_ctx *ctx;
    datum_rate_problem *p = NULL;
    datum_rate_result *r = NULL;
    datum_method m;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    assert_int_equal(datum_method_init(&m, "mean"), DATUM_OK);
    datum_rate_window bad = {20000, 19000, 0};
    assert_int_equal(datum_rate_problem_create(ctx, 4, &bad, &p), DATUM_E_ARG);
    assert_null(p);
    datum_rate_window decay = {INT32_MIN, INT32_MAX, 30};
    assert_int_equal(datum_rate_problem_create(ctx, 4, &decay, &p), DATUM_E_ARG);
    datum_ctx_clear(ctx);
    assert_int_equal(datum_rate_problem_create(ctx, 4, NULL, &p), DATUM_OK);
    /* Nothing added: an empty result and a warning. */
    assert_int_equal(datum_rate_solve(ctx, p, NULL, &r), DATUM_W_EMPTY);
    assert_non_null(r);
    assert_int_equal(r->stats.pairs, 0);
    datum_rate_result_free(&r);
    /* After a solve, no more results. */
    tarch a;
    tarch_init(&a, 4);
    tarch_field(&a, 19000);
    tarch_row(&a, 0, 1, 420, 0);
    tarch_row(&a, 2, 3, -50, 0);
    datum_rate_chunk c = tarch_chunk(&a);
    assert_int_equal(datum_rate_problem_add(ctx, p, &m, &c), DATUM_E_ARG);
    datum_rate_problem_free(&p);
    assert_null(p);
    datum_rate_problem_free(&p); /* accepts NULL */
    /* A pair index out of range. */
    datum_ctx_clear(ctx);
    assert_int_equal(datum_rate_problem_create(ctx, 3, NULL, &p), DATUM_OK);
    assert_int_equal(datum_rate_problem_add(ctx, p, &m, &c), DATUM_E_ARG);
    assert_non_null(strstr(datum_ctx_message(ctx), "of 3 pairs"));
    datum_rate_problem_free(&p);
    /* Bad options. */
    datum_ctx_clear(ctx);
    assert_int_equal(datum_rate_problem_create(ctx, 4, NULL, &p), DATUM_OK);
    assert_int_equal(datum_rate_problem_add(ctx, p, &m, &c), DATUM_OK);
    datum_rate_options o = DATUM_RATE_OPTIONS_INIT;
    o.ridge = -1;
    assert_int_equal(datum_rate_solve(ctx, p, &o, &r), DATUM_E_ARG);
    assert_null(r);
    o = (datum_rate_options)DATUM_RATE_OPTIONS_INIT;
    o.tolerance = 0;
    assert_int_equal(datum_rate_solve(ctx, p, &o, &r), DATUM_E_ARG);
    datum_rate_problem_free(&p);
    datum_rate_result_free(&r); /* accepts NULL */
    tarch_free(&a);
    datum_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_tables_by_hand),
        cmocka_unit_test(test_three_tables_inconsistent_by_hand),
        cmocka_unit_test(test_teams_of_eight_evening),
        cmocka_unit_test(test_mitchell),
        cmocka_unit_test(test_howell),
        cmocka_unit_test(test_hanging_match),
        cmocka_unit_test(test_group_certified),
        cmocka_unit_test(test_both_directions_certified),
        cmocka_unit_test(test_certified_after_first_stage),
        cmocka_unit_test(test_both_directions_extra),
        cmocka_unit_test(test_components_each_their_way),
        cmocka_unit_test(test_skipped_rows),
        cmocka_unit_test(test_seed_weak_opponents),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
