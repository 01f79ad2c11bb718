/* test_huffman.c - the Huffman-only zlib encoder and the float64 repeats
 * encoder (io/huffman.c): every stream must decode to its input with both
 * libdeflate and zlib, whatever the byte distribution, size or room given,
 * and never be written past its buffer. */
#include "test_util.h"
#include "datum.h"
#include "huffman.h"

#include <libdeflate.h>
#include <string.h>
#include <zlib.h>

enum { MIB = 1 << 20 };

/* Compresses in[0..n) into a buffer of exactly `cap` bytes of its own, so
 * that AddressSanitizer sees a write past it; returns the size (0: no room). */
static size_t compress_into(struct libdeflate_compressor *lz, const unsigned char *in, size_t n,
                            unsigned char **out, size_t cap)
{
    *out = malloc(cap ? cap : 1);
    assert_non_null(*out);
    return io_huffman_zlib_compress(lz, in, n, *out, cap);
}

/* Checks that both libdeflate and zlib decode z[0..size) to in[0..n). */
static void assert_decodes(const unsigned char *z, size_t size, const unsigned char *in, size_t n)
{
    unsigned char *back = malloc(n + 1);
    size_t got = 0;
    assert_non_null(back);
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    assert_non_null(d);
    assert_int_equal(libdeflate_zlib_decompress(d, z, size, back, n, &got), LIBDEFLATE_SUCCESS);
    assert_int_equal(got, n);
    if (n) assert_memory_equal(back, in, n);
    libdeflate_free_decompressor(d);
    memset(back, 0xee, n + 1);
    uLongf back_n = (uLongf)n + 1; /* one spare byte: zlib must stop at n */
    assert_int_equal(uncompress(back, &back_n, z, (uLong)size), Z_OK);
    assert_int_equal(back_n, n);
    if (n) assert_memory_equal(back, in, n);
    free(back);
}

/* Compresses with all the room the bound promises, checks that the stream
 * decodes to the input, and returns its size. */
static size_t round_trip(struct libdeflate_compressor *lz, const unsigned char *in, size_t n)
{
    unsigned char *z;
    size_t size = compress_into(lz, in, n, &z, io_huffman_zlib_bound(n));
    assert_true(size > 0 && size <= io_huffman_zlib_bound(n));
    assert_decodes(z, size, in, n);
    free(z);
    return size;
}

/* n IMPs of random score differences, as the output's int8 columns hold. */
static unsigned char *imp_bytes(test_rng *r, size_t n)
{
    unsigned char *b = malloc(n ? n : 1);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(int8_t)datum_imp_wbf(test_rng_score(r) - test_rng_score(r));
    return b;
}

static void test_alphabets(void **state)
{
    test_rng r = test_rng_seeded("test_alphabets", 1);
    const int alphabets[] = {2, 3, 49, 256};
    const size_t sizes[] = {1, 2, 3, 1000, 65535, 65536, 65537, MIB, MIB + 13};
    unsigned char *in = malloc(MIB + 13);
    assert_non_null(in);
    for (size_t a = 0; a < sizeof alphabets / sizeof *alphabets; a++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            size_t n = sizes[s];
            int base = (int)test_rng_range(&r, 0, 255); /* anywhere in the byte range */
            for (size_t i = 0; i < n; i++)
                in[i] = (unsigned char)(base + 37 * test_rng_range(&r, 0, alphabets[a] - 1));
            size_t size = round_trip(NULL, in, n);
            /* Huffman, not stored, once the block header is paid for:
             * log2(alphabet) bits a byte, 8 for 256 values (stored then). */
            if (n >= 1000 && alphabets[a] < 256) assert_true(size < n * 7 / 8);
        }
    free(in);
}

/* All 256 values with unequal frequencies: a Huffman block with every
 * literal, some of them 9 bits and more. */
