/*
 * datum_io.h - the archive (HDF5) and the text formats, behind a small
 * interface. Nothing outside io/ includes hdf5.h; no HDF5 handle leaves io/.
 *
 * Conventions as in engine/datum.h: 0 ok, negative DATUM_E_* error recorded in
 * the context (with the file, line and column where the input is at fault),
 * objects created through **out and freed by a function that accepts NULL.
 * HDF5's own error printing is silenced; its failures become DATUM_E_IO or
 * DATUM_E_FORMAT with a message naming the file.
 * None of these functions is thread-safe on the same object; the serial HDF5
 * library must be used from one thread at a time.
 *
 * The archive layout is documented in docs/archive-format.md.
 */
#ifndef DATUM_IO_H
#define DATUM_IO_H

#include "datum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The newest format version this datum reads: 1, one HDF5 file; 2, a base
 * file and the segments appended to it (datum_archive_append). */
#define DATUM_ARCHIVE_FORMAT_VERSION 2

/* ------------------------------------------------------------------------ */
/* Import                                                                   */

typedef struct {
    int compress;      /* 1: shuffle + deflate (default); 0: uncompressed */
    int deflate_level; /* 1..9, default 1 */
    size_t chunk_rows; /* HDF5 chunk length in rows, default 1 << 20 */
} datum_write_options;

#define DATUM_WRITE_OPTIONS_INIT {1, 1, (size_t)1 << 20}

/* Imports bridge results CSV files (formats.md "In: bridge results") into a
 * new archive at out_path. Every row is validated; the first bad row aborts
 * the import with DATUM_E_INPUT and a message "FILE:LINE: column COL: ..."
 * (missing or extra field, non-integer score, unknown adjusted token, bad date,
 * repeated (event, section, board, table), a pair twice in one field,
 * ns_pair == ew_pair, missing header column). The archive is written to a
 * temporary file in the same directory and renamed over out_path only on
 * success: on failure nothing is left behind.
 *
 * Sit-outs (all three importers; docs/cli.md "Sit-outs"): a row that names
 * one pair and no opponent, and holds no result, is skipped, never refused
 * and never scored. When an import that succeeds skipped some, it issues one
 * warning through the context, "skipped N sit-out rows (...)" (datum_ctx_warn:
 * passed to the callback of datum_ctx_set_warning, counted in
 * datum_ctx_warnings); the return code stays DATUM_OK. A row without an
 * opponent that has a result is refused as a missing pair. */
int datum_import_csv(datum_ctx *ctx, const char *const *csv_paths, size_t n_paths,
                     const char *out_path, const datum_write_options *opt);

/* Imports USEBIO 1.2 XML files (docs/cli.md "USEBIO") into a new archive at
 * out_path, with the checks, the all-or-nothing writing and the sit-outs of
 * datum_import_csv. The points the scoring program published per line
 * (NS/EW_*_POINTS) go into the archive's published columns (has_published;
 * docs/archive-format.md) when any line has some. Which sections share
 * each board's deal goes into /fields/deal_set: the sections of a SESSION
 * share its hand set, unless the file gives it several (docs/cli.md).
 * Errors: DATUM_E_IO
 * (unreadable file), DATUM_E_INPUT "FILE:LINE: malformed XML: ...",
 * "FILE:LINE: ELEMENT: missing element NAME", "FILE:LINE: NS_BUTLER_POINTS:
 * not a number: TEXT" and the like. Not thread-safe against other libxml2
 * users that change its global settings. */
int datum_import_usebio(datum_ctx *ctx, const char *const *paths, size_t n_paths,
                        const char *out_path, const datum_write_options *opt);

/* ---- PBN import (io/pbn.c) ---------------------------------------------- */

typedef struct {
    int strict;            /* 1: an impossible given score is an error, not a warning */
    uint64_t n_computed;   /* out: scores computed from contract, declarer and result */
} datum_pbn_options;

#define DATUM_PBN_OPTIONS_INIT {0, 0}

