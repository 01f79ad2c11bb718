/*
 * output.c - the HDF5 output of a run: provenance attributes, a copy of the
 * source archive's names (so that the file describes itself), and the
 * columns the run declares. Written under a temporary name until commit.
 *
 * Shared by the processes of datum-mpi (datum_io_mpi.h): rank 0 names the
 * temporary file, every process creates it with it through MPI-IO and makes
 * the same calls for its header and datasets (collective, as parallel HDF5
 * wants every change of a file's structure), uncompressed and contiguous, so
 * that each process writes the elements it computed alone (compressed
 * chunks would need every write to be collective); commit closes it on all
 * and rank 0 renames it. The values are the serial output's; the file is
 * larger (docs/scale-out.md).
 */
#if defined(__linux__)
#define _GNU_SOURCE /* sync_file_range */
#endif
#include "io_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define OUTPUT_FORMAT_VERSION 1

/* What output.c copies from an archive of one file (of several, it writes
 * them: write_merged_names). The dictionaries it writes from memory
 * (write_dicts), twice as fast as copying their strings, except when shared
 * (parallel HDF5 1.10 writes no variable-length strings: it copies them). */
static const char *const kCopied[] = {"dict", "fields/event", "fields/section", "fields/board"};
/* Root attributes set by datum_output_create itself. */
static const char *const kReserved[] = {"format", "format_version", "engine_version", "command",
                                        "source"};

typedef struct {
    hid_t ds;
    uint64_t length;
    hid_t memtype; /* H5T_NATIVE_DOUBLE or H5T_NATIVE_INT64 */
    char *path;
    /* Sequential writes from element 0 are gathered into whole chunks and
     * compressed in parallel (h5chunk.c); `done` elements are in the file,
     * `held` more wait in buf (room for BATCH_CHUNKS chunks). */
    int direct;
    int narrow;     /* double given, a narrower type stored: converted into buf */
    hid_t buftype;  /* memory type of buf's contents */
    io_chunked codec;
    unsigned char *buf;
    uint64_t done, held;
} out_column;

/* Chunks compressed together: 2 per thread on 2 cores. The buffer holds one
 * more, so that a slot (datum_output_slot) may cross the batch's end. */
enum { BATCH_CHUNKS = 4, BUF_CHUNKS = BATCH_CHUNKS + 1 };

struct datum_output {
    datum_ctx *ctx;
    char *path, *tmp;
    hid_t file;
    int shared; /* written by the processes of datum-mpi together */
    /* Shared, of an archive of several parts: its merged names, written by
     * rank 0 alone at commit (parallel HDF5 1.10 writes no variable-length
     * strings); borrowed, the archive outlives the output. */
    const datum_archive *names_of;
    datum_write_options opt;
    /* The temporary file, read-only, whose writing back to disk each flush
     * of chunks starts (start_writeback); -1: none. */
    int writeback_fd;
    io_scratch scratch; /* the columns' compression, one after the other */
    out_column *col;
    size_t n_cols, cols_cap;
};

/* Closes the file, removes the temporary file unless it was renamed into
 * place, and frees o. */
static void output_free(datum_output *o)
{
    if (o->file >= 0) io_h5_close_file(o->file); /* closes the datasets too */
    if (o->writeback_fd >= 0) close(o->writeback_fd);
    if (o->shared && io_mpi_rank() != 0) { /* rank 0's file: only it removes it */
        datum_free(o->tmp);
        o->tmp = NULL;
    }
    io_temp_discard(&o->tmp);
    for (size_t i = 0; i < o->n_cols; i++) {
        datum_free(o->col[i].path);
        datum_free(o->col[i].buf);
    }
    datum_free(o->col);
    datum_free(o->scratch.p);
    datum_free(o->path);
    datum_free(o);
}

/* Shared: whether every process got as far (collective): rc, or when
 * another process failed, DATUM_E_IO "cannot write PATH (another process
 * failed)". */
static int agree(datum_output *o, int rc)
{
    if (!o->shared || io_mpi_all(rc == DATUM_OK)) return rc;
    return rc != DATUM_OK ? rc : io_h5_fail_write(o->ctx, o->path, "another process failed");
}

