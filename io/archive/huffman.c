/*
 * huffman.c - Huffman-only deflate in zlib streams (see huffman.h), written
 * from RFC 1950 and RFC 1951.
 *
 * The stream is sized exactly from the byte histogram before a bit is
 * written, so the choice between Huffman and stored blocks, and the check
 * against the output buffer, cost nothing in the coding loop.
 */
#include "huffman.h"

#include <libdeflate.h>
#include <stdint.h>
#include <string.h>

enum {
    N_LITLEN = 257,   /* the 256 literals and end-of-block: no lengths used */
    N_DIST = 2,       /* no distances used, but a two-code tree as zlib emits */
    N_LITLEN_ALL = 286, /* literals, end-of-block and the 29 length codes */
    N_DIST_ALL = 30,  /* the 30 distance codes */
    N_CLEN = 19,      /* code-length alphabet */
    MAX_LITLEN_BITS = 15,
    MAX_CLEN_BITS = 7,
    EOB = 256,
    STORED_MAX = 65535, /* bytes per stored block */
};

/* Where each code-length code length is sent in the block header (3.2.7). */
static const uint8_t kClenOrder[N_CLEN] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                           11, 4, 12, 3, 13, 2, 14, 1, 15};

/* ------------------------------------------------------------------------ */
/* Codes                                                                    */

/* Fills len[0..n_sym) with the code lengths of a Huffman code for freq,
 * none longer than limit (2^limit >= n_sym). Symbols of frequency 0 get no
 * code, except that a code needs two symbols to be complete (zlib refuses an
 * incomplete code-length code), so unused symbols are added while fewer than
 * two have a frequency. Too deep a tree is rebuilt from halved frequencies
 * (rounded up) until it fits: simpler than package-merge and close to its
 * optimum, since halving shifts the ratios of the rarest symbols only, and
 * only histograms with bytes rarer than ~1 in 2^14 need it. */
static void huffman_lengths(const uint64_t *freq, int n_sym, int limit, uint8_t *len)
{
    uint64_t w[2 * N_LITLEN_ALL]; /* leaves by rank, then internal nodes */
    int sym[N_LITLEN_ALL], parent[2 * N_LITLEN_ALL], depth[2 * N_LITLEN_ALL], m = 0;
    uint64_t f[N_LITLEN_ALL];
    for (int s = 0; s < n_sym; s++) {
        f[s] = freq[s];
        if (f[s]) sym[m++] = s;
    }
    for (int s = 0; m < 2; s++)
        if (!f[s]) f[s] = 1, sym[m++] = s;
    for (;;) {
        /* Leaves by increasing frequency; ties by symbol, for a fixed result. */
        for (int i = 1; i < m; i++) {
            int s = sym[i], j = i;
            uint64_t fs = f[s];
            for (; j > 0 && (f[sym[j - 1]] > fs || (f[sym[j - 1]] == fs && sym[j - 1] > s)); j--)
                sym[j] = sym[j - 1];
            sym[j] = s;
        }
        for (int i = 0; i < m; i++) w[i] = f[sym[i]];
        /* Two queues: leaves in order, and internal nodes, which are made in
         * order of weight too; each step joins the two lightest heads. */
        int leaf = 0, node = m;
        for (int next = m; next < 2 * m - 1; next++) {
            int pick[2];
            for (int k = 0; k < 2; k++)
                pick[k] = leaf < m && (node == next || w[leaf] <= w[node]) ? leaf++ : node++;
            w[next] = w[pick[0]] + w[pick[1]];
            parent[pick[0]] = parent[pick[1]] = next;
        }
        int deepest = 0;
        depth[2 * m - 2] = 0;
        for (int i = 2 * m - 3; i >= 0; i--) { /* parents come after their children */
            depth[i] = depth[parent[i]] + 1;
            if (depth[i] > deepest) deepest = depth[i];
        }
        if (deepest <= limit) {
            memset(len, 0, (size_t)n_sym);
            for (int i = 0; i < m; i++) len[sym[i]] = (uint8_t)depth[i];
            return;
        }
        for (int i = 0; i < m; i++) f[sym[i]] = (f[sym[i]] + 1) / 2; /* all reach 1: depth 9 */
    }
}

