/*
 * datum_jobs.h - the jobs of the library: scoring methods run over an archive
 * in one pass (chunk reader -> method kernels -> pair totals -> outputs), and
 * the computations around them (cross-IMP raw totals, the stored type of an
 * output column, teams match totals, the comparison with published figures,
 * tarot penalty netting). Usable from C without the `datum` program, which is
 * a thin layer of options and printing over it.
 *
 * A pass reads the archive once and feeds every method added to it:
 *
 *     datum_pass *pass;
 *     int butler, cross;
 *     datum_pass_create(ctx, "club.h5", &pass);
 *     datum_pass_add_butler(pass, &nbb, &butler_outputs, &butler);
 *     datum_pass_add_cross(pass, &mean, &cross_outputs, &cross);
 *     datum_pass_run(pass);
 *     datum_pass_totals(pass, butler, &totals);   (and so on)
 *     datum_pass_free(&pass);
 *
 * Conventions are datum.h's: DATUM_OK or a negative DATUM_E_* recorded in the
 * context with a message. Totals are accumulated in archive order, so every
 * figure and every output file is bit-identical for any thread count.
 * Depends on the public headers of engine/ and io/ only.
 */
#ifndef DATUM_JOBS_H
#define DATUM_JOBS_H

#include "datum.h"
#include "datum_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Per-pair totals and the stored type of output columns (jobs/totals.c)    */

/* Adds the raw sums of cross-IMPs (or barking cross-IMPs) of n_rows rows to
 * per-pair totals, in row order: raw[ns_pair[r]] += ns_raw[r] and
 * raw[ew_pair[r]] -= ns_raw[r] for every row whose ns_raw is not NaN (NaN:
 * the row got no score). Pair indices must be < the length of raw (not
 * checked). Pure; never fails. */
void datum_pairs_accumulate_raw(size_t n_rows, const int32_t *ns_pair, const int32_t *ew_pair,
                                const double *ns_raw, double *raw);

/* Adds the matchpoints of n_fields fields (field f: rows offset[f] ..
 * offset[f+1]-1, offset[0] == 0) to per-pair totals, in row order: per row
 * mp[ns_pair[r]] += ns_mp[r] and mp[ew_pair[r]] += ew_mp[r], both pairs' top
 * += field_top[f] and boards += 1, and ns_boards[ns_pair[r]] += 1 (every row
 * has matchpoints, adjusted ones too). With `threads` > 1, two threads, one
 * for mp and ns_boards, the other for top and boards: the sums are the same
 * for any number. Pair indices must be >= 0 and < the arrays' length (not
 * checked). Pure; never fails. */
void datum_pairs_accumulate_mp(uint64_t n_fields, const uint64_t *offset, const int32_t *ns_pair,
                               const int32_t *ew_pair, const double *ns_mp, const double *ew_mp,
                               const double *field_top, double *mp, double *top,
                               int64_t *boards, int64_t *ns_boards, int threads);

/* The narrowest stored type that holds every Butler IMP of method m exactly:
 * WBF IMPs are integers from -24 to 24 (DATUM_STORE_I8), halves with
 * scale.halved (DATUM_STORE_F32); the adjusted awards must fit too
 * (integers in -128..127 for I8, exact floats for F32). The linear scale
 * gives DATUM_STORE_F64. Pure. */
datum_store_type datum_imps_store_type(const datum_method *m);

/* The narrowest stored type that holds every datum of method m exactly: a
 * rounded datum, or par's, is an integer no larger than a score (at most
 * 10^6 in magnitude), which float32 holds exactly, NaN included
 * (DATUM_STORE_F32); other datums are fractions (DATUM_STORE_F64). Pure. */
datum_store_type datum_datums_store_type(const datum_method *m);

/* ------------------------------------------------------------------------ */
/* The comparison with published figures (jobs/published.c)                 */

/* Figures are published to two decimals: agreeing within half a unit of the
 * last one means the same figure once rounded. */