static void test_all_values_skewed(void **state)
{
    test_rng r = test_rng_seeded("test_all_values_skewed", 2);
    unsigned char *in = malloc(MIB);
    assert_non_null(in);
    for (size_t i = 0; i < MIB; i++) /* the minimum of two uniform bytes */
        in[i] = (unsigned char)(test_rng_range(&r, 0, 255) & test_rng_range(&r, 0, 255));
    assert_true(round_trip(NULL, in, MIB) < MIB * 15 / 16);
    free(in);
}

/* Fibonacci frequencies over 30 symbols make an ordinary Huffman tree one
 * chain, 30 deep (doubled, so that end-of-block's 1 ties with no sum and
 * splits no chain): the code must be limited to 15 bits, or no decoder
 * reads it. */
static void test_literal_length_limit(void **state)
{
    test_rng r = test_rng_seeded("test_literal_length_limit", 3);
    enum { SYMS = 30 };
    size_t fib[SYMS] = {2, 2}, n = 0;
    for (int s = 2; s < SYMS; s++) fib[s] = fib[s - 1] + fib[s - 2];
    for (int s = 0; s < SYMS; s++) n += fib[s];
    unsigned char *in = malloc(n);
    assert_non_null(in);
    for (size_t s = 0, i = 0; s < SYMS; s++)
        for (size_t k = 0; k < fib[s]; k++) in[i++] = (unsigned char)(3 * s + 100);
    for (size_t i = n - 1; i > 0; i--) { /* shuffled: no runs to help */
        size_t j = (size_t)test_rng_range(&r, 0, (int64_t)i);
        unsigned char t = in[i];
        in[i] = in[j];
        in[j] = t;
    }
    assert_true(round_trip(NULL, in, n) < n * 2 / 5); /* entropy 2.5 bits a byte */
    free(in);
}

/* Reads `len` bits from bit position *pos of a deflate stream (LSB first). */
static unsigned get_bits(const unsigned char *z, size_t *pos, int len)
{
    unsigned v = 0;
    for (int i = 0; i < len; i++, (*pos)++) v |= (unsigned)(z[*pos / 8] >> (*pos % 8) & 1) << i;
    return v;
}

/* The code lengths of the literals are themselves Huffman coded, at most 7
 * bits each. Bytes with dyadic frequencies get exactly the lengths we want;
 * these counts of lengths (Kraft sum 1 with end-of-block among the 15s), in
 * an order without runs, make the code-length code's Huffman tree 8 deep. */
static void test_code_length_limit(void **state)
{
    static const int count[16] = {[2] = 2,  [5] = 8,  [6] = 1,  [8] = 55,  [9] = 5,   [10] = 1,
                                  [11] = 2, [12] = 5, [13] = 1, [14] = 55, [15] = 101};
    int left[16], order[256], n_sym = 0, others = 0;
    memcpy(left, count, sizeof left);
    /* The lengths other than 15 round-robin, so no two neighbours are equal,
     * then a 15 before each of the first 101. */
    int rr[256];
    for (int more = 1; more;) {
        more = 0;
        for (int l = 1; l < 15; l++)
            if (left[l]) left[l]--, rr[others++] = l, more = 1;
    }
    for (int i = 0; i < others; i++) {
        if (left[15]) left[15]--, order[n_sym++] = 15;
        order[n_sym++] = rr[i];
    }
    assert_int_equal(n_sym, 236); /* bytes 236..255 unused; end-of-block the last 15 */
    size_t n = 0;
    for (int b = 0; b < n_sym; b++) n += (size_t)1 << (15 - order[b]);
    assert_int_equal(n, 32767); /* 2^15 minus end-of-block's 1 */
    unsigned char *in = malloc(n), *z;
    assert_non_null(in);
    size_t i = 0;
    for (size_t rep = 0; i < n; rep++) /* interleaved, for a change */
        for (int b = 0; b < n_sym; b++)
            if (rep < (size_t)1 << (15 - order[b])) in[i++] = (unsigned char)b;
    round_trip(NULL, in, n);
    size_t size = compress_into(NULL, in, n, &z, io_huffman_zlib_bound(n)), pos = 16;
    assert_true(size > 0);
    assert_int_equal(get_bits(z, &pos, 3), 1 | 2 << 1); /* final, dynamic */
    pos += 10;
    unsigned hclen = get_bits(z, &pos, 4) + 4, longest = 0;
    for (unsigned k = 0; k < hclen; k++) {
        unsigned l = get_bits(z, &pos, 3);
        longest = l > longest ? l : longest;
    }
    assert_int_equal(longest, 7);
    free(z);
    free(in);
}