/* Fills code[s] with the canonical code of length len[s] (RFC 1951 3.2.2),
 * bit-reversed because deflate sends Huffman codes from their first bit
 * while our bit buffer fills from the least significant end. */
static void canonical_codes(const uint8_t *len, int n_sym, uint16_t *code)
{
    unsigned count[MAX_LITLEN_BITS + 1] = {0}, next[MAX_LITLEN_BITS + 1];
    for (int s = 0; s < n_sym; s++) count[len[s]]++;
    count[0] = 0;
    unsigned c = 0;
    for (int b = 1; b <= MAX_LITLEN_BITS; b++) next[b] = c = (c + count[b - 1]) << 1;
    for (int s = 0; s < n_sym; s++) {
        unsigned v = len[s] ? next[len[s]]++ : 0, r = 0;
        for (int b = 0; b < len[s]; b++) r |= ((v >> b) & 1u) << (len[s] - 1 - b);
        code[s] = (uint16_t)r;
    }
}

/* The code lengths of both trees, run-length coded with the code-length
 * alphabet (3.2.7): symbol and value of its extra bits per item. */
typedef struct {
    uint8_t sym[N_LITLEN_ALL + N_DIST_ALL], extra[N_LITLEN_ALL + N_DIST_ALL];
    int n;
    uint64_t freq[N_CLEN];
} clen_items;

static void clen_add(clen_items *it, int sym, int extra)
{
    it->sym[it->n] = (uint8_t)sym;
    it->extra[it->n++] = (uint8_t)extra;
    it->freq[sym]++;
}

static void clen_encode(const uint8_t *lens, int n, clen_items *it)
{
    memset(it, 0, sizeof *it);
    for (int i = 0; i < n;) {
        int v = lens[i], run = 1;
        while (i + run < n && lens[i + run] == v) run++;
        i += run;
        if (v == 0) {
            for (int r; run >= 11; run -= r) {
                r = run < 138 ? run : 138;
                clen_add(it, 18, r - 11);
            }
            if (run >= 3) clen_add(it, 17, run - 3), run = 0;
        } else { /* 16 repeats the previous length: send it once first */
            clen_add(it, v, 0);
            run--;
            for (int r; run >= 3; run -= r) {
                r = run < 6 ? run : 6;
                clen_add(it, 16, r - 3);
            }
        }
        for (; run > 0; run--) clen_add(it, v, 0);
    }
}

static const uint8_t kClenExtraBits[N_CLEN] = {[16] = 2, [17] = 3, [18] = 7};

/* ------------------------------------------------------------------------ */
/* Bits out                                                                 */

/* LSB-first bits waiting in a 64-bit buffer; whole bytes go out by word. */
typedef struct {
    uint64_t bits;
    unsigned n;             /* bits held, < 8 after a flush */
    unsigned char *p, *end; /* end: the caller's out_cap */
} bit_writer;

static inline void store_le64(unsigned char *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

/* Moves the whole bytes held to the output: one 8-byte store while there is
 * room for it, byte by byte near the end of the buffer (the stream was sized
 * beforehand, so the bytes themselves always fit). */
static inline void bw_flush(bit_writer *w)
{
    unsigned bytes = w->n >> 3;
    if (w->end - w->p >= 8) {
        store_le64(w->p, w->bits);
    } else {
        for (unsigned i = 0; i < bytes; i++) w->p[i] = (unsigned char)(w->bits >> (8 * i));
    }
    w->p += bytes;
    w->bits >>= 8 * bytes; /* bytes <= 7: bw_put adds at most 56 bits to 7 */
    w->n &= 7;
}

/* Adds len <= 56 bits of v and flushes. */
static void bw_put(bit_writer *w, uint64_t v, unsigned len)
{
    w->bits |= v << w->n;
    w->n += len;
    bw_flush(w);
}

/* Codes in[0..n) with tab[byte] = code | length << 16, `group` symbols
 * between flushes (group * the longest length + 7 <= 64). A constant group
 * lets the compiler unroll the loop; the buffer's room is checked once per
 * group, and the last bytes near the end of the buffer go one at a time. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void encode_bytes(bit_writer *w, const uint32_t *tab, const unsigned char *in,
                                size_t n, int group)
{
    uint64_t bits = w->bits;
    unsigned cnt = w->n;
    unsigned char *p = w->p;
    size_t i = 0;
    for (; n - i >= (size_t)group && w->end - p >= 8; i += (size_t)group) {
        for (int k = 0; k < group; k++) {
            uint32_t e = tab[in[i + (size_t)k]];
            bits |= (uint64_t)(e & 0xffff) << cnt;
            cnt += e >> 16;
        }
        store_le64(p, bits);
        p += cnt >> 3;
        bits >>= cnt & ~7u; /* < 64: at most 57 bits were held */
        cnt &= 7;
    }
    *w = (bit_writer){bits, cnt, p, w->end};
    for (; i < n; i++) bw_put(w, tab[in[i]] & 0xffff, tab[in[i]] >> 16);
}

