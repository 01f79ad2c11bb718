/*
 * h5chunk.c - compressed chunks written and read directly, (de)compressed by
 * our own threads.
 *
 * The serial HDF5 library runs its filters on the calling thread, which makes
 * deflate the ceiling of every command (decompressing the input, compressing
 * the output). For datasets whose pipeline is shuffle + deflate (or deflate,
 * or nothing) we do the same work ourselves, one chunk per task in parallel,
 * with libdeflate (zlib-format streams, exactly what HDF5's deflate filter
 * reads and writes), and move the finished bytes with H5Dwrite_chunk /
 * H5Dread_chunk. Any HDF5 reader sees an ordinary dataset.
 */
#include "huffman.h"
#include "io_internal.h"

#include <libdeflate.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int io_chunked_open(hid_t ds, io_chunked *c)
{
    memset(c, 0, sizeof *c);
    c->ds = ds;
    static const uint16_t one = 1; /* the datasets' types are little-endian, as our bytes */
    if (*(const unsigned char *)&one != 1) return -1;
    hid_t dcpl = H5Dget_create_plist(ds), type = H5Dget_type(ds);
    int ok = dcpl >= 0 && type >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED &&
             H5Pget_chunk(dcpl, 1, &c->chunk) == 1;
    if (ok) c->elem = H5Tget_size(type);
    int n_filters = ok ? H5Pget_nfilters(dcpl) : -1;
    for (int i = 0; ok && i < n_filters; i++) {
        unsigned flags, values[8];
        size_t n_values = 8;
        H5Z_filter_t f = H5Pget_filter2(dcpl, (unsigned)i, &flags, &n_values, values, 0, NULL, NULL);
        if (f == H5Z_FILTER_SHUFFLE && i == 0) c->shuffle = 1;
        else if (f == H5Z_FILTER_DEFLATE && i == n_filters - 1 && n_values >= 1)
            c->deflate_level = (int)values[0] > 0 ? (int)values[0] : 1;
        else ok = 0; /* a pipeline we do not reproduce: use the library */
    }
    if (ok && c->shuffle && !c->deflate_level) ok = 0;
    if (type >= 0) H5Tclose(type);
    if (dcpl >= 0) H5Pclose(dcpl);
    return ok && n_filters >= 0 ? 0 : -1;
}

/* Byte-transposes n elements of size elem: out[b*n + i] = in[i*elem + b]. */
static inline __attribute__((always_inline)) void shuffle_planes(const unsigned char *in,
                                                                 unsigned char *out, size_t n,
                                                                 size_t elem)
{
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < elem; b++) out[b * n + i] = in[i * elem + b];
}

/* The archive's 2- and 4-byte columns with the size a constant: the
 * compiler vectorises those; with a variable size the loop ran a byte at a
 * time (a twentieth of an import's CPU time). */
static void shuffle_bytes(const unsigned char *in, unsigned char *out, size_t n, size_t elem)
{
    if (elem == 2) shuffle_planes(in, out, n, 2);
    else if (elem == 4) shuffle_planes(in, out, n, 4);
    else shuffle_planes(in, out, n, elem);
}

static void unshuffle_bytes(const unsigned char *in, unsigned char *out, size_t n, size_t elem)
{
    if (elem == 2) { /* the common archive column: one vectorisable pass */
        for (size_t i = 0; i < n; i++) {
            uint16_t v = (uint16_t)(in[i] | in[n + i] << 8);
            memcpy(out + 2 * i, &v, 2);
        }
        return;
    }
    if (elem == 4) {
        for (size_t i = 0; i < n; i++) {
            uint32_t v = (uint32_t)in[i] | (uint32_t)in[n + i] << 8 | (uint32_t)in[2 * n + i] << 16 |
                         (uint32_t)in[3 * n + i] << 24;
            memcpy(out + 4 * i, &v, 4);
        }
        return;
    }
    for (size_t b = 0; b < elem; b++)
        for (size_t i = 0; i < n; i++) out[i * elem + b] = in[b * n + i];
}

/* Records the out-of-memory of a libdeflate (de)compressor; thread-safe. */
static int codec_nomem(datum_ctx *ctx, const char *what)
{
    return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (a deflate %s)", what);
}

void io_compressor_free(io_compressor *z)
{
    if (z->z) libdeflate_free_compressor(z->z);
    z->z = NULL;
    z->level = 0;
    z->same_size = 0;
}

/* 1 if a and b pack a chunk alike (their datasets aside). */
static int same_codec(const io_chunked *a, const io_chunked *b)
{
    return a->chunk == b->chunk && a->elem == b->elem && a->shuffle == b->shuffle &&
           a->deflate_level == b->deflate_level && a->entropy_only == b->entropy_only &&
           a->repeats == b->repeats;
}