/* Checks that no user attribute repeats or takes a reserved name. */
static int check_attr_keys(datum_ctx *ctx, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int clash = keys[i][0] == '\0';
        for (size_t r = 0; r < sizeof kReserved / sizeof *kReserved; r++)
            clash |= !strcmp(keys[i], kReserved[r]);
        for (size_t j = 0; j < i; j++) clash |= !strcmp(keys[i], keys[j]);
        if (clash)
            return datum_ctx_fail(ctx, DATUM_E_ARG,
                                  "output attribute \"%s\" is empty, reserved or repeated",
                                  keys[i]);
    }
    return DATUM_OK;
}

/* The archive's dictionaries, as the import writes them (merged, of an
 * archive of several parts). */
static int write_dicts(datum_output *o, const datum_archive *src)
{
    datum_ctx *ctx = o->ctx;
    int rc = io_h5_ensure_group(o->file, "dict") < 0 ? io_h5_fail_write(ctx, o->path, "dict")
                                                     : DATUM_OK;
    for (int k = 0; k < IO_N_DICTS && rc == DATUM_OK; k++)
        if (io_has_dict(k, src->info.has_teams) &&
            io_h5_write_strings(o->file, &io_dict_cols[k], (const char *const *)src->dict[k],
                                src->dict_len[k]) < 0)
            rc = io_h5_fail_write(ctx, o->path, io_dict_cols[k].path);
    return rc;
}