static void encode_all(bit_writer *w, const uint32_t *tab, const unsigned char *in, size_t n,
                       int longest)
{
    if (longest <= 11) encode_bytes(w, tab, in, n, 5);
    else if (longest <= 14) encode_bytes(w, tab, in, n, 4);
    else encode_bytes(w, tab, in, n, 3);
}

/* ------------------------------------------------------------------------ */
/* Streams                                                                  */

static size_t stored_blocks(size_t n) { return n ? (n + STORED_MAX - 1) / STORED_MAX : 1; }

size_t io_huffman_zlib_bound(size_t n) { return 2 + 5 * stored_blocks(n) + n + 4; }

/* Writes the zlib trailer: a, big-endian. */
static void put_adler_value(unsigned char *p, uint32_t a)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(a >> (24 - 8 * i));
}

/* Writes the zlib trailer, the big-endian Adler-32 of the input. */
static void put_adler(unsigned char *p, const void *in, size_t n)
{
    put_adler_value(p, libdeflate_adler32(1, in, n));
}

/* Writes in[0..n) as stored blocks after the zlib header at out + 2. */
static void write_stored(const unsigned char *in, size_t n, unsigned char *out)
{
    unsigned char *p = out + 2;
    size_t left = n;
    do {
        size_t take = left < STORED_MAX ? left : STORED_MAX;
        *p++ = take == left; /* BFINAL, BTYPE 00, then padding to the byte */
        p[0] = (unsigned char)take;
        p[1] = (unsigned char)(take >> 8);
        p[2] = (unsigned char)~take;
        p[3] = (unsigned char)(~take >> 8);
        if (take) memcpy(p + 4, in + (n - left), take);
        p += 4 + take;
        left -= take;
    } while (left);
}

/* Counts the bytes of in[0..n): four tables, so that runs of one value do
 * not wait on the previous increment of the same counter. */
static void histogram(const unsigned char *in, size_t n, uint64_t *freq)
{
    uint32_t h[4][256] = {{0}};
    size_t i = 0;
    memset(freq, 0, 256 * sizeof *freq);
    while (i < n) {
        /* uint32_t counters, emptied every 2^30 bytes. */
        size_t stop = n - i > ((size_t)1 << 30) ? i + ((size_t)1 << 30) : n;
        for (; i + 4 <= stop; i += 4) {
            h[0][in[i]]++;
            h[1][in[i + 1]]++;
            h[2][in[i + 2]]++;
            h[3][in[i + 3]]++;
        }
        for (; i < stop; i++) h[0][in[i]]++;
        for (int b = 0; b < 256; b++) {
            freq[b] += (uint64_t)h[0][b] + h[1][b] + h[2][b] + h[3][b];
            h[0][b] = h[1][b] = h[2][b] = h[3][b] = 0;
        }
    }
}

/* One value above this share of the input goes to LZ77 when allowed. On 1
 * MiB of IMPs with a share p of them made 0 at random, Huffman's 1 bit a
 * byte loses to libdeflate level 1 from p ~ 0.89 (179 KB against 168 KB at
 * 0.9, 136 KB against 28 KB at 0.99); runs, as in a padded last chunk, only
 * favour LZ77 more. Below the threshold Huffman is smaller and 3-5x faster. */
#define LZ_SHARE_NUM 9
#define LZ_SHARE_DEN 10
/* Float64 values sent as their bytes above this share go to LZ77 when
 * allowed: values that rarely repeat (fractions), where libdeflate's
 * matches inside the values do better than 8 Huffman codes. */