/* Imports the [ScoreTable]s of PBN 2.1 files (docs/cli.md "PBN import")
 * into a new archive at out_path, through the same sorting, checks and
 * sit-outs as datum_import_csv. A row's NS score is its Score_NS cell (or the negated
 * Score_EW), else computed from Contract, Declarer and Result at the board's
 * vulnerability ([Vulnerable], else the board number). Fields of one event
 * and board whose games give the same [Deal] share a /fields/deal_set (the
 * rows of one field disagreeing on it: DATUM_E_INPUT). A given score that no
 * contract can give at that vulnerability, or that disagrees with the row's
 * contract and result, is a warning "FILE:LINE: ..." issued through the
 * context (datum_ctx_warn: passed to the callback of datum_ctx_set_warning and
 * counted in datum_ctx_warnings), or with po->strict the error DATUM_E_INPUT
 * (po may be NULL: defaults). Malformed PBN, including a [Date] that is not a
 * day of the calendar: DATUM_E_INPUT "FILE:LINE: ...", nothing written.
 * The figures the table publishes (IMP_NS/IMP_EW or MP_NS/MP_EW, and
 * Percentage_NS/Percentage_EW) go into the archive's published columns
 * (has_published, has_published_percent) when any row has some; one that is
 * not a number is DATUM_E_INPUT "FILE:LINE: column MP_NS: ...".
 * Returns DATUM_OK, DATUM_W_SCORE (archive written, at least one suspect
 * score warned about in this import), or a negative code recorded in ctx. */
int datum_import_pbn(datum_ctx *ctx, const char *const *paths, size_t n_paths,
                     const char *out_path, datum_pbn_options *po, const datum_write_options *opt);

/* ---- Any format, many files, bounded memory (io/archive/import.c) ------- */

/* The formats of bridge results datum_import reads. */
typedef enum {
    DATUM_FORMAT_AUTO = 0, /* each file's own, recognised by its content */
    DATUM_FORMAT_CSV = 1,
    DATUM_FORMAT_USEBIO = 2,
    DATUM_FORMAT_PBN = 3
} datum_input_format;

#define DATUM_IMPORT_MEMORY_DEFAULT ((size_t)1 << 30) /* 1 GiB */
#define DATUM_IMPORT_MEMORY_MIN (64 * 1024)
#define DATUM_IMPORT_N_PHASES 6

typedef struct {
    datum_input_format format; /* DATUM_FORMAT_AUTO (default), or the format of every file */
    size_t memory;        /* the budget of the rows held, bytes (0: the default, 1 GiB) */
    int strict;           /* PBN: an impossible given score is an error (datum_pbn_options) */
    uint64_t n_computed;  /* out: PBN scores computed from contract and result */
    uint64_t n_runs;      /* out: sorted runs spilled to the scratch file (0: all in memory) */
    uint64_t n_sitouts;   /* out: sit-out rows skipped */
    uint64_t split_bytes; /* a CSV file of at least this size is read by all the threads,
                             in parts (0: the default, 32 MiB; tests use small ones) */
    uint32_t max_segments; /* datum_archive_append: segments merged once there are more than
                              this many (0: never; DATUM_MAX_SEGMENTS_DEFAULT) */
    /* out, after a success: the wall and process CPU seconds of each phase
       (datum_import_phase_name), to show where an import's time goes */
    double phase_wall[DATUM_IMPORT_N_PHASES], phase_cpu[DATUM_IMPORT_N_PHASES];
} datum_import_options;

/* The name of phase i (0 .. DATUM_IMPORT_N_PHASES - 1) of datum_import's
 * out-figures: "plan", "read", "last runs", "names", "merge's cuts", "merge
 * and write". NULL for any other i. */
const char *datum_import_phase_name(int i);

#define DATUM_MAX_SEGMENTS_DEFAULT 8
#define DATUM_IMPORT_OPTIONS_INIT                                                                 \
    {DATUM_FORMAT_AUTO, 0, 0, 0, 0, 0, 0, DATUM_MAX_SEGMENTS_DEFAULT, {0}, {0}}

/* Imports the results of paths[0..n_paths), each in its own format (CSV,
 * USEBIO or PBN: io->format, or with DATUM_FORMAT_AUTO recognised by the
 * file's first bytes: `<` (an XML file, read as USEBIO), `[` or `%` (PBN),
 * anything else CSV), into a new archive at out_path, with the checks,
 * sit-outs, published figures and deal sets of datum_import_csv,
 * datum_import_usebio and datum_import_pbn (which are this function with
 * the format forced). io may be NULL (defaults).
 *
 * Memory: the rows are read into runs of at most io->memory bytes (about
 * 120 bytes a row); a run that fills it is sorted and written to a scratch
 * file beside out_path (OUT.import-XXXXXX, removed as soon as it is
 * created, so nothing is left whatever happens), and the runs are merged
 * into the archive, with read buffers of half the budget in all. Held
 * besides: the dictionaries (names of events, sections, pairs, teams,
 * matches and deals), the largest field and the archive writer's chunks.
 * The archive is a function of the set of rows only: the same rows in any
 * order, split into any files, with any budget give the same bytes.
 *
 * Returns DATUM_OK, DATUM_W_SCORE (PBN: a suspect score warned about), or
 * the errors of datum_import_csv and the others, first of all the first bad
 * row of the input ("FILE:LINE: column NAME: ...", a clash naming both
 * lines); DATUM_E_ARG for a budget below DATUM_IMPORT_MEMORY_MIN, no input,
 * an unknown format; DATUM_E_IO "cannot write ... (scratch file ...)". */
