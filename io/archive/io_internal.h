/*
 * io_internal.h - what the files of io/ share, HDF5 included; not public.
 * The HDF5-free helpers are in io_common.h.
 *
 * Error convention inside io/: a function that takes a datum_ctx records its
 * own error (with the file name) and returns the DATUM_E_* code; the io_h5_*
 * helpers that take none return a negative value on failure and leave the
 * message to their caller, which knows the file and what was being done.
 */
#ifndef DATUM_IO_INTERNAL_H
#define DATUM_IO_INTERNAL_H

#include <hdf5.h>
#include <stdarg.h>

#include "io_common.h"

/* ------------------------------------------------------------------------ */
/* layout.c: the layout of format version 1, shared by writer and reader    */

typedef struct {
    const char *path;        /* from the root, e.g. "results/table" */
    const char *description; /* its `description` attribute */
    const char *units;       /* its `units` attribute, or NULL */
} io_dataset_desc;

/* /fields columns (one value per field; offset has n_fields + 1). deal_set
 * is optional: only in archives that record which sections share a deal. */
enum { IO_F_EVENT, IO_F_SECTION, IO_F_BOARD, IO_F_DATE, IO_F_OFFSET, IO_F_DEAL_SET,
       IO_N_FIELD_COLS };
/* /results columns (one value per row), in the order of the DATUM_COL_* bits. */
enum {
    IO_R_TABLE,
    IO_R_NS_PAIR,
    IO_R_EW_PAIR,
    IO_R_NS_SCORE,
    IO_R_ADJUSTED,
    IO_R_DATE,
    IO_R_NS_TEAM, /* the three teams columns: only if has_teams */
    IO_R_EW_TEAM,
    IO_R_MATCH,
    IO_R_PUBLISHED_NS, /* the three published columns: only if has_published */
    IO_R_PUBLISHED_EW,
    IO_R_PUBLISHED_METHOD,
    IO_R_PUBLISHED_NS_PERCENT, /* the two percentages: only if has_published_percent */
    IO_R_PUBLISHED_EW_PERCENT,
    IO_N_RESULT_COLS
};
/* Each /results column's member of datum_chunk: X(column number, member),
 * the one list the chunk reader and the archive writer both go by. */
#define IO_RESULT_MEMBERS(X)                                                                      \
    X(IO_R_TABLE, table)                                                                           \
    X(IO_R_NS_PAIR, ns_pair)                                                                       \
    X(IO_R_EW_PAIR, ew_pair)                                                                       \
    X(IO_R_NS_SCORE, ns_score)                                                                     \
    X(IO_R_ADJUSTED, adjusted)                                                                     \
    X(IO_R_DATE, date)                                                                             \
    X(IO_R_NS_TEAM, ns_team)                                                                       \
    X(IO_R_EW_TEAM, ew_team)                                                                       \
    X(IO_R_MATCH, match)                                                                           \
    X(IO_R_PUBLISHED_NS, published_ns)                                                             \
    X(IO_R_PUBLISHED_EW, published_ew)                                                             \
    X(IO_R_PUBLISHED_METHOD, published_method)                                                     \
    X(IO_R_PUBLISHED_NS_PERCENT, published_ns_percent)                                             \
    X(IO_R_PUBLISHED_EW_PERCENT, published_ew_percent)

/* /dict string datasets, in the order of datum_dict; teams and matches only
 * if has_teams. */
enum { IO_D_EVENTS, IO_D_SECTIONS, IO_D_PAIRS, IO_D_TEAMS, IO_D_MATCHES, IO_N_DICTS };

extern const io_dataset_desc io_field_cols[IO_N_FIELD_COLS];
extern const io_dataset_desc io_result_cols[IO_N_RESULT_COLS];
/* 0 for the archive's integer columns deflated without the shuffle filter
 * (the pairs and the scores), 1 for every other dataset d. */
int io_shuffled(const io_dataset_desc *d);
extern const io_dataset_desc io_dict_cols[IO_N_DICTS];
extern const io_dataset_desc io_truth_strength; /* /truth/pair_strength */

