/*
 * window.c - sequential reads of one integer column of an archive: whole
 * chunks decoded a batch at a time in parallel (h5chunk.c) and kept, so that
 * consecutive reads decode each chunk once, then widened to the caller's C
 * type. Used by the chunk reader and by the opening check of the offsets.
 */
#include "io_internal.h"

#include <stdlib.h>
#include <string.h>


/* Sets up the direct path for ds: 1, or -1 when the library must read it (a
 * pipeline h5chunk.c does not reproduce, or a type that is not a
 * little-endian integer). */
static int window_open(hid_t ds, io_window *w)
{
    hid_t type = H5Dget_type(ds);
    int ok = type >= 0 && H5Tget_class(type) == H5T_INTEGER && H5Tget_order(type) == H5T_ORDER_LE &&
             io_chunked_open(ds, &w->codec) == 0 && io_h5_length(ds, &w->length) >= 0;
    if (ok) w->is_signed = H5Tget_sign(type) == H5T_SGN_2;
    /* 2-byte columns (scores, pairs: most of a chunk's bytes) are widened
     * from their two planes: no pass to unshuffle them first. */
    if (ok) w->planes = w->codec.shuffle && w->codec.elem == 2;
    if (type >= 0) H5Tclose(type);
    return ok ? 1 : -1;
}

/* Loads element i of a little-endian integer array of `size` bytes
 * (memcpy: no alignment assumed; the machine is little-endian, as the
 * direct path requires); of 2-byte values as shuffled planes when stride is
 * not 0: the low byte at p[i], the high byte at p[stride + i]. */