size_t io_chunked_pack_room(const io_chunked *c)
{
    size_t bytes = (size_t)c->chunk * c->elem;
    size_t tmp_bytes = c->repeats ? io_f64_zlib_scratch(c->chunk) : bytes;
    return (tmp_bytes + libdeflate_zlib_compress_bound(NULL, bytes) + 7) / 8 * 8;
}

int io_chunked_pack(datum_ctx *ctx, const io_chunked *c, io_compressor *z, const void *raw,
                    unsigned char *room, const unsigned char **packed, size_t *size)
{
    size_t bytes = (size_t)c->chunk * c->elem;
    size_t bound = libdeflate_zlib_compress_bound(NULL, bytes);
    unsigned char *tmp = room, *out = room + (c->repeats ? io_f64_zlib_scratch(c->chunk) : bytes);
    *packed = out;
    *size = 0;
    if (!c->deflate_level) {
        memcpy(out, raw, bytes);
        *size = bytes;
        return DATUM_OK;
    }
    if (z->z && z->level != c->deflate_level) io_compressor_free(z);
    if (!z->z && !(z->z = libdeflate_alloc_compressor(c->deflate_level)))
        return codec_nomem(ctx, "compressor");
    z->level = c->deflate_level;
    /* One element repeated (each equals the next): the stream kept for it
     * when it is the last such chunk packed, the same bytes as packing it
     * again (every codec here is deterministic) for a comparison's cost. */
    uint64_t value = 0;
    int one_value = c->elem <= sizeof value && bytes > c->elem &&
                    memcmp(raw, (const unsigned char *)raw + c->elem, bytes - c->elem) == 0;
    if (one_value) memcpy(&value, raw, c->elem);
    if (one_value && z->same_size && z->same_value == value && same_codec(&z->same_codec, c)) {
        memcpy(out, z->same_stream, z->same_size);
        *size = z->same_size;
        return DATUM_OK;
    }
    int shuffle = c->shuffle && c->elem > 1; /* a 1-byte column's shuffle moves nothing */
    if (shuffle) shuffle_bytes(raw, tmp, c->chunk, c->elem);
    const unsigned char *src = shuffle ? tmp : raw;
    *size = c->entropy_only ? io_huffman_zlib_compress(z->z, src, bytes, out, bound)
            : c->repeats    ? io_f64_zlib_compress(z->z, src, c->chunk, tmp, out, bound)
                            : libdeflate_zlib_compress(z->z, src, bytes, out, bound);
    if (one_value && *size && *size <= sizeof z->same_stream) {
        memcpy(z->same_stream, out, *size);
        z->same_size = *size;
        z->same_value = value;
        z->same_codec = *c;
    }
    return *size ? DATUM_OK : DATUM_E_IO;
}

int io_chunked_put(const io_chunked *c, uint64_t chunk, const unsigned char *packed, size_t size)
{
    hsize_t offset = chunk * c->chunk;
    return H5Dwrite_chunk(c->ds, H5P_DEFAULT, 0, &offset, size, packed) < 0 ? -1 : 0;
}

/* A chunk of io_chunked_write: its bytes once packed; state 0 while being
 * packed, then 1 (packed) or -1 (failed). */
typedef struct {
    const unsigned char *bytes;
    size_t size;
    atomic_int state;
} packed_chunk;

/* The initial thread's part of io_chunked_write: puts the chunks from *next
 * on that are packed, in order, until one is not (yet); 0, or -1 when HDF5
 * refused one. */
static int put_ready(const io_chunked *c, uint64_t first_chunk, packed_chunk *packed,
                     size_t n_chunks, size_t *next)
{
    for (; *next < n_chunks; ++*next) {
        packed_chunk *k = &packed[*next];
        if (atomic_load_explicit(&k->state, memory_order_acquire) != 1) return 0;
        if (io_chunked_put(c, first_chunk + *next, k->bytes, k->size) < 0) return -1;
    }
    return 0;
}

