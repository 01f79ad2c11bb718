/*
 * h5util.c - the HDF5 calls of io/, one helper per idea. Every helper closes
 * what it opens on every path and returns < 0 on failure; the caller words
 * the message (it knows the file and the purpose).
 */
#include "io_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define H5_CLOSE(id, fn)                                                                           \
    do {                                                                                           \
        if ((id) >= 0) fn(id);                                                                     \
    } while (0)

/* What HDF5 said when it last ran out of memory on this thread ("" if it has
 * not since the last io_h5_silence or io_h5_nomem). */
static _Thread_local char h5_nomem[160];

/* Notes an out-of-memory entry of HDF5's error stack. */
static herr_t note_nomem(unsigned n, const H5E_error2_t *e, void *user)
{
    (void)n;
    (void)user;
    if (!h5_nomem[0] && e->maj_num == H5E_RESOURCE &&
        (e->min_num == H5E_CANTALLOC || e->min_num == H5E_NOSPACE))
        snprintf(h5_nomem, sizeof h5_nomem, "%s%s%s", e->func_name ? e->func_name : "",
                 e->desc && e->desc[0] ? ": " : "", e->desc ? e->desc : "");
    return 0;
}

/* HDF5's automatic error handler, called when an API call fails: prints
 * nothing (we translate errors), only notes an out-of-memory. */
static herr_t on_error(hid_t stack, void *user)
{
    (void)user;
    H5Ewalk2(stack, H5E_WALK_DOWNWARD, note_nomem, NULL);
    return 0;
}

void io_h5_silence(void)
{
    /* No library shutdown at exit: after a failure for lack of memory HDF5
     * may hold objects it cannot release, and its exit handler then prints
     * ("infinite loop closing library") or crashes closing them. Our files
     * are closed by the time the program exits; the system frees the rest.
     * (Effective when called before HDF5's first use, as here.) */
    static int shutdown_off;
    if (!shutdown_off) {
        H5dont_atexit();
        shutdown_off = 1;
    }
    H5Eset_auto2(H5E_DEFAULT, on_error, NULL); /* per thread in a thread-safe HDF5 */
    h5_nomem[0] = '\0';
}

int io_h5_nomem(datum_ctx *ctx)
{
    if (!h5_nomem[0]) return DATUM_OK;
    datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (HDF5, %s)", h5_nomem);
    h5_nomem[0] = '\0';
    return DATUM_E_NOMEM;
}

int io_h5_fail_write(datum_ctx *ctx, const char *path, const char *what)
{
    int err = errno;
    if (io_h5_nomem(ctx) == DATUM_E_NOMEM) return DATUM_E_NOMEM;
    /* Out of memory, HDF5 may fail to record why (its error stack needs
     * memory too); the failed allocation's errno still tells. */
    if (err == ENOMEM)
        return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (HDF5, writing %s%s%s%s)", path,
                              what ? " (" : "", what ? what : "", what ? ")" : "");
    if (!what) return datum_ctx_fail(ctx, DATUM_E_IO, "cannot write %s", path);
    return datum_ctx_fail(ctx, DATUM_E_IO, "cannot write %s (%s)", path, what);
}

herr_t io_h5_close_file(hid_t file)
{
    /* The objects still open are closed first, each on its own: if closing
     * the file then fails (a flush without memory), none is left for HDF5's
     * exit handler, which would close them after the file is gone. */
    enum { BATCH = 64 };
    const unsigned types = H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR |
                           H5F_OBJ_LOCAL;
    herr_t rc = 0;
    hid_t ids[BATCH];
    for (int round = 0; round < 1024; round++) {
        ssize_t n = H5Fget_obj_ids(file, types, BATCH, ids);
        if (n <= 0) break;
        for (ssize_t i = 0; i < n; i++) {
            herr_t closed;
            switch (H5Iget_type(ids[i])) {
            case H5I_DATASET: closed = H5Dclose(ids[i]); break;
            case H5I_GROUP: closed = H5Gclose(ids[i]); break;
            case H5I_DATATYPE: closed = H5Tclose(ids[i]); break;
            case H5I_ATTR: closed = H5Aclose(ids[i]); break;
            default: closed = H5Idec_ref(ids[i]) < 0 ? -1 : 0;
            }
            if (closed < 0) rc = -1;
        }
    }
    if (H5Fclose(file) < 0) rc = -1;
    return rc;
}