#define DATUM_PUBLISHED_TOLERANCE 0.005
/* Disagreements kept by default, first in archive order. */
#define DATUM_PUBLISHED_SHOWN 10

/* One line whose North-South figure disagrees with the published one. */
typedef struct {
    uint32_t event, section; /* dictionary indices */
    int32_t board, table;
    double published, computed; /* computed NaN: datum gives the line none */
} datum_published_disagreement;

/* What a comparison found. */
typedef struct {
    datum_published_method own; /* what datum computes */
    double tolerance;
    uint64_t compared, agree;       /* North-South: lines with a published figure */
    uint64_t ew_compared, ew_agree; /* East-West, where published */
    uint64_t by_method[DATUM_PUBLISHED_COUNT]; /* NS lines compared, by published method */
    size_t n_shown;                 /* min(compared - agree, the maximum kept) */
    const datum_published_disagreement *shown; /* n_shown, owned by the comparison */
} datum_published_summary;

typedef struct datum_published datum_published;

/* Starts a comparison of datum's figures of method `own` with those published
 * in archive a (opened from path, which only names it in messages; a stays
 * the caller's and is not used after this call). A figure agrees when
 * |published - computed| <= tolerance (+ 1e-9, so that a value rounded half
 * way either way agrees); tolerance >= 0, DATUM_PUBLISHED_TOLERANCE as the
 * programs publish. The first max_shown disagreements are kept.
 * Returns DATUM_OK and *out (freed with datum_published_free); DATUM_E_ARG
 * (NULL argument, tolerance negative or NaN); DATUM_E_INPUT "PATH: no
 * published figures to compare with ..." when a has none; DATUM_E_NOMEM.
 * On failure *out is NULL. */
int datum_published_create(datum_ctx *ctx, const datum_archive *a, const char *path,
                           datum_published_method own, double tolerance, size_t max_shown,
                           datum_published **out);

/* Compares the lines of chunk c (read with DATUM_COL_PUBLISHED |
 * DATUM_COL_TABLE) that have a published North-South figure with ns[row]
 * (datum's figure, NaN: none), and the lines with a published East-West
 * figure with ew[row] (ew NULL: -ns[row]). Never fails. */
void datum_published_add(datum_published *p, const datum_chunk *c, const double *ns,
                         const double *ew);

/* The counts so far into *out (out->shown points into p, valid until the next
 * datum_published_add or datum_published_free). */
void datum_published_get(const datum_published *p, datum_published_summary *out);

/* Frees *p and sets it to NULL; accepts NULL and *p == NULL. */
void datum_published_free(datum_published **p);

/* ------------------------------------------------------------------------ */
/* Tarot penalty netting (jobs/tarot_penalties.c)                           */

/* The net penalty of every side in one event: attack[0..n_attack) and
 * defense[0..n_defense) are zeroed, then each of the n penalty rows of event
 * `which` adds pm[i] to attack[id[i]] (side[i] == DATUM_TAROT_ATTACK) or to
 * defense[id[i]] (any other side), in row order: a penalty is positive, a
 * compensation negative, and the rows of a side add up. Ids must be below
 * n_attack or n_defense (not checked). Pure; never fails. */
void datum_tarot_net_penalties(size_t n, const int32_t *event, const uint8_t *side,
                               const int32_t *id, const double *pm, int32_t which,
                               double *attack, size_t n_attack, double *defense,
                               size_t n_defense);

/* ------------------------------------------------------------------------ */
/* Across the field (jobs/across.c)                                         */

/* Fields merged across the sections of an event (docs/methods.md, "Across
 * the field"): the fields of one event that played the same board with the
 * same deal (the same field_deal_set; every section of the event when the
 * archive records no deal sets) become one field, whose rows are those of
 * its fields in archive order (by section, then table). The kernels run on
 * the merged fields unchanged; their figures go back to archive order with
 * the unmerge functions. Not thread-safe on the same object. */
typedef struct datum_across datum_across;

/* A merger for the chunks of archive a (borrowed: it must outlive the
 * merger). DATUM_OK and *out, or DATUM_E_NOMEM (*out NULL). */