#define F64_LZ_SHARE_NUM 1
#define F64_LZ_SHARE_DEN 2

/* The two trees of a dynamic-Huffman block (3.2.7): the code lengths and
 * codes of n_lit literal/length symbols then n_dist distance symbols, and the
 * code of those lengths. */
typedef struct {
    int n_lit, n_dist, n_clen;
    uint8_t lens[N_LITLEN_ALL + N_DIST_ALL], clen_len[N_CLEN];
    uint16_t code[N_LITLEN_ALL + N_DIST_ALL], clen_code[N_CLEN];
    clen_items it;
} block_trees;

/* Builds t from the symbols' frequencies; returns the bits of the block's
 * header (BFINAL to the last code length). */
static uint64_t trees_build(block_trees *t, const uint64_t *lit_freq, int n_lit,
                            const uint64_t *dist_freq, int n_dist)
{
    t->n_lit = n_lit;
    t->n_dist = n_dist;
    huffman_lengths(lit_freq, n_lit, MAX_LITLEN_BITS, t->lens);
    huffman_lengths(dist_freq, n_dist, MAX_LITLEN_BITS, t->lens + n_lit);
    canonical_codes(t->lens, n_lit, t->code);
    canonical_codes(t->lens + n_lit, n_dist, t->code + n_lit);
    clen_encode(t->lens, n_lit + n_dist, &t->it);
    huffman_lengths(t->it.freq, N_CLEN, MAX_CLEN_BITS, t->clen_len);
    canonical_codes(t->clen_len, N_CLEN, t->clen_code);
    t->n_clen = N_CLEN;
    while (t->n_clen > 4 && !t->clen_len[kClenOrder[t->n_clen - 1]]) t->n_clen--;
    uint64_t bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)t->n_clen;
    for (int s = 0; s < N_CLEN; s++) bits += t->it.freq[s] * (t->clen_len[s] + kClenExtraBits[s]);
    return bits;
}

static void trees_write(bit_writer *w, const block_trees *t)
{
    bw_put(w, 1 | 2 << 1, 3); /* BFINAL, BTYPE 10: dynamic Huffman */
    bw_put(w, (unsigned)(t->n_lit - 257) | (unsigned)(t->n_dist - 1) << 5 |
                  (unsigned)(t->n_clen - 4) << 10, 14);
    for (int i = 0; i < t->n_clen; i++) bw_put(w, t->clen_len[kClenOrder[i]], 3);
    for (int i = 0; i < t->it.n; i++) {
        int s = t->it.sym[i];
        bw_put(w, t->clen_code[s] | (unsigned)t->it.extra[i] << t->clen_len[s],
               t->clen_len[s] + kClenExtraBits[s]);
    }
}

/* The stream's size for a Huffman block of `bits` bits (header, symbols and
 * end-of-block) or stored blocks, whichever is smaller; *stored: which. */
static size_t stream_size(uint64_t bits, size_t n, int *stored)
{
    size_t huff_size = 2 + (size_t)((bits + 7) / 8) + 4, stored_size = io_huffman_zlib_bound(n);
    *stored = huff_size >= stored_size;
    return *stored ? stored_size : huff_size;
}

/* The zlib header: deflate, 32 KiB window, no dictionary, "fastest" level
 * ((0x78 << 8 | 0x01) % 31 == 0). */
static void put_zlib_header(unsigned char *out)
{
    out[0] = 0x78;
    out[1] = 0x01;
}