/* The C type of a column in a datum_chunk, and the values it may hold:
 * what the writer accepts and the chunk reader lets through. F64 columns
 * (float64 in the file) have no bounds: any real or NaN. */
enum { IO_KIND_I32, IO_KIND_U32, IO_KIND_U8, IO_KIND_U64, IO_KIND_F64 };
typedef struct {
    int kind;
    int64_t lo, hi;
    int dict; /* >= 0: an index into that dictionary (hi = its size - 1) */
} io_value_rule;

extern const io_value_rule io_field_rules[IO_N_FIELD_COLS];
extern const io_value_rule io_result_rules[IO_N_RESULT_COLS];

/* The native HDF5 memory type and the byte size of a kind. */
hid_t io_kind_memtype(int kind);
size_t io_kind_size(int kind);

/* 1 if an archive with these options has /results column c / /fields
 * column c / dictionary k. */
int io_has_result_col(int c, int has_adjusted, int has_teams, int has_published,
                      int has_published_percent);
int io_has_field_col(int c, int has_deal_sets);
int io_has_dict(int k, int has_teams);

/* The root attributes that sum an archive up. */
typedef struct {
    uint64_t n_results, n_fields;
    int32_t first_date, last_date;
    int has_adjusted, has_teams, has_published, has_published_percent;
} io_archive_summary;

/* The integer root attributes: the version, then the summary. has_teams,
 * has_published and has_published_percent came later: an archive without
 * them has neither. has_published_percent is written only when 1, so that
 * the archives without percentages stay as they were. */
enum {
    IO_A_VERSION,
    IO_A_N_RESULTS,
    IO_A_N_FIELDS,
    IO_A_FIRST_DATE,
    IO_A_LAST_DATE,
    IO_A_HAS_ADJUSTED,
    IO_A_HAS_TEAMS,
    IO_A_HAS_PUBLISHED,
    IO_A_HAS_PUBLISHED_PERCENT,
    IO_N_SUMMARY_ATTRS
};
extern const char *const io_summary_attrs[IO_N_SUMMARY_ATTRS];

/* Writes the root attributes (format, format_version = version, engine
 * version, creation time and the summary) into a new archive (or the root
 * file of version 2); < 0 on failure. */
int io_archive_write_summary(hid_t file, const io_archive_summary *s, int version);

/* ------------------------------------------------------------------------ */
/* format.c: what opening the bridge and the tarot archive shares           */

/* What tells one archive format from the other. */
typedef struct {
    const char *format; /* the root attribute `format` */
    const char *name;   /* "PATH: not a NAME" */
    const char *noun;   /* "PATH: damaged NOUN: ...", "PATH: NOUN format version N ..." */
    int version;        /* the format_version this datum reads */
} io_archive_kind;

extern const io_archive_kind io_bridge_archive, io_tarot_archive;

/* Opens an HDF5 file read-only into *file: DATUM_E_IO "cannot open PATH:
 * REASON" if it cannot be read (missing, a directory), DATUM_E_FORMAT "PATH:
 * not an HDF5 file (or damaged)" if HDF5 cannot open it. */
int io_h5_open_checked(datum_ctx *ctx, const char *path, hid_t *file);

/* Checks the root attributes format and format_version (1 to kind->version)
 * of an open file: DATUM_OK, or DATUM_E_FORMAT "PATH: not a NAME (format
 * \"...\")", "PATH: damaged NOUN: no format_version attribute", "PATH: NOUN
 * format version N is not supported (...)", or DATUM_E_NOMEM. */
int io_check_format(datum_ctx *ctx, hid_t file, const char *path, const io_archive_kind *kind);

/* Records DATUM_E_FORMAT "PATH: damaged NOUN: WHAT" and returns it. */
int io_damaged(datum_ctx *ctx, const char *path, const io_archive_kind *kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
int io_vdamaged(datum_ctx *ctx, const char *path, const io_archive_kind *kind, const char *fmt,
                va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 0)))
#endif
    ;