int datum_import(datum_ctx *ctx, const char *const *paths, size_t n_paths, const char *out_path,
                 datum_import_options *io, const datum_write_options *opt);

/* The input files of an import named by args[0..n_args) and by the list file
 * list (NULL: none; one path a line, empty lines and lines starting with #
 * skipped, "-" is standard input), in that order: a file as it is; a
 * directory stands for every regular file under it, recursively, in byte
 * order of their paths, names starting with '.' skipped. *paths receives
 * n malloc'd strings (free with datum_import_paths_free). DATUM_OK, or
 * DATUM_E_IO "cannot read PATH: REASON" (a missing file, an unreadable
 * directory or list), DATUM_E_INPUT "DIR: no files", DATUM_E_NOMEM. */
int datum_import_paths(datum_ctx *ctx, const char *const *args, size_t n_args, const char *list,
                       char ***paths, size_t *n);
void datum_import_paths_free(char **paths, size_t n);

/* ---- Export (io/archive/export.c) ---------------------------------------- */

typedef struct {
    const char *const *events; /* only the events of these names (n_events 0: all) */
    size_t n_events;
    int32_t from, to;          /* only the rows dated from..to (days since 1970-01-01) */
    uint64_t n_rows;           /* out: the rows written */
} datum_export_options;

#define DATUM_EXPORT_OPTIONS_INIT {NULL, 0, INT32_MIN, INT32_MAX, 0}

/* Writes the rows of the archive at archive_path (those of the events and
 * dates opt selects; opt NULL: all) to csv_path as results CSV
 * (formats.md "In: bridge results", docs/cli.md "datum export"), in the
 * archive's order, streamed (memory does not grow with the archive):
 * event,date,section,board,table,ns_pair,ew_pair,ns_score, then adjusted
 * if the archive has it (ns_score empty on an adjusted row), then
 * ns_team,ew_team,match if it has teams (three empty cells on a result
 * outside any match). datum_import_csv of the file gives the same archive
 * for an archive imported from CSV; what CSV does not carry (published
 * figures, deal sets, the truth of a generated archive) is not written.
 * The file is written to a temporary name and renamed on success ("-":
 * standard output). Returns DATUM_OK, or (nothing left on disk) the errors
 * of datum_archive_open and datum_chunk_reader_next, DATUM_E_INPUT
 * "ARCHIVE: no event named \"NAME\"", DATUM_E_NOMEM, DATUM_E_IO "cannot write
 * PATH: REASON". */
int datum_export_csv(datum_ctx *ctx, const char *archive_path, const char *csv_path,
                     datum_export_options *opt);

/* ---- Appending (format version 2: docs/archive-format.md) ---------------- */

/* What an append added. */
typedef struct {
    uint64_t n_results, n_fields; /* the new rows and board fields */
    uint32_t n_events;            /* the new events */
    uint32_t n_segments;          /* the archive's segments after it */
    uint32_t n_merged;            /* segments merged into one (the new one among them), or 0 */
    uint64_t merged_results;      /* the results of those */
} datum_append_info;

/* Adds the events of the input files (read as datum_import reads them, with
 * the options io, which may be NULL) to the existing archive
 * at archive_path, which becomes (or stays) of format version 2: the new
 * rows go, as an ordinary archive, into the segment ARCHIVE.d/segment-N.h5,
 * then a new root file listing the parts (the manifest) replaces
 * archive_path atomically; the files already there are never written (a
 * version 1 archive is first linked as ARCHIVE.d/base.h5). A crash or a
 * kill at any moment leaves the archive as it was or fully appended: files
 * the manifest does not list are ignored, and removed by the next append.
 * Every event of the input must be new: a row of an event already in the
 * archive (hence any result that collides with one there) is DATUM_E_INPUT
 * "FILE:LINE: column event: event \"E\" is already in ARCHIVE ...", and
 * nothing changes. The cost grows with the new rows (and the archive's
 * event names), not with its results. Two appends to one archive at once:
 * the second fails (DATUM_E_IO "... another append ... is running").
 * Returns the import's code (DATUM_OK, DATUM_W_SCORE from PBN) with *info
 * filled (may be NULL), or a negative code recorded in ctx: the import's
 * errors, DATUM_E_IO / DATUM_E_FORMAT opening the archive or writing its
 * folder, DATUM_E_NOMEM. */