int datum_across_create(datum_ctx *ctx, const datum_archive *a, datum_across **out);
/* Frees *x and sets it to NULL; accepts NULL and *x == NULL. */
void datum_across_free(datum_across **x);

/* Merges chunk c, which must hold whole events (datum_chunk_reader_set_
 * whole_events), into *merged: its fields in the order of their first field
 * in c; per merged field the event, board and deal set, the section of its
 * first field and the latest date of its fields; the row arrays of c named
 * in `columns` (DATUM_COL_* mask; the others NULL), in merged order (c's rows,
 * all of them, when no two fields merge); first_field and first_row are c's. The arrays are owned by x and valid, like c, until the
 * next merge. With c's pair columns, a pair sitting twice in a merged field
 * fails with DATUM_E_INPUT "EVENT, board B: pair \"P\" plays in section
 * \"S\" and in section \"T\" (...)". Otherwise DATUM_OK, or DATUM_E_NOMEM. */
int datum_across_merge(datum_across *x, const datum_chunk *c, unsigned columns,
                       datum_chunk *merged);
/* After a merge: values[0..n_rows) of `size` bytes each (1, 4 or 8), given
 * in merged row order, put back in the chunk's order, in place. Never fails. */
void datum_across_unmerge_rows(datum_across *x, void *values, size_t size);
/* After a merge: values[0..merged n_fields), one per merged field, spread to
 * one per field of the chunk (values has room for c's n_fields), in place:
 * every field gets its merged field's value. Never fails. */
void datum_across_unmerge_fields(datum_across *x, double *values);
/* After a merge: the merged field of the chunk's field `field`, and the
 * chunk fields of merged field `merged` (*fields, in archive order; their
 * count returned), valid until the next merge. */
size_t datum_across_field_of(const datum_across *x, size_t field);
size_t datum_across_members(const datum_across *x, size_t merged, const uint32_t **fields);
/* Fields read and fields scored (after merging) over every merge so far. */
void datum_across_counts(const datum_across *x, uint64_t *fields_read, uint64_t *fields_scored);

/* ------------------------------------------------------------------------ */
/* One pass over an archive (jobs/pass.c)                                   */

typedef struct datum_pass datum_pass;

/* Where a method's outputs go (each NULL: not written). Files are written
 * atomically: under a temporary name, renamed into place when the pass
 * succeeds, removed when it fails. "-" for a CSV is standard output. The
 * strings are borrowed: they must stay valid until datum_pass_run returns. */
typedef struct {
    const char *h5;          /* HDF5 output file (datum_output_*) */
    const char *results_csv; /* one row per result (scored result: cross, barking) */
    const char *pairs_csv;   /* one row per pair with a board (not teams) */
    const char *matches_csv; /* teams: one row per match and board */
    const char *totals_csv;  /* teams: two rows per match, each team's totals */
    /* The HDF5 file's root attributes: command (NULL: "score", "cross",
     * "barking" or "teams") and n_attrs key/value pairs (the method's
     * description, the archive). */
    const char *command;
    const char *const *attr_keys;
    const char *const *attr_values;
    size_t n_attrs;
    /* Butler and cross-IMPs: compare every North-South (and East-West)
     * figure with the published ones (datum_published_*): the results CSV
     * gets a published_ns column, datum_pass_published the counts. */
    int compare_published;
    double published_tolerance; /* 0: DATUM_PUBLISHED_TOLERANCE */
} datum_pass_outputs;

#define DATUM_PASS_OUTPUTS_INIT {0}

/* Opens the archive at archive_path for a pass. Returns DATUM_OK and *out
 * (freed with datum_pass_free); DATUM_E_ARG (NULL argument); the errors of
 * datum_archive_open (DATUM_E_IO, DATUM_E_FORMAT); DATUM_E_NOMEM. On failure
 * *out is NULL. The context is used by every later call and must outlive
 * the pass. */