size_t io_huffman_zlib_compress(struct libdeflate_compressor *lz, const void *in_, size_t n,
                                void *out_, size_t out_cap)
{
    const unsigned char *in = in_;
    unsigned char *out = out_;
    uint64_t freq[N_LITLEN], top = 0, no_dist[N_DIST] = {0};
    histogram(in, n, freq);
    for (int b = 0; b < 256; b++) top = freq[b] > top ? freq[b] : top;
    if (lz && top * LZ_SHARE_DEN > (uint64_t)n * LZ_SHARE_NUM)
        return libdeflate_zlib_compress(lz, in, n, out, out_cap);
    freq[EOB] = 1;

    /* Both trees, their lengths coded, and the exact size of the block. */
    block_trees t;
    uint64_t bits = trees_build(&t, freq, N_LITLEN, no_dist, N_DIST) + t.lens[EOB];
    int longest = 0, stored;
    for (int b = 0; b < 256; b++) {
        bits += freq[b] * t.lens[b];
        longest = t.lens[b] > longest ? t.lens[b] : longest;
    }
    size_t size = stream_size(bits, n, &stored);
    if (size > out_cap) return 0;

    put_zlib_header(out);
    if (stored) {
        write_stored(in, n, out);
    } else {
        bit_writer w = {0, 0, out + 2, out + out_cap};
        trees_write(&w, &t);
        uint32_t tab[256];
        for (int b = 0; b < 256; b++) tab[b] = t.code[b] | (uint32_t)t.lens[b] << 16;
        encode_all(&w, tab, in, n, longest);
        bw_put(&w, t.code[EOB], t.lens[EOB]);
        bw_put(&w, 0, 7); /* the last byte's padding */
    }
    put_adler(out + size - 4, in, n);
    return size;
}

/* ------------------------------------------------------------------------ */
/* Float64 columns of repeated values                                       */

enum {
    ELEM = 8,                    /* bytes of a value */
    WINDOW_ELEMS = 32768 / ELEM, /* deflate's farthest distance, in values */
    HASH_BITS = 12,              /* the table of last occurrences */
    MATCH_SYMBOL = 262,          /* a match of 8 bytes: no extra bits (3.2.5) */
};

/* The caller's scratch: per hash the index + 1 of its last value; per
 * distance (in values, 0: none) its count, then its whole code; per value
 * its distance (uint16). */
typedef struct {
    uint32_t last[1u << HASH_BITS];
    uint32_t count[WINDOW_ELEMS + 1];
    uint64_t code[WINDOW_ELEMS + 1]; /* bits | length << 56 */
} f64_tables;

size_t io_f64_zlib_scratch(size_t n) { return sizeof(f64_tables) + 2 * n; }

static unsigned floor_log2(unsigned x) /* x > 0 */
{
#if defined(__GNUC__)
    return 31u - (unsigned)__builtin_clz(x);
#else
    unsigned e = 0;
    while (x >>= 1) e++;
    return e;
#endif
}

/* Deflate's symbol for a distance of dist (1..32768) bytes and its extra
 * bits (3.2.5): *n_extra bits of value *extra. */
static unsigned distance_symbol(unsigned dist, unsigned *n_extra, unsigned *extra)
{
    unsigned x = dist - 1;
    *n_extra = *extra = 0;
    if (x < 4) return x;
    unsigned e = floor_log2(x); /* 2..14 */
    *n_extra = e - 1;
    *extra = x & ((1u << (e - 1)) - 1);
    return 2 * e + ((x >> (e - 1)) & 1);
}

static inline uint64_t load_value(const unsigned char *in, size_t i)
{
    uint64_t v;
    memcpy(&v, in + ELEM * i, ELEM);
    return v;
}

/* Per value of in[0..n), the distance back to its last occurrence within the
 * window (found through a hash of the value: the previous occurrence of a
 * value evicted by another of the same hash is missed), 0 if none; counts
 * the distances and the bytes of the values with none. The counts come in a
 * second loop: in the first, an increment of the count of the distance the
 * last value had too (a field's rows, one field size after the other)
 * waited on the one before, 10-15 % of the encoder's time. */
static void find_repeats(const unsigned char *in, size_t n, f64_tables *t, uint16_t *dist,
                         uint64_t *lit_freq)
{
    memset(t->last, 0, sizeof t->last);
    memset(t->count, 0, sizeof t->count);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = load_value(in, i);
        unsigned h = (unsigned)((v * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - HASH_BITS));
        size_t j = t->last[h], d = i + 1 - j; /* j: index + 1 */
        d = j && d <= WINDOW_ELEMS && load_value(in, j - 1) == v ? d : 0;
        t->last[h] = (uint32_t)(i + 1);
        dist[i] = (uint16_t)d;
    }
    for (size_t i = 0; i < n; i++) {
        t->count[dist[i]]++;
        if (!dist[i])
            for (int b = 0; b < ELEM; b++) lit_freq[in[ELEM * i + (size_t)b]]++;
    }
}

