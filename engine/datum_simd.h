/*
 * datum_simd.h - a function compiled twice, for AVX2 and for any x86-64,
 * the processor choosing at load time (GCC's target_clones), where the
 * compiler can do it; elsewhere the one build. Not part of the public API:
 * the libraries share it.
 *
 * Only for loops whose two builds give the same bits: each sum keeps its
 * order, and no multiply-add is fused (the libraries are ISO C, which
 * contracts none: with GNU extensions or -ffp-contract=fast the results
 * would depend on the processor).
 */
#ifndef DATUM_SIMD_H
#define DATUM_SIMD_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define DATUM_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define DATUM_AVX2_CLONES
#endif

#endif