static void test_single_value(void **state)
{
    const size_t sizes[] = {1, 2, 5, 4097, MIB};
    unsigned char *in = malloc(MIB);
    assert_non_null(in);
    memset(in, 0xd9, MIB);
    struct libdeflate_compressor *lz = libdeflate_alloc_compressor(1);
    assert_non_null(lz);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s], huff = round_trip(NULL, in, n);
        /* A byte and end-of-block, 1 bit each: a bit a byte. */
        if (n == MIB) assert_true(huff < MIB / 8 + 100);
        if (n >= 4097) assert_true(round_trip(lz, in, n) < n / 100); /* runs: LZ77 */
    }
    /* Almost one value: still LZ77 with a compressor, Huffman without. */
    in[12345] = 0;
    assert_true(round_trip(lz, in, MIB) < MIB / 100);
    assert_true(round_trip(NULL, in, MIB) > MIB / 8);
    libdeflate_free_compressor(lz);
    free(in);
}

static void test_empty(void **state)
{
    unsigned char z[16];
    size_t size = io_huffman_zlib_compress(NULL, NULL, 0, z, sizeof z);
    assert_int_equal(size, io_huffman_zlib_bound(0));
    unsigned char none = 0;
    assert_int_equal(round_trip(NULL, &none, 0), size);
    assert_int_equal(io_huffman_zlib_compress(NULL, NULL, 0, z, size - 1), 0);
}

/* IMPs at the sizes h5chunk.c sees, with and without the LZ77 fallback
 * (never taken here). These random scores spread wider than real fields:
 * 5.3 bits a byte of entropy against 4.3 for the decade benchmark. */
static void test_imps(void **state)
{
    test_rng r = test_rng_seeded("test_imps", 4);
    struct libdeflate_compressor *lz = libdeflate_alloc_compressor(1);
    assert_non_null(lz);
    unsigned char *in = imp_bytes(&r, MIB);
    size_t huff = round_trip(lz, in, MIB);
    assert_int_equal(round_trip(NULL, in, MIB), huff);
    assert_true(huff < MIB * 7 / 10);
    for (size_t n = 1; n < 300; n += 37) round_trip(lz, in, n);
    libdeflate_free_compressor(lz);
    free(in);
}

/* Too little room: 0 and nothing written past the end (AddressSanitizer),
 * down to the exact size, where the last bytes go out one at a time. */
static void test_out_of_room(void **state)
{
    test_rng r = test_rng_seeded("test_out_of_room", 5);
    unsigned char *imps = imp_bytes(&r, MIB + 7), *noise = malloc(70001), *one = malloc(3000);
    assert_true(noise && one);
    for (size_t i = 0; i < 70001; i++) noise[i] = (unsigned char)test_rng_next(&r); /* stored */
    memset(one, 7, 3000);
    const unsigned char *inputs[] = {imps, imps, noise, one};
    const size_t sizes[] = {MIB + 7, 1001, 70001, 3000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k], full = round_trip(NULL, inputs[k], n);
        const size_t caps[] = {0, 1, 10, full / 2, full - 1, full};
        for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
            unsigned char *z;
            size_t size = compress_into(NULL, inputs[k], n, &z, caps[c]);
            assert_int_equal(size, caps[c] == full ? full : 0);
            if (size) assert_decodes(z, size, inputs[k], n);
            free(z);
        }
    }
    free(imps);
    free(noise);
    free(one);
}

/* h5chunk.c gives the room libdeflate asks for: ours must be no more. */
static void test_bound(void **state)
{
    const size_t sizes[] = {0, 1, 100, 65535, 65536, 65537, MIB, 10 * MIB + 3};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        assert_true(io_huffman_zlib_bound(sizes[s]) <=
                    libdeflate_zlib_compress_bound(NULL, sizes[s]));
}