/* Adds len <= 56 bits of c to the bits held in locals (*acc, *cnt < 8) and
 * stores the whole bytes at p (8 bytes written: room for them is the
 * caller's); returns the new p. Inlined, the bits stay in registers: through
 * a bit_writer, every store to the output could alias it. */
static inline unsigned char *put_held(uint64_t *acc, unsigned *cnt, unsigned char *p, uint64_t c,
                                      unsigned len)
{
    *acc |= c << *cnt; /* 56 bits at most, to 7 */
    *cnt += len;
    store_le64(p, *acc);
    p += *cnt >> 3;
    *acc >>= *cnt & ~7u;
    *cnt &= 7;
    return p;
}

/* Per distance (in values), the whole code of a match of a value: at most 15
 * bits of length and 28 of distance, and their count in the top byte. */
static void match_codes(const block_trees *tr, f64_tables *t)
{
    for (unsigned d = 1; d <= WINDOW_ELEMS; d++) {
        unsigned n_extra, extra, s = distance_symbol(ELEM * d, &n_extra, &extra);
        unsigned ls = tr->lens[MATCH_SYMBOL], ds = tr->lens[N_LITLEN_ALL + s];
        uint64_t code = tr->code[MATCH_SYMBOL] |
                        (uint64_t)(tr->code[N_LITLEN_ALL + s] | extra << ds) << ls;
        t->code[d] = code | (uint64_t)(ls + ds + n_extra) << 56;
    }
}

/* The bytes of a value sent as literals, 15 bits at most each: three puts
 * of at most 45 bits. */
static inline void put_value_bytes(bit_writer *w, const uint32_t *tab, const unsigned char *b)
{
    for (int k = 0; k < ELEM; k += 3) {
        uint64_t bits = 0;
        unsigned len = 0;
        for (int q = k; q < k + 3 && q < ELEM; q++) {
            bits |= (uint64_t)(tab[b[q]] & 0xffff) << len;
            len += tab[b[q]] >> 16;
        }
        bw_put(w, bits, len);
    }
}

/* io_f64_zlib_compress with the codes of every value's counts: two passes
 * (the distances and their counts, then the stream), sized exactly before a
 * bit is written. */