/* File access: closing the file also closes whatever an error path left open. */
static hid_t file_access(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
        H5Pclose(fapl);
        fapl = H5I_INVALID_HID;
    }
    return fapl;
}

hid_t io_h5_create_file(const char *path)
{
    hid_t fapl = file_access(), file = H5I_INVALID_HID;
    if (fapl >= 0) file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5_CLOSE(fapl, H5Pclose);
    return file;
}

hid_t io_h5_open_file(const char *path)
{
    /* Under MPI every process reads the archive through MPI-IO. */
    hid_t fapl = io_mpi_file_access(file_access()), file = H5I_INVALID_HID;
    if (fapl >= 0) file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5_CLOSE(fapl, H5Pclose);
    return file;
}

/* Object creation without time stamps: the same content gives the same bytes. */
static hid_t untimed(hid_t cls)
{
    hid_t p = H5Pcreate(cls);
    if (p >= 0 && H5Pset_obj_track_times(p, 0) < 0) {
        H5Pclose(p);
        p = H5I_INVALID_HID;
    }
    return p;
}

int io_h5_ensure_group(hid_t file, const char *name)
{
    htri_t exists = H5Lexists(file, name, H5P_DEFAULT);
    if (exists != 0) return exists > 0 ? 0 : -1;
    hid_t gcpl = untimed(H5P_GROUP_CREATE), g = H5I_INVALID_HID;
    if (gcpl >= 0) g = H5Gcreate2(file, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5_CLOSE(gcpl, H5Pclose);
    H5_CLOSE(g, H5Gclose);
    return g >= 0 ? 0 : -1;
}

hid_t io_h5_int_type(int64_t lo, int64_t hi)
{
    if (lo >= 0) { /* unsigned when nothing is negative */
        if (hi <= UINT8_MAX) return H5T_STD_U8LE;
        if (hi <= UINT16_MAX) return H5T_STD_U16LE;
        if (hi <= UINT32_MAX) return H5T_STD_U32LE;
    } else {
        if (lo >= INT8_MIN && hi <= INT8_MAX) return H5T_STD_I8LE;
        if (lo >= INT16_MIN && hi <= INT16_MAX) return H5T_STD_I16LE;
        if (lo >= INT32_MIN && hi <= INT32_MAX) return H5T_STD_I32LE;
    }
    return H5T_STD_I64LE;
}

/* Variable-length UTF-8 string type (the caller closes it). */
static hid_t string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        t = H5I_INVALID_HID;
    }
    return t;
}

/* Chunk length: min(length, chunk_rows), and under HDF5's 4 GiB limit. */
static hsize_t chunk_length(hid_t type, uint64_t length, const datum_write_options *opt)
{
    hsize_t chunk = length < opt->chunk_rows ? length : opt->chunk_rows;
    hsize_t max = (hsize_t)UINT32_MAX / H5Tget_size(type);
    return chunk < max ? chunk : max;
}

/* Dataset access with room for a chunk in the chunk cache, when HDF5's
 * default (1 MiB) cannot hold one: a chunk that is not cached is decompressed
 * (and recompressed) whole by every partial read or write, which made reading
 * or writing in slices a thousand times slower. One chunk is enough for our
 * sequential access: a slice that straddles two ends in the one the next
 * slice starts in. H5I_INVALID_HID when the default serves. */
static hid_t chunk_cache(hsize_t chunk, hid_t type)
{
    size_t bytes = chunk * H5Tget_size(type);
    hid_t dapl = bytes > (1u << 20) ? H5Pcreate(H5P_DATASET_ACCESS) : H5I_INVALID_HID;
    if (dapl >= 0 && H5Pset_chunk_cache(dapl, H5D_CHUNK_CACHE_NSLOTS_DEFAULT, bytes,
                                        H5D_CHUNK_CACHE_W0_DEFAULT) < 0) {
        H5Pclose(dapl);
        dapl = H5I_INVALID_HID;
    }
    return dapl;
}

