/*
 * datum_tarot.h - French tarot "Attaque-Défense" scoring (FFT, seed 004):
 * the reference note of an étui, match points (PM), percentages, regularity
 * bonuses, the starting bonus by national classification, and the totals
 * and rankings of a whole tournament.
 *
 * Conventions as in datum.h: DATUM_OK (0) on success, a negative DATUM_E_*
 * on error, a positive DATUM_W_* warning; kernels are pure (const inputs,
 * caller-owned outputs and workspace, no allocation, no I/O, no global
 * state) and safe to call concurrently; functions taking a datum_ctx record
 * their error in it. The mathematics is docs/methods.md §7.
 *
 * Scores are the attacker's (Sud's) score of the donne, an integer; the
 * defense's own score is its negation. Requires |score| < 2^20 and fewer
 * than 2^31 scores per étui, so that every sum stays exact in 64 bits.
 *
 * Rounding. "Rounded to 0.01" means: the exact decimal value (the reference
 * is the rational sum/count, the PM is the square root of an exact number of
 * hundredths) is rounded to the nearest hundredth, exact halves away from
 * zero, decided in integer arithmetic; the result is the double nearest to
 * that hundredth (so 62.22 prints as 62.22). A PM can never be an exact half
 * of a hundredth once the reference is rounded (sqrt(D/100) = (2k+1)/200
 * would need 400 D = (2k+1)^2, even = odd), so the half rule matters only for
 * the reference and the regularity bonus.
 */
#ifndef DATUM_TAROT_H
#define DATUM_TAROT_H

#include <stddef.h>
#include <stdint.h>

#include "datum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Codes: national classification and contract                              */

/* National classification (Classement National), in the seed's order. */
typedef enum {
    DATUM_TAROT_1N, DATUM_TAROT_1P, DATUM_TAROT_1C, DATUM_TAROT_1K, DATUM_TAROT_1T,
    DATUM_TAROT_2P, DATUM_TAROT_2C, DATUM_TAROT_2K, DATUM_TAROT_2T,
    DATUM_TAROT_3P, DATUM_TAROT_3C, DATUM_TAROT_3K, DATUM_TAROT_3T,
    DATUM_TAROT_4P, DATUM_TAROT_4C, DATUM_TAROT_4K, DATUM_TAROT_4T,
    DATUM_TAROT_NC,
    DATUM_TAROT_CLASS_COUNT
} datum_tarot_class;

/* Parses a classification code s[0..len) ("1N" .. "4T", "NC"; ASCII case is
 * ignored, nothing else is: no blanks). Returns the datum_tarot_class, or -1
 * for anything else. */
int datum_tarot_class_parse(const char *s, size_t len);
/* Canonical code of a class ("1C"), or "?" if cls is out of range. */
const char *datum_tarot_class_code(int cls);
/* The class's bonus index in PM (1N 0, 1P 0.5, 1C 1, 1K 2, ..., 4T 9,
 * NC 9), or NaN if cls is out of range. */
double datum_tarot_class_index(int cls);

/* Imposed contract of an étui. */
typedef enum {
    DATUM_TAROT_GARDE = 0,       /* "G" */
    DATUM_TAROT_GARDE_SANS = 1,  /* "GS": garde sans le chien */
    DATUM_TAROT_GARDE_CONTRE = 2 /* "GC": garde contre le chien */
} datum_tarot_contract;

/* Parses "G", "GS" or "GC" (ASCII case ignored). Returns the contract or -1. */
int datum_tarot_contract_parse(const char *s, size_t len);
/* Canonical code ("G", "GS", "GC"), or "?" if out of range. */
const char *datum_tarot_contract_code(int contract);

/* ------------------------------------------------------------------------ */
/* Starting bonus (§7)                                                      */

/* Starting bonus, in thousandths of a PM (exact), of a side made of the
 * players classes[0..n): the mean of their indices rounded to 0.01 (halves
 * up), times the coefficient etuis/10 + 2. An attacker is a side of one
 * (index * coefficient), a defense a side of three. The seed's examples:
 * 1C at 22 étuis -> 4200; 3T at 22 -> 29400; 1K, 1T, 2T at 26 -> 15318.
 * Returns DATUM_OK, or DATUM_E_ARG (n == 0, a class out of range, or etuis
 * outside 0..1000000); *milli is then 0. */
int datum_tarot_bonus_milli(const uint8_t *classes, size_t n, int32_t etuis, int64_t *milli);

/* ------------------------------------------------------------------------ */
/* Options                                                                  */

/* How the reference note of an étui is obtained from its scores. */
typedef enum {
    DATUM_TAROT_REF_MEAN = 0,     /* plain mean (ExtarQua's "note moyenne") */
    DATUM_TAROT_REF_MINORITY = 1, /* step 1 only: minority-sign scores dropped */
    DATUM_TAROT_REF_FFT = 2       /* steps 1 and 2: the FFT rule (default) */
} datum_tarot_reference;

typedef struct {
    datum_tarot_reference reference;
    /* 1: neither the reference nor the PM is rounded to 0.01 (the reference
     * stays the exact rational, the PM is the double square root). The
     * regularity bonus is always rounded to 0.01. */
    int exact;
    /* Étuis counted in the starting bonus coefficient: 0 = each side's own
     * number of results; > 0 = this number for every side (the tournament's
     * number of donnes). */
    int32_t bonus_etuis;
} datum_tarot_options;

#define DATUM_TAROT_OPTIONS_INIT {DATUM_TAROT_REF_FFT, 0, 0}

/* Checks the ranges of every member. Returns DATUM_OK or DATUM_E_ARG. */
int datum_tarot_options_check(const datum_tarot_options *opt);

/* ------------------------------------------------------------------------ */
/* One étui                                                                 */