int datum_pass_create(datum_ctx *ctx, const char *archive_path, datum_pass **out);

/* The pass's archive (owned by the pass): its info and dictionary names. */
const datum_archive *datum_pass_archive(const datum_pass *p);

/* Rows read per chunk (whole fields; 2^20 unless set, at least 1). Memory is
 * bounded by the chunk size and the number of pairs, not by the archive.
 * Returns DATUM_OK, or DATUM_E_ARG (0, or after datum_pass_run). */
int datum_pass_set_chunk_rows(datum_pass *p, size_t max_rows);

/* Adding a method. Each takes the method (copied), its outputs (NULL: none;
 * copied, the strings borrowed) and returns in *id the method's number in
 * the pass (0, 1, ... in the order added) for the accessors below.
 * Returns DATUM_OK; DATUM_E_ARG (NULL pass, method or id, an invalid method,
 * compare_published with barking or teams, a pass already run; barking: a
 * scale other than wbf); DATUM_E_INPUT with compare_published when the
 * archive has no published figures ("PATH: no published figures ..."), and
 * for teams when it has no teams ("PATH has no teams ..."); DATUM_E_NOMEM.
 * On failure *id is -1 and the pass is unchanged (it may still be run).
 *
 * Butler (§3) against the datum of m->rule: per field the datum, per result
 * ns_imps and ew_imps, per pair boards and IMPs. */
int datum_pass_add_butler(datum_pass *p, const datum_method *m, const datum_pass_outputs *o,
                          int *id);
/* Cross-IMPs (§4), divided as m->cross_divisor says: per result ns_raw,
 * ns_avg and terms; per pair boards, IMPs (the sum of ns_avg) and raw IMPs. */
int datum_pass_add_cross(datum_pass *p, const datum_method *m, const datum_pass_outputs *o,
                         int *id);
/* Barking cross-IMPs (§5) on m->scale: like cross, East-West the negation. */
int datum_pass_add_barking(datum_pass *p, const datum_method *m, const datum_pass_outputs *o,
                           int *id);

/* Matchpoints (docs/methods.md, "Matchpoints") with mp's scale, Neuberg and
 * awards: per field its top, per result ns_mp and ew_mp; per pair (datum_
 * pass_totals) boards, imps = the matchpoints, raw = the sum of the tops of
 * its boards, per_board = the percentage 100 imps / raw. With mp->neuberg
 * the chunks hold whole events (each field is scored to its event's largest
 * field). Outputs as Butler's, under the names ns_mp, ew_mp, top,
 * matchpoints, percentage; --compare-published against published
 * matchpoints. Returns as datum_pass_add_butler. */
int datum_pass_add_matchpoints(datum_pass *p, const datum_mp_method *mp,
                               const datum_pass_outputs *o, int *id);

/* One team's match in one (event, section): team_a is the one first in the
 * team dictionary; IMPs won and lost by team_a on the boards scored. */
typedef struct {
    uint32_t match;          /* index into the match dictionary */
    int32_t team_a, team_b;  /* indices into the team dictionary */
    int64_t boards;          /* boards with a score (no adjusted table) */
    double imps_won, imps_lost;
} datum_match_total;

/* The matches of one (event, section), in order of first appearance. */
typedef struct {
    uint32_t event, section;
    size_t n_matches;
    const datum_match_total *matches; /* valid during the call only */
} datum_teams_block;

/* Receives each (event, section)'s match totals once they are complete, in
 * archive order. Returns >= 0 to go on, or a negative DATUM_E_* (recorded in
 * the pass's context by the callback) that ends the pass with that code. */
typedef int (*datum_teams_block_fn)(void *user, const datum_teams_block *block);

/* The teams matches (§5) on m->scale: per result its match's aggregate and
 * IMPs from the NS team's side; per match and board the matches CSV; per
 * (event, section) each match's totals, to the totals CSV and to
 * on_block(user, ...) (on_block may be NULL). The pass then fails with
 * DATUM_E_INPUT "EVENT, section S, board B: a match whose tables do not
 * oppose the same two teams" on such a board. */
