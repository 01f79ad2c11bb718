/*
 * datum_tarot_io.h - the files of a tarot Attaque-Défense tournament (seed
 * 004): the import of its CSV files into a tarot archive and the reading of
 * that archive; the printable roadmap sheets ("feuilles de route"), one HTML
 * page per attacker and per defense, in French, ready to print on A4, with
 * an index page and a directory of them written as a whole; and the French
 * number format they use.
 *
 * Conventions as in datum_io.h: 0 ok, negative DATUM_E_* error recorded in
 * the context. The writers only format what they are given (the numbers
 * come from datum_tarot_score_tournament, the names from the caller); they
 * do no scoring. Thread-safe on distinct outputs. This header does not
 * depend on HDF5 (the archive is io/'s business).
 */
#ifndef DATUM_TAROT_IO_H
#define DATUM_TAROT_IO_H

#include <stdio.h>

#include "datum_io.h"
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

/* ------------------------------------------------------------------------ */
/* The tarot archive (docs/archive-format.md, "The tarot archive")          */

#define DATUM_TAROT_ARCHIVE_FORMAT_VERSION 1

/* The input files of one import (formats.md "In: tarot Attaque-Défense"). */
typedef struct {
    const char *results;   /* event,date,etui,contract,position,attacker,defense,score */
    const char *players;   /* player,classement */
    const char *defenses;  /* defense,player1,player2,player3 */
    const char *penalties; /* event,side,id,pm; NULL: none */
} datum_tarot_inputs;

/* Imports a tournament's CSV files into a new tarot archive at out_path.
 * Every row is validated; the first fault aborts the import with
 * DATUM_E_INPUT and "FILE:LINE: column NAME: ..." (docs/cli.md lists them:
 * an unknown classification, contract, player, defense, event or side; a
 * defense without three distinct players; a score of zero; a repeated
 * (event, étui, position), attacker or defense in one étui, player or
 * defense; an étui given two contracts; a bad date or number). Written to a
 * temporary file renamed over out_path only on success (nothing is left
 * behind on failure). opt: NULL for the defaults. */
int datum_tarot_import_csv(datum_ctx *ctx, const datum_tarot_inputs *in, const char *out_path,
                           const datum_write_options *opt);

/* A whole tarot archive in memory (a tournament is small). Everything is
 * owned by the structure and read-only for the caller; indices are 0-based.
 * Results are sorted by (event, étui number, position); étuis by (event,
 * number). Every index and code was checked when the archive was read. */
typedef struct {
    uint32_t n_events, n_players, n_defenses;
    uint64_t n_etuis, n_results, n_penalties;
    char **event;             /* [n_events] names, sorted by their bytes */
    uint64_t *event_etuis;    /* [n_events + 1] event e owns étuis event_etuis[e] .. [e+1]-1 */
    int32_t *event_first_date, *event_last_date; /* [n_events] days since 1970-01-01 */
    char **player;            /* [n_players] identifiers, sorted */
    uint8_t *player_class;    /* [n_players] datum_tarot_class */
    char **defense;           /* [n_defenses] identifiers, sorted */
    int32_t *defense_player;  /* [3 n_defenses] defense d's players at 3d .. 3d+2 */
    int32_t *etui_event;      /* [n_etuis] index into event */
    int32_t *etui_number;     /* [n_etuis] the étui's number, >= 1 */
    uint8_t *etui_contract;   /* [n_etuis] datum_tarot_contract */
    uint64_t *etui_offset;    /* [n_etuis + 1] étui e owns results etui_offset[e] .. [e+1]-1 */
    int32_t *result_position; /* [n_results] >= 1 */
    int32_t *result_attacker; /* [n_results] index into player */
    int32_t *result_defense;  /* [n_results] index into defense */
    int32_t *result_score;    /* [n_results] the attacker's score, never 0 */
    int32_t *result_date;     /* [n_results] days since 1970-01-01 */
    int32_t *penalty_event;   /* [n_penalties] index into event */
    uint8_t *penalty_side;    /* [n_penalties] datum_tarot_side */
    int32_t *penalty_id;      /* [n_penalties] index into player (attack) or defense */
    double *penalty_pm;       /* [n_penalties] > 0 a penalty, < 0 a compensation */
} datum_tarot_data;

/* Reads a whole tarot archive. A missing file is DATUM_E_IO; a file that is
 * not HDF5, not a tarot archive ("FILE: not a tarot archive"), of another
 * format version or damaged (a dataset missing or out of range) is
 * DATUM_E_FORMAT. *out is NULL on failure. */