int io_chunked_write(datum_ctx *ctx, const io_chunked *c, io_scratch *scratch,
                     uint64_t first_chunk, size_t n_chunks, const void *data, int threads)
{
    size_t bytes = (size_t)c->chunk * c->elem, stride = io_chunked_pack_room(c);
    packed_chunk *packed = datum_malloc(ctx, n_chunks, sizeof *packed); /* n_chunks: a batch, a few */
    int failed = 0, nomem = !packed || datum_reserve(ctx, &scratch->p, &scratch->cap,
                                                     n_chunks * stride, 1) != DATUM_OK;
    unsigned char *work = scratch->p;
    size_t put = 0; /* chunks written */
    atomic_size_t taken;
    atomic_init(&taken, 0);
    for (size_t k = 0; !nomem && k < n_chunks; k++) atomic_init(&packed[k].state, 0);
    if (!nomem) {
        /* HDF5 itself is serial, and stays on the initial thread: it writes
         * the finished chunks in order between its own packs, while the
         * others pack on (it wrote them all after the packing, the others
         * waiting), then what is left once all are packed. The same file. */
#pragma omp parallel num_threads(threads) reduction(| : failed, nomem)
        {
            io_compressor z = {0};
            int putter = omp_get_thread_num() == 0;
            for (size_t k; (k = atomic_fetch_add(&taken, 1)) < n_chunks;) {
                int rc = nomem || failed ? DATUM_E_IO
                                         : io_chunked_pack(ctx, c, &z,
                                                           (const unsigned char *)data + k * bytes,
                                                           work + k * stride, &packed[k].bytes,
                                                           &packed[k].size);
                nomem |= rc == DATUM_E_NOMEM;
                failed |= rc == DATUM_E_IO;
                atomic_store_explicit(&packed[k].state, rc == DATUM_OK ? 1 : -1,
                                      memory_order_release);
                if (putter && !failed && !nomem) failed = put_ready(c, first_chunk, packed, n_chunks, &put) < 0;
            }
            io_compressor_free(&z);
        }
    }
    if (!failed && !nomem) failed = put_ready(c, first_chunk, packed, n_chunks, &put) < 0 || put < n_chunks;
    datum_free(packed);
    return nomem ? DATUM_E_NOMEM : failed ? DATUM_E_IO : DATUM_OK;
}

int io_chunked_read(datum_ctx *ctx, const io_chunked *c, io_scratch *scratch,
                    uint64_t first_chunk, size_t n_chunks, void *data, int planes, int threads)
{
    planes = planes && c->shuffle; /* the bytes as shuffled: straight where they go */
    size_t bytes = (size_t)c->chunk * c->elem;
    /* Stored chunks are read serially into one buffer, then decoded in parallel. */
    hsize_t *stored = datum_malloc(ctx, n_chunks, sizeof *stored);
    size_t *start = datum_malloc(ctx, n_chunks + 1, sizeof *start);
    int nomem = !stored || !start, failed = nomem;
    for (size_t k = 0; k < n_chunks && !failed; k++) {
        hsize_t offset = (first_chunk + k) * c->chunk;
        failed = H5Dget_chunk_storage_size(c->ds, &offset, &stored[k]) < 0 || stored[k] == 0;
    }
    unsigned char *packed = NULL;
    if (!failed) {
        start[0] = 0;
        for (size_t k = 0; k < n_chunks; k++) start[k + 1] = start[k] + (size_t)stored[k];
        size_t extra = (size_t)threads * bytes; /* one unshuffle buffer per thread */
        if (start[n_chunks] > SIZE_MAX - extra)
            datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (chunks of %zu bytes)", bytes);
        else if (datum_reserve(ctx, &scratch->p, &scratch->cap, start[n_chunks] + extra, 1) == DATUM_OK)
            packed = scratch->p;
        failed = nomem = !packed;
    }
    for (size_t k = 0; k < n_chunks && !failed; k++) {
        hsize_t offset = (first_chunk + k) * c->chunk;
        uint32_t mask = 0;
        failed = H5Dread_chunk(c->ds, H5P_DEFAULT, &offset, &mask, packed + start[k]) < 0 ||
                 mask != 0; /* a skipped filter: not a chunk we can decode */
    }
    if (!failed) {
#pragma omp parallel num_threads(threads) reduction(| : failed, nomem)
        {
            struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
            unsigned char *tmp = packed + start[n_chunks] + (size_t)omp_get_thread_num() * bytes;
            if (!z) nomem = codec_nomem(ctx, "decompressor") != 0;
#pragma omp for schedule(static)
            for (size_t k = 0; k < n_chunks; k++) {
                unsigned char *out = (unsigned char *)data + k * bytes;
                const unsigned char *in = packed + start[k];
                size_t in_n = start[k + 1] - start[k], got = 0;
                if (!c->deflate_level) {
                    failed |= in_n != bytes;
                    if (in_n == bytes) memcpy(out, in, bytes);
                    continue;
                }
                if (!z) continue; /* nomem */
                int unshuffle = c->shuffle && !planes && c->elem > 1; /* 1 byte: nothing moves */
                if (libdeflate_zlib_decompress(z, in, in_n, unshuffle ? tmp : out, bytes, &got) !=
                              LIBDEFLATE_SUCCESS || got != bytes) {
                    failed = 1;
                    continue;
                }
                if (unshuffle) unshuffle_bytes(tmp, out, c->chunk, c->elem);
            }
            if (z) libdeflate_free_decompressor(z);
        }
    }
    datum_free(stored);
    datum_free(start);
    return nomem ? DATUM_E_NOMEM : failed ? DATUM_E_FORMAT : DATUM_OK;
}