int datum_archive_append(datum_ctx *ctx, const char *archive_path, const char *const *paths,
                         size_t n_paths, datum_import_options *io, const datum_write_options *opt,
                         datum_append_info *info);

/* What a compaction did. */
typedef struct {
    uint32_t n_parts;             /* the parts merged (0: one file already, nothing done) */
    uint64_t n_results, n_fields; /* the archive's */
    uint64_t bytes;               /* the size of the file written */
} datum_compact_info;

/* Makes the archive at path, of format version 2 (a base and its appended
 * segments), one file of version 1 again: the file a fresh import of all
 * its rows writes (every dataset's values, types, chunks and filters, with
 * the write options opt, which may be NULL), written to PATH.tmp-XXXXXX,
 * synced and renamed over path; the folder PATH.d is removed after.
 * Bounded memory: the parts are merged by event name (each is sorted, each
 * event in one of them), chunks of memory / 128 rows read at a time (64 Ki
 * to 1 Mi; memory 0: the import's default) and the writer's chunks held,
 * besides the merged dictionaries. A kill at any moment leaves the old archive or the new one;
 * under the lock of the append (an append meanwhile fails, and this fails
 * during an append). A version 1 archive is left as it is: DATUM_OK with
 * info->n_parts 0. Returns DATUM_OK with *info filled, or a negative code
 * recorded in ctx: the errors of datum_archive_open (a missing or damaged
 * part: "damaged archive"), DATUM_E_IO "... another append or compaction
 * of it is running", "cannot write PATH (...)", DATUM_E_NOMEM. */
int datum_archive_compact(datum_ctx *ctx, const char *path, datum_compact_info *info,
                          size_t memory, const datum_write_options *opt);

/* ------------------------------------------------------------------------ */
/* Reading an archive                                                       */

typedef struct datum_archive datum_archive;

/* Opens an archive for reading. A missing file, a file that is not HDF5, a
 * foreign HDF5 file, an unsupported format version or a damaged archive gives
 * DATUM_E_IO or DATUM_E_FORMAT with a clear message (never an HDF5 error
 * stack). An archive of segments whose root a merging append or a compaction
 * replaced while it was being opened (a part it listed gone) is opened again
 * from the new root, up to three times (docs/archive-format.md "Readers
 * meanwhile"). *out: the archive, the caller's to close with
 * datum_archive_close; NULL on failure. */
int datum_archive_open(datum_ctx *ctx, const char *path, datum_archive **out);
void datum_archive_close(datum_archive **a);

typedef struct {
    uint64_t n_results;
    uint64_t n_fields;
    uint32_t n_events, n_sections, n_pairs;
    int32_t first_date, last_date; /* days since 1970-01-01 */
    int has_adjusted;              /* the input had an `adjusted` column */
    int has_teams;                 /* ns_team, ew_team and match columns (teams events) */
    uint32_t n_teams, n_matches;   /* dictionary sizes (0 without teams) */
    int has_truth;                 /* generated archive: true pair strengths stored */
    int format_version;
    int has_published;             /* published_ns, published_ew, published_method (USEBIO, PBN) */
    int has_published_percent;     /* published_ns_percent, published_ew_percent (PBN) */
    int has_deal_sets;             /* /fields/deal_set: which sections of an event share a deal
                                      (PBN, USEBIO imports); 0: not recorded (CSV) */
    uint32_t n_segments;           /* format version 2: the segments appended to the base */
} datum_archive_info;

void datum_archive_get_info(const datum_archive *a, datum_archive_info *info);

/* The file of part i of the archive (0: the base, or the archive's only
 * file; 1 .. n_segments: the segments in the order they were appended) and
 * the results it holds into *n_results (may be NULL); NULL when i is out of
 * range. Valid until the archive is closed. */
const char *datum_archive_part(const datum_archive *a, uint32_t i, uint64_t *n_results);

/* Dictionary entries (valid until the archive is closed). */
const char *datum_archive_event(const datum_archive *a, uint32_t index);
const char *datum_archive_section(const datum_archive *a, uint32_t index);
const char *datum_archive_pair(const datum_archive *a, uint32_t index);

/* Team and match dictionary entries (teams events; NULL out of range). */
const char *datum_archive_team(const datum_archive *a, uint32_t index);
const char *datum_archive_match(const datum_archive *a, uint32_t index);

