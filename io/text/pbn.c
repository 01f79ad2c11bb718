/*
 * pbn.c - PBN 2.1 score tables into an archive (`datum import --format pbn`).
 *
 * A file is read whole, converted from ISO-8859-1 when it is not UTF-8, and
 * parsed game by game: tags ([Name "value"]), comments (% and ; lines,
 * {...} blocks) and the data lines of the [ScoreTable] section. At the end
 * of a game (an empty line, or the end of the file) its table rows become
 * result rows (a game without a table but with [Contract], [Declarer],
 * [Result] and the players, as PbnTools writes one per table, one row); the rows of a file are a row source (io_pbn_open) that archive/import.c
 * sorts, checks and writes them as for the CSV import. The figures the
 * scoring program published in the table (IMP_NS, MP_NS, Percentage_NS and
 * their EW twins) go with the rows; a sit-out row (a pair facing "-", no
 * result) is skipped and counted. Each row carries its game's [Deal] as a
 * key (deal_key), which tells the sections that played the same deal
 * (/fields/deal_set).
 */
#include "io_common.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Rows of one file                                                         */

/* What the scoring program published for a row (NaN: nothing). */
typedef struct {
    double ns, ew;  /* the points: IMPs or matchpoints */
    uint8_t method; /* datum_published_method of ns and ew; NONE when both are NaN */
    double ns_percent, ew_percent;
} pbn_published;

typedef struct {
    char *event, *section, *ns_pair, *ew_pair; /* owned */
    char *deal; /* owned: the deal's key (deal_key), NULL when not known */
    int32_t date, board, table, ns_score;
    uint8_t adjusted;
    uint64_t line;
    pbn_published published;
} pbn_row;

typedef struct {
    datum_ctx *ctx;
    const char *path;
    datum_pbn_options *po;
    char *text; /* the file, lines NUL-terminated in place */
    size_t len;
    pbn_row *rows;
    size_t n_rows, rows_cap, next;
    int has_adjusted, has_published, has_published_percent;
    uint64_t n_sitouts; /* sit-out rows skipped */
    char *deal;    /* owned: the key of the game being read, given to its rows */
    int has_deals; /* a row has a deal */
} pbn_file;

#define MAX_COLUMNS 64

/* One game: the tags that matter and its [ScoreTable] lines. */
typedef struct {
    char *event, *section, *date, *board, *vulnerable, *deal; /* point into text */
    char *north, *east, *south, *west, *contract, *declarer, *result, *score, *scoring;
    uint64_t contract_line, date_line;
    char *header;        /* the ScoreTable tag value, or NULL */
    uint64_t header_line;
    char **lines;        /* ScoreTable data lines */
    uint64_t *line_no;
    size_t n_lines, cap_lines, cap_no;
    uint64_t first_line; /* line of the game's first tag */
} pbn_game;