int io_h5_memory_probe(void)
{
    void *room = datum_malloc(NULL, 1, 1 << 18); /* a probe: no context to charge */
    if (!room) return 0;
    datum_free(room);
    return 1;
}

/* Creates a 1-D dataset of `length` elements, at most `max` (H5S_UNLIMITED
 * to grow), in chunks of `chunk` (0: contiguous). */
static hid_t create_dataset(hid_t loc, const io_dataset_desc *d, hid_t type, hsize_t length,
                            hsize_t max, hsize_t chunk, const datum_write_options *opt, int shuffle)
{
    /* HDF5 1.10 ends the program (exit(-1) in H5I_register, seen under
     * ulimit -v on an OpenMP worker thread) when registering an identifier
     * finds no memory. */
    if (!io_h5_memory_probe()) return H5I_INVALID_HID;
    hid_t space = H5Screate_simple(1, &length, &max), dcpl = untimed(H5P_DATASET_CREATE);
    hid_t dapl = chunk ? chunk_cache(chunk, type) : H5I_INVALID_HID, ds = H5I_INVALID_HID;
    int ok = space >= 0 && dcpl >= 0;
    if (ok && chunk) ok = H5Pset_chunk(dcpl, 1, &chunk) >= 0;
    /* Shuffling gathers the high bytes of integers, which deflate then
     * squeezes; the bytes of floating-point figures (Neuberg's fractions,
     * averages) share nothing across a plane, so deflate is faster and
     * smaller on them unshuffled (docs/performance.md, "Writing outputs"),
     * and so are the archive's pairs and scores (io_shuffled: `shuffle` 0). */
    if (ok && chunk && opt->compress && H5Tget_class(type) != H5T_FLOAT && shuffle)
        ok = H5Pset_shuffle(dcpl) >= 0;
    if (ok && chunk && opt->compress) ok = H5Pset_deflate(dcpl, (unsigned)opt->deflate_level) >= 0;
    if (ok)
        ds = H5Dcreate2(loc, d->path, type, space, H5P_DEFAULT, dcpl,
                        dapl >= 0 ? dapl : H5P_DEFAULT);
    if (ds >= 0 && (io_h5_set_str_attr(ds, "description", d->description) < 0 ||
                    (d->units && io_h5_set_str_attr(ds, "units", d->units) < 0))) {
        H5Dclose(ds);
        ds = H5I_INVALID_HID;
    }
    H5_CLOSE(space, H5Sclose);
    H5_CLOSE(dcpl, H5Pclose);
    H5_CLOSE(dapl, H5Pclose);
    return ds;
}

hid_t io_h5_create_dataset(hid_t loc, const io_dataset_desc *d, hid_t type, uint64_t length,
                           const datum_write_options *opt)
{
    hsize_t chunk = opt && length > 0 ? chunk_length(type, length, opt) : 0;
    return create_dataset(loc, d, type, length, length, chunk, opt, 1);
}

hid_t io_h5_create_growing(hid_t loc, const io_dataset_desc *d, hid_t type, uint64_t chunk_hint,
                           const datum_write_options *opt, int shuffle, uint64_t *chunk)
{
    *chunk = chunk_length(type, chunk_hint > 0 ? chunk_hint : 1, opt);
    return create_dataset(loc, d, type, 0, H5S_UNLIMITED, *chunk, opt, shuffle);
}

/* HDF5 converts an out-of-range integer by clipping it; we want an error
 * instead, so that a damaged value can never pass as a valid one. */
static H5T_conv_ret_t refuse_overflow(H5T_conv_except_t except, hid_t src, hid_t dst, void *s,
                                      void *d, void *user)
{
    (void)src, (void)dst, (void)s, (void)d, (void)user;
    return except == H5T_CONV_EXCEPT_RANGE_HI || except == H5T_CONV_EXCEPT_RANGE_LOW
               ? H5T_CONV_ABORT
               : H5T_CONV_UNHANDLED;
}