/* The true strength of every pair (IMPs per board) of a generated archive,
 * into strength[n_pairs]. Returns DATUM_OK, DATUM_W_EMPTY when the archive
 * holds no truth (not generated), or an error. */
int datum_archive_read_truth(datum_ctx *ctx, datum_archive *a, double *strength);

/* Columns a reader can ask for (bit mask). */
enum {
    DATUM_COL_TABLE = 1u << 0,
    DATUM_COL_NS_PAIR = 1u << 1,
    DATUM_COL_EW_PAIR = 1u << 2,
    DATUM_COL_NS_SCORE = 1u << 3,
    DATUM_COL_ADJUSTED = 1u << 4,
    DATUM_COL_DATE = 1u << 5, /* per-row date */
    DATUM_COL_NS_TEAM = 1u << 6, /* teams events only: index into the team dictionary */
    DATUM_COL_EW_TEAM = 1u << 7,
    DATUM_COL_MATCH = 1u << 8,   /* index into the match dictionary */
    /* The figures another program published (has_published archives only):
     * read only by the commands that compare with them. */
    DATUM_COL_PUBLISHED_NS = 1u << 9,
    DATUM_COL_PUBLISHED_EW = 1u << 10,
    DATUM_COL_PUBLISHED_METHOD = 1u << 11,
    DATUM_COL_PUBLISHED = 0xe00, /* the three */
    /* The percentages published beside them (has_published_percent archives
     * only). */
    DATUM_COL_PUBLISHED_NS_PERCENT = 1u << 12,
    DATUM_COL_PUBLISHED_EW_PERCENT = 1u << 13,
    DATUM_COL_ALL = 0x3fff
};

/* What published figures are (/results/published_method), read from the
 * USEBIO element name (NS_BUTLER_POINTS) or else the EVENT_TYPE, or from the
 * PBN column (IMP_NS, MP_NS) and the game's [Scoring]. */
typedef enum {
    DATUM_PUBLISHED_NONE = 0,       /* the line has no published figure */
    DATUM_PUBLISHED_BUTLER = 1,     /* Butler IMPs */
    DATUM_PUBLISHED_CROSS_IMPS = 2, /* cross-IMPs, as the program divided them */
    DATUM_PUBLISHED_MATCHPOINTS = 3,
    DATUM_PUBLISHED_IMPS = 4,       /* IMPs, the method not named */
    DATUM_PUBLISHED_OTHER = 5,      /* points of a kind not recognised */
    DATUM_PUBLISHED_COUNT
} datum_published_method;

/* "none", "butler", "cross_imps", "matchpoints", "imps", "other"; NULL for
 * a code out of range. A static string. */
const char *datum_published_method_name(int method);

/* A chunk of whole fields, owned by the chunk reader and reused by the next
 * call. Arrays not requested are NULL. Row arrays are indexed from 0 (the
 * chunk's first row is archive row first_row). */
typedef struct {
    uint64_t first_field, n_fields;
    uint64_t first_row, n_rows;
    const uint64_t *offset;        /* n_fields + 1, offset[0] == 0 */
    const uint32_t *field_event;   /* per field */
    const uint32_t *field_section; /* per field */
    const int32_t *field_board;    /* per field */
    const int32_t *field_date;     /* per field: latest date of its rows */
    const int32_t *table;
    const int32_t *ns_pair, *ew_pair;
    const int32_t *ns_score;
    const uint8_t *adjusted; /* NULL also when the archive has no adjusted column */
    const int32_t *date;
    /* Teams: indices into the team and match dictionaries, -1 on a result
     * outside a teams match; NULL when not asked for or absent. */
    const int32_t *ns_team, *ew_team, *match;
    /* Published figures, NaN where the line has none, and their
     * datum_published_method; NULL when not asked for or absent. */
    const double *published_ns, *published_ew;
    const uint8_t *published_method;
    /* Published percentages, NaN where the line has none; NULL when not asked
     * for or absent. */
    const double *published_ns_percent, *published_ew_percent;
    /* Per field: its deal set (docs/archive-format.md: two fields of one
     * event with the same board and deal set played the same deal), an
     * index into the section dictionary; NULL when the archive records none. */
    const uint32_t *field_deal_set;
} datum_chunk;

typedef struct datum_chunk_reader datum_chunk_reader;

/* Starts reading the archive's fields in order, in chunks of whole fields of
 * at most max_rows rows (a single larger field makes a chunk of its own).
 * Memory held is O(max_rows + largest field). */