/* Reads the 1-D string dataset `name` (a dictionary, at most 2^31-1 entries;
 * a null string reads as "") into *out: an array of *n entries pointing
 * into one block of bytes, released with io_free_dict(*out, *n). On failure
 * *out is NULL, *n is 0 and DATUM_E_FORMAT "damaged NOUN: NAME is missing /
 * not a 1-D dataset ... / not a readable string dataset" or DATUM_E_NOMEM is
 * recorded. */
int io_read_dict(datum_ctx *ctx, hid_t file, const char *path, const io_archive_kind *kind,
                 const char *name, uint32_t *n, char ***out);
/* Copies n strings (NULL reads as "") into a dictionary as io_read_dict
 * makes it: DATUM_OK or DATUM_E_NOMEM (recorded). */
int io_copy_strings(datum_ctx *ctx, char *const *s, uint64_t n, char ***out);
/* Releases a dictionary of n entries from io_read_dict; accepts NULL. */
void io_free_dict(char **entries, uint32_t n);

/* ------------------------------------------------------------------------ */
/* archive.c: an open archive                                               */

/* One file of format version 1: a whole archive, or one part of an archive
 * of format version 2 (its base or a segment: docs/archive-format.md). */
typedef struct {
    char *path;
    hid_t file;
    hid_t fields[IO_N_FIELD_COLS];   /* < 0 for /fields/deal_set when absent */
    hid_t results[IO_N_RESULT_COLS]; /* < 0 for an optional column that is absent */
    char **dict[IO_N_DICTS];         /* from io_read_dict */
    uint32_t dict_len[IO_N_DICTS];   /* 0 for an absent dictionary */
    datum_archive_info info;
    /* The part's dictionary index -> the archive's; NULL when they are the
     * same (an archive of one part). */
    uint32_t *remap[IO_N_DICTS];
} io_part;

/* A stretch of the archive's fields that one part holds one after another:
 * the archive's fields field .. field+n_fields-1 are the part's part_field
 * .., and their rows row .. row+n_rows-1 the part's part_row ... */
typedef struct {
    uint32_t part;
    uint64_t field, n_fields, part_field;
    uint64_t row, n_rows, part_row;
} io_run;

/* Where an event's fields are in an archive of several parts: the part's
 * fields first .. end-1 (every event is in one part). */
typedef struct {
    uint32_t part;
    uint64_t first, end;
} io_event_span;

/* An open archive; the chunk reader and the output read it through its
 * parts and runs. Format version 1: one part, one run, the part's
 * dictionaries. Version 2: its parts in the order of the manifest, their
 * dictionaries merged (dict) and their fields in the archive's order
 * (runs: each part's events interleaved by name). */
struct datum_archive {
    char *path;
    io_part *parts;
    uint32_t n_parts;
    io_run *runs;
    size_t n_runs;
    io_event_span *events; /* version 2: per entry of the event dictionary */
    char **dict[IO_N_DICTS]; /* the part's (one part), else merged */
    uint32_t dict_len[IO_N_DICTS];
    datum_archive_info info;
};

/* The run holding the archive's field (by_row == 0) or row pos, which must
 * be below n_fields / n_results. */
size_t io_run_find(const datum_archive *a, int by_row, uint64_t pos);