/* Reads or writes elements first..first+count-1 of a 1-D dataset. */
static int transfer(hid_t ds, hid_t memtype, uint64_t first, uint64_t count, void *buf, int write)
{
    if (count == 0) return 0; /* an empty hyperslab is not a valid selection */
    hsize_t start = first, n = count;
    hid_t fspace = H5Dget_space(ds), mspace = H5Screate_simple(1, &n, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    herr_t rc = -1;
    if (fspace >= 0 && mspace >= 0 && dxpl >= 0 &&
        H5Pset_type_conv_cb(dxpl, refuse_overflow, NULL) >= 0 &&
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &n, NULL) >= 0)
        rc = write ? H5Dwrite(ds, memtype, mspace, fspace, dxpl, buf)
                   : H5Dread(ds, memtype, mspace, fspace, dxpl, buf);
    H5_CLOSE(fspace, H5Sclose);
    H5_CLOSE(mspace, H5Sclose);
    H5_CLOSE(dxpl, H5Pclose);
    return rc < 0 ? -1 : 0;
}

int io_h5_write_range(hid_t ds, hid_t memtype, uint64_t first, uint64_t count, const void *buf)
{
    return transfer(ds, memtype, first, count, (void *)buf, 1);
}

int io_h5_read_range(hid_t ds, hid_t memtype, uint64_t first, uint64_t count, void *buf)
{
    return transfer(ds, memtype, first, count, buf, 0);
}

int io_h5_append(hid_t ds, hid_t memtype, uint64_t length, uint64_t count, const void *buf)
{
    hsize_t size = length + count;
    if (H5Dset_extent(ds, &size) < 0) return -1;
    return io_h5_write_range(ds, memtype, length, count, buf);
}

int io_h5_write_ints(hid_t loc, const io_dataset_desc *d, const int64_t *values, uint64_t n,
                     const datum_write_options *opt)
{
    int64_t lo = 0, hi = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (i == 0 || values[i] < lo) lo = values[i];
        if (i == 0 || values[i] > hi) hi = values[i];
    }
    hid_t ds = io_h5_create_dataset(loc, d, io_h5_int_type(lo, hi), n, opt);
    int rc = ds >= 0 ? io_h5_write_range(ds, H5T_NATIVE_INT64, 0, n, values) : -1;
    H5_CLOSE(ds, H5Dclose);
    return rc;
}

int io_h5_write_strings(hid_t loc, const io_dataset_desc *d, const char *const *s, uint64_t n)
{
    hid_t type = string_type(), ds = H5I_INVALID_HID;
    int rc = -1;
    if (type >= 0) ds = io_h5_create_dataset(loc, d, type, n, NULL);
    if (ds >= 0) rc = n == 0 || H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) >= 0 ? 0 : -1;
    H5_CLOSE(ds, H5Dclose);
    H5_CLOSE(type, H5Tclose);
    return rc;
}

/* The release of a string of the caller's allocator: none (the caller
 * frees its memory as a whole). */
static void keep_string(void *mem, void *info)
{
    (void)mem;
    (void)info;
}

int io_h5_read_strings(hid_t ds, uint64_t n, char **ptrs, io_string_alloc alloc, void *info)
{
    hid_t ftype = H5Dget_type(ds), mtype = H5I_INVALID_HID, xfer = H5I_INVALID_HID;
    memset(ptrs, 0, n * sizeof *ptrs);
    if (ftype >= 0 && H5Tget_class(ftype) == H5T_STRING && H5Tis_variable_str(ftype) > 0)
        mtype = H5Tget_native_type(ftype, H5T_DIR_DEFAULT);
    int ok = mtype >= 0;
    if (ok && alloc)
        ok = (xfer = H5Pcreate(H5P_DATASET_XFER)) >= 0 &&
             H5Pset_vlen_mem_manager(xfer, alloc, info, keep_string, NULL) >= 0;
    int rc = ok && (n == 0 || H5Dread(ds, mtype, H5S_ALL, H5S_ALL, alloc ? xfer : H5P_DEFAULT,
                                      ptrs) >= 0)
                 ? 0
                 : -1;
    if (rc < 0) { /* what a failed read delivered, if anything */
        if (!alloc) io_h5_free_strings(n, ptrs);
        memset(ptrs, 0, n * sizeof *ptrs);
    }
    H5_CLOSE(xfer, H5Pclose);
    H5_CLOSE(ftype, H5Tclose);
    H5_CLOSE(mtype, H5Tclose);
    return rc;
}

