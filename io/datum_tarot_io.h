/*
 * datum_tarot_io.h - the printable roadmap sheets ("feuilles de route") of a
 * tarot Attaque-Défense tournament (seed 004): one HTML page per attacker
 * and per defense, in French, ready to print on A4; and the French number
 * format they use.
 *
 * Conventions as in datum_io.h: 0 ok, negative DATUM_E_* error recorded in
 * the context. The writer only formats what it is given (the numbers come
 * from datum_tarot_score_tournament, the names from the caller); it does no
 * scoring. Thread-safe on distinct outputs. Does not depend on HDF5.
 */
#ifndef DATUM_TAROT_IO_H
#define DATUM_TAROT_IO_H

#include <stdio.h>

#include "datum_tarot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A buffer of this many bytes holds any number datum_format_fr writes. */
#define DATUM_FR_NUMBER_SIZE 336

/* Writes v the French way into buf[0..size): a decimal comma, '-' for a
 * negative, no digit grouping ("62,22", "-12,66", "1250,00"). v is rounded
 * to max_decimals (the nearest decimal to the double, as printf does; the
 * engine's rounded values are exact there), then trailing zeros beyond
 * min_decimals are dropped (min 2, max 3: 4.2 -> "4,20", 15.318 -> "15,318").
 * A value that rounds to zero never shows a minus sign. NaN and infinities
 * give "". Returns DATUM_OK, or DATUM_E_ARG (decimals outside
 * 0 <= min <= max <= 9, or buf too small; buf then holds "" if size > 0). */
int datum_format_fr(double v, int min_decimals, int max_decimals, char *buf, size_t size);

/* Which ranking a sheet belongs to. */
typedef enum {
    DATUM_TAROT_ATTACK = 0, /* an attacker's sheet: the opponents are defenses */
    DATUM_TAROT_DEFENSE = 1 /* a defense's sheet: the opponents are attackers */
} datum_tarot_side;

/* One étui of a sheet, with the seed's columns. */
typedef struct {
    int32_t etui;           /* "Etui": the étui's number as printed */
    const char *contract;   /* "Contrat": "G", "GS" or "GC" */
    const char *opponent;   /* "Attaquant adverse" / "Défense adverse": a name */
    int32_t score;          /* "Votre score": the score as recorded, i.e. the
                               attacker's, on both sides' sheets (as the seed's
                               defense sheet shows +62) */
    int32_t n_positive;     /* "Notes positives" (datum_tarot_etui.n_positive) */
    int32_t n_negative;     /* "Notes négatives" */
    double reference;       /* "Note de référence" */
    double pm;              /* "PM obtenus": this side's (pm_attack or pm_defense) */
    double pct;             /* "Pourcentage sur l'étui": this side's */
    double regularity;      /* "Régularité en PM": this side's */
} datum_tarot_sheet_line;

/* One sheet. Strings are UTF-8 and may be NULL (printed empty); every one is
 * HTML-escaped. */
typedef struct {
    datum_tarot_side side;
    const char *event;      /* tournament name */
    const char *date;       /* as it should be printed, e.g. "2024-05-12" */
    const char *id;         /* the side's identifier ("n° de départ") */
    const char *name;       /* the attacker, or the defense's three players */
    const char *classement; /* e.g. "1C", or "1K, 1T, 2T" for a defense */
    const datum_tarot_sheet_line *lines;
    size_t n_lines;
    /* The footer: total des PM, primes de régularité, bonus de départ,
     * pénalités (shown as their effect on the total: a penalty of 2 as
     * -2,00), total général, rang théorique (rank 0: "non classé"). */
    datum_tarot_standing standing;
    int32_t n_ranked;       /* sides in this ranking, for "3 sur 24" (0: omitted) */
} datum_tarot_sheet;

/* Writes the sheet as a complete HTML5 document (A4 print stylesheet, one
 * page) to out, which stays open. Returns DATUM_OK, DATUM_E_ARG (side out
 * of range, lines NULL with n_lines > 0) or DATUM_E_IO (a write failed). */
int datum_tarot_sheet_write(datum_ctx *ctx, const datum_tarot_sheet *sheet, FILE *out);

/* Writes the sheet to path atomically: a temporary file in the same
 * directory, renamed over path only once complete (nothing is left behind
 * on failure). Returns DATUM_OK, DATUM_E_ARG, DATUM_E_IO or DATUM_E_NOMEM. */
int datum_tarot_sheet_save(datum_ctx *ctx, const datum_tarot_sheet *sheet, const char *path);

#ifdef __cplusplus
}
#endif
#endif /* DATUM_TAROT_IO_H */