int datum_chunk_reader_create(datum_ctx *ctx, datum_archive *a, unsigned columns,
                              size_t max_rows, datum_chunk_reader **out);
/* Fills *chunk with the next chunk. Returns DATUM_OK with chunk->n_fields > 0,
 * DATUM_OK with n_fields == 0 at the end, or an error. */
int datum_chunk_reader_next(datum_chunk_reader *r, datum_chunk *chunk);
/* From the next chunk on (whole_events != 0), chunks hold whole events:
 * every field of an event in one chunk. A chunk ends with the last event
 * that fits in max_rows rows; an event larger than that makes a chunk of its
 * own, and memory is then O(max_rows + largest event). whole_events == 0
 * goes back to chunks of whole fields. Returns DATUM_OK. */
int datum_chunk_reader_set_whole_events(datum_chunk_reader *r, int whole_events);
/* Reads fields first_field .. end_field - 1 only, from the next chunk on
 * (a process's slice of the archive, datum-mpi): chunks end at end_field, and
 * with whole events the slice is taken to begin and end between events.
 * Returns DATUM_OK, or DATUM_E_ARG (first_field > end_field, or end_field
 * past the archive's fields). */
int datum_chunk_reader_set_range(datum_chunk_reader *r, uint64_t first_field, uint64_t end_field);
void datum_chunk_reader_free(datum_chunk_reader **r);

/* ------------------------------------------------------------------------ */
/* Writing an archive, streaming                                            */

/* The dictionaries of an archive (teams and matches: teams archives only). */
typedef enum {
    DATUM_DICT_EVENTS = 0,
    DATUM_DICT_SECTIONS = 1,
    DATUM_DICT_PAIRS = 2,
    DATUM_DICT_TEAMS = 3,
    DATUM_DICT_MATCHES = 4
} datum_dict;

/* What a new archive will hold, declared before its first row: the optional
 * columns, and bounds on the values. Every dataset is created before its
 * values are known, so its stored integer type is the narrowest that holds
 * the declared bounds (indices: the dictionary sizes); a value outside them
 * is refused. The defaults admit whatever the format allows; tighter bounds
 * give a smaller file. max_results and max_fields also size the chunks
 * (min(bound, chunk_rows)). */
typedef struct {
    int has_adjusted;          /* /results/adjusted */
    int has_teams;             /* /results/ns_team, ew_team, match; /dict/teams, matches */
    uint64_t max_results;      /* rows at most */
    uint64_t max_fields;       /* board fields at most */
    int32_t max_board;         /* board numbers 1..max_board */
    int32_t max_table;         /* table numbers 0..max_table */
    int32_t min_score, max_score; /* within -1,000,000..1,000,000 */
    int32_t min_date, max_date;   /* days since 1970-01-01 */
    int has_published;            /* /results/published_ns, published_ew, published_method */
    int has_published_percent;    /* /results/published_ns_percent, published_ew_percent */
    int has_deal_sets;            /* /fields/deal_set */
} datum_archive_plan;

#define DATUM_ARCHIVE_PLAN_INIT                                                                    \
    {0, 0, INT64_MAX, INT64_MAX, INT32_MAX, INT32_MAX, -1000000, 1000000, INT32_MIN, INT32_MAX, 0,   \
     0, 0}

typedef struct datum_archive_writer datum_archive_writer;

/* Starts a new archive at path, written to PATH.tmp-XXXXXX until commit.
 * Then: every dictionary (datum_archive_writer_dict) before the first
 * field; fields in archive order (datum_archive_writer_append); optionally
 * the truth; datum_archive_writer_commit, or _abort. Memory held: one HDF5
 * chunk per column (opt->chunk_rows elements) and 8 bytes per pair. */
int datum_archive_writer_create(datum_ctx *ctx, const char *path, const datum_archive_plan *plan,
                                const datum_write_options *opt, datum_archive_writer **out);

/* Writes a dictionary: n names, strictly increasing in byte order (sorted,
 * no repeats), valid UTF-8, non-empty except section names. Each dictionary
 * once; teams and matches only with plan->has_teams. DATUM_E_ARG if not. */
int datum_archive_writer_dict(datum_archive_writer *w, datum_dict which, const char *const *names,
                              uint32_t n);