static size_t f64_exact(struct libdeflate_compressor *lz, const unsigned char *in, size_t n,
                        f64_tables *t, unsigned char *out, size_t out_cap)
{
    uint16_t *dist = (uint16_t *)(t + 1);
    uint64_t lit_freq[N_LITLEN_ALL] = {0}, dist_freq[N_DIST_ALL] = {0}, extra_bits = 0;
    find_repeats(in, n, t, dist, lit_freq);
    if (lz && (uint64_t)t->count[0] * F64_LZ_SHARE_DEN > (uint64_t)n * F64_LZ_SHARE_NUM)
        return libdeflate_zlib_compress(lz, in, ELEM * n, out, out_cap);
    lit_freq[MATCH_SYMBOL] = n - t->count[0];
    lit_freq[EOB] = 1;
    for (unsigned d = 1; d <= WINDOW_ELEMS; d++) {
        unsigned n_extra, extra;
        dist_freq[distance_symbol(ELEM * d, &n_extra, &extra)] += t->count[d];
        extra_bits += (uint64_t)t->count[d] * n_extra;
    }
    block_trees tr;
    uint64_t bits = trees_build(&tr, lit_freq, N_LITLEN_ALL, dist_freq, N_DIST_ALL) + extra_bits;
    for (int s = 0; s < N_LITLEN_ALL; s++) bits += lit_freq[s] * tr.lens[s];
    for (int s = 0; s < N_DIST_ALL; s++) bits += dist_freq[s] * tr.lens[N_LITLEN_ALL + s];
    int stored;
    size_t size = stream_size(bits, ELEM * n, &stored);
    if (size > out_cap) return 0;

    put_zlib_header(out);
    if (stored) {
        write_stored(in, ELEM * n, out);
    } else {
        bit_writer w = {0, 0, out + 2, out + out_cap};
        trees_write(&w, &tr);
        uint32_t tab[256];
        for (int b = 0; b < 256; b++) tab[b] = tr.code[b] | (uint32_t)tr.lens[b] << 16;
        match_codes(&tr, t);
        /* The bit buffer in locals while there is room for a whole word:
         * through w, every store to the output could alias it. */
        uint64_t acc = w.bits;
        unsigned cnt = w.n;
        unsigned char *p = w.p;
        size_t i = 0;
        for (; i < n && w.end - p >= 8; i++) {
            if (!dist[i]) {
                w = (bit_writer){acc, cnt, p, w.end};
                put_value_bytes(&w, tab, in + ELEM * i);
                acc = w.bits, cnt = w.n, p = w.p;
                continue;
            }
            uint64_t c = t->code[dist[i]] & ((UINT64_C(1) << 56) - 1);
            unsigned len = (unsigned)(t->code[dist[i]] >> 56);
            /* A match and the next one in one flush when both fit (about
             * always: 10-20 bits each): half the flushes, whose shifts the
             * loop waits on. The bits are the same. */
            if (i + 1 < n && dist[i + 1] && len + (unsigned)(t->code[dist[i + 1]] >> 56) <= 56) {
                c |= (t->code[dist[i + 1]] & ((UINT64_C(1) << 56) - 1)) << len;
                len += (unsigned)(t->code[dist[i + 1]] >> 56);
                i++;
            }
            p = put_held(&acc, &cnt, p, c, len);
        }
        w = (bit_writer){acc, cnt, p, w.end};
        for (; i < n; i++) {
            uint64_t c = t->code[dist[i]];
            if (dist[i]) bw_put(&w, c & ((UINT64_C(1) << 56) - 1), (unsigned)(c >> 56));
            else put_value_bytes(&w, tab, in + ELEM * i);
        }
        bw_put(&w, tr.code[EOB], tr.lens[EOB]);
        bw_put(&w, 0, 7); /* the last byte's padding */
    }
    put_adler(out + size - 4, in, ELEM * n);
    return size;
}

/* Past the first PREFIX_ELEMS values, whose counts give the codes, one pass
 * finds each value's last occurrence and sends it at once: no array of the
 * distances and no counts of the whole chunk (f64_exact's first pass, about
 * half its time). Every symbol gets a code (a count of at least 1), so that
 * the values after the prefix find one for anything the prefix lacked. On
 * decade's matchpoints: 0.7 % more bytes than f64_exact's streams (95.0
 * against 94.3 MB a column), in 0.65-0.8 of its time (A/B on 8 chunks). */
enum {
    PREFIX_ELEMS = 65536,
    ROOM_SLACK = 64, /* bytes written past the stored blocks' size at most */
    ADLER_BLOCK = 4096, /* values summed at once (32 KiB: in the first-level cache) */
};

/* Distance back to the last occurrence of value i (v) within the window, 0
 * if none, found through the table as find_repeats does; i recorded. */
static inline unsigned repeat_of(const unsigned char *in, size_t i, uint64_t v, uint32_t *last)
{
    unsigned h = (unsigned)((v * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - HASH_BITS));
    size_t j = last[h], d = i + 1 - j;
    d = j && d <= WINDOW_ELEMS && load_value(in, j - 1) == v ? d : 0;
    last[h] = (uint32_t)(i + 1);
    return (unsigned)d;
}

/* The one-pass stream of n > PREFIX_ELEMS values, or 0 when f64_exact must
 * decide: the stream is not smaller than stored blocks, or out_cap leaves no
 * room to find out; *lz_better: more than half the prefix's values would go
 * as bytes (the stream is then not made). */