/* ------------------------------------------------------------------------ */
/* Float64 repeats (io_f64_zlib_compress)                                   */

/* Compresses n values into a buffer of exactly `cap` bytes (scratch of its
 * own too), so that AddressSanitizer sees a write past either. */
static size_t f64_compress_into(struct libdeflate_compressor *lz, const double *in, size_t n,
                                unsigned char **out, size_t cap)
{
    void *scratch = malloc(io_f64_zlib_scratch(n));
    *out = malloc(cap ? cap : 1);
    assert_true(scratch && *out);
    size_t size = io_f64_zlib_compress(lz, in, n, scratch, *out, cap);
    free(scratch);
    return size;
}

/* Compresses with the room h5chunk.c gives (libdeflate's bound), checks
 * that the stream decodes to the values, and returns its size. */
static size_t f64_round_trip(struct libdeflate_compressor *lz, const double *in, size_t n)
{
    unsigned char *z;
    size_t bytes = 8 * n;
    size_t size = f64_compress_into(lz, in, n, &z, libdeflate_zlib_compress_bound(NULL, bytes));
    assert_true(size > 0 && size <= io_huffman_zlib_bound(bytes));
    assert_decodes(z, size, (const unsigned char *)in, bytes);
    free(z);
    return size;
}

/* Matchpoints of random fields as the method defines them, written here from
 * the definition: per result 2 per result beaten and 1 per tie, factored by
 * Neuberg to a larger field N when the field is smaller, (m + 1) N / r - 1;
 * fields of 2 to 13 results, a quarter of them factored. */
static double *matchpoint_values(test_rng *r, size_t n)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    int32_t score[13];
    assert_non_null(v);
    for (size_t first = 0; first < n;) {
        size_t size = (size_t)test_rng_range(r, 2, 13), big = 0;
        if (size > n - first) size = n - first;
        if (test_rng_range(r, 0, 3) == 0) big = size + (size_t)test_rng_range(r, 1, 4);
        for (size_t i = 0; i < size; i++) score[i] = test_rng_score(r);
        for (size_t i = 0; i < size; i++) {
            double m = 0;
            for (size_t k = 0; k < size; k++)
                if (k != i) m += score[k] < score[i] ? 2 : score[k] == score[i] ? 1 : 0;
            v[first + i] = big ? (m + 1) * (double)big / (double)size - 1 : m;
        }
        first += size;
    }
    return v;
}

static void test_f64_matchpoints(void **state)
{
    test_rng r = test_rng_seeded("test_f64_matchpoints", 8);
    struct libdeflate_compressor *lz = libdeflate_alloc_compressor(1);
    assert_non_null(lz);
    enum { N = MIB / 4 };
    double *v = matchpoint_values(&r, N);
    /* A few hundred values, repeated: well under 2 bytes a value (3.5
     * bits of entropy a value among the integers, more among fractions). */
    size_t size = f64_round_trip(lz, v, N);
    assert_true(size < 2 * (size_t)N);
    assert_int_equal(f64_round_trip(NULL, v, N), size); /* no fallback taken */
    const size_t sizes[] = {1, 2, 3, 7, 100, 4095, 4096, 4097, 4098, 70001};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) f64_round_trip(lz, v, sizes[s]);
    free(v);
    libdeflate_free_compressor(lz);
}

/* Values that occur twice, at distances around the window's 4096 values
 * (32768 bytes, deflate's farthest): a match must never reach further. */
static void test_f64_window(void **state)
{
    enum { N = 3 * 4096 };
    double *v = malloc(N * sizeof *v);
    assert_non_null(v);
    const size_t gaps[] = {1, 2, 4095, 4096, 4097, 8191};
    for (size_t g = 0; g < sizeof gaps / sizeof *gaps; g++) {
        for (size_t i = 0; i < N; i++) v[i] = (double)i + 0.25; /* all distinct */
        for (size_t i = gaps[g]; i < N; i += 3) v[i] = v[i - gaps[g]];
        f64_round_trip(NULL, v, N);
    }
    /* One value repeated: a match a value at distance 8. */
    for (size_t i = 0; i < N; i++) v[i] = 12.5;
    assert_true(f64_round_trip(NULL, v, N) < N / 2); /* two symbols of 1 bit at most */
    free(v);
}