int datum_pass_add_teams(datum_pass *p, const datum_method *m, const datum_pass_outputs *o,
                         datum_teams_block_fn on_block, void *user, int *id);

/* A method's figures for the rows of the chunk being processed. */
typedef struct {
    const double *field_datum; /* Butler: per field of the chunk (NaN: none); else NULL */
    const double *ns;          /* per row: what the totals count (Butler ns_imps, cross and
                                  barking ns_avg, teams ns_imps); NaN: no score */
    const double *ew;          /* per row: East-West's (Butler); NULL: -ns */
    const double *ns_raw;      /* cross, barking: raw sum; teams: the aggregate; else NULL */
    const int64_t *terms;      /* cross, barking: terms summed (0: no score); else NULL */
} datum_pass_rows;

/* Called once per chunk, after every method has computed and written it.
 * Returns >= 0 to go on, or a negative DATUM_E_* (recorded in the pass's
 * context by the callback) that ends the pass with that code. */
typedef int (*datum_pass_chunk_fn)(void *user, const datum_pass *p, const datum_chunk *c);

/* Across the field (on != 0): every method scores the fields merged across
 * the sections of each event (datum_across_*); chunks then hold whole
 * events. Per-row and per-field figures, outputs and the chunk callback stay
 * in archive order: a field's datum is its merged field's; a results CSV
 * gets a last column field_sections (the sections of the merged field,
 * joined by '+'), an HDF5 output /fields/across_field (the archive index of
 * the first field of each field's merged field). Returns DATUM_OK, or
 * DATUM_E_ARG (after datum_pass_run; a teams method in the pass: matches
 * are not merged). */
int datum_pass_set_across_sections(datum_pass *p, int on);
/* After datum_pass_run with across sections: the fields read and the fields
 * scored after merging. DATUM_OK, or DATUM_E_ARG (not across sections). */
int datum_pass_across_counts(const datum_pass *p, uint64_t *fields_read, uint64_t *fields_scored);

/* Chunks of whole events (on != 0): every field of an event in the same
 * chunk, for a chunk callback that works per event (datum compare). Returns
 * DATUM_OK, or DATUM_E_ARG (after datum_pass_run). */
int datum_pass_set_whole_events(datum_pass *p, int on);

/* Per-pair totals (on, the default) or none (on == 0: the kernels and the
 * chunk callback only, for a caller that totals by itself, datum compare):
 * datum_pass_totals and datum_pass_ranking then fail with DATUM_E_ARG.
 * Returns DATUM_OK, or DATUM_E_ARG (after datum_pass_run; off while a method
 * writes a pairs CSV or an HDF5 output). */
int datum_pass_set_pair_totals(datum_pass *p, int on);

/* Scores fields that are not the archive's (perturbed copies of a chunk's
 * fields, datum compare's continuity) with method id exactly as the pass
 * scores its chunks: per row ns[] and ew[] as datum_pass_chunk_rows gives
 * them (cross and barking: ns_avg, and ew = its negation), per field
 * field_value[] (Butler's datum, matchpoints' top, else NaN; NULL: not
 * wanted). target: per field the size matchpoints with Neuberg to the event
 * score it to (ignored otherwise; NULL: each field's own rows). Usable
 * before, during and after datum_pass_run; not thread-safe on the same pass.
 * Returns DATUM_OK; DATUM_E_ARG (bad id, a teams method, a NULL array); the
 * kernels' errors; DATUM_E_NOMEM (scratch of the fields' size). */
int datum_pass_score_fields(datum_pass *p, int id, const datum_fields *in, const uint32_t *target,
                            double *field_value, double *ns, double *ew);

/* Sets the per-chunk callback (NULL: none) and the chunk columns it needs
 * beyond the methods' own (DATUM_COL_* mask). Returns DATUM_OK, or
 * DATUM_E_ARG (after datum_pass_run). */
int datum_pass_set_chunk_callback(datum_pass *p, unsigned extra_columns, datum_pass_chunk_fn fn,
                                  void *user);