static int pbn_fail(const pbn_file *f, uint64_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int pbn_fail(const pbn_file *f, uint64_t line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return datum_ctx_fail(f->ctx, DATUM_E_INPUT, "%s:%llu: %s", f->path, (unsigned long long)line,
                          msg);
}

/* A suspect score: a warning through the context, or with --strict an
 * error. */
static int pbn_warn(pbn_file *f, uint64_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int pbn_warn(pbn_file *f, uint64_t line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (f->po->strict) return pbn_fail(f, line, "%s", msg);
    datum_ctx_warn(f->ctx, "%s:%llu: %s", f->path, (unsigned long long)line, msg);
    return DATUM_OK;
}

static void rows_free(pbn_file *f)
{
    for (size_t i = 0; i < f->n_rows; i++) {
        datum_free(f->rows[i].event);
        datum_free(f->rows[i].section);
        datum_free(f->rows[i].ns_pair);
        datum_free(f->rows[i].ew_pair);
        datum_free(f->rows[i].deal);
    }
    datum_free(f->rows);
    f->rows = NULL;
    f->n_rows = f->rows_cap = 0;
}

/* ------------------------------------------------------------------------ */
/* Reading the file                                                         */

/* Reads path whole into f->text; converts ISO-8859-1 to UTF-8 when the
 * bytes are not valid UTF-8 (PBN's default character set is ISO-8859-1). */
static int load(pbn_file *f)
{
    FILE *fp = fopen(f->path, "rb");
    if (!fp) return io_fail_errno(f->ctx, DATUM_E_IO, errno, "%s: cannot open", f->path);
    size_t cap = 1 << 16, len = 0;
    char *buf = datum_calloc(f->ctx, cap, 1);
    int rc = buf ? DATUM_OK : DATUM_E_NOMEM;
    while (rc == DATUM_OK) {
        if (len + 1 >= cap) rc = datum_reserve(f->ctx, &buf, &cap, len + 4096, 1);
        if (rc != DATUM_OK) break;
        size_t got = fread(buf + len, 1, cap - len - 1, fp);
        len += got;
        if (got == 0) {
            if (ferror(fp)) rc = io_fail_errno(f->ctx, DATUM_E_IO, errno, "%s: read", f->path);
            break;
        }
    }
    fclose(fp);
    if (rc != DATUM_OK) {
        datum_free(buf);
        return rc;
    }
    if (memchr(buf, '\0', len)) {
        datum_free(buf);
        return datum_ctx_fail(f->ctx, DATUM_E_INPUT, "%s: not a PBN file (NUL byte)", f->path);
    }
    if (!io_utf8_valid(buf, len)) {
        size_t high = 0;
        for (size_t i = 0; i < len; i++) high += (unsigned char)buf[i] >= 0x80;
        char *u = datum_calloc(f->ctx, len + high + 1, 1);
        if (!u) {
            datum_free(buf);
            return DATUM_E_NOMEM;
        }
        size_t k = 0;
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)buf[i];
            if (c < 0x80) u[k++] = (char)c;
            else u[k++] = (char)(0xC0 | (c >> 6)), u[k++] = (char)(0x80 | (c & 0x3F));
        }
        datum_free(buf);
        buf = u;
        len = k;
    }
    buf[len] = '\0';
    f->text = buf;
    f->len = len;
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Cells                                                                    */

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Splits s in place into whitespace-separated cells ("..." one cell, quotes
 * removed). Returns the number of cells, or -1 for an unterminated quote. */
static int split_cells(char *s, char **cell, int max)
{
    int n = 0;
    while (*s) {
        while (is_blank(*s)) s++;
        if (!*s) break;
        if (n == max) return max + 1;
        if (*s == '"') {
            char *end = strchr(s + 1, '"');
            if (!end) return -1;
            cell[n++] = s + 1;
            *end = '\0';
            s = end + 1;
            if (*s && !is_blank(*s)) return -1;
        } else {
            cell[n++] = s;
            while (*s && !is_blank(*s)) s++;
            if (*s) *s++ = '\0';
        }
    }
    return n;
}

/* Case-insensitive equality. */
static int same(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y) return 0;
    }
    return *a == *b;
}

static int is_unknown(const char *cell) { return strcmp(cell, "-") == 0 || strcmp(cell, "?") == 0; }