/* Records DATUM_E_FORMAT "PART: damaged archive: WHAT" (the part's file). */
int io_part_damaged(datum_ctx *ctx, const io_part *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ------------------------------------------------------------------------ */
/* Format version 2: the manifest (archive.c), shared with append.c          */

/* The version of a single file, and of a base with its segments. */
#define IO_ARCHIVE_FILE_VERSION 1
#define IO_ARCHIVE_SEGMENTED_VERSION 2

/* A part as the manifest lists it: its file name in the folder ARCHIVE.d,
 * and what it must hold. */
typedef struct {
    char *file;
    uint64_t bytes, n_results, n_fields;
} io_part_entry;

/* The folder of an archive's parts: PATH.d, malloc'd (NULL: out of memory,
 * recorded). */
char *io_parts_dir(datum_ctx *ctx, const char *path);
/* PATH.d/FILE, malloc'd (NULL: out of memory, recorded). */
char *io_part_path(datum_ctx *ctx, const char *path, const char *file);
/* Reads the manifest of the version 2 root file `root` (at path) into
 * *entries (*n of them, at least one: the base first), released with
 * io_part_entries_free. DATUM_E_FORMAT "PATH: damaged archive: ..." or
 * DATUM_E_NOMEM. */
int io_read_manifest(datum_ctx *ctx, hid_t root, const char *path, io_part_entry **entries,
                     uint32_t *n);
void io_part_entries_free(io_part_entry *entries, uint32_t n);
/* Writes the manifest of n parts into a new root file: DATUM_OK,
 * DATUM_E_NOMEM (recorded), or -1 when HDF5 fails (nothing recorded). */
int io_write_manifest(datum_ctx *ctx, hid_t root, const io_part_entry *e, uint32_t n);
/* The summary attributes of an open file (an archive of version 1, or the
 * root of version 2) into *info (n_* of the dictionaries not set):
 * DATUM_OK, or DATUM_E_FORMAT "PATH: damaged archive: attribute ...". */
int io_read_summary(datum_ctx *ctx, hid_t file, const char *path, datum_archive_info *info);
/* Adds the summary of a part to *m (zeroed before the first): counts
 * summed, dates widened, the has_* flags or'ed. */
void io_summary_add(datum_archive_info *m, const datum_archive_info *part);
/* The format_version of an open file that io_check_format accepted. */
int io_file_version(hid_t file);

/* Opens the parts e[0..n) (n >= 1, files in the folder PATH.d, each of the
 * size and counts its entry says) of the archive at path as one archive,
 * as datum_archive_open opens all of them: for merging some of an
 * archive's parts (compact.c). The errors of datum_archive_open. */
int io_archive_open_parts(datum_ctx *ctx, const char *path, const io_part_entry *e, uint32_t n,
                          datum_archive **out);

/* archive.c, for append.c and compact.c: the folder PATH.d made if needed and
 * locked against any other append or compaction of the archive (*lock_fd,
 * held until closed): DATUM_OK, or DATUM_E_IO "PATH: another append or
 * compaction of it is running" / "cannot create / lock ...". */
int io_lock_parts(datum_ctx *ctx, const char *path, const char *dir, int *lock_fd);
/* Syncs a folder, so that the renames and links in it last a crash:
 * DATUM_OK or DATUM_E_IO "cannot sync DIR: REASON". */
int io_sync_dir(datum_ctx *ctx, const char *dir);
/* The folder that holds path, malloc'd (NULL: out of memory, recorded). */
char *io_parent_dir(datum_ctx *ctx, const char *path);
/* Removes the files of the folder dir (PATH.d of the archive at path) but
 * its lock and the parts keep[0..n_keep) name; phase, if not NULL: the
 * kill point (io_kill_point) after the first removal. DATUM_OK,
 * DATUM_E_NOMEM, or DATUM_E_IO "cannot read DIR" / "cannot remove FILE". */
int io_remove_unlisted(datum_ctx *ctx, const char *path, const char *dir,
                       const io_part_entry *keep, uint32_t n_keep, const char *phase);
/* The name of the lock file in PATH.d. */
#define IO_LOCK_NAME "lock"

/* compact.c: writes the parts e[0..n) of the archive at path, merged, as
 * one file of format version 1 at out_path (the same bytes as a fresh
 * import of their rows; through the archive writer: a temporary file
 * synced and renamed into place), reading chunks of at most max_rows rows;
 * *made receives out_path's size and counts (its file name is not set).
 * DATUM_OK, or the errors of datum_archive_open, the chunk reader and the
 * writer (nothing left at out_path's temporary name). */
int io_merge_parts(datum_ctx *ctx, const char *path, const io_part_entry *e, uint32_t n,
                   const char *out_path, size_t max_rows, const datum_write_options *opt,
                   io_part_entry *made);
/* The rows a chunk of a merge reads for a memory budget (0: the import's
 * default): memory / 128 (the reader's columns of a row, and as much again
 * for the writer's), from 64 Ki to 1 Mi rows. */
size_t io_merge_rows(size_t memory);
/* Tests only (tests/e2e/test_append.py, test_compact.py): with the
 * environment's DATUM_TEST_APPEND_KILL=PHASE, kills the process there, to
 * show that every phase leaves a whole archive (archive.c). */
void io_kill_point(const char *phase);
/* Tests only (tests/e2e/test_compact.py): with DATUM_TEST_PAUSE=PHASE:SECONDS,
 * sleeps that long there, so that a test can replace the archive meanwhile. */
void io_pause_point(const char *phase);

/* Records DATUM_E_FORMAT "PATH: damaged archive: WHAT". */
int io_archive_damaged(datum_ctx *ctx, const datum_archive *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* import.c: the results CSV reader as a row source (io_common.h), as the
 * import reads it; arg unused. */
int io_csv_source_open(datum_ctx *ctx, const char *path, void *arg, io_row_source *src);
/* import.c: the row source that reads a file of format (DATUM_FORMAT_CSV,
 * _USEBIO or _PBN; any other value: CSV). */
io_row_source_open io_format_source(int format);

/* ------------------------------------------------------------------------ */
/* h5util.c: HDF5 helpers (return < 0 on failure, nothing recorded)         */

/* Turns off HDF5's printing of its error stack (we translate errors): its
 * automatic handler, which prints nothing, only notes whether HDF5 ran out of
 * memory (an H5E_RESOURCE error, H5E_CANTALLOC or H5E_NOSPACE, on its stack).
 * Forgets what it noted. HDF5 keeps these settings per thread: called before
 * every file is opened or created, and on entry to each public function
 * that may be called from another thread (the writers', the chunk reader's).
 * The first call also turns HDF5's shutdown at exit off (h5util.c). */
void io_h5_silence(void);
/* If HDF5 ran out of memory since the last io_h5_silence or io_h5_nomem:
 * records DATUM_E_NOMEM "out of memory (HDF5, FUNCTION: WHAT)" and returns
 * it (then forgets it); else returns DATUM_OK. The error paths of io/ call it
 * first, so that a failure for lack of memory is not reported as a damaged
 * archive or a failed write. */
int io_h5_nomem(datum_ctx *ctx);
/* io_h5_nomem's out of memory, else DATUM_E_IO "cannot write PATH (WHAT)"
 * ("cannot write PATH" when what is NULL): the code recorded. */
int io_h5_fail_write(datum_ctx *ctx, const char *path, const char *what);
/* Closes a file and every object of it still open, each on its own (so a
 * failed close leaves nothing open for HDF5's exit handler); < 0 if any
 * close failed. */
herr_t io_h5_close_file(hid_t file);
/* Creates (truncating) or opens read-only an HDF5 file; H5I_INVALID_HID on
 * failure. Objects still open at H5Fclose are closed with the file. */
hid_t io_h5_create_file(const char *path);
hid_t io_h5_open_file(const char *path);
/* Creates the group `name` under the root unless it exists. */
int io_h5_ensure_group(hid_t file, const char *name);

/* Narrowest standard little-endian integer type holding lo..hi (a library
 * constant: not to be closed). */
hid_t io_h5_int_type(int64_t lo, int64_t hi);

/* Creates the 1-D dataset d->path of `length` elements of file type `type`:
 * chunked with shuffle + deflate as *opt says (contiguous when opt is NULL or
 * the dataset is empty), with d's description and units attributes, and a
 * chunk cache that holds a chunk (for writing in slices). */
hid_t io_h5_create_dataset(hid_t loc, const io_dataset_desc *d, hid_t type, uint64_t length,
                           const datum_write_options *opt);
/* Creates the 1-D dataset d->path of no elements and no limit, for
 * appending: chunked (*chunk receives the length, min(chunk_hint,
 * opt->chunk_rows) elements) and filtered as *opt says (an integer type
 * shuffled only if `shuffle`: io_shuffled), with d's attributes and a chunk
 * cache that holds a chunk. */
hid_t io_h5_create_growing(hid_t loc, const io_dataset_desc *d, hid_t type, uint64_t chunk_hint,
                           const datum_write_options *opt, int shuffle, uint64_t *chunk);
/* Grows a dataset made by io_h5_create_growing from `length` to length +
 * count elements and writes buf there. */
int io_h5_append(hid_t ds, hid_t memtype, uint64_t length, uint64_t count, const void *buf);
/* Writes / reads elements first..first+count-1 of a 1-D dataset from / into
 * buf, converting between memtype and the file type. */
int io_h5_write_range(hid_t ds, hid_t memtype, uint64_t first, uint64_t count, const void *buf);
int io_h5_read_range(hid_t ds, hid_t memtype, uint64_t first, uint64_t count, void *buf);
/* Writes values[0..n) as a new dataset in the narrowest integer type. */
int io_h5_write_ints(hid_t loc, const io_dataset_desc *d, const int64_t *values, uint64_t n,
                     const datum_write_options *opt);
/* Writes s[0..n) as a new (contiguous) dataset of variable-length UTF-8 strings. */
int io_h5_write_strings(hid_t loc, const io_dataset_desc *d, const char *const *s, uint64_t n);
/* Allocates size bytes for a string HDF5 reads (info: the caller's), NULL
 * when out of memory. */
typedef void *(*io_string_alloc)(size_t size, void *info);
/* Reads a whole 1-D variable-length string dataset of n elements into
 * ptrs[0..n) (all NULL after a failure). alloc NULL: HDF5 allocates each
 * string, released with io_h5_free_strings; else alloc(size, info) does, and
 * HDF5 releases none (the caller's memory, freed by the caller as it
 * allocated it, also after a failure). */
int io_h5_read_strings(hid_t ds, uint64_t n, char **ptrs, io_string_alloc alloc, void *info);
void io_h5_free_strings(uint64_t n, char **ptrs);

/* Opens a dataset for sequential reading, with a chunk cache that holds a
 * chunk however large; H5I_INVALID_HID if it cannot. */
hid_t io_h5_open_dataset(hid_t loc, const char *path);
/* Number of elements of a 1-D dataset; < 0 if it is not 1-D. */
int io_h5_length(hid_t ds, uint64_t *n);
/* 1 if the dataset's elements are of class cls (H5T_INTEGER, H5T_FLOAT),
 * 0 if not, < 0 on failure. */
int io_h5_has_class(hid_t ds, H5T_class_t cls);

/* 1 if this thread can get some memory now (256 KiB; a thread's first
 * allocations reserve a whole arena), 0 if not, errno then ENOMEM: asked
 * before the HDF5 calls that crash or end the program when an allocation
 * inside them fails, so that the caller reports out of memory instead. */
int io_h5_memory_probe(void);
/* Scalar attributes: a UTF-8 string, or an integer stored as `type`. */
int io_h5_set_str_attr(hid_t obj, const char *name, const char *value);
int io_h5_set_int_attr(hid_t obj, const char *name, hid_t type, int64_t value);
/* Reads a scalar string attribute (fixed or variable length) into a malloc'd
 * string: DATUM_OK, 1 if absent, unreadable or of another kind (nothing
 * recorded), or DATUM_E_NOMEM (recorded). */
int io_h5_get_str_attr(datum_ctx *ctx, hid_t obj, const char *name, char **value);
/* Reads a scalar integer attribute: 0, or < 0 if absent or of another kind. */
int io_h5_get_int_attr(hid_t obj, const char *name, int64_t *value);

/* MPI (mpio.c; datum_io_mpi.h): files shared by the processes of a
 * communicator once datum_io_use_mpi is called in a DATUM_MPI build; in any
 * other process one process of rank 0, and every step below local. */
int io_mpi_active(void);
int io_mpi_rank(void);
/* fapl with MPI-IO on the communicator when active (fapl itself otherwise);
 * H5I_INVALID_HID (fapl closed) on failure. */
hid_t io_mpi_file_access(hid_t fapl);
/* Collective when active: 1 when ok != 0 on every process, else 0. */
int io_mpi_all(int ok);
/* Collective when active: *s (malloc'd or NULL) becomes rank 0's on every
 * process. DATUM_OK, DATUM_E_NOMEM or DATUM_E_IO (recorded). */
int io_mpi_share_string(datum_ctx *ctx, char **s);

/* A new HDF5 file written under a temporary name, then renamed into place
 * (these helpers take a context and record their errors). Creates
 * PATH.tmp-XXXXXX (*tmp, malloc'd) and opens it as a new HDF5 file *file;
 * on failure nothing is left behind. */
int io_h5_temp_create(datum_ctx *ctx, const char *path, char **tmp, hid_t *file);
/* Closes *file (H5I_INVALID_HID after) and renames *tmp over path: on
 * success *tmp is freed and NULL; on failure "cannot write PATH (...)" is
 * recorded and *tmp is left for io_temp_discard. */
int io_h5_temp_commit(datum_ctx *ctx, hid_t *file, char **tmp, const char *path);

/* Writes a new HDF5 file at path atomically (with the two above): creates PATH.tmp-XXXXXX, lets fill write into it (0, or < 0
 * with *what naming the part that failed, or with an error it recorded in
 * ctx itself), closes it and renames it over path. On failure nothing is
 * left behind and DATUM_E_IO "cannot write PATH (WHAT)" is recorded, unless
 * fill recorded its own error. */
int io_h5_write_file(datum_ctx *ctx, const char *path,
                     int (*fill)(hid_t file, void *user, const char **what), void *user);


/* ------------------------------------------------------------------------ */
/* h5chunk.c: whole compressed chunks, (de)compressed by our threads        */

/* A chunked 1-D dataset whose filters we reproduce: shuffle + deflate,
 * deflate, or none. */
typedef struct {
    hid_t ds;          /* not owned */
    hsize_t chunk;     /* elements per chunk */
    size_t elem;       /* bytes per element of the file type */
    int shuffle;       /* byte shuffle before deflate */
    int deflate_level; /* 0: no compression */
    int entropy_only;  /* deflate by Huffman coding alone (huffman.h): for
                          high-entropy bytes, where LZ77 finds nothing */
    int repeats;       /* float64 values deflated as repeats of earlier ones
                          (io_f64_zlib_compress): matchpoints */
} io_chunked;

/* Fills *c for ds; < 0 if ds is not chunked, has a pipeline we do not
 * reproduce, or this machine is big-endian (the files' types are little-
 * endian and our chunks are memory's bytes): the caller then uses the
 * library's own filters. */
int io_chunked_open(hid_t ds, io_chunked *c);
/* Memory io_chunked_write and io_chunked_read keep from one call to the next (blocks this
 * large come from mmap, whose pages would fault in anew on every call).
 * Zero-initialise; the caller owns it and frees it with datum_free(s.p). */
typedef struct {
    void *p;
    size_t cap;
} io_scratch;

/* Writes chunks first_chunk .. first_chunk+n_chunks-1 from data (n_chunks *
 * chunk elements in the FILE type's byte layout; the dataset's last chunk may
 * be padded), compressing them with `threads` threads in *scratch (grown as
 * needed). DATUM_OK, DATUM_E_NOMEM (recorded in ctx), or DATUM_E_IO (HDF5
 * refused a chunk; nothing recorded: the caller names the file). */
int io_chunked_write(datum_ctx *ctx, const io_chunked *c, io_scratch *scratch,
                     uint64_t first_chunk, size_t n_chunks, const void *data, int threads);
/* One chunk at a time, for writers that share the compression between
 * threads themselves: io_chunked_pack compresses (any thread, its own
 * compressor and room), io_chunked_put writes (one thread, in order), with
 * the bytes io_chunked_write would write.
 * A thread's deflate compressor, allocated by its first io_chunked_pack (at
 * the codec's level, again when that changes). Zero-initialise; free with
 * io_compressor_free. */
enum { IO_SAME_STREAM_MAX = 16384 };
typedef struct {
    struct libdeflate_compressor *z;
    int level;
    /* The stream of the last chunk of one repeated element packed, and its
     * column's codec: a column of one value (the teams of a federation
     * without teams, results never adjusted) packs that same chunk again
     * and again, and then reuses it (same_size 0: none kept). */
    size_t same_size;
    uint64_t same_value;
    io_chunked same_codec;
    unsigned char same_stream[IO_SAME_STREAM_MAX];
} io_compressor;
void io_compressor_free(io_compressor *z);
/* The bytes of room io_chunked_pack needs for one chunk of c (a multiple of
 * 8: rooms laid end to end stay aligned). */
size_t io_chunked_pack_room(const io_chunked *c);
/* Compresses one chunk, raw (chunk elements in the file type's layout), in
 * room[0..io_chunked_pack_room(c)) (8-byte aligned): *packed, *size are the
 * chunk's bytes there. Thread-safe for distinct z and room. DATUM_OK,
 * DATUM_E_NOMEM (the compressor; recorded in ctx, thread-safe) or DATUM_E_IO
 * (the compression failed; nothing recorded). */
int io_chunked_pack(datum_ctx *ctx, const io_chunked *c, io_compressor *z, const void *raw,
                    unsigned char *room, const unsigned char **packed, size_t *size);
/* Writes a packed chunk as chunk number `chunk` of c's dataset (whose
 * extent covers it): 0, or < 0 if HDF5 refused it. */
int io_chunked_put(const io_chunked *c, uint64_t chunk, const unsigned char *packed, size_t size);
/* archive_writer.c: shared compression, for a writer appending on one
 * thread while another waits for it (the import's merge). on 1: from now
 * on, the chunks of each column's flush are packed by the appending thread
 * and by any thread calling io_archive_writer_help meanwhile, then written
 * in order (the same file as without); on 0: back to io_chunked_write's
 * threads (before the commit, when no helper is left). DATUM_OK. */
int io_archive_writer_share(datum_archive_writer *w, int on);
/* Packs the chunks of the writer's current flush that no thread has taken
 * yet, with z (the calling thread's compressor; io_compressor_free it at
 * the end); 1 if it packed any, 0 if there was none (or sharing is off).
 * A failure is the appending thread's to report. Thread-safe. */
int io_archive_writer_help(datum_archive_writer *w, io_compressor *z);
/* Reads and decodes whole chunks into data (file type layout; with planes
 * and a shuffled dataset, each chunk's bytes as shuffled: byte b of element
 * i at b * chunk + i); every chunk must exist. DATUM_OK, DATUM_E_NOMEM
 * (recorded in ctx), or DATUM_E_FORMAT (a missing or damaged chunk; nothing
 * recorded: the caller names it). */
int io_chunked_read(datum_ctx *ctx, const io_chunked *c, io_scratch *scratch,
                    uint64_t first_chunk, size_t n_chunks, void *data, int planes, int threads);

/* ------------------------------------------------------------------------ */
/* window.c: the decoded-chunk window                                       */

/* Element-wise loops go parallel from this length: below it, waking the
 * threads costs more than the loop. */
#define IO_PARALLEL_MIN_ELEMENTS 65536

/* Sequential reads of one integer column: whole chunks are
 * decoded a batch at a time in parallel (io_chunked_read) and kept, so that
 * consecutive reads decode each chunk once. Zero-initialise; the caller owns
 * it and releases it with io_window_free. */
typedef struct {
    int state;          /* 0: not tried yet; 1: direct; -1: the library's path */
    io_chunked codec;
    int is_signed;
    uint64_t length;    /* elements in the dataset */
    int planes;         /* raw's chunks as shuffled (io_chunked_read's planes): 2-byte
                           values, widened from their two bytes' planes */
    unsigned char *raw; /* chunks first .. first+count-1, in the file's layout */
    uint64_t first, count, cap;
    io_scratch packed;  /* the compressed chunks of a batch, kept */
} io_window;

/* Elements first..first+n-1 of ds into out, converted to C type `kind`
 * (saturating like HDF5), with `threads` threads. [*seen_lo, *seen_hi] is
 * set to the range of the file values read, or to [INT64_MIN, INT64_MAX]
 * when the library read them (unknown). DATUM_OK, DATUM_E_NOMEM (recorded in
 * ctx), or DATUM_E_FORMAT (a damaged chunk, a range past the end; nothing
 * recorded: the caller names the column). */
int io_window_read(datum_ctx *ctx, io_window *w, hid_t ds, int kind, uint64_t first, size_t n, void *out,
                   int threads, int64_t *seen_lo, int64_t *seen_hi);
void io_window_free(io_window *w);

#endif