int datum_tarot_archive_read(datum_ctx *ctx, const char *path, datum_tarot_data **out);
/* Frees the data; accepts NULL and *d == NULL; sets *d to NULL. */
void datum_tarot_data_free(datum_tarot_data **d);

/* ------------------------------------------------------------------------ */
/* The index page and the directory of sheets                               */

/* One side in the index. */
typedef struct {
    const char *href;     /* link to its sheet, relative to the index */
    const char *id;
    const char *name;     /* may be NULL */
    int32_t etuis;
    double total;
    int32_t rank;         /* 0: "non classé" */
} datum_tarot_index_entry;

/* One event (séance) in the index: its two rankings, in the order given. */
typedef struct {
    const char *event, *date;
    const datum_tarot_index_entry *attack, *defense;
    size_t n_attack, n_defense;
} datum_tarot_index_event;

/* Writes the index page (HTML5, French) listing every sheet by event and
 * ranking. Returns DATUM_OK, DATUM_E_ARG (entries NULL with a count > 0) or
 * DATUM_E_IO. */
int datum_tarot_index_write(datum_ctx *ctx, const datum_tarot_index_event *events,
                            size_t n_events, FILE *out);

/* Writes into buf[0..size) a file name made of prefix, id encoded so that
 * any identifier gives a distinct, portable (ASCII, URL-safe) name, and
 * suffix. In the id, ASCII letters, digits and '-' are kept, a blank becomes
 * '_' and every other byte ~XX in upper-case hex: ("attaque-", "7", ".html")
 * -> "attaque-7.html"; "MARTIN Léa" -> "MARTIN_L~C3~A9a"; "a_b/c" ->
 * "a~5Fb~2Fc". Returns DATUM_OK, or DATUM_E_ARG when the name would be
 * longer than 200 bytes or not fit buf (buf then holds ""). */
int datum_tarot_file_name(const char *prefix, const char *id, const char *suffix, char *buf,
                          size_t size);

/* A directory of sheets written as a whole: files are written into a
 * staging directory beside it (DIR.tmp-XXXXXX) and moved into DIR, created
 * if missing, only by the commit; an abort (or a failure before the commit)
 * leaves nothing behind and DIR untouched. Files of DIR that the set does
 * not write are left alone. */
typedef struct datum_tarot_sheet_dir datum_tarot_sheet_dir;

/* Starts a set for dir (DIR's parent must exist; DIR, if it exists, must be
 * a directory). DATUM_E_IO if the staging directory cannot be made. */
int datum_tarot_sheet_dir_create(datum_ctx *ctx, const char *dir, datum_tarot_sheet_dir **out);
/* Writes a sheet, or the index page, as `name` inside the set: a file name
 * or SUBDIR/NAME (one level, from datum_tarot_file_name), created as
 * needed. Returns DATUM_OK, DATUM_E_ARG (a bad name or sheet), DATUM_E_IO
 * or DATUM_E_NOMEM. */
int datum_tarot_sheet_dir_add(datum_tarot_sheet_dir *d, const char *name,
                              const datum_tarot_sheet *sheet);
int datum_tarot_sheet_dir_add_index(datum_tarot_sheet_dir *d, const char *name,
                                    const datum_tarot_index_event *events, size_t n_events);
/* Reserves `name` in the set (as datum_tarot_sheet_dir_add names it) for a
 * file that another writer makes, such as a CSV writer: *path receives
 * where to write it, inside the staging directory (owned by the set, valid
 * until the commit or the abort), and the commit moves it into DIR with the
 * others. The folder of `datum compare --report` is such a set too
 * (jobs/compare_report.c). Returns DATUM_OK, DATUM_E_ARG (a bad name, a name
 * given twice), DATUM_E_IO or DATUM_E_NOMEM. */
int datum_tarot_sheet_dir_reserve(datum_tarot_sheet_dir *d, const char *name, const char **path);
/* Moves every file into place (replacing files of the same name) and
 * removes the staging directory. Frees the set and sets *d to NULL. */
int datum_tarot_sheet_dir_commit(datum_tarot_sheet_dir **d);
/* Removes the staging directory and all it holds. Accepts NULL. */
void datum_tarot_sheet_dir_abort(datum_tarot_sheet_dir **d);

#ifdef __cplusplus
}
#endif
#endif /* DATUM_TAROT_IO_H */