/* 1 if s is a decimal integer (datum_parse_int) in lo..hi, into *out. */
static int parse_int(const char *s, int32_t lo, int32_t hi, int32_t *out)
{
    int64_t v;
    if (datum_parse_int(s, strlen(s), lo, hi, &v) != DATUM_PARSE_OK) return 0;
    *out = (int32_t)v;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* A game's score table into rows                                           */

enum { C_NS, C_EW, C_TABLE, C_SECTION, C_CONTRACT, C_DECLARER, C_RESULT, C_SCORE_NS, C_SCORE_EW,
       C_IMP_NS, C_IMP_EW, C_MP_NS, C_MP_EW, C_PERCENT_NS, C_PERCENT_EW, N_KNOWN };
static const char *const kColumns[N_KNOWN] = {
    "PairId_NS", "PairId_EW", "Table",  "Section", "Contract", "Declarer",      "Result",
    "Score_NS",  "Score_EW",  "IMP_NS", "IMP_EW",  "MP_NS",    "MP_EW",         "Percentage_NS",
    "Percentage_EW"};

static const char *vul_name(int v)
{
    static const char *const names[4] = {"None", "NS", "EW", "All"};
    return names[v & 3];
}

/* "EVENT/SECTION/ID" (or "EVENT/ID" without a section): pair numbers are
 * unique per event and section. */
static char *pair_name(pbn_file *f, const char *event, const char *section, const char *id)
{
    size_t n = strlen(event) + strlen(section) + strlen(id) + 3;
    char *s = datum_calloc(f->ctx, n, 1);
    if (!s) return NULL;
    if (*section) snprintf(s, n, "%s/%s/%s", event, section, id);
    else snprintf(s, n, "%s/%s", event, id);
    return s;
}

/* The [Date] of game g: "YYYY.MM.DD" (or with '-'; one- or two-digit month
 * and day), optionally followed by a blank and a time; a date with a '?'
 * (PBN's unknown part, "2012.??.??") is day 0. Anything else, or a day not
 * in the calendar (2012.02.31), is an error at the tag's line. */
static int game_date(pbn_file *f, const pbn_game *g, int32_t *date)
{
    *date = 0;
    if (!g->date) return DATUM_OK;
    size_t len = strcspn(g->date, " ");
    if (memchr(g->date, '?', len)) return DATUM_OK;
    if (datum_parse_date(g->date, len, "Y.M.D", date) != DATUM_PARSE_OK &&
        datum_parse_date(g->date, len, "Y-M-D", date) != DATUM_PARSE_OK)
        return pbn_fail(f, g->date_line, "[Date \"%.40s\"] is not a date (YYYY.MM.DD)", g->date);
    return DATUM_OK;
}

/* The board number, date and vulnerability of game g (line: for messages). */
static int game_board(pbn_file *f, const pbn_game *g, uint64_t line, int32_t *board,
                      int32_t *date, int *vul)
{
    if (!g->board || !parse_int(g->board, 1, INT32_MAX, board))
        return pbn_fail(f, line, "a result in a game without a valid [Board] tag");
    int rc = game_date(f, g, date);
    if (rc != DATUM_OK) return rc;
    const char *v = g->vulnerable;
    if (!v || strcmp(v, "?") == 0 || !*v) *vul = datum_board_vulnerability(*board);
    else if (same(v, "None") || same(v, "Love") || strcmp(v, "-") == 0) *vul = 0;
    else if (same(v, "NS")) *vul = 1;
    else if (same(v, "EW")) *vul = 2;
    else if (same(v, "All") || same(v, "Both")) *vul = 3;
    else return pbn_fail(f, line, "[Vulnerable \"%.40s\"]: not None, NS, EW or All", v);
    return DATUM_OK;
}

/* The NS score of a result: given (score_ns, else the negated score_ew) or
 * computed from contract cs, declarer ds and result rs; NULL for an absent
 * column. An adjusted token in cs or a score gives *adjusted and score 0. A
 * given score is checked against the vulnerability and the contract. */
static int row_score(pbn_file *f, uint64_t line, int32_t board, int vul, const char *score_ns,
                     const char *score_ew, const char *cs, const char *ds, const char *rs,
                     uint8_t *adjusted, int32_t *out)
{
    const char *adj_cells[3] = {cs, score_ns, score_ew};
    *adjusted = 0;
    *out = 0;
    for (int k = 0; k < 3; k++)
        if (adj_cells[k]) {
            int a = datum_adjusted_parse(adj_cells[k], strlen(adj_cells[k]));
            if (a > 0) {
                *adjusted = (uint8_t)a; /* as written (NS/EW) */
                return DATUM_OK;
            }
        }
    int32_t score = 0;
    int given = 0;
    if (score_ns && !is_unknown(score_ns)) {
        if (!parse_int(score_ns, -IO_MAX_SCORE, IO_MAX_SCORE, &score))
            return pbn_fail(f, line, "Score_NS: \"%.40s\" is not a score", score_ns);
        given = 1;
    } else if (score_ew && !is_unknown(score_ew)) {
        if (!parse_int(score_ew, -IO_MAX_SCORE, IO_MAX_SCORE, &score))
            return pbn_fail(f, line, "Score_EW: \"%.40s\" is not a score", score_ew);
        score = -score;
        given = 1;
    }
    int computed = 0, known = 0;
    char played[64] = "";
    if (cs && ds && rs && !is_unknown(cs)) {
        datum_contract c;
        if (datum_contract_parse(cs, strlen(cs), &c) != DATUM_OK)
            return pbn_fail(f, line, "Contract: \"%.40s\" is not a contract", cs);
        if (c.level > 0 && given && (is_unknown(ds) || is_unknown(rs))) {
            /* a given score with an unknown declarer or result: nothing to compare */
        } else if (c.level == 0) {
            known = 1;
            snprintf(played, sizeof played, "passed out");
        } else {
            int d = datum_declarer_parse(ds, strlen(ds)), tricks;
            if (d < 0) return pbn_fail(f, line, "Declarer: \"%.40s\" is not N, E, S or W", ds);
            if (datum_result_parse(rs, strlen(rs), c.level, &tricks) != DATUM_OK)
                return pbn_fail(f, line, "Result: \"%.40s\" is not a result of %s", rs, cs);
            computed = datum_bridge_ns_score(&c, d, vul, tricks);
            known = 1;
            snprintf(played, sizeof played, "%.8s by %.2s taking %d tricks", cs, ds, tricks);
        }
    }
    if (!given && !known)
        return pbn_fail(f, line, "no score: neither a score nor a contract with its result");
    int rc = DATUM_OK;
    if (!given) {
        score = computed;
        f->po->n_computed++;
    } else if (!datum_bridge_score_legal(score, vul)) {
        rc = pbn_warn(f, line, "board %d: NS score %d is impossible (vulnerable: %s)", (int)board,
                      (int)score, vul_name(vul));
    } else if (known && computed != score) {
        rc = pbn_warn(f, line, "board %d: NS score %d, but %s scores %d (vulnerable: %s)",
                      (int)board, (int)score, played, computed, vul_name(vul));
    }
    *out = score;
    return rc;
}

static int add_row(pbn_file *f, const char *event, const char *section, const char *ns,
                   const char *ew, int32_t date, int32_t board, int32_t table, int32_t score,
                   uint8_t adjusted, const pbn_published *published, uint64_t line)
{
    if (!*event) event = "PBN";
    int rc = datum_reserve(f->ctx, &f->rows, &f->rows_cap, f->n_rows + 1, sizeof *f->rows);
    if (rc != DATUM_OK) return rc;
    pbn_row *r = &f->rows[f->n_rows];
    memset(r, 0, sizeof *r);
    f->n_rows++; /* freed by rows_free even if incomplete */
    r->event = datum_strdup(f->ctx, event);
    r->section = datum_strdup(f->ctx, section);
    r->ns_pair = pair_name(f, event, section, ns);
    r->ew_pair = pair_name(f, event, section, ew);
    if (!r->event || !r->section || !r->ns_pair || !r->ew_pair) return DATUM_E_NOMEM;
    if (f->deal && !(r->deal = datum_strdup(f->ctx, f->deal))) return DATUM_E_NOMEM;
    if (f->deal) f->has_deals = 1;
    r->date = date;
    r->board = board;
    r->table = table;
    r->ns_score = score;
    r->adjusted = adjusted;
    r->line = line;
    r->published = *published;
    if (adjusted) f->has_adjusted = 1;
    if (published->method != DATUM_PUBLISHED_NONE) f->has_published = 1;
    if (!isnan(published->ns_percent) || !isnan(published->ew_percent))
        f->has_published_percent = 1;
    return DATUM_OK;
}

/* "N" when both seats of a side name the same pair (JFR's "Para-1"), else
 * "N & S" in *buf. */
static const char *side_name(const char *a, const char *b, char *buf, size_t size)
{
    if (strcmp(a, b) == 0) return a;
    snprintf(buf, size, "%s & %s", a, b);
    return buf;
}

/* A game without a [ScoreTable] but with [Contract], [Declarer], [Result]
 * and the four players (one game per table result, as PbnTools writes):
 * one row, table = the game's rank among the file's games of that board. */
static int flush_single(pbn_file *f, pbn_game *g)
{
    if (!g->contract || !*g->contract || strcmp(g->contract, "?") == 0) return DATUM_OK;
    uint64_t line = g->contract_line;
    int32_t board = 0, date = 0, score = 0;
    int vul = 0; /* set by game_board on success */
    uint8_t adjusted;
    int rc = game_board(f, g, line, &board, &date, &vul);
    if (rc != DATUM_OK) return rc;
    const char *seat[4] = {g->north, g->east, g->south, g->west};
    for (int k = 0; k < 4; k++)
        if (!seat[k] || !*seat[k] || is_unknown(seat[k]))
            return pbn_fail(f, line, "a result in a game without the four players' tags");
    /* [Score "NS 420"] / "EW -100": a given score, checked. */
    const char *score_ns = NULL, *score_ew = NULL;
    if (g->score && strncmp(g->score, "NS ", 3) == 0) score_ns = g->score + 3;
    if (g->score && strncmp(g->score, "EW ", 3) == 0) score_ew = g->score + 3;
    rc = row_score(f, line, board, vul, score_ns, score_ew, g->contract,
                   g->declarer ? g->declarer : "?", g->result ? g->result : "?", &adjusted,
                   &score);
    if (rc != DATUM_OK) return rc;
    const char *event = g->event ? g->event : "", *section = g->section ? g->section : "";
    int32_t table = 1;
    for (size_t i = 0; i < f->n_rows; i++)
        if (f->rows[i].board == board && strcmp(f->rows[i].event, *event ? event : "PBN") == 0 &&
            strcmp(f->rows[i].section, section) == 0)
            table++;
    char ns[256], ew[256];
    const pbn_published none = {NAN, NAN, DATUM_PUBLISHED_NONE, NAN, NAN};
    return add_row(f, event, section, side_name(g->north, g->south, ns, sizeof ns),
                   side_name(g->east, g->west, ew, sizeof ew), date, board, table, score,
                   adjusted, &none, line);
}

/* 1 if needle occurs in s, ignoring case. */
static int contains(const char *s, const char *needle)
{
    size_t n = strlen(needle);
    for (; *s; s++) {
        size_t k = 0;
        while (k < n && s[k] && (s[k] | 32) == (needle[k] | 32)) k++;
        if (k == n) return 1;
    }
    return 0;
}

/* Which published columns of a table hold its points (*ns, *ew: C_IMP_NS
 * and C_IMP_EW, or C_MP_NS and C_MP_EW) and what they are: IMP_NS/IMP_EW,
 * what the game's [Scoring] calls them (Butler, cross-IMPs, else IMPs), or
 * MP_NS/MP_EW, matchpoints. A table with both takes the kind [Scoring] names
 * (MP, MatchPoints), else the IMPs. *method: NONE without either. */
static void points_columns(const int *at, const char *scoring, int *ns, int *ew, uint8_t *method)
{
    const char *sc = scoring ? scoring : "";
    int has_imp = at[C_IMP_NS] >= 0 || at[C_IMP_EW] >= 0;
    int has_mp = at[C_MP_NS] >= 0 || at[C_MP_EW] >= 0;
    int says_mp = contains(sc, "matchpoint") || (contains(sc, "mp") && !contains(sc, "imp"));
    *ns = C_IMP_NS, *ew = C_IMP_EW;
    *method = DATUM_PUBLISHED_NONE;
    if (has_mp && (!has_imp || says_mp)) {
        *ns = C_MP_NS, *ew = C_MP_EW;
        *method = DATUM_PUBLISHED_MATCHPOINTS;
    } else if (has_imp) {
        *method = contains(sc, "butler")  ? DATUM_PUBLISHED_BUTLER
                  : contains(sc, "cross") ? DATUM_PUBLISHED_CROSS_IMPS
                                          : DATUM_PUBLISHED_IMPS;
    }
}

/* The published figure in known column k of a row: NaN for an absent
 * column, "-", "?" or an empty cell, else a decimal number (an error naming
 * the column). */
static int figure(pbn_file *f, uint64_t line, char *const *cell, const int *at, int k,
                  double *out)
{
    const char *s = at[k] >= 0 ? cell[at[k]] : "";
    *out = NAN;
    if (is_unknown(s) || !*s) return DATUM_OK;
    if (datum_parse_real(s, strlen(s), -DBL_MAX, DBL_MAX, out) != DATUM_PARSE_OK)
        return pbn_fail(f, line, "column %s: \"%.40s\" is not a number", kColumns[k], s);
    return DATUM_OK;
}

/* The published figures of a row (points, *method when present). */
static int row_published(pbn_file *f, uint64_t line, char *const *cell, const int *at,
                         const char *scoring, pbn_published *p)
{
    int ns, ew, rc;
    points_columns(at, scoring, &ns, &ew, &p->method);
    if ((rc = figure(f, line, cell, at, ns, &p->ns)) != DATUM_OK ||
        (rc = figure(f, line, cell, at, ew, &p->ew)) != DATUM_OK ||
        (rc = figure(f, line, cell, at, C_PERCENT_NS, &p->ns_percent)) != DATUM_OK ||
        (rc = figure(f, line, cell, at, C_PERCENT_EW, &p->ew_percent)) != DATUM_OK)
        return rc;
    if (isnan(p->ns) && isnan(p->ew)) p->method = DATUM_PUBLISHED_NONE;
    return DATUM_OK;
}

/* 1 if a cell holds no result: absent, "-", "?", empty, or an adjusted
 * token (an award). */
static int no_result(const char *cell)
{
    return !cell || is_unknown(cell) || !*cell || datum_adjusted_parse(cell, strlen(cell)) > 0;
}

/* A sit-out row (a bye, a pair facing a phantom): a pair against "-", and
 * no result in the score and contract cells (NULL: no such column). */
static int is_sitout(const char *ns, const char *ew, const char *score_ns, const char *score_ew,
                     const char *contract)
{
    const char *pair = strcmp(ns, "-") == 0 ? ew : strcmp(ew, "-") == 0 ? ns : "-";
    return !is_unknown(pair) && no_result(score_ns) && no_result(score_ew) && no_result(contract);
}

/* The key of a [Deal] tag "F:H1 H2 H3 H4" (first seat F, hands clockwise,
 * each S.H.D.C): "N:" and the hands from North's, in capitals, so that the
 * same deal written from another first seat gives the same key. NULL for an
 * absent or unknown deal ("", "?", four "-"); a value not of this form is
 * its own key (capitals). *key is malloc'd; DATUM_E_NOMEM on failure. */
static int deal_key(pbn_file *f, const char *tag, char **key)
{
    static const char seats[] = "NESW";
    char text[256], cells[256], out[256], *hand[5];
    *key = NULL;
    if (!tag) return DATUM_OK;
    size_t n = 0;
    for (; *tag && n + 1 < sizeof text; tag++)
        text[n++] = *tag >= 'a' && *tag <= 'z' ? (char)(*tag - 32) : *tag;
    text[n] = '\0';
    memcpy(cells, text, n + 1);
    const char *first = text[0] && text[1] == ':' ? strchr(seats, text[0]) : NULL;
    int n_hands = first && !strchr(text, '"') ? split_cells(cells + 2, hand, 4) : -1, unknown = 0;
    for (int k = 0; k < n_hands; k++) unknown += strcmp(hand[k], "-") == 0;
    if (n_hands == 4 && unknown == 4) return DATUM_OK;
    if (n_hands == 4) { /* hand[k] is seat (first + k) mod 4 */
        int north = (4 - (int)(first - seats)) % 4, len = snprintf(out, sizeof out, "N:");
        for (int k = 0; k < 4; k++)
            len += snprintf(out + len, sizeof out - (size_t)len, k ? " %s" : "%s",
                            hand[(north + k) % 4]);
    } else {
        snprintf(out, sizeof out, "%s", text + strspn(text, " \t"));
        if (!out[0] || strcmp(out, "?") == 0) return DATUM_OK;
    }
    return (*key = datum_strdup(f->ctx, out)) ? DATUM_OK : DATUM_E_NOMEM;
}

static int flush_game(pbn_file *f, pbn_game *g)
{
    datum_free(f->deal);
    int rc = deal_key(f, g->deal, &f->deal);
    if (rc != DATUM_OK) return rc;
    if (!g->header) return flush_single(f, g);
    uint64_t hl = g->header_line;
    int32_t board = 0, date = 0;
    int vul = 0; /* set by game_board on success */
    rc = game_board(f, g, hl, &board, &date, &vul);
    if (rc != DATUM_OK) return rc;

    /* Columns: "Name\WIDTH" with an alignment letter; the suffix is dropped. */
    int n_col = 0, at[N_KNOWN];
    for (int k = 0; k < N_KNOWN; k++) at[k] = -1;
    for (char *s = g->header; s;) {
        char *semi = strchr(s, ';');
        if (semi) *semi = '\0';
        char *slash = strchr(s, '\\');
        if (slash) *slash = '\0';
        while (is_blank(*s)) s++;
        if (n_col == MAX_COLUMNS) return pbn_fail(f, hl, "[ScoreTable]: more than 64 columns");
        for (int k = 0; k < N_KNOWN; k++)
            if (same(s, kColumns[k])) {
                if (at[k] >= 0) return pbn_fail(f, hl, "[ScoreTable]: column %s twice", kColumns[k]);
                at[k] = n_col;
            }
        n_col++;
        s = semi ? semi + 1 : NULL;
    }
    if (at[C_NS] < 0 || at[C_EW] < 0)
        return pbn_fail(f, hl, "[ScoreTable]: columns PairId_NS and PairId_EW are required");
    int has_score = at[C_SCORE_NS] >= 0 || at[C_SCORE_EW] >= 0;
    int has_play = at[C_CONTRACT] >= 0 && at[C_DECLARER] >= 0 && at[C_RESULT] >= 0;
    if (!has_score && !has_play)
        return pbn_fail(f, hl,
                        "[ScoreTable]: neither Score_NS/Score_EW nor Contract, Declarer and "
                        "Result columns");

    const char *event = g->event ? g->event : "", *section_tag = g->section ? g->section : "";
    for (size_t i = 0; i < g->n_lines; i++) {
        uint64_t line = g->line_no[i];
        char *cell[MAX_COLUMNS + 1];
        int n = split_cells(g->lines[i], cell, MAX_COLUMNS);
        if (n < 0) return pbn_fail(f, line, "unterminated quoted cell");
        if (n != n_col)
            return pbn_fail(f, line, "%d cells in a row of the %d-column [ScoreTable]", n, n_col);
#define CELL(k) (at[k] >= 0 ? cell[at[k]] : NULL)
        const char *ns = cell[at[C_NS]], *ew = cell[at[C_EW]];
        int32_t table = (int32_t)(i + 1), score;
        int sitout = is_sitout(ns, ew, CELL(C_SCORE_NS), CELL(C_SCORE_EW), CELL(C_CONTRACT));
        const char *tc = CELL(C_TABLE); /* a pair sitting out may be at no table */
        if (tc && !(sitout && is_unknown(tc)) && !parse_int(tc, 0, INT32_MAX, &table))
            return pbn_fail(f, line, "column Table: \"%.40s\" is not a table number", tc);
        if (sitout) {
            f->n_sitouts++;
            continue;
        }
        if (is_unknown(ns) || is_unknown(ew))
            return pbn_fail(f, line, "pair number missing (\"-\" or \"?\")");
        if (strcmp(ns, ew) == 0) return pbn_fail(f, line, "pair %.40s plays both NS and EW", ns);
        const char *section = section_tag;
        if (at[C_SECTION] >= 0 && !is_unknown(cell[at[C_SECTION]])) section = cell[at[C_SECTION]];
        uint8_t adjusted;
        pbn_published published;
        rc = row_score(f, line, board, vul, CELL(C_SCORE_NS), CELL(C_SCORE_EW),
                       has_play ? CELL(C_CONTRACT) : NULL, CELL(C_DECLARER), CELL(C_RESULT),
                       &adjusted, &score);
#undef CELL
        if (rc == DATUM_OK) rc = row_published(f, line, cell, at, g->scoring, &published);
        if (rc == DATUM_OK)
            rc = add_row(f, event, section, ns, ew, date, board, table, score, adjusted,
                         &published, line);
        if (rc != DATUM_OK) return rc;
    }
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Tags and sections                                                        */

static int add_table_line(pbn_file *f, pbn_game *g, char *s, uint64_t line)
{
    int rc = datum_reserve(f->ctx, &g->lines, &g->cap_lines, g->n_lines + 1, sizeof *g->lines);
    if (rc == DATUM_OK)
        rc = datum_reserve(f->ctx, &g->line_no, &g->cap_no, g->n_lines + 1, sizeof *g->line_no);
    if (rc != DATUM_OK) return rc;
    g->lines[g->n_lines] = s;
    g->line_no[g->n_lines++] = line;
    return DATUM_OK;
}

/* Where game g keeps the value of tag `name`, NULL for a tag not used. */
static char **game_tag(pbn_game *g, const char *name)
{
    static const struct {
        const char *name;
        size_t offset;
    } tags[] = {
        {"Event", offsetof(pbn_game, event)},       {"Section", offsetof(pbn_game, section)},
        {"Date", offsetof(pbn_game, date)},         {"Board", offsetof(pbn_game, board)},
        {"Vulnerable", offsetof(pbn_game, vulnerable)}, {"North", offsetof(pbn_game, north)},
        {"East", offsetof(pbn_game, east)},         {"South", offsetof(pbn_game, south)},
        {"West", offsetof(pbn_game, west)},         {"Contract", offsetof(pbn_game, contract)},
        {"Declarer", offsetof(pbn_game, declarer)}, {"Result", offsetof(pbn_game, result)},
        {"Score", offsetof(pbn_game, score)},       {"Scoring", offsetof(pbn_game, scoring)},
        {"Deal", offsetof(pbn_game, deal)},
    };
    for (size_t k = 0; k < sizeof tags / sizeof *tags; k++)
        if (same(name, tags[k].name)) return (char **)(void *)((char *)g + tags[k].offset);
    return NULL;
}

/* Parses the tags of a line starting with '['. Each tag's name and value are
 * NUL-terminated in place; the value's escapes (\" and \\) are resolved.
 * *section becomes the last tag's name (its data lines follow). */
static int parse_tags(pbn_file *f, uint64_t line, char *s, pbn_game *g, const char **section,
                      int *in_score_table)
{
    while (*s == '[') {
        char *name = ++s;
        while (*s && !is_blank(*s) && *s != '"' && *s != ']') s++;
        if (s == name) return pbn_fail(f, line, "malformed tag: no name after '['");
        char *name_end = s;
        while (is_blank(*s)) s++;
        if (*s != '"') return pbn_fail(f, line, "malformed tag [%.*s: no quoted value",
                                       (int)(name_end - name > 40 ? 40 : name_end - name), name);
        char *value = ++s, *w = value;
        while (*s && *s != '"') {
            if (*s == '\\' && (s[1] == '"' || s[1] == '\\')) s++;
            *w++ = *s++;
        }
        if (*s != '"') return pbn_fail(f, line, "malformed tag: unterminated value");
        s++;
        while (is_blank(*s)) s++;
        if (*s != ']') return pbn_fail(f, line, "malformed tag: no ']' after the value");
        s++;
        *name_end = '\0';
        *w = '\0';
        while (is_blank(*s)) s++;

        /* "#": the value of the previous game (kept: tags persist). */
        int copy = strcmp(value, "#") == 0;
        *section = name;
        *in_score_table = 0;
        char **slot = game_tag(g, name);
        if (slot && !copy) *slot = value;
        if (same(name, "Contract")) g->contract_line = line;
        if (same(name, "Date") && !copy) g->date_line = line;
        if (same(name, "ScoreTable")) {
            if (g->header) return pbn_fail(f, line, "a second [ScoreTable] in one game");
            g->header = value;
            g->header_line = line;
            *in_score_table = 1;
        }
        if (*s == ';') return DATUM_OK; /* a comment to the end of the line */
        if (*s && *s != '[') return pbn_fail(f, line, "unexpected text after a tag");
    }
    return DATUM_OK;
}

static int parse_file(pbn_file *f)
{
    pbn_game g = {0};
    const char *section = NULL; /* the last tag, whose data lines follow */
    int in_score_table = 0, in_game = 0, in_comment = 0, rc = DATUM_OK;
    uint64_t line = 0;
    char *s = f->text;
    while (rc == DATUM_OK && s && *s) {
        char *eol = strchr(s, '\n'), *next = eol ? eol + 1 : NULL;
        if (eol) *eol = '\0';
        line++;
        size_t n = strlen(s);
        while (n && is_blank(s[n - 1])) s[--n] = '\0';
        char *p = s;
        while (is_blank(*p)) p++;
        if (line == 1 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
            (unsigned char)p[2] == 0xBF)
            p += 3; /* byte order mark */
        if (in_comment) {
            char *close = strchr(p, '}');
            if (close) in_comment = 0, p = close + 1;
            while (is_blank(*p)) p++;
            if (!*p) { s = next; continue; }
        }
        if (*p == '%' || *p == ';') {
            /* escape or comment line */
        } else if (*p == '{') {
            char *close = strchr(p, '}');
            if (!close) in_comment = 1;
        } else if (!*p) {
            /* an empty line ends the game */
            if (in_game) rc = flush_game(f, &g);
            g.header = NULL;
            g.n_lines = 0;
            g.board = g.vulnerable = g.contract = g.declarer = g.result = g.score = g.deal = NULL;
            section = NULL;
            in_score_table = in_game = 0;
        } else if (*p == '[') {
            if (!in_game) g.first_line = line;
            in_game = 1;
            rc = parse_tags(f, line, p, &g, &section, &in_score_table);
        } else if (in_score_table) {
            rc = add_table_line(f, &g, p, line);
        } else if (!section) {
            rc = pbn_fail(f, line, "text outside any tag or section: \"%.40s\"", p);
        } /* else: data of another section (Auction, Play, OptimumResultTable...) */
        s = next;
    }
    if (rc == DATUM_OK && in_comment) rc = pbn_fail(f, line, "unterminated { comment");
    if (rc == DATUM_OK && in_game) rc = flush_game(f, &g);
    datum_free(g.lines);
    datum_free(g.line_no);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The row source                                                           */

static void pbn_close(void *self)
{
    pbn_file *f = self;
    if (!f) return;
    rows_free(f);
    datum_free(f->text);
    datum_free(f->deal);
    datum_free(f);
}

static int pbn_next(void *self, io_result_row *out)
{
    pbn_file *f = self;
    if (f->next == f->n_rows) return 0;
    const pbn_row *r = &f->rows[f->next++];
    memset(out, 0, sizeof *out);
    out->line = r->line;
    out->event = r->event;
    out->section = r->section;
    out->ns_pair = r->ns_pair;
    out->ew_pair = r->ew_pair;
    out->date = r->date;
    out->board = r->board;
    out->table = r->table;
    out->ns_score = r->ns_score;
    out->adjusted = r->adjusted;
    out->published_ns = r->published.ns;
    out->published_ew = r->published.ew;
    out->published_method = r->published.method;
    out->published_ns_percent = r->published.ns_percent;
    out->published_ew_percent = r->published.ew_percent;
    out->deal = r->deal;
    return 1;
}

int io_pbn_open(datum_ctx *ctx, const char *path, void *arg, io_row_source *src)
{
    pbn_file *f = datum_calloc(ctx, 1, sizeof *f);
    if (!f) return DATUM_E_NOMEM;
    f->ctx = ctx;
    f->path = path;
    f->po = arg;
    int rc = load(f);
    if (rc == DATUM_OK) rc = parse_file(f);
    if (rc == DATUM_OK && f->n_rows == 0)
        rc = datum_ctx_fail(ctx, DATUM_E_INPUT, "%s: no results ([ScoreTable] rows or games "
                                                "with a [Contract])%s", path,
                            f->n_sitouts ? " but sit-outs" : "");
    if (rc != DATUM_OK) {
        pbn_close(f);
        return rc;
    }
    *src = (io_row_source){.self = f, .next = pbn_next, .close = pbn_close,
                           .has_adjusted = f->has_adjusted, .has_published = f->has_published,
                           .n_sitouts = &f->n_sitouts,
                           .has_published_percent = f->has_published_percent,
                           .has_deals = f->has_deals};
    return DATUM_OK;
}