/* Matches of every distance class, each half as frequent as the one before,
 * among distinct values, and rare pairs of matches at the farthest distance:
 * their codes (long length and distance codes, 13 extra bits) are too long
 * for two to go out in one flush, as two shorter ones do (checked with a
 * counter in the encoder when this test was written: 3 such pairs). */
static void test_f64_long_matches(void **state)
{
    enum { N = 65536 };
    double *v = malloc(N * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < N; i++) {
        v[i] = (double)i + 0.25;
        if (i >= 4096 && i % 16 == 0) {
            size_t k = 0; /* the trailing zeros of i / 16, up to 11 */
            while (k < 11 && !((i / 16) >> k & 1)) k++;
            v[i] = v[i - ((size_t)1 << k)];
        }
        if (i >= 4096 && i % 2048 == 101 && i + 1 < N) {
            v[i] = v[i - 4096];
            v[i + 1] = v[i + 1 - 4096];
            i++;
        }
    }
    f64_round_trip(NULL, v, N);
    free(v);
}

/* Values that never repeat: Huffman-coded bytes, or stored blocks when the
 * bytes are noise; with a compressor, libdeflate's stream instead. */
static void test_f64_no_repeats(void **state)
{
    test_rng r = test_rng_seeded("test_f64_no_repeats", 9);
    enum { N = 20000 };
    double *v = malloc(N * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < N; i++) v[i] = (double)test_rng_range(&r, 0, 1 << 30) / 7.0;
    unsigned char *z;
    size_t huff = f64_round_trip(NULL, v, N), lz_size;
    struct libdeflate_compressor *lz = libdeflate_alloc_compressor(1);
    assert_non_null(lz);
    lz_size = f64_round_trip(lz, v, N);
    size_t bound = libdeflate_zlib_compress_bound(NULL, 8 * N);
    unsigned char *ref = malloc(bound);
    assert_non_null(ref);
    assert_int_equal(lz_size, libdeflate_zlib_compress(lz, v, 8 * N, ref, bound));
    assert_true(huff < 8 * N); /* the bytes of x/7 repeat patterns: Huffman, not stored */
    for (size_t i = 0; i < N; i++) memcpy(&v[i], (uint64_t[]){test_rng_next(&r)}, 8);
    assert_int_equal(f64_round_trip(NULL, v, N), io_huffman_zlib_bound(8 * N)); /* stored */
    assert_true(f64_compress_into(NULL, v, 0, &z, 16) == io_huffman_zlib_bound(0)); /* empty */
    assert_decodes(z, io_huffman_zlib_bound(0), NULL, 0);
    free(z);
    free(ref);
    free(v);
    libdeflate_free_compressor(lz);
}

/* Too little room: 0 and nothing written past the end, down to the exact
 * size, for a Huffman block and for stored blocks. */
static void test_f64_out_of_room(void **state)
{
    test_rng r = test_rng_seeded("test_f64_out_of_room", 10);
    enum { N = 9000 };
    double *mp = matchpoint_values(&r, N), *noise = malloc(N * sizeof *noise);
    assert_non_null(noise);
    for (size_t i = 0; i < N; i++) memcpy(&noise[i], (uint64_t[]){test_rng_next(&r)}, 8);
    const double *inputs[] = {mp, noise};
    for (size_t k = 0; k < 2; k++) {
        size_t full = f64_round_trip(NULL, inputs[k], N);
        const size_t caps[] = {0, 1, 10, full / 2, full - 1, full};
        for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
            unsigned char *z;
            size_t size = f64_compress_into(NULL, inputs[k], N, &z, caps[c]);
            assert_int_equal(size, caps[c] == full ? full : 0);
            if (size) assert_decodes(z, size, (const unsigned char *)inputs[k], 8 * N);
            free(z);
        }
    }
    free(mp);
    free(noise);
}