/* Lets the chunk callback run the Butler and cross-IMP kernels itself, each
 * range of fields by the thread that then reads their figures (datum
 * compare: an event's kernels and statistics one after the other, the
 * figures still in the core's cache): the pass no longer scores them before
 * the callback, which must call datum_pass_score_range on every field of
 * the chunk before it reads those methods' rows. Not across sections (the
 * pass then scores them itself); those methods may have no outputs and the
 * pass no pair totals (datum_pass_set_pair_totals(p, 0)), else the pass
 * fails with DATUM_E_ARG. Returns DATUM_OK, or DATUM_E_ARG (after the run). */
int datum_pass_set_kernels_by_range(datum_pass *p, int on);

/* Inside the chunk callback of a pass with kernels by range: the bytes of
 * scratch datum_pass_score_range needs for this chunk. */
size_t datum_pass_range_scratch_bytes(const datum_pass *p);

/* Inside the chunk callback of a pass with kernels by range: the Butler and
 * cross-IMP methods' figures of chunk fields f0 .. f1 - 1 (c the callback's
 * chunk), exactly those the pass would give; any thread, disjoint ranges at
 * once; scratch: datum_pass_range_scratch_bytes, aligned for doubles, the
 * thread's own. Nothing is allocated; it cannot fail. */
void datum_pass_score_range(const datum_pass *p, const datum_chunk *c, uint64_t f0, uint64_t f1,
                            void *scratch);

/* Inside the chunk callback: method id's figures for the chunk's rows
 * (arrays owned by the pass, valid during the callback). Returns DATUM_OK,
 * or DATUM_E_ARG (bad id; *out zeroed). */
int datum_pass_chunk_rows(const datum_pass *p, int id, datum_pass_rows *out);

/* Runs the pass once: reads every chunk of the archive in order, runs every
 * method on it (threads: the context's), accumulates the pair totals in
 * archive order, writes the outputs, and at the end the pair figures;
 * commits every output file. Progress goes to the context's progress
 * callback (rows done of the archive's). Returns DATUM_OK; DATUM_E_ARG (no
 * method, run twice); the errors of the chunk reader (DATUM_E_FORMAT,
 * DATUM_E_IO), of the kernels (DATUM_E_INPUT for teams, DATUM_E_ARG), of the
 * outputs (DATUM_E_IO) and of the callbacks; DATUM_E_NOMEM. On failure every
 * output file of the pass that was not yet committed is removed, and the
 * totals are unspecified. */
int datum_pass_run(datum_pass *p);

/* A method's totals per pair, owned by the pass (valid until
 * datum_pass_free), indexed by pair (the archive's pair dictionary). */
typedef struct {
    uint32_t n_pairs;
    const int64_t *boards;    /* boards scored */
    const double *imps;       /* total IMPs (cross, barking: of the averages) */
    const double *per_board;  /* imps / boards (NaN: no board) */
    const double *raw;        /* cross, barking: raw IMPs; matchpoints: the tops; Butler NULL */
    const int64_t *ns_boards; /* matchpoints: boards played North-South; else NULL */
} datum_pair_totals;

/* After a successful datum_pass_run: the totals of method id (Butler, cross
 * or barking). Returns DATUM_OK, or DATUM_E_ARG (bad id, a teams method, the
 * pass not run; *out zeroed). */
int datum_pass_totals(const datum_pass *p, int id, datum_pair_totals *out);

/* After a successful datum_pass_run: the pairs with a board of method id,
 * best first (IMPs per board descending, ties by pair name), into *order
 * (n_ranked entries, owned by the pass, computed on the first call).
 * Returns DATUM_OK; DATUM_E_ARG (as datum_pass_totals; *order NULL,
 * *n_ranked 0); DATUM_E_NOMEM (the same). */
int datum_pass_ranking(datum_pass *p, int id, const uint32_t **order, uint32_t *n_ranked);

