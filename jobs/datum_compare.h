/*
 * datum_compare.h - comparing scoring methods over an archive (`datum
 * compare`, issue 15): every per-board method in one pass of the job layer
 * (datum_pass_*), the compensated Butler ratings as their own solve, the
 * rankings they give per event (or year, or the whole archive), and the
 * statistics between them: Spearman and Kendall tau-b, winner and podium
 * changes, top-k overlap, rank changes, mean absolute difference per board,
 * correlation with the true strengths of a generated archive, and the
 * continuity of each method when one result changes (seed 003). The
 * definitions are in docs/methods.md, "Comparing methods".
 *
 * Conventions are datum.h's: DATUM_OK or a negative DATUM_E_* recorded in the
 * context with a message; objects made through **out, freed by a function
 * that accepts NULL. Every figure is bit-identical for any thread count.
 */
#ifndef DATUM_COMPARE_H
#define DATUM_COMPARE_H

#include "datum.h"
#include "datum_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Rank statistics (jobs/compare_stats.c): pure, no allocation              */

/* Bytes of workspace the two functions below need for n values. */
size_t datum_rank_work_size(size_t n);

/* Spearman's rho of x[0..n) and y[0..n): the Pearson correlation of their
 * ranks, tied values sharing the mean of the ranks they span. NaN when n < 2
 * or either side has every value equal. Values must not be NaN (not
 * checked). work: datum_rank_work_size(n) bytes, 8-byte aligned. */
double datum_spearman(size_t n, const double *x, const double *y, void *work);

/* Kendall's tau-b of x and y: (concordant - discordant) /
 * sqrt((n0 - n1)(n0 - n2)), n0 = n(n-1)/2, n1 and n2 the pairs tied in x
 * and in y. NaN when n < 2 or a side has every value equal. O(n^2) for
 * n <= 64, Knight's O(n log n) merge-sort count above. Values must not be
 * NaN. work: datum_rank_work_size(n) bytes, 8-byte aligned. */
double datum_kendall_tau_b(size_t n, const double *x, const double *y, void *work);

/* ------------------------------------------------------------------------ */
/* A comparison                                                             */

typedef enum {
    DATUM_COMPARE_BUTLER = 0,      /* Butler against m.rule's datum */
    DATUM_COMPARE_CROSS = 1,       /* cross-IMPs, m.cross_divisor */
    DATUM_COMPARE_BARKING = 2,     /* barking cross-IMPs (wbf only) */
    DATUM_COMPARE_MATCHPOINTS = 3, /* matchpoints, mp */
    DATUM_COMPARE_RATE = 4         /* compensated Butler ratings of m (no per-board figure) */
} datum_compare_kind;

typedef struct {
    datum_compare_kind kind;
    datum_method m;     /* all but matchpoints */
    datum_mp_method mp; /* matchpoints */
    char name[64];      /* its label in every table (the spec as given, cut) */
} datum_compare_method;

#define DATUM_COMPARE_MAX_METHODS 16

typedef enum {
    DATUM_COMPARE_BY_EVENT = 0, /* one ranking per event */
    DATUM_COMPARE_BY_YEAR = 1,  /* per calendar year of the events' dates */
    DATUM_COMPARE_BY_ALL = 2    /* one ranking of the whole archive */
} datum_compare_by;

typedef struct {
    datum_compare_by by;
    int top_k;           /* the top-k overlap's k, >= 1 (10) */
    uint64_t sample;     /* continuity: board fields perturbed, about (0: none; 10000) */
    uint64_t seed;       /* of the sample (1) */
    size_t chunk_rows;   /* rows read per chunk (0: the pass's 2^20) */
    const char *groups_csv; /* one row per group and pair of methods (NULL: none) */
} datum_compare_options;

#define DATUM_COMPARE_OPTIONS_INIT {DATUM_COMPARE_BY_EVENT, 10, 10000, 1, 0, NULL}

/* Bins of |rank under A - rank under B|: 0, 1, 2, 3, 4-5, 6-10, 11-20, 21+. */
#define DATUM_COMPARE_RANK_BINS 8

/* Two methods a < b, over the groups. Means are over the groups where the
 * statistic is defined, each group counting once. */
typedef struct {
    int a, b;
    uint64_t groups;                   /* groups with >= 2 pairs ranked by both */
    double spearman, kendall;          /* means; NaN when no group defines them */
    uint64_t spearman_groups, kendall_groups;
    uint64_t winner_changes;           /* of `groups`: the first pair differs */
    uint64_t podium_groups, podium_changes; /* groups with >= 4 pairs; the top 3 differ as sets */
    uint64_t topk_groups;              /* groups with more than k pairs */
    double topk_overlap;               /* mean share of the top k in both top k's */
    uint64_t rank_changes[DATUM_COMPARE_RANK_BINS]; /* pairs by |rank a - rank b| */
    double mean_abs_diff;              /* per result scored by both, same unit; else NaN */
    uint64_t diff_results;
} datum_compare_pair;

/* A method against the true strengths, over the groups. */
typedef struct {
    uint64_t groups;
    double spearman, kendall; /* means over the groups that define them */
} datum_compare_truth;