/* Appends the chunk's fields after those already written. Input, in the
 * layout of datum_chunk: n_fields >= 1 fields, offset (offset[0] == 0, every
 * field at least one row, offset[n_fields] == n_rows), field_event,
 * field_section, field_board; per row table, ns_pair, ew_pair, ns_score, date,
 * and adjusted (NULL: all real), ns_team, ew_team, match (NULL: no teams
 * result in the chunk), published_ns, published_ew, published_method (all
 * three or none; NULL: nothing published in the chunk), published_ns_percent,
 * published_ew_percent (both or none; NULL: no percentage), and per field
 * field_deal_set (exactly when the plan has_deal_sets). first_field,
 * first_row and field_date are ignored:
 * a field's date is the latest of its rows'.
 * The archive's rules are checked, and a chunk that breaks one is refused
 * whole with DATUM_E_ARG (the writer stays usable): fields strictly increase
 * in (event, section, board) over the archive; tables strictly increase within
 * a field; a pair plays once per field, never against itself; indices are
 * within their dictionaries; values are within the plan; an adjusted result
 * scores 0; a row's teams and match are all -1 or all set, its two teams
 * different; a published figure is finite or NaN, and published_method is
 * NONE exactly where both are NaN. An optional column the plan did not
 * declare must be NULL. */
int datum_archive_writer_append(datum_archive_writer *w, const datum_chunk *c);

/* Stores the true strength of every pair, IMPs per board (a generated
 * archive): /truth/pair_strength, n_pairs == the size of the pair
 * dictionary, which must be written first. */
int datum_archive_writer_truth(datum_archive_writer *w, const double *pair_strength,
                               uint32_t n_pairs);
/* A string attribute of /truth, e.g. a parameter of the generator. */
int datum_archive_writer_truth_attr(datum_archive_writer *w, const char *key, const char *value);

/* Writes what is buffered and the summary, closes the file and renames it
 * into place. Every dictionary must have been written. Frees *w (sets it
 * to NULL) whatever happens; on failure nothing is left behind. */
int datum_archive_writer_commit(datum_archive_writer **w);
/* Closes and removes the temporary file, frees *w. Accepts NULL. */
void datum_archive_writer_abort(datum_archive_writer **w);

/* ------------------------------------------------------------------------ */
/* Writing the output of a run (HDF5)                                       */

typedef struct datum_output datum_output;

/* Creates an output file (written to a temporary name until commit) with root
 * attributes: format "datum-output", format_version, engine_version, command,
 * source (the archive's path) and one attribute per key/value pair given
 * (method, every parameter). Copies the archive's dictionaries. Returns
 * DATUM_OK with *out the new output (the caller commits or aborts it), or,
 * with *out NULL and nothing left on disk: DATUM_E_ARG (bad write options, a
 * reserved or repeated attribute key), DATUM_E_NOMEM "out of memory (...)"
 * (ours or HDF5's), DATUM_E_IO "cannot write PATH (...)". */
int datum_output_create(datum_ctx *ctx, const char *path, const datum_archive *src,
                        const char *command, const char *const *attr_keys,
                        const char *const *attr_values, size_t n_attrs,
                        const datum_write_options *opt, datum_output **out);

/* Declares a float64 dataset GROUP/NAME of `length` elements (GROUP is
 * "fields", "results", "pairs" or "history", the long table of `datum rate
 * --every`; created on first use). Returns its column number (>= 0), or a
 * negative error recorded in the output's context: DATUM_E_ARG (another
 * group, an empty name or one with '/', a column that exists), DATUM_E_NOMEM,
 * DATUM_E_IO "cannot write PATH (GROUP/NAME)". After an error the output can
 * only be aborted. */
int datum_output_add_column(datum_output *o, const char *group, const char *name,
                            uint64_t length, const char *description);
/* How a column of double values is stored. The caller picks the narrowest
 * type that holds every value exactly (WBF IMPs are integers from -24 to 24,
 * or halves with --half): fewer bytes to compress, store and read. */
typedef enum {
    DATUM_STORE_F64 = 0,
    DATUM_STORE_F32 = 1, /* every value exactly a float */
    DATUM_STORE_I8 = 2,  /* every value an integer in -128..127 */
    /* float64, most values repeating within the last 4096 (matchpoints:
     * small integers, halves and the fractions of a few field sizes):
     * deflated as repeats of earlier values, several times faster than
     * deflate's search, for a few per cent more bytes */
    DATUM_STORE_F64_REPEATS = 3
} datum_store_type;

/* Same as datum_output_add_column (the same returns), values given as
 * double, stored as `type` (any other value: as float64). */
int datum_output_add_stored_column(datum_output *o, const char *group, const char *name,
                                   uint64_t length, const char *description, datum_store_type type);
/* Same, int64 values. */
int datum_output_add_int_column(datum_output *o, const char *group, const char *name,
                                uint64_t length, const char *description);