/* After a successful datum_pass_run: what compare_published of method id
 * found. Returns DATUM_OK, or DATUM_E_ARG (bad id, not asked for, the pass
 * not run; *out zeroed). out->shown is owned by the pass. */
int datum_pass_published(const datum_pass *p, int id, datum_published_summary *out);

/* Frees the pass, its archive and anything not yet committed (removed);
 * sets *p to NULL. Accepts NULL and *p == NULL. */
void datum_pass_free(datum_pass **p);

/* ------------------------------------------------------------------------ */
/* A slice of the archive, for one process of datum-mpi (mpi/)              */

/* Every process runs the pass over its own slice of the archive's fields:
 *
 *     datum_pass_set_fields(p, first, end);       (after adding the methods)
 *     datum_pass_run_slice(p, rank > 0);           kernels, per-row outputs
 *     ... the sums of the slices before (datum_pass_sums), then
 *     datum_pass_add_deferred(p);                  this slice's rows, in order
 *     ... the final sums, then
 *     datum_pass_finish(p, rank == 0);             pair figures, commit
 *
 * The pair totals are running sums in archive order: a slice adds its rows
 * only once the sums of every slice before it are in its totals, so that
 * every total is bit for bit the serial pass's, whatever the slicing. With
 * the HDF5 outputs shared (datum_io_mpi.h) the calls that open and commit
 * them are collective. */

/* Restricts the pass to fields first_field .. end_field - 1 (whole events
 * when datum_pass_whole_events says so). Returns DATUM_OK, or DATUM_E_ARG
 * (not a range of the archive's fields, the pass has run). */
int datum_pass_set_fields(datum_pass *p, uint64_t first_field, uint64_t end_field);
/* The number of methods added to the pass (their ids are 0 .. n - 1). */
size_t datum_pass_n_methods(const datum_pass *p);
/* 1 when the pass's chunks must hold whole events (across sections,
 * matchpoints with Neuberg to the event): slices must then too. */
int datum_pass_whole_events(const datum_pass *p);

/* Opens the outputs (collective when shared), then reads and runs the
 * slice's chunks: kernels, per-row and per-field outputs. Totals are added
 * as the rows come (defer_totals == 0, the first slice) or kept, with the
 * figures they need (O(rows of the slice) memory), for
 * datum_pass_add_deferred. Returns DATUM_OK; DATUM_E_ARG (no slice set, run
 * before, no method, a teams method, a results CSV or compare_published: a
 * slice writes none); the errors of datum_pass_run. On failure the outputs
 * stay open (a shared one is aborted by every process together:
 * datum_pass_free). */
int datum_pass_run_slice(datum_pass *p, int defer_totals);

/* The running sums of method id after datum_pass_run_slice, writable (the
 * driver puts the sums of the slices before in them, then the final ones):
 * arrays of n_pairs owned by the pass; raw and ns_boards NULL when the
 * method has none (datum_pair_totals). */
typedef struct {
    uint32_t n_pairs;
    int64_t *boards;
    double *imps, *raw;
    int64_t *ns_boards;
} datum_pair_sums;
/* Returns DATUM_OK, or DATUM_E_ARG (bad id, a teams method, no slice run;
 * *out zeroed). */
int datum_pass_sums(datum_pass *p, int id, datum_pair_sums *out);

/* Adds the kept rows of a slice run with deferred totals to the sums, in
 * archive order, and frees them. Returns DATUM_OK, or DATUM_E_ARG (no such
 * slice, or added already). */
int datum_pass_add_deferred(datum_pass *p);

/* The pair figures from the sums (which must be final); with write_pairs
 * their outputs (HDF5 pair columns, pairs CSV); then every output is
 * committed (collective when shared). The accessors of a run pass
 * (datum_pass_totals, datum_pass_ranking) work after it. Returns DATUM_OK,
 * DATUM_E_ARG (no slice run, deferred totals not added), or the errors of
 * the outputs. */
int datum_pass_finish(datum_pass *p, int write_pairs);

#ifdef __cplusplus
}
#endif

#endif