/* Past the first 65536 values (whose counts give the codes), one pass
 * finds and sends the rest (io_f64_zlib_compress): symbols the prefix never
 * used (other distances, fraction bytes) must still have codes; noise after
 * a repetitive prefix still decodes; noise from the start goes to libdeflate
 * (with a compressor) or stored blocks; and any room, too little included,
 * gives 0 or a stream that decodes, nothing written past it. */
static void test_f64_prefix(void **state)
{
    enum { PREFIX = 65536, N = 3 * PREFIX + 5 };
    test_rng r = test_rng_seeded("test_f64_prefix", 12);
    double *v = malloc(N * sizeof *v);
    assert_non_null(v);
    /* Integers of one field size in the prefix; then thirds, other sizes,
     * and now and then a value never seen before. */
    for (size_t i = 0; i < N; i++)
        v[i] = i < PREFIX ? (double)(i % 7)
               : test_rng_range(&r, 0, 50) == 0 ? (double)test_rng_range(&r, 0, 1 << 30) / 7.0
               : ((double)test_rng_range(&r, 0, 11) + 1) * 13.0 / 11.0 - 1;
    struct libdeflate_compressor *lz = libdeflate_alloc_compressor(1);
    assert_non_null(lz);
    size_t size = f64_round_trip(NULL, v, N);
    assert_true(size < 2 * (size_t)N);
    assert_int_equal(f64_round_trip(lz, v, N), size); /* no fallback taken */
    const size_t caps[] = {0, 1, 100, size - 1, size, io_huffman_zlib_bound(8 * N) - 1,
                           io_huffman_zlib_bound(8 * N) + 63};
    for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
        unsigned char *z;
        size_t got = f64_compress_into(NULL, v, N, &z, caps[c]);
        assert_true(got <= caps[c]);
        if (got) assert_decodes(z, got, (const unsigned char *)v, 8 * N);
        free(z);
    }
    /* Noise after the prefix: bytes with the codes the prefix gave them,
     * or stored blocks, compressor or not (the prefix decides). */
    for (size_t i = PREFIX; i < N; i++) memcpy(&v[i], (uint64_t[]){test_rng_next(&r)}, 8);
    assert_int_equal(f64_round_trip(lz, v, N), f64_round_trip(NULL, v, N));
    /* Noise from the start: libdeflate's stream with a compressor. */
    for (size_t i = 0; i < PREFIX; i++) memcpy(&v[i], (uint64_t[]){test_rng_next(&r)}, 8);
    size_t bound = libdeflate_zlib_compress_bound(NULL, 8 * N);
    unsigned char *ref = malloc(bound);
    assert_non_null(ref);
    assert_int_equal(f64_round_trip(lz, v, N), libdeflate_zlib_compress(lz, v, 8 * N, ref, bound));
    assert_int_equal(f64_round_trip(NULL, v, N), io_huffman_zlib_bound(8 * N)); /* stored */
    free(ref);
    free(v);
    /* More than 2^20 values, a chunk's, in one pass. */
    size_t many = ((size_t)1 << 20) + 70001;
    v = matchpoint_values(&r, many);
    assert_true(f64_round_trip(lz, v, many) < 2 * many);
    free(v);
    libdeflate_free_compressor(lz);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alphabets),           cmocka_unit_test(test_all_values_skewed),
        cmocka_unit_test(test_literal_length_limit), cmocka_unit_test(test_code_length_limit),
        cmocka_unit_test(test_single_value),        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_imps),                cmocka_unit_test(test_out_of_room),
        cmocka_unit_test(test_bound),               cmocka_unit_test(test_f64_matchpoints),
        cmocka_unit_test(test_f64_window),          cmocka_unit_test(test_f64_no_repeats),
        cmocka_unit_test(test_f64_long_matches),
        cmocka_unit_test(test_f64_out_of_room),     cmocka_unit_test(test_f64_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