/* The perturbations of continuity. */
typedef enum {
    DATUM_PERTURB_TEN = 0,      /* North-South's score + 10 */
    DATUM_PERTURB_TRICK = 1,    /* one more trick for declarer (datum_bridge_one_more_trick) */
    DATUM_PERTURB_ADJUSTED = 2, /* the result becomes an adjusted A (average both ways) */
    DATUM_PERTURB_KINDS = 3
} datum_perturbation;

/* One method under one kind of perturbation, over the sample. "Others" are
 * the pairs of the perturbed result's event other than its two pairs. */
typedef struct {
    uint64_t made;        /* perturbations made */
    uint64_t skipped;     /* sampled results this kind does not apply to (no reading as a
                             contract: datum_bridge_one_more_trick) */
    uint64_t others;      /* other pairs looked at, summed over the perturbations */
    uint64_t moved;       /* of them, whose event total changed */
    double mean_move;     /* mean |change of an other pair's event total| (the method's unit) */
    double max_move;      /* the largest */
    uint64_t rank_perturbations; /* perturbations after which some other pair's rank changed */
    uint64_t rank_changes;       /* other pairs whose rank changed, summed */
    uint64_t gain_more;   /* perturbations after which an other pair's total moved more than
                             the total of the North-South pair whose result changed */
} datum_compare_continuity;

/* Per method, its own figures. */
typedef struct {
    uint64_t results;     /* North-South figures (results scored) */
    double mean_abs;      /* mean |figure| per result, in its unit */
    const char *unit;     /* "IMPs", "% of top", "rating" */
} datum_compare_figures;

typedef struct {
    size_t n_methods;
    const datum_compare_method *methods;
    datum_compare_by by;
    int top_k;
    uint64_t groups;                          /* groups with a pair ranked */
    uint64_t group_pairs;                     /* pairs ranked, summed over the groups */
    const datum_compare_pair *pairs;          /* n(n-1)/2: (0,1), (0,2), ..., (1,2), ... */
    const datum_compare_figures *figures;     /* n_methods */
    int has_truth;
    const datum_compare_truth *truth;         /* n_methods (has_truth) */
    uint64_t sample, seed;                    /* asked for */
    uint64_t sampled_fields;                  /* fields perturbed */
    const datum_compare_continuity *continuity; /* n_methods x DATUM_PERTURB_KINDS (rate: none) */
    int rate_status;                          /* datum_rate_solve's (DATUM_OK, a warning) */
    double seconds_pass, seconds_rate, seconds_stats;
    uint64_t results, events;                 /* of the archive */
} datum_compare_summary;

typedef struct datum_compare datum_compare;

/* Starts a comparison over the archive at archive_path. opt NULL: the
 * defaults. Returns DATUM_OK and *out (freed with datum_compare_free);
 * DATUM_E_ARG (NULL argument, top_k < 1, a `by` out of range); the errors
 * of datum_pass_create (DATUM_E_IO, DATUM_E_FORMAT); DATUM_E_NOMEM. The
 * context must outlive the comparison; opt's strings are borrowed until
 * datum_compare_run returns. */
int datum_compare_create(datum_ctx *ctx, const char *archive_path,
                         const datum_compare_options *opt, datum_compare **out);

/* Adds a method (copied). Returns DATUM_OK; DATUM_E_ARG (NULL, more than
 * DATUM_COMPARE_MAX_METHODS, after the run, a method the pass refuses:
 * barking off the wbf scale, an invalid rule; rate twice); DATUM_E_NOMEM. */
int datum_compare_add(datum_compare *c, const datum_compare_method *m);

/* Runs the comparison: the ratings first when a rate method was added
 * (their own read and solve, datum_rate_solve with its default options),
 * then one pass with every per-board method, the rankings per group and the
 * statistics, the continuity sample, the groups CSV. Returns DATUM_OK;
 * DATUM_E_ARG (fewer than 2 methods, run twice); the errors of the pass,
 * of the solve, of the CSV; DATUM_E_NOMEM. On failure nothing is written. */
int datum_compare_run(datum_compare *c);

/* After a successful run: the figures, owned by c. DATUM_OK, or DATUM_E_ARG. */
int datum_compare_get(const datum_compare *c, datum_compare_summary *out);

/* After a successful run: writes dir/pairs.csv, rank_changes.csv,
 * methods.csv, truth.csv (with the truth), continuity.csv and dir/index.html,
 * the report: a self-contained page (inline CSS, SVG figures written here)
 * with every table, the heat maps of rank correlations, the rank changes,
 * continuity, accuracy against the truth, the Scheveningen field of seed
 * 003, and `machine` and `command_line` as given (NULL: not shown). dir is
 * created if missing; each file is written under a temporary name and
 * renamed, index.html last. Returns DATUM_OK; DATUM_E_ARG (not run);
 * DATUM_E_IO "cannot write DIR/FILE: REASON"; DATUM_E_NOMEM. */
int datum_compare_write_report(datum_compare *c, const char *dir, const char *command_line,
                               const char *machine);

/* Frees *c and sets it to NULL; accepts NULL and *c == NULL. */
void datum_compare_free(datum_compare **c);

#ifdef __cplusplus
}
#endif
#endif /* DATUM_COMPARE_H */
