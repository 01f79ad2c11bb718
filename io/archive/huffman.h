/*
 * huffman.h - a Huffman-only deflate encoder producing zlib streams (RFC 1950
 * around RFC 1951), for high-entropy bytes where LZ77 matching finds nothing
 * (the int8 IMP columns of an output): it spends its time on entropy coding
 * only, several times faster than libdeflate level 1 for a smaller result.
 * Any zlib decoder reads the streams, HDF5's deflate filter included. Not
 * public; used by h5chunk.c.
 */
#ifndef DATUM_IO_HUFFMAN_H
#define DATUM_IO_HUFFMAN_H

#include <stddef.h>

struct libdeflate_compressor;

/* The most bytes io_huffman_zlib_compress writes for n input bytes, whatever
 * they are (never more than libdeflate_zlib_compress_bound(NULL, n)). */
size_t io_huffman_zlib_bound(size_t n);

/* Compresses in[0..n) (n may be 0; in may then be NULL) into out[0..out_cap)
 * as one zlib stream: a dynamic-Huffman block of literals, or stored blocks
 * when those are smaller (tiny or incompressible input). When `lz` is not
 * NULL and one byte value fills most of the input (runs, which only LZ77
 * shrinks below 1 bit a byte), the stream is libdeflate_zlib_compress(lz, ...)
 * instead. Nothing is allocated and the caller keeps every buffer. Returns
 * the stream's size in bytes, or 0 if it does not fit in out_cap (out's
 * contents are then unspecified, but nothing is written past out_cap). */
size_t io_huffman_zlib_compress(struct libdeflate_compressor *lz, const void *in, size_t n,
                                void *out, size_t out_cap);

/* Compresses the n float64 values of in[0..8n) (n may be 0) into
 * out[0..out_cap) as one zlib stream for columns whose values mostly repeat
 * within the last 4096 (matchpoints: small integers and halves, the fractions
 * of a few field sizes): every value is a deflate match of its 8 bytes with
 * its last occurrence, or its 8 bytes as literals, in one dynamic-Huffman
 * block; stored blocks when smaller. No search beyond one table lookup a
 * value: several times faster than libdeflate level 1. Past 65536 values,
 * the codes are those of the first 65536 (one pass over the rest). When `lz`
 * is not NULL and more than half the values (of the first 65536) are sent
 * as bytes, the stream is libdeflate_zlib_compress(lz, ...) instead. scratch:
 * io_f64_zlib_scratch(n) bytes of the caller's, aligned for uint64_t.
 * Nothing is allocated. Returns the size or 0, as io_huffman_zlib_compress (for 8n
 * bytes: io_huffman_zlib_bound(8n) always suffices). */
size_t io_f64_zlib_scratch(size_t n);
size_t io_f64_zlib_compress(struct libdeflate_compressor *lz, const void *in, size_t n,
                            void *scratch, void *out, size_t out_cap);

#endif