static size_t f64_one_pass(const unsigned char *in, size_t n, f64_tables *t, unsigned char *out,
                           size_t out_cap, int *lz_better)
{
    uint16_t *dist = (uint16_t *)(t + 1);
    uint64_t lit_freq[N_LITLEN_ALL] = {0}, dist_freq[N_DIST_ALL] = {0};
    size_t m = PREFIX_ELEMS, stored_size = io_huffman_zlib_bound(ELEM * n);
    find_repeats(in, m, t, dist, lit_freq);
    *lz_better = (uint64_t)t->count[0] * F64_LZ_SHARE_DEN > (uint64_t)m * F64_LZ_SHARE_NUM;
    if (*lz_better || out_cap < stored_size || out_cap - stored_size < ROOM_SLACK) return 0;
    for (int b = 0; b < 256; b++) lit_freq[b]++;
    lit_freq[MATCH_SYMBOL] = m - t->count[0] + 1;
    lit_freq[EOB] = 1;
    for (unsigned d = 1; d <= WINDOW_ELEMS; d++) {
        unsigned n_extra, extra, s = distance_symbol(ELEM * d, &n_extra, &extra);
        dist_freq[s] += t->count[d] + (dist_freq[s] == 0);
    }
    block_trees tr;
    trees_build(&tr, lit_freq, N_LITLEN_ALL, dist_freq, N_DIST_ALL);
    put_zlib_header(out);
    bit_writer w = {0, 0, out + 2, out + out_cap};
    trees_write(&w, &tr); /* a few hundred bytes: a stored block's size is 512 KiB and more */
    uint32_t tab[256];
    for (int b = 0; b < 256; b++) tab[b] = tr.code[b] | (uint32_t)tr.lens[b] << 16;
    match_codes(&tr, t);
    memset(t->last, 0, sizeof t->last);
    /* The loop stops once the stream reaches the stored blocks' size: a
     * turn writes at most 23 bytes past p, the end 8 more. */
    const unsigned char *limit = out + stored_size;
    uint64_t acc = w.bits;
    unsigned cnt = w.n;
    unsigned char *p = w.p;
    size_t i = 0;
    /* d: value i's distance; dn, value i + 1's, found first so that two
     * matches go out in one flush, as in f64_exact. */
    unsigned d = repeat_of(in, 0, load_value(in, 0), t->last);
    /* The Adler-32 of the values sent, summed a block at a time behind the
     * coding, while they are still in the cache (a pass over the chunk at
     * the end read its 8 MB back from memory). */
    uint32_t adler = 1;
    size_t summed = 0;
    while (i < n && p < limit) {
        if (i - summed >= ADLER_BLOCK) {
            adler = libdeflate_adler32(adler, in + ELEM * summed, ELEM * (i - summed));
            summed = i;
        }
        unsigned dn = i + 1 < n ? repeat_of(in, i + 1, load_value(in, i + 1), t->last) : 0;
        if (!d) {
            w = (bit_writer){acc, cnt, p, w.end};
            put_value_bytes(&w, tab, in + ELEM * i);
            acc = w.bits, cnt = w.n, p = w.p;
            i++;
            d = dn;
            continue;
        }
        uint64_t c = t->code[d] & ((UINT64_C(1) << 56) - 1);
        unsigned len = (unsigned)(t->code[d] >> 56);
        if (dn && len + (unsigned)(t->code[dn] >> 56) <= 56) {
            c |= (t->code[dn] & ((UINT64_C(1) << 56) - 1)) << len;
            len += (unsigned)(t->code[dn] >> 56);
            i += 2;
            d = i < n ? repeat_of(in, i, load_value(in, i), t->last) : 0;
        } else {
            i++;
            d = dn;
        }
        p = put_held(&acc, &cnt, p, c, len);
    }
    w = (bit_writer){acc, cnt, p, w.end};
    bw_put(&w, tr.code[EOB], tr.lens[EOB]);
    bw_put(&w, 0, 7); /* the last byte's padding; any bits left are padding too */
    size_t size = (size_t)(w.p - out) + 4;
    if (i < n || size >= stored_size) return 0;
    put_adler_value(out + size - 4, libdeflate_adler32(adler, in + ELEM * summed, ELEM * (n - summed)));
    return size;
}

size_t io_f64_zlib_compress(struct libdeflate_compressor *lz, const void *in_, size_t n,
                            void *scratch, void *out_, size_t out_cap)
{
    const unsigned char *in = in_;
    unsigned char *out = out_;
    f64_tables *t = scratch;
    int lz_better = 0;
    size_t size = n > PREFIX_ELEMS ? f64_one_pass(in, n, t, out, out_cap, &lz_better) : 0;
    if (size) return size;
    if (lz && lz_better) return libdeflate_zlib_compress(lz, in, ELEM * n, out, out_cap);
    return f64_exact(lz, in, n, t, out, out_cap);
}