void io_h5_free_strings(uint64_t n, char **ptrs)
{
    for (uint64_t i = 0; i < n; i++) H5free_memory(ptrs[i]);
}

hid_t io_h5_open_dataset(hid_t loc, const char *path)
{
    /* Look at the chunk size first, then open anew (closed before: an open
     * dataset keeps the cache settings of its first opening). */
    hid_t ds = H5Dopen2(loc, path, H5P_DEFAULT), dcpl = H5I_INVALID_HID, type = H5I_INVALID_HID;
    hid_t dapl = H5I_INVALID_HID;
    hsize_t chunk = 0;
    if (ds >= 0) {
        dcpl = H5Dget_create_plist(ds);
        type = H5Dget_type(ds);
    }
    if (dcpl >= 0 && type >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED &&
        H5Pget_chunk(dcpl, 1, &chunk) == 1 && (dapl = chunk_cache(chunk, type)) >= 0) {
        H5Dclose(ds);
        ds = H5Dopen2(loc, path, dapl);
    }
    H5_CLOSE(dapl, H5Pclose);
    H5_CLOSE(type, H5Tclose);
    H5_CLOSE(dcpl, H5Pclose);
    return ds;
}

int io_h5_length(hid_t ds, uint64_t *n)
{
    hid_t space = H5Dget_space(ds);
    hsize_t dims = 0;
    int rc = space >= 0 && H5Sget_simple_extent_ndims(space) == 1 &&
                     H5Sget_simple_extent_dims(space, &dims, NULL) == 1
                 ? 0
                 : -1;
    H5_CLOSE(space, H5Sclose);
    *n = dims;
    return rc;
}

int io_h5_has_class(hid_t ds, H5T_class_t cls)
{
    hid_t type = H5Dget_type(ds);
    int rc = type >= 0 ? H5Tget_class(type) == cls : -1;
    H5_CLOSE(type, H5Tclose);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Scalar attributes                                                        */

static int set_attr(hid_t obj, const char *name, hid_t type, hid_t memtype, const void *value)
{
    hid_t space = H5Screate(H5S_SCALAR), attr = H5I_INVALID_HID;
    int rc = -1;
    if (space >= 0) attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0) rc = H5Awrite(attr, memtype, value) < 0 ? -1 : 0;
    H5_CLOSE(attr, H5Aclose);
    H5_CLOSE(space, H5Sclose);
    return rc;
}

int io_h5_set_str_attr(hid_t obj, const char *name, const char *value)
{
    /* HDF5 1.10's H5Awrite crashes when a copy of the string type fails for
     * lack of memory (it releases the copy it did not get). */
    if (!io_h5_memory_probe()) return -1;
    hid_t type = string_type();
    int rc = type >= 0 ? set_attr(obj, name, type, type, &value) : -1;
    H5_CLOSE(type, H5Tclose);
    return rc;
}

int io_h5_set_int_attr(hid_t obj, const char *name, hid_t type, int64_t value)
{
    return set_attr(obj, name, type, H5T_NATIVE_INT64, &value);
}

/* Opens a scalar attribute of the given type class; H5I_INVALID_HID if there
 * is none. *type receives its file type. */
static hid_t open_scalar_attr(hid_t obj, const char *name, H5T_class_t cls, hid_t *type)
{
    hid_t attr = H5I_INVALID_HID, space = H5I_INVALID_HID;
    *type = H5I_INVALID_HID;
    if (H5Aexists(obj, name) > 0) attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (attr >= 0) {
        space = H5Aget_space(attr);
        *type = H5Aget_type(attr);
    }
    if (attr >= 0 && (space < 0 || H5Sget_simple_extent_type(space) != H5S_SCALAR || *type < 0 ||
                      H5Tget_class(*type) != cls)) {
        H5Aclose(attr);
        attr = H5I_INVALID_HID;
    }
    H5_CLOSE(space, H5Sclose);
    if (attr < 0) {
        H5_CLOSE(*type, H5Tclose);
        *type = H5I_INVALID_HID;
    }
    return attr;
}