static int write_header(datum_output *o, const datum_archive *src, const char *command,
                        const char *const *keys, const char *const *values, size_t n)
{
    hid_t f = o->file;
    if (io_h5_set_str_attr(f, "format", "datum-output") < 0 ||
        io_h5_set_int_attr(f, "format_version", H5T_STD_I32LE, OUTPUT_FORMAT_VERSION) < 0 ||
        io_h5_set_str_attr(f, "engine_version", datum_version()) < 0 ||
        io_h5_set_str_attr(f, "command", command ? command : "") < 0 ||
        io_h5_set_str_attr(f, "source", src->path) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (io_h5_set_str_attr(f, keys[i], values[i] ? values[i] : "") < 0) return -1;
    if (io_h5_ensure_group(f, "fields") < 0) return -1;
    for (size_t i = o->shared ? 0 : 1; src->n_parts == 1 && i < sizeof kCopied / sizeof *kCopied; i++)
        if (H5Ocopy(src->parts[0].file, kCopied[i], f, kCopied[i], H5P_DEFAULT, H5P_DEFAULT) < 0)
            return -1;
    return 0;
}

/* The file type of the parts' /fields/board that holds all their values
 * (the widest), as the import of all their rows would choose it. */
static hid_t board_type(const datum_archive *src)
{
    size_t size = 1;
    int is_signed = 0;
    for (uint32_t p = 0; p < src->n_parts; p++) {
        hid_t t = H5Dget_type(src->parts[p].fields[IO_F_BOARD]);
        if (t < 0) return H5I_INVALID_HID;
        if (H5Tget_size(t) > size) size = H5Tget_size(t);
        is_signed |= H5Tget_sign(t) == H5T_SGN_2;
        H5Tclose(t);
    }
    int64_t hi = size >= 8 ? INT64_MAX : (int64_t)((UINT64_C(1) << (8 * size - is_signed)) - 1);
    return io_h5_int_type(is_signed ? -1 : 0, hi);
}

/* An archive of several parts: its merged dictionaries, and the events,
 * sections and boards of its fields in its order, written as the import
 * of all its rows writes them. */
static int write_merged_names(datum_output *o, const datum_archive *src)
{
    datum_ctx *ctx = o->ctx;
    hid_t f = o->file, ds[3];
    const int cols[3] = {IO_F_EVENT, IO_F_SECTION, IO_F_BOARD};
    uint64_t chunk, length = 0;
    int rc = write_dicts(o, src);
    const hid_t type[3] = {
        io_h5_int_type(0, src->dict_len[IO_D_EVENTS] ? src->dict_len[IO_D_EVENTS] - 1 : 0),
        io_h5_int_type(0, src->dict_len[IO_D_SECTIONS] ? src->dict_len[IO_D_SECTIONS] - 1 : 0),
        board_type(src)};
    for (int c = 0; c < 3; c++) ds[c] = H5I_INVALID_HID;
    for (int c = 0; c < 3 && rc == DATUM_OK; c++)
        if (type[c] < 0 || (ds[c] = io_h5_create_growing(f, &io_field_cols[cols[c]], type[c],
                                                         src->info.n_fields, &o->opt, 1, &chunk)) < 0)
            rc = io_h5_fail_write(ctx, o->path, io_field_cols[cols[c]].path);
    datum_chunk_reader *r = NULL;
    if (rc == DATUM_OK) rc = datum_chunk_reader_create(ctx, (datum_archive *)src, 0, 1 << 20, &r);
    while (rc == DATUM_OK) {
        datum_chunk c;
        if ((rc = datum_chunk_reader_next(r, &c)) != DATUM_OK || c.n_fields == 0) break;
        const void *data[3] = {c.field_event, c.field_section, c.field_board};
        const hid_t memtype[3] = {H5T_NATIVE_UINT32, H5T_NATIVE_UINT32, H5T_NATIVE_INT32};
        for (int k = 0; k < 3 && rc == DATUM_OK; k++)
            if (io_h5_append(ds[k], memtype[k], length, c.n_fields, data[k]) < 0)
                rc = io_h5_fail_write(ctx, o->path, io_field_cols[cols[k]].path);
        length += c.n_fields;
    }
    datum_chunk_reader_free(&r);
    for (int c = 0; c < 3; c++)
        if (ds[c] >= 0) H5Dclose(ds[c]);
    return rc;
}

/* Shared (collective): rank 0 makes the temporary file (rc: how the steps
 * before went here), every process learns its name and opens it as a new
 * HDF5 file through MPI-IO. */
static int create_shared(datum_output *o, int rc)
{
    int fd = -1;
    if (rc == DATUM_OK && io_mpi_rank() == 0 && (rc = io_temp_create(o->ctx, o->path, &o->tmp, &fd)) == DATUM_OK)
        close(fd); /* HDF5 opens the file by name */
    if ((rc = agree(o, rc)) != DATUM_OK) return rc;
    if ((rc = agree(o, io_mpi_share_string(o->ctx, &o->tmp))) != DATUM_OK) return rc;
    io_h5_silence();
    hid_t fapl = io_mpi_file_access(H5Pcreate(H5P_FILE_ACCESS));
    if (fapl >= 0 && H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0)
        o->file = H5Fcreate(o->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (fapl >= 0) H5Pclose(fapl);
    return agree(o, o->file < 0 ? io_h5_fail_write(o->ctx, o->path, "creating the file") : DATUM_OK);
}

int datum_output_create(datum_ctx *ctx, const char *path, const datum_archive *src,
                        const char *command, const char *const *attr_keys,
                        const char *const *attr_values, size_t n_attrs,
                        const datum_write_options *opt, datum_output **out)
{
    datum_output *o = datum_calloc(ctx, 1, sizeof *o);
    int rc = o ? DATUM_OK : DATUM_E_NOMEM;
    *out = NULL;
    if (rc != DATUM_OK) return rc;
    o->ctx = ctx;
    o->file = H5I_INVALID_HID;
    o->writeback_fd = -1;
    o->shared = io_mpi_active();
    if (!src) rc = datum_ctx_fail(ctx, DATUM_E_ARG, "an output needs its source archive");
    if (rc == DATUM_OK) rc = io_write_options(ctx, opt, &o->opt);
    o->opt.compress &= !o->shared; /* every process writes alone: no filter */
    if (rc == DATUM_OK) rc = check_attr_keys(ctx, attr_keys, n_attrs);
    if (rc == DATUM_OK && !(o->path = datum_strdup(ctx, path))) rc = DATUM_E_NOMEM;
    if (rc == DATUM_OK && !o->shared) rc = io_h5_temp_create(ctx, path, &o->tmp, &o->file);
    if (rc == DATUM_OK && !o->shared) o->writeback_fd = open(o->tmp, O_RDONLY | O_CLOEXEC);
    if (o->shared) rc = create_shared(o, rc);
    if (rc == DATUM_OK && write_header(o, src, command, attr_keys, attr_values, n_attrs) < 0)
        rc = io_h5_fail_write(ctx, path, NULL);
    if (rc == DATUM_OK && src->n_parts == 1 && !o->shared) rc = write_dicts(o, src);
    if (rc == DATUM_OK && src->n_parts > 1 && o->shared) o->names_of = src;
    else if (rc == DATUM_OK && src->n_parts > 1) rc = write_merged_names(o, src);
    rc = agree(o, rc);
    if (rc != DATUM_OK) datum_output_abort(&o);
    *out = o;
    return rc;
}

/* repeats: a float64 column deflated by io_f64_zlib_compress. */
static int add_column(datum_output *o, const char *group, const char *name, uint64_t length,
                      const char *description, hid_t type, hid_t memtype, int repeats)
{
    io_h5_silence(); /* this thread too: a caller may use several */
    datum_ctx *ctx = o->ctx;
    size_t len = strlen(group) + strlen(name) + 2;
    int rc = DATUM_OK;
    if (strcmp(group, "fields") && strcmp(group, "results") && strcmp(group, "pairs") &&
        strcmp(group, "history"))
        return datum_ctx_fail(ctx, DATUM_E_ARG,
                              "output group \"%s\" is not fields, results, pairs or history", group);
    if (name[0] == '\0' || strchr(name, '/'))
        return datum_ctx_fail(ctx, DATUM_E_ARG, "bad output column name \"%s\"", name);
    if (datum_reserve(ctx, &o->col, &o->cols_cap, o->n_cols + 1, sizeof *o->col) != DATUM_OK)
        return DATUM_E_NOMEM;
    out_column *c = &o->col[o->n_cols];
    *c = (out_column){.ds = H5I_INVALID_HID, .length = length, .memtype = memtype,
                      .path = datum_calloc(ctx, len, 1)};
    if (!c->path) return DATUM_E_NOMEM;
    snprintf(c->path, len, "%s/%s", group, name);
    io_dataset_desc d = {c->path, description ? description : "", NULL};
    if (io_h5_ensure_group(o->file, group) < 0)
        rc = io_h5_fail_write(ctx, o->path, group);
    else if (H5Lexists(o->file, c->path, H5P_DEFAULT) != 0)
        rc = datum_ctx_fail(ctx, DATUM_E_ARG, "output column %s already exists", c->path);
    else if ((c->ds = io_h5_create_dataset(o->file, &d, type, length,
                                           o->shared ? NULL : &o->opt)) < 0) /* NULL: contiguous */
        rc = io_h5_fail_write(ctx, o->path, c->path);
    rc = agree(o, rc);
    if (rc != DATUM_OK) {
        datum_free(c->path);
        return rc;
    }
    /* The direct path needs the memory layout to be the file's
     * (io_chunked_open refuses a big-endian machine) and a pipeline
     * h5chunk.c reproduces. */
    c->buftype = memtype;
    if (H5Tequal(memtype, H5T_NATIVE_DOUBLE) > 0 && H5Tequal(type, H5T_IEEE_F32LE) > 0)
        c->buftype = H5T_NATIVE_FLOAT;
    else if (H5Tequal(memtype, H5T_NATIVE_DOUBLE) > 0 && H5Tequal(type, H5T_STD_I8LE) > 0)
        c->buftype = H5T_NATIVE_INT8;
    c->narrow = c->buftype != memtype;
    if (o->shared) return (int)o->n_cols++; /* HDF5 converts and writes any range */
    if (length > 0 && H5Tequal(type, c->buftype) > 0 && io_chunked_open(c->ds, &c->codec) == 0) {
        c->buf = datum_malloc(o->ctx, (size_t)c->codec.chunk * BUF_CHUNKS, c->codec.elem);
        if (!c->buf) {
            H5Dclose(c->ds);
            datum_free(c->path);
            return DATUM_E_NOMEM;
        }
        c->direct = 1;
        c->codec.entropy_only = c->narrow && c->codec.elem == 1; /* IMPs: ~4 bits of entropy a byte */
        c->codec.repeats = repeats && !c->codec.shuffle && c->codec.elem == 8;
    }
    return (int)o->n_cols++;
}

int datum_output_add_column(datum_output *o, const char *group, const char *name, uint64_t length,
                            const char *description)
{
    return add_column(o, group, name, length, description, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0);
}

int datum_output_add_stored_column(datum_output *o, const char *group, const char *name,
                                   uint64_t length, const char *description, datum_store_type type)
{
    hid_t file_type = type == DATUM_STORE_I8 ? H5T_STD_I8LE : type == DATUM_STORE_F32 ? H5T_IEEE_F32LE
                                                                                    : H5T_IEEE_F64LE;
    return add_column(o, group, name, length, description, file_type, H5T_NATIVE_DOUBLE,
                      type == DATUM_STORE_F64_REPEATS);
}

int datum_output_add_int_column(datum_output *o, const char *group, const char *name,
                                uint64_t length, const char *description)
{
    return add_column(o, group, name, length, description, H5T_STD_I64LE, H5T_NATIVE_INT64, 0);
}

/* Starts writing the file's pages back to disk, without waiting: the sync
 * of the commit (io_temp_commit) then finds them written, instead of
 * waiting for 200 MB (matchpoints on decade: 0.1 s of 2). A hint: its
 * failure changes nothing, the commit's sync reports any. */
static void start_writeback(const datum_output *o)
{
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
    if (o->writeback_fd >= 0) (void)sync_file_range(o->writeback_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)o;
#endif
}

/* Writes the held elements: whole chunks directly; a partial last chunk
 * directly too when it ends the dataset (padded), else through the library
 * (at_end == 0: the column is leaving the direct path). */
static int flush_held(datum_output *o, out_column *c, int at_end)
{
    uint64_t chunk = c->codec.chunk, whole = c->held / chunk, rest = c->held % chunk;
    size_t bytes = (size_t)chunk * c->codec.elem;
    int threads = datum_ctx_threads(o->ctx), failed = 0;
    if (rest && at_end && c->done + c->held == c->length) { /* the dataset's last chunk */
        memset(c->buf + c->held * c->codec.elem, 0, (size_t)(chunk - rest) * c->codec.elem);
        whole++;
        rest = 0;
    }
    if (whole) {
        int rc = io_chunked_write(o->ctx, &c->codec, &o->scratch, c->done / chunk, (size_t)whole,
                                  c->buf, threads);
        if (rc == DATUM_E_NOMEM) return rc;
        failed = rc != DATUM_OK;
        if (!failed) start_writeback(o);
    }
    if (!failed && rest)
        failed = io_h5_write_range(c->ds, c->buftype, c->done + whole * chunk, rest,
                                   c->buf + whole * bytes) < 0;
    if (failed) return io_h5_fail_write(o->ctx, o->path, c->path);
    c->done += c->held;
    c->held = 0;
    return DATUM_OK;
}

/* Copies n values of elem bytes from `in` to `to` (apart), in blocks over
 * the threads: a serial copy would hold the others back. */
static void copy_values(unsigned char *to, const unsigned char *in, size_t n, size_t elem,
                        int threads)
{
    size_t block = 65536;
    int64_t blocks = (int64_t)((n + block - 1) / block);
#pragma omp parallel for num_threads(threads)
    for (int64_t b = 0; b < blocks; b++) {
        size_t from = (size_t)b * block, k = n - from < block ? n - from : block;
        memcpy(to + from * elem, in + from * elem, k * elem);
    }
}

/* Appends a sequential write to the column's buffer, compressing and
 * writing every time BATCH_CHUNKS whole chunks are ready. */
static int append_sequential(datum_output *o, int column, uint64_t count, const void *values)
{
    out_column *c = &o->col[column];
    uint64_t room = c->codec.chunk * BATCH_CHUNKS;
    const unsigned char *in = values;
    while (count > 0) {
        uint64_t take = room - c->held < count ? room - c->held : count;
        unsigned char *to = c->buf + c->held * c->codec.elem;
        /* Element-wise, so any number of threads writes the same bytes. */
        int threads = take >= 65536 ? datum_ctx_threads(o->ctx) : 1;
        if (c->narrow && c->codec.elem == 4) {
#pragma omp parallel for num_threads(threads)
            for (uint64_t i = 0; i < take; i++) {
                double d;
                memcpy(&d, in + 8 * i, 8);
                float f = (float)d;
                memcpy(to + 4 * i, &f, 4);
            }
        } else if (c->narrow) { /* int8: exact by the caller's promise */
#pragma omp parallel for num_threads(threads)
            for (uint64_t i = 0; i < take; i++) {
                double d;
                memcpy(&d, in + 8 * i, 8);
                to[i] = (unsigned char)(int8_t)d;
            }
        } else {
            copy_values(to, in, (size_t)take, c->codec.elem, threads);
        }
        c->held += take;
        in += take * (c->narrow ? 8 : c->codec.elem);
        count -= take;
        if (c->held == room) {
            int rc = flush_held(o, c, 0);
            if (rc != DATUM_OK) return rc;
        }
    }
    return DATUM_OK;
}

/* The values of a slot written in place: the batch is flushed once whole,
 * as append_sequential does (the same chunks in the same order), and what
 * crossed its end moves to the buffer's start. */
static int append_in_place(datum_output *o, out_column *c, uint64_t count)
{
    uint64_t room = c->codec.chunk * BATCH_CHUNKS;
    c->held += count;
    if (c->held < room) return DATUM_OK;
    uint64_t over = c->held - room;
    c->held = room;
    int rc = flush_held(o, c, 0);
    if (rc != DATUM_OK) return rc;
    /* Apart: over <= one chunk, the batch is four. */
    copy_values(c->buf, c->buf + room * c->codec.elem, (size_t)over, c->codec.elem,
                over >= 65536 ? datum_ctx_threads(o->ctx) : 1);
    c->held = over;
    return DATUM_OK;
}

double *datum_output_slot(datum_output *o, int column, uint64_t first, uint64_t count)
{
    if (!o || column < 0 || (size_t)column >= o->n_cols) return NULL;
    const out_column *c = &o->col[column];
    if (!c->direct || c->buftype != H5T_NATIVE_DOUBLE || first != c->done + c->held ||
        count > c->length - first || c->held + count > c->codec.chunk * BUF_CHUNKS)
        return NULL;
    return (double *)(void *)(c->buf + c->held * c->codec.elem);
}

int datum_output_write(datum_output *o, int column, uint64_t first, uint64_t count,
                       const void *values)
{
    io_h5_silence(); /* this thread too: a caller may use several */
    if (column < 0 || (size_t)column >= o->n_cols)
        return datum_ctx_fail(o->ctx, DATUM_E_ARG, "no output column %d", column);
    const out_column *c = &o->col[column];
    if (first > c->length || count > c->length - first)
        return datum_ctx_fail(o->ctx, DATUM_E_ARG,
                              "cannot write %llu elements from %llu into %s of %llu",
                              (unsigned long long)count, (unsigned long long)first, c->path,
                              (unsigned long long)c->length);
    if (c->direct && first == c->done + c->held && values == c->buf + c->held * c->codec.elem)
        return append_in_place(o, (out_column *)c, count); /* a slot's */
    if (c->direct && first == c->done + c->held) return append_sequential(o, column, count, values);
    if (c->direct) {
        int rc = flush_held(o, (out_column *)c, 0);
        if (rc != DATUM_OK) return rc;
    }
    ((out_column *)c)->direct = 0; /* out of order: the library's path from now on */
    if (io_h5_write_range(c->ds, c->memtype, first, count, values) < 0)
        return io_h5_fail_write(o->ctx, o->path, c->path);
    return DATUM_OK;
}

/* Shared, on rank 0 once every process has closed the file: the merged
 * names of a source of several parts, through HDF5's own file driver. */
static int add_merged_names(datum_output *o)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0)
        o->file = H5Fopen(o->tmp, H5F_ACC_RDWR, fapl);
    if (fapl >= 0) H5Pclose(fapl);
    int rc = o->file < 0 ? io_h5_fail_write(o->ctx, o->path, "reopening it") : DATUM_OK;
    if (rc == DATUM_OK) rc = write_merged_names(o, o->names_of);
    if (o->file >= 0 && io_h5_close_file(o->file) < 0 && rc == DATUM_OK)
        rc = io_h5_fail_write(o->ctx, o->path, "closing the file");
    o->file = H5I_INVALID_HID;
    return rc;
}