/* Writes values[0..count) at element first of a column (double* for float
 * columns, int64_t* for int columns). DATUM_OK, or recorded: DATUM_E_ARG (no
 * such column, a range past its length), DATUM_E_NOMEM, DATUM_E_IO "cannot
 * write PATH (GROUP/NAME)". After an error the output can only be aborted. */
int datum_output_write(datum_output *o, int column, uint64_t first, uint64_t count,
                       const void *values);
/* Where the caller may put values first..first+count-1 of float64 column
 * `column` itself, saving datum_output_write their copy: a pointer into the
 * output's buffer, to be given to datum_output_write(o, column, first, count,
 * slot) once filled, before any other call on that column; NULL when the
 * column cannot take them in place (not written in order from element 0,
 * not stored as float64 chunks, more values than its buffer has room for,
 * a shared output): the caller then writes from its own memory. Owned by the
 * output; its contents are undefined after that write. */
double *datum_output_slot(datum_output *o, int column, uint64_t first, uint64_t count);
/* Writes what is buffered, closes the file and renames it into place.
 * DATUM_OK, or recorded (nothing left on disk): DATUM_E_NOMEM, DATUM_E_IO
 * "cannot write PATH (...)". Frees *o and sets it to NULL in any case;
 * accepts *o == NULL (DATUM_OK). */
int datum_output_commit(datum_output **o);
/* Closes and removes the temporary file, frees *o and sets it to NULL.
 * Accepts NULL and *o == NULL. */
void datum_output_abort(datum_output **o);

/* ------------------------------------------------------------------------ */
/* Writing CSV (RFC 4180, UTF-8), atomically                                */

typedef struct datum_csv_writer datum_csv_writer;

/* Opens PATH.tmp-XXXXXX for writing; "-" writes to standard output. Returns
 * DATUM_OK with *out the writer (the caller commits or aborts it), or, with
 * *out NULL and nothing left on disk: DATUM_E_NOMEM, DATUM_E_IO "cannot write
 * PATH: REASON". */
int datum_csv_create(datum_ctx *ctx, const char *path, datum_csv_writer **out);
/* Fields of the current row; the first call of a row writes no separator.
 * They return nothing: a write error is kept and reported by
 * datum_csv_commit. datum_csv_str(w, NULL) is refused: DATUM_E_ARG is
 * recorded in the context at once, nothing is written, and the commit fails
 * with it. */
void datum_csv_str(datum_csv_writer *w, const char *s);   /* quoted if needed */
void datum_csv_int(datum_csv_writer *w, int64_t v);
void datum_csv_real(datum_csv_writer *w, double v);       /* shortest round-trip; NaN -> empty */
void datum_csv_empty(datum_csv_writer *w);
void datum_csv_end_row(datum_csv_writer *w);
/* Flushes, closes and renames into place. DATUM_OK, or (nothing left on
 * disk): the DATUM_E_ARG of a refused call, DATUM_E_IO "cannot write PATH:
 * REASON" (the first write error, or the sync and rename), both recorded.
 * Frees *w and sets it to NULL in any case; accepts *w == NULL (DATUM_OK). */
int datum_csv_commit(datum_csv_writer **w);
/* Closes and removes the temporary file, frees *w and sets it to NULL.
 * Accepts NULL and *w == NULL. */
void datum_csv_abort(datum_csv_writer **w);

/* Shortest decimal text that reads back as exactly v ("%.17g" at most).
 * buf must hold 32 bytes. Returns buf. NaN -> "". */
char *datum_format_real(double v, char *buf);

/* ------------------------------------------------------------------------ */
/* Small text files (text_io.c)                                             */

/* Reads a ratings CSV (formats.md "ratings": a header with at least the
 * columns `pair` and `rating`) back, as a warm start: rating[p] receives the
 * rating of the archive's pair p, NaN for pairs the file does not name;
 * pairs the archive does not know, and empty ratings, are skipped (*unknown
 * counts the former; may be NULL). DATUM_E_IO if the file cannot be read,
 * DATUM_E_INPUT ("FILE:LINE: column rating: ...") for a bad value or a pair
 * named twice. */
int datum_ratings_read(datum_ctx *ctx, const char *path, const datum_archive *a, double *rating,
                       uint64_t *unknown);

/* Writes text[0..len) to path atomically (PATH.tmp-XXXXXX renamed into
 * place; "-" is standard output). */
int datum_text_write(datum_ctx *ctx, const char *path, const char *text, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* DATUM_IO_H */