int io_h5_get_str_attr(datum_ctx *ctx, hid_t obj, const char *name, char **value)
{
    hid_t type, attr = open_scalar_attr(obj, name, H5T_STRING, &type);
    hid_t mtype = attr >= 0 ? H5Tget_native_type(type, H5T_DIR_DEFAULT) : H5I_INVALID_HID;
    int rc = 1, variable = mtype >= 0 ? H5Tis_variable_str(mtype) : -1;
    char *vlen = NULL, *fixed = NULL;
    *value = NULL;
    if (variable > 0 && H5Aread(attr, mtype, &vlen) >= 0) {
        *value = datum_strdup(ctx, vlen ? vlen : "");
        rc = *value ? DATUM_OK : DATUM_E_NOMEM;
    } else if (variable == 0) { /* fixed length: one more zero byte ends it */
        fixed = datum_calloc(ctx, H5Tget_size(mtype) + 1, 1);
        if (!fixed) rc = DATUM_E_NOMEM;
        else if (H5Aread(attr, mtype, fixed) >= 0) {
            *value = fixed;
            fixed = NULL;
            rc = DATUM_OK;
        }
    }
    datum_free(fixed);
    H5free_memory(vlen);
    H5_CLOSE(mtype, H5Tclose);
    H5_CLOSE(type, H5Tclose);
    H5_CLOSE(attr, H5Aclose);
    return rc;
}

int io_h5_get_int_attr(hid_t obj, const char *name, int64_t *value)
{
    hid_t type, attr = open_scalar_attr(obj, name, H5T_INTEGER, &type);
    int rc = attr >= 0 && H5Aread(attr, H5T_NATIVE_INT64, value) >= 0 ? 0 : -1;
    H5_CLOSE(type, H5Tclose);
    H5_CLOSE(attr, H5Aclose);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* A whole file, atomically                                                 */

int io_h5_temp_create(datum_ctx *ctx, const char *path, char **tmp, hid_t *file)
{
    int fd = -1, rc = io_temp_create(ctx, path, tmp, &fd);
    *file = H5I_INVALID_HID;
    if (rc != DATUM_OK) return rc;
    close(fd); /* HDF5 opens the file by name */
    io_h5_silence();
    if ((*file = io_h5_create_file(*tmp)) < 0) {
        io_temp_discard(tmp);
        return io_h5_fail_write(ctx, path, "creating the file");
    }
    return DATUM_OK;
}

int io_h5_temp_commit(datum_ctx *ctx, hid_t *file, char **tmp, const char *path)
{
    /* Closing flushes: a failure there is a failed write too. */
    herr_t closed = io_h5_close_file(*file);
    *file = H5I_INVALID_HID;
    if (closed < 0) return io_h5_fail_write(ctx, path, "closing the file");
    int rc = io_temp_commit(ctx, *tmp, path);
    if (rc == DATUM_OK) { /* renamed: nothing to remove */
        datum_free(*tmp);
        *tmp = NULL;
    }
    return rc;
}

int io_h5_write_file(datum_ctx *ctx, const char *path,
                     int (*fill)(hid_t file, void *user, const char **what), void *user)
{
    char *tmp = NULL;
    hid_t file;
    const char *what = "file";
    int rc = io_h5_temp_create(ctx, path, &tmp, &file);
    if (rc != DATUM_OK) return rc;
    if (fill(file, user, &what) < 0)
        rc = datum_ctx_code(ctx) < 0 ? datum_ctx_code(ctx) : io_h5_fail_write(ctx, path, what);
    else rc = io_h5_temp_commit(ctx, &file, &tmp, path);
    H5_CLOSE(file, io_h5_close_file);
    io_temp_discard(&tmp);
    return rc;
}