int datum_output_commit(datum_output **o)
{
    io_h5_silence(); /* this thread too: a caller may use several */
    datum_output *p = *o;
    int rc = DATUM_OK;
    *o = NULL;
    if (!p) return rc;
    for (size_t i = 0; i < p->n_cols && rc == DATUM_OK; i++)
        if (p->col[i].direct && p->col[i].held) rc = flush_held(p, &p->col[i], 1);
    if (rc != DATUM_OK) {
        output_free(p);
        return rc;
    }
    if (p->shared) { /* closed by all, renamed by rank 0 once all have written */
        herr_t closed = io_h5_close_file(p->file);
        p->file = H5I_INVALID_HID;
        rc = agree(p, closed < 0 ? io_h5_fail_write(p->ctx, p->path, "closing the file") : DATUM_OK);
        if (rc == DATUM_OK && io_mpi_rank() == 0 && p->names_of) rc = add_merged_names(p);
        if (rc == DATUM_OK && io_mpi_rank() == 0 &&
            (rc = io_temp_commit(p->ctx, p->tmp, p->path)) == DATUM_OK) {
            datum_free(p->tmp);
            p->tmp = NULL;
        }
        rc = agree(p, rc);
    } else {
        rc = io_h5_temp_commit(p->ctx, &p->file, &p->tmp, p->path); /* the datasets close too */
    }
    output_free(p);
    return rc;
}

void datum_output_abort(datum_output **o)
{
    io_h5_silence(); /* this thread too: a caller may use several */
    if (!o || !*o) return;
    output_free(*o);
    *o = NULL;
}