/* What an étui is, over all its scores. */
typedef struct {
    double reference;    /* reference note (NaN for an étui without scores) */
    int32_t n_scores;
    int32_t n_positive;  /* "Notes positives": scores > 0 (attack won) */
    int32_t n_negative;  /* "Notes négatives": scores < 0 (attack fell) */
    int32_t n_minority;  /* minority-sign scores left out of the reference (step 1) */
    int32_t n_clipped;   /* largest majority-sign scores left out (step 2) */
} datum_tarot_etui;

/* What one score of an étui earns each side. The defense figures are the
 * attack's seen from the other side: pm_defense = -pm_attack (+0.0 for a
 * zero PM), pct_defense = 100 - pct_attack (computed as its own exact
 * fraction, so that both are correctly rounded). */
typedef struct {
    double diff;        /* score - reference */
    double pm_attack;   /* sign(diff) * sqrt(|diff|), rounded to 0.01 */
    double pct_attack;  /* % of the other scores beaten, equal ones counting half */
    double reg_attack;  /* regularity bonus: pct/50 if pct >= 50, else 0; to 0.01 */
    double pm_defense;
    double pct_defense;
    double reg_defense;
} datum_tarot_line;

/* Scores one étui of n attackers' scores (§7). work: n int32 of caller
 * scratch (the scores are copied and sorted there; scores is not modified).
 * Writes *etui and lines[0..n), lines[i] for scores[i]. An étui of one score
 * gives that score 0 PM and 50% (regularity 1) on both sides.
 * Returns DATUM_OK; DATUM_W_EMPTY when n == 0 (reference NaN, counts 0);
 * DATUM_E_ARG if opt is invalid, n >= 2^31 or a score has |score| >= 2^20
 * (outputs are then unspecified). */
int datum_tarot_score_etui(const datum_tarot_options *opt, const int32_t *scores, size_t n,
                           int32_t *work, datum_tarot_etui *etui, datum_tarot_line *lines);

/* ------------------------------------------------------------------------ */
/* A whole tournament (one séance)                                          */

/* The results of one tournament as plain arrays. Results are grouped by
 * étui: étui e owns results offset[e] .. offset[e+1]-1 (offset[0] == 0,
 * non-decreasing); within an étui the order is free (the seed's "position").
 * Sides are numbered from 0: the caller maps its identifiers to indices. */
typedef struct {
    size_t n_etuis;
    const uint64_t *offset;    /* n_etuis + 1 */
    const int32_t *score;      /* per result: the attacker's score */
    const int32_t *attacker;   /* per result: 0 .. n_attackers-1 */
    const int32_t *defense;    /* per result: 0 .. n_defenses-1 */
    size_t n_attackers, n_defenses;
    const uint8_t *attacker_class; /* per attacker: a datum_tarot_class */
    const uint8_t *defense_class;  /* per defense: 3 classes, defense d at 3d .. 3d+2 */
    /* Net penalties per side in PM: a penalty is positive, a compensation
     * negative (sum the rows of penalties.csv per side). NULL: none. */
    const double *attacker_penalty;
    const double *defense_penalty;
} datum_tarot_tournament;

/* A side's totals and rank (formats.md "tarot rankings"). */
typedef struct {
    int32_t etuis;      /* results the side played */
    double pm;          /* sum of its PM (of the rounded values) */
    double regularity;  /* sum of its regularity bonuses */
    double bonus;       /* starting bonus */
    double penalties;   /* net penalties as given (penalty > 0) */
    double total;       /* pm + regularity + bonus - penalties */
    int32_t rank;       /* 1 = best, tied totals share the better rank (1, 2, 2, 4);
                           0 = not ranked (a side without any result) */
} datum_tarot_standing;

/* Scores a tournament: every étui (etuis[n_etuis]), every result
 * (lines[n_results], n_results = offset[n_etuis], aligned with the input),
 * and the Attack and Defense standings (attack[n_attackers],
 * defense[n_defenses]), ranked separately. Any output pointer but attack
 * and defense may be NULL when the caller does not want it.
 *
 * Totals are exact where the numbers allow: with rounding on (the default),
 * PM and regularity are summed in integer hundredths, the bonus in
 * thousandths and each penalty is taken to the nearest 0.001 PM, so that
 * equal totals compare equal; with opt->exact the sums are in double, in
 * result order. Deterministic; serial (a tournament is small), O(R log R).
 * A side without results gets zeros, its penalty, its total = -penalty and
 * rank 0 (it takes no part in the ranking).
 *
 * Returns DATUM_OK; DATUM_E_ARG for invalid options; DATUM_E_INPUT (the
 * message names the étui, result or side) for decreasing offsets, a side
 * index out of range, a side playing an étui twice, a class out of range, a
 * score out of range or a penalty that is NaN or beyond +-1e9 PM; DATUM_E_NOMEM. Errors
 * are recorded in ctx; outputs are then unspecified. */
int datum_tarot_score_tournament(datum_ctx *ctx, const datum_tarot_options *opt,
                                 const datum_tarot_tournament *t, datum_tarot_etui *etuis,
                                 datum_tarot_line *lines, datum_tarot_standing *attack,
                                 datum_tarot_standing *defense);

/* Ranks n totals, best (largest) first: rank[i] = 1 + the number of
 * totals strictly greater than total[i] (ties share the better rank).
 * Entries with include[i] == 0 (include may be NULL: all) get rank 0 and do
 * not count. work: n int32 of caller scratch. Totals must not be NaN. */
void datum_tarot_rank(const double *total, const uint8_t *include, size_t n, int32_t *work,
                      int32_t *rank);

#ifdef __cplusplus
}
#endif
#endif /* DATUM_TAROT_H */