static inline int64_t load_int(const unsigned char *p, size_t i, size_t size, int is_signed,
                               size_t stride)
{
    if (size == 2 && stride) {
        uint16_t v = (uint16_t)(p[i] | p[stride + i] << 8);
        return is_signed ? (int64_t)(int16_t)v : (int64_t)v;
    }
    switch (size * 2 + (is_signed != 0)) {
    case 2: return p[i];
    case 3: return (int8_t)p[i];
    case 4: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case 5: { int16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case 8: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case 9: { int32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case 16: { uint64_t v; memcpy(&v, p + 8 * i, 8); return v > INT64_MAX ? INT64_MAX : (int64_t)v; }
    default: { int64_t v; memcpy(&v, p + 8 * i, 8); return v; }
    }
}

/* Converts file values in[from..to) (`size` bytes, signed or not) to the
 * chunk's C type, saturating like HDF5, and widens [*lo, *hi] to the file
 * values met. Always inlined with constant size and sign (widen_block), so
 * that each file type gets its own loops with the load specialised. */
static inline int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static inline __attribute__((always_inline)) void widen_span(const unsigned char *in, size_t from,
                                                             size_t to, int kind, void *out,
                                                             int64_t *lo, int64_t *hi,
                                                             size_t size, int sgn, size_t stride)
{
    /* T: the narrowest type that holds every file value, so that the loops
     * vectorise (int32 minima and maxima exist in SIMD, int64 ones barely).
     * The span's range starts at [T_MAX, T_MIN]: merged into [*lo, *hi] it
     * changes nothing that a value of type T would not. */
#define WIDEN_LOOP(T, T_MIN, T_MAX, STORE)                                                        \
    {                                                                                              \
        T l = T_MAX, h = T_MIN;                                                                    \
        for (size_t i = from; i < to; i++) {                                                       \
            T v = (T)load_int(in, i, size, sgn, stride);                                           \
            l = v < l ? v : l;                                                                     \
            h = v > h ? v : h;                                                                     \
            STORE;                                                                                 \
        }                                                                                          \
        if (l < *lo) *lo = l;                                                                      \
        if (h > *hi) *hi = h;                                                                      \
    }
#define WIDEN_KINDS(T, T_MIN, T_MAX)                                                              \
    switch (kind) {                                                                                \
    case IO_KIND_U8:                                                                               \
        WIDEN_LOOP(T, T_MIN, T_MAX, ((uint8_t *)out)[i] = (uint8_t)clamp(v, 0, UINT8_MAX))         \
        break;                                                                                     \
    case IO_KIND_U32:                                                                              \
        WIDEN_LOOP(T, T_MIN, T_MAX, ((uint32_t *)out)[i] = (uint32_t)clamp(v, 0, UINT32_MAX))      \
        break;                                                                                     \
    case IO_KIND_U64:                                                                              \
        WIDEN_LOOP(T, T_MIN, T_MAX, ((uint64_t *)out)[i] = (uint64_t)clamp(v, 0, INT64_MAX))       \
        break;                                                                                     \
    default:                                                                                       \
        WIDEN_LOOP(T, T_MIN, T_MAX, ((int32_t *)out)[i] = (int32_t)clamp(v, INT32_MIN, INT32_MAX)) \
    }
    if (size <= 2) WIDEN_KINDS(int32_t, INT32_MIN, INT32_MAX)
    else WIDEN_KINDS(int64_t, INT64_MIN, INT64_MAX)
#undef WIDEN_KINDS
#undef WIDEN_LOOP
}

/* stride: of planes (w->planes), the bytes from one plane to the next. */
static void widen_block(const io_window *w, const unsigned char *in, size_t from, size_t to,
                        int kind, void *out, int64_t *lo, int64_t *hi, size_t stride)
{
    switch (w->codec.elem * 2 + (w->is_signed != 0)) {
    case 2: widen_span(in, from, to, kind, out, lo, hi, 1, 0, 0); break;
    case 3: widen_span(in, from, to, kind, out, lo, hi, 1, 1, 0); break;
    case 4:
        if (stride) widen_span(in, from, to, kind, out, lo, hi, 2, 0, stride);
        else widen_span(in, from, to, kind, out, lo, hi, 2, 0, 0);
        break;
    case 5:
        if (stride) widen_span(in, from, to, kind, out, lo, hi, 2, 1, stride);
        else widen_span(in, from, to, kind, out, lo, hi, 2, 1, 0);
        break;
    case 8: widen_span(in, from, to, kind, out, lo, hi, 4, 0, 0); break;
    case 9: widen_span(in, from, to, kind, out, lo, hi, 4, 1, 0); break;
    case 16: widen_span(in, from, to, kind, out, lo, hi, 8, 0, 0); break;
    default: widen_span(in, from, to, kind, out, lo, hi, 8, 1, 0);
    }
}

/* widen_block over n values, in blocks spread over the threads; [*seen_lo,
 * *seen_hi] grows to the file values met, so that the range check needs no
 * pass of its own unless a value is out of range. */
static void widen(const io_window *w, const unsigned char *in, size_t n, int kind, void *out,
                  int threads, int64_t *seen_lo, int64_t *seen_hi, size_t stride)
{
    enum { BLOCK = 1 << 14 };
    int64_t lo = *seen_lo, hi = *seen_hi, blocks = (int64_t)((n + BLOCK - 1) / BLOCK);
    if (n < IO_PARALLEL_MIN_ELEMENTS) threads = 1;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : lo) reduction(max : hi)
    for (int64_t b = 0; b < blocks; b++) {
        size_t from = (size_t)b * BLOCK, to = from + BLOCK < n ? from + BLOCK : n;
        widen_block(w, in, from, to, kind, out, &lo, &hi, stride);
    }
    *seen_lo = lo;
    *seen_hi = hi;
}

/* Once the batch that ends the dataset is decoded: the padding of its last
 * chunk past the dataset's end dropped (of planes, the high plane moved
 * down after the low: they are then `last` apart), and its compressed bytes
 * released. A segment appended to an archive (archive.c) is read a piece at
 * a time between the other parts' until the archive's end, its last chunk
 * held all along: a segment's field columns are mostly padding (their chunk
 * is as long as its rows), and an archive of a hundred segments held them
 * all. Nothing else changes: the full chunks before keep their place. */
static void settle_last(io_window *w, uint64_t n_chunks)
{
    uint64_t chunk = w->codec.chunk, last = w->length - (n_chunks - 1) * chunk;
    size_t elem = w->codec.elem, before = (size_t)((w->count - 1) * chunk) * elem;
    datum_free(w->packed.p);
    w->packed = (io_scratch){0};
    if (last == chunk) return;
    if (w->planes) memmove(w->raw + before + last, w->raw + before + chunk, (size_t)last);
    size_t keep = before + (size_t)last * elem;
    unsigned char *small = datum_malloc(NULL, keep, 1); /* optional: no error if not */
    if (!small) return;
    memcpy(small, w->raw, keep);
    datum_free(w->raw);
    w->raw = small;
    w->cap = 0; /* too small for a batch: the next one allocates */
}

int io_window_read(datum_ctx *ctx, io_window *w, hid_t ds, int kind, uint64_t first, size_t n, void *out,
                   int threads, int64_t *seen_lo, int64_t *seen_hi)
{
    *seen_lo = INT64_MAX;
    *seen_hi = INT64_MIN;
    if (w->state == 0) w->state = window_open(ds, w);
    if (w->state < 0 || n == 0) {
        *seen_lo = INT64_MIN;
        *seen_hi = INT64_MAX;
        return io_h5_read_range(ds, io_kind_memtype(kind), first, n, out) < 0 ? DATUM_E_FORMAT
                                                                              : DATUM_OK;
    }
    uint64_t chunk = w->codec.chunk, n_chunks = (w->length + chunk - 1) / chunk;
    uint64_t batch = 2 * (uint64_t)threads; /* two chunks per thread per round */
    if (first + n > w->length) return DATUM_E_FORMAT;
    for (size_t done = 0; done < n;) {
        uint64_t pos = first + done, c = pos / chunk;
        if (c < w->first || c >= w->first + w->count) {
            uint64_t count = n_chunks - c < batch ? n_chunks - c : batch;
            if (count > w->cap) {
                datum_free(w->raw);
                w->raw = datum_malloc(ctx, (size_t)(count * chunk), w->codec.elem);
                w->cap = w->raw ? count : 0;
                if (!w->raw) return DATUM_E_NOMEM;
            }
            w->first = c;
            w->count = 0; /* invalid until decoded */
            /* A damaged chunk further on fails the batch: decode only the chunk
             * needed now, so the error names the rows the damage is in. */
            int rc = io_chunked_read(ctx, &w->codec, &w->packed, c, (size_t)count, w->raw, w->planes,
                                     threads);
            if (rc == DATUM_E_FORMAT && count > 1) {
                count = 1;
                rc = io_chunked_read(ctx, &w->codec, &w->packed, c, 1, w->raw, w->planes, 1);
            }
            if (rc != DATUM_OK) return rc;
            w->count = count;
            if (c + count == n_chunks) settle_last(w, n_chunks);
        }
        /* Of planes, one chunk at a time: each has its own two. */
        uint64_t end = w->planes ? (c + 1) * chunk : (w->first + w->count) * chunk;
        size_t take = (size_t)(end - pos < n - done ? end - pos : n - done);
        const unsigned char *in = w->planes
            ? w->raw + (size_t)((c - w->first) * chunk) * 2 + (size_t)(pos - c * chunk)
            : w->raw + (size_t)(pos - w->first * chunk) * w->codec.elem;
        size_t stride = !w->planes ? 0 : c + 1 < n_chunks ? (size_t)chunk
                                                           : (size_t)(w->length - c * chunk);
        widen(w, in, take, kind, (unsigned char *)out + done * io_kind_size(kind), threads,
              seen_lo, seen_hi, stride);
        done += take;
    }
    return 0;
}

void io_window_free(io_window *w)
{
    datum_free(w->raw);
    datum_free(w->packed.p);
    w->raw = NULL;
    w->packed = (io_scratch){0};
    w->cap = w->count = 0;
}
