/*
 * usebio.c - USEBIO 1.2 XML results (the EBU/ABF interchange format) into an
 * archive, through the row checks and ordering of import.c. Each file is
 * parsed whole with libxml2 (no network, no DTD, no entity expansion), its
 * TRAVELLER_LINEs turned into rows: a row source (io_usebio_open) that
 * archive/import.c turns into an archive.
 *
 * Names (docs/cli.md "USEBIO"): event = "DESCRIPTION YYYY-MM-DD"; section =
 * "SESSION_ID/SECTION_ID" ("1" and "-" when absent); pair = "EVENT/SECTION_ID/
 * NUMBER" (an individual: "EVENT/SECTION_ID/N<n>+S<s>"); table = the line's
 * rank among the lines of its board in that session and section (USEBIO has
 * no table numbers). Teams (MATCH): team "EVENT/T<n>", match
 * "EVENT/SESSION/R<round>/<team>v<opponent>". The points the scoring
 * program published per line (NS/EW_*_POINTS) go with the row into the
 * archive's published columns. A sit-out line (one side without a pair, no
 * score) is skipped and counted. The sections of a SESSION share a deal of
 * each board (/fields/deal_set), unless it holds several HANDSETs.
 */
#include "io_common.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TEXT_MAX = 256, MAX_BOARD = 100000 };

/* One traveller line, as it will be handed to import.c. */
typedef struct {
    uint64_t line;
    char *event, *section, *ns_pair, *ew_pair, *ns_team, *ew_team, *match; /* match: NULL */
    char *deal; /* the key of its board's deal (see add_line): its session, or its section */
    int32_t date, board, table, ns_score;
    uint8_t adjusted;
    double published_ns, published_ew; /* NaN: none */
    uint8_t published_method;          /* datum_published_method */
} urow;

/* The walk's position: what the enclosing elements said. */
typedef struct {
    char event[2 * TEXT_MAX + 16], event_type[TEXT_MAX], session[TEXT_MAX], section[TEXT_MAX];
    int32_t date;
    int in_match;
    char team[TEXT_MAX], opponent[TEXT_MAX], round[TEXT_MAX];
    int32_t board;
    int handsets; /* HANDSETs of the innermost SESSION, EVENT or USEBIO that has some */
} place;

typedef struct {
    datum_ctx *ctx;
    const char *path;
    urow *rows;
    size_t n_rows, rows_cap, next;
    int has_adjusted, has_teams, has_published;
    int32_t *tables; /* lines seen so far per board of the current session and section */
    size_t tables_cap;
    uint64_t n_sitouts; /* sit-out lines skipped */
} usebio_file;

static long line_of(const xmlNode *n) { return n ? xmlGetLineNo(n) : 0; }

/* "FILE:LINE: ELEMENT: ab" */
static int fail_at(const usebio_file *f, const xmlNode *n, const char *a, const char *b)
{
    return datum_ctx_fail(f->ctx, DATUM_E_INPUT, "%s:%ld: %s: %s%s", f->path, line_of(n),
                          n ? (const char *)n->name : "?", a, b ? b : "");
}

/* The first child element of n named name, or NULL. */
static const xmlNode *child(const xmlNode *n, const char *name)
{
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0) return c;
    return NULL;
}

/* The trimmed text of the element e (or of its attribute attr when attr is
 * not NULL) into buf: 1 if present and not empty, 0 if absent or empty, or an
 * error if longer than TEXT_MAX-1 bytes. */
static int text_of(const usebio_file *f, const xmlNode *e, const char *attr, char *buf)
{
    buf[0] = '\0';
    if (!e) return 0;
    xmlChar *t = attr ? xmlGetProp(e, (const xmlChar *)attr) : xmlNodeGetContent(e);
    if (!t) return 0;
    const char *s = (const char *)t;
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
    int rc = n > 0;
    if (n >= TEXT_MAX)
        rc = fail_at(f, e, "text longer than 255 bytes", NULL);
    else
        memcpy(buf, s, n), buf[n] = '\0';
    xmlFree(t);
    return rc;
}

/* Text of the child element name of n (see text_of). */
static int child_text(const usebio_file *f, const xmlNode *n, const char *name, char *buf)
{
    return text_of(f, child(n, name), NULL, buf);
}

/* A required child: its text, or "FILE:LINE: PARENT: missing element NAME". */
static int need_text(const usebio_file *f, const xmlNode *n, const char *name, char *buf)
{
    int rc = child_text(f, n, name, buf);
    if (rc == 0) return fail_at(f, n, "missing or empty element ", name);
    return rc < 0 ? rc : DATUM_OK;
}

/* A decimal integer (datum_parse_int) in lo..hi, whole text: 0, or -1. */
static int parse_int(const char *s, int32_t lo, int32_t hi, int32_t *out)
{
    int64_t v;
    if (datum_parse_int(s, strlen(s), lo, hi, &v) != DATUM_PARSE_OK) return -1;
    *out = (int32_t)v;
    return 0;
}

/* USEBIO dates are DD/MM/YYYY (one-digit day and month too); YYYY-MM-DD is
 * accepted too. The date into *days and, ISO-spelled, into iso: 0, or -1. */
static int parse_usebio_date(const char *s, int32_t *days, char iso[DATUM_DATE_SIZE])
{
    size_t len = strlen(s);
    if (datum_parse_date(s, len, "D/M/YYYY", days) != DATUM_PARSE_OK &&
        datum_parse_date(s, len, DATUM_DATE_ISO, days) != DATUM_PARSE_OK)
        return -1;
    datum_format_date(*days, iso);
    return 0;
}

/* One side's award in an "ANNEE" score: 60 (+), 50 (=), 40 (-); else -1. */
static int award(const char *two)
{
    if (two[0] == '6' && two[1] == '0') return 0;
    if (two[0] == '5' && two[1] == '0') return 1;
    if (two[0] == '4' && two[1] == '0') return 2;
    return -1;
}

/* The adjusted code of an adjusted SCORE, or -1. Recognised: "A6040" style
 * (NS then EW percentage, each 60, 50 or 40), "A60/40", and datum's own
 * tokens (A+, A, A-, A+/A-, ...). */
static int parse_adjusted(const char *s)
{
    /* [NS award][EW award], + = - */
    static const int code[3][3] = {{DATUM_ADJ_AP_AP, DATUM_ADJ_AP_A, DATUM_ADJ_AP_AM},
                                   {DATUM_ADJ_A_AP, DATUM_ADJ_A_A, DATUM_ADJ_A_AM},
                                   {DATUM_ADJ_AM_AP, DATUM_ADJ_AM_A, DATUM_ADJ_AM_AM}};
    char digits[5];
    size_t n = 0;
    if (s[0] != 'A' && s[0] != 'a') return -1;
    for (const char *p = s + 1; *p && n < 5; p++)
        if (isdigit((unsigned char)*p))
            digits[n++] = *p;
        else if (*p != '/' && *p != ' ')
            n = 5; /* not the numeric form */
    if (n == 4) {
        int ns = award(digits), ew = award(digits + 2);
        if (ns < 0 || ew < 0) return -1;
        return code[ns][ew];
    }
    int c = datum_adjusted_parse(s, strlen(s));
    return c > 0 ? c : -1;
}

/* "NS_BUTLER_POINTS" -> "BUTLER": the published points of a line. */
static int points_kind(const char *name, const char *side, char *kind)
{
    size_t n = strlen(name), s = strlen(side);
    if (n <= s + 7 || strncmp(name, side, s) != 0 || strcmp(name + n - 7, "_POINTS") != 0) return 0;
    snprintf(kind, TEXT_MAX, "%.*s", (int)(n - s - 7), name + s);
    return 1;
}

static char *joined(datum_ctx *ctx, const char *a, const char *sep, const char *b)
{
    size_t na = strlen(a), ns = strlen(sep), nb = strlen(b);
    char *s = datum_calloc(ctx, na + ns + nb + 1, 1);
    if (s) memcpy(s, a, na), memcpy(s + na, sep, ns), memcpy(s + na + ns, b, nb + 1);
    return s;
}

static void urow_free(urow *r)
{
    datum_free(r->event), datum_free(r->section), datum_free(r->ns_pair), datum_free(r->ew_pair);
    datum_free(r->ns_team), datum_free(r->ew_team), datum_free(r->match), datum_free(r->deal);
}

/* The pair names of a line: NS/EW_PAIR_NUMBER, or for an individual the
 * partnership of N/S_PLAYER_NUMBER and E/W_PLAYER_NUMBER. */
static int line_pairs(const usebio_file *f, const xmlNode *n, char *ns, char *ew)
{
    int rc = child_text(f, n, "NS_PAIR_NUMBER", ns);
    if (rc < 0) return rc;
    if (rc == 0 && child(n, "N_PLAYER_NUMBER")) {
        char a[TEXT_MAX], b[TEXT_MAX];
        if ((rc = need_text(f, n, "N_PLAYER_NUMBER", a)) != DATUM_OK ||
            (rc = need_text(f, n, "S_PLAYER_NUMBER", b)) != DATUM_OK)
            return rc;
        snprintf(ns, TEXT_MAX, "N%.100s+S%.100s", a, b);
        if ((rc = need_text(f, n, "E_PLAYER_NUMBER", a)) != DATUM_OK ||
            (rc = need_text(f, n, "W_PLAYER_NUMBER", b)) != DATUM_OK)
            return rc;
        snprintf(ew, TEXT_MAX, "E%.100s+W%.100s", a, b);
        return DATUM_OK;
    }
    if ((rc = need_text(f, n, "NS_PAIR_NUMBER", ns)) != DATUM_OK) return rc;
    return need_text(f, n, "EW_PAIR_NUMBER", ew);
}

/* NS's score of a line: SCORE (NS signed, or an adjusted "A6040"), else
 * NS_SCORE / EW_SCORE (the per-side points). */
static int line_score(usebio_file *f, const xmlNode *n, urow *r)
{
    char s[TEXT_MAX];
    int rc = child_text(f, n, "SCORE", s), ns = 1;
    if (rc == 0 && (rc = child_text(f, n, "NS_SCORE", s)) == 0) {
        rc = child_text(f, n, "EW_SCORE", s);
        ns = 0;
    }
    if (rc < 0) return rc;
    if (rc == 0) return fail_at(f, n, "missing element SCORE (or NS_SCORE, EW_SCORE)", NULL);
    if (parse_int(s, -IO_MAX_SCORE, IO_MAX_SCORE, &r->ns_score) == 0) {
        if (!ns) r->ns_score = -r->ns_score;
        return DATUM_OK;
    }
    int c = parse_adjusted(s);
    if (c < 0)
        return fail_at(f, child(n, "SCORE") ? child(n, "SCORE") : n,
                       "not a score (an integer up to 1000000, or an adjusted A6040, A5050, ...): ",
                       s);
    r->adjusted = (uint8_t)c;
    r->ns_score = 0;
    f->has_adjusted = 1;
    return DATUM_OK;
}

/* The scoring method of published points, from their element name's kind
 * (BUTLER of NS_BUTLER_POINTS), else the EVENT_TYPE; writers spell these
 * many ways. IMP is tried before MP, which it contains. */
static uint8_t method_of(const char *kind, const char *event_type)
{
    const char *s[2] = {kind, event_type};
    for (int k = 0; k < 2; k++) {
        if (strstr(s[k], "BUTLER")) return DATUM_PUBLISHED_BUTLER;
        if (strstr(s[k], "CROSS") || strstr(s[k], "XIMP")) return DATUM_PUBLISHED_CROSS_IMPS;
        if (strstr(s[k], "IMP")) return DATUM_PUBLISHED_IMPS;
        if (strstr(s[k], "MATCH") || strstr(s[k], "MP")) return DATUM_PUBLISHED_MATCHPOINTS;
    }
    return DATUM_PUBLISHED_OTHER;
}

/* The published per-line points: NS_xxx_POINTS / EW_xxx_POINTS, a decimal
 * number each (empty: none), and what they are. */
static int line_points(usebio_file *f, const xmlNode *n, const char *event_type, urow *r)
{
    char kind[TEXT_MAX], s[TEXT_MAX];
    r->published_ns = r->published_ew = NAN;
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        int is_ns = points_kind((const char *)c->name, "NS_", kind);
        if (!is_ns && !points_kind((const char *)c->name, "EW_", kind)) continue;
        int rc = text_of(f, c, NULL, s);
        if (rc < 0) return rc;
        if (rc == 0) continue;
        double *v = is_ns ? &r->published_ns : &r->published_ew;
        if (datum_parse_real(s, strlen(s), -DBL_MAX, DBL_MAX, v) != DATUM_PARSE_OK)
            return fail_at(f, c, "not a number: ", s);
        r->published_method = method_of(kind, event_type);
        f->has_published = 1;
    }
    return DATUM_OK;
}

/* 1 if one of the n child elements names of line n has text, 0 if none
 * has, or an error. */
static int any_text(const usebio_file *f, const xmlNode *n, const char *const *names, int count)
{
    char buf[TEXT_MAX];
    int found = 0;
    for (int k = 0; k < count; k++) {
        int rc = child_text(f, n, names[k], buf);
        if (rc < 0) return rc;
        found |= rc;
    }
    return found;
}

/* A sit-out line (docs/cli.md): one side names neither a pair nor players,
 * the other does, and the line has no score of any kind. 1 if so, 0 if not,
 * or an error. */
static int is_sitout(const usebio_file *f, const xmlNode *n)
{
    static const char *const ns[] = {"NS_PAIR_NUMBER", "N_PLAYER_NUMBER", "S_PLAYER_NUMBER"};
    static const char *const ew[] = {"EW_PAIR_NUMBER", "E_PLAYER_NUMBER", "W_PLAYER_NUMBER"};
    static const char *const score[] = {"SCORE", "NS_SCORE", "EW_SCORE"};
    int has_ns, has_ew, scored;
    if ((has_ns = any_text(f, n, ns, 3)) < 0) return has_ns;
    if ((has_ew = any_text(f, n, ew, 3)) < 0) return has_ew;
    if ((scored = any_text(f, n, score, 3)) < 0) return scored;
    return has_ns != has_ew && !scored;
}

static int add_line(usebio_file *f, const xmlNode *n, const place *at)
{
    char ns[TEXT_MAX], ew[TEXT_MAX], section_id[sizeof at->event + TEXT_MAX + 2];
    int rc = datum_reserve(f->ctx, &f->rows, &f->rows_cap, f->n_rows + 1, sizeof *f->rows);
    if (rc != DATUM_OK) return rc;
    if (at->board == 0) return fail_at(f, n, "outside a BOARD with a BOARD_NUMBER", NULL);
    if (!at->event[0]) return fail_at(f, n, "outside an EVENT", NULL);
    if ((rc = is_sitout(f, n)) != 0) { /* skipped: no row, no table number */
        if (rc > 0) f->n_sitouts++;
        return rc < 0 ? rc : DATUM_OK;
    }
    urow *r = &f->rows[f->n_rows];
    memset(r, 0, sizeof *r);
    r->line = (uint64_t)line_of(n);
    r->date = at->date;
    r->board = at->board;
    if ((rc = line_pairs(f, n, ns, ew)) != DATUM_OK) return rc;
    if (strcmp(ns, ew) == 0) return fail_at(f, n, "the NS and EW pairs are the same: ", ns);
    if ((rc = line_score(f, n, r)) != DATUM_OK) return rc;
    if ((rc = line_points(f, n, at->event_type, r)) != DATUM_OK) return rc;
    /* The table: the line's rank on its board. */
    size_t old_cap = f->tables_cap;
    rc = datum_reserve(f->ctx, &f->tables, &f->tables_cap, (size_t)at->board + 1, sizeof *f->tables);
    if (rc != DATUM_OK) return rc;
    if (f->tables_cap > old_cap) /* datum_reserve leaves the new room uninitialised */
        memset(f->tables + old_cap, 0, (f->tables_cap - old_cap) * sizeof *f->tables);
    r->table = ++f->tables[at->board];
    snprintf(section_id, sizeof section_id, "%s/%s", at->event, at->section[0] ? at->section : "-");
    char sec[2 * TEXT_MAX];
    snprintf(sec, sizeof sec, "%s/%s", at->session[0] ? at->session : "1",
             at->section[0] ? at->section : "-");
    f->n_rows++; /* owned from here: freed with the file even if incomplete */
    /* The sections of a session play its hand set: they share the deal of
     * each board, unless the file gives the session several hand sets
     * without saying which section played which (then each its own). */
    const char *deal = at->handsets > 1 ? sec : at->session[0] ? at->session : "1";
    if (!(r->deal = datum_strdup(f->ctx, deal))) return DATUM_E_NOMEM;
    if (!(r->event = datum_strdup(f->ctx, at->event)) || !(r->section = datum_strdup(f->ctx, sec)) ||
        !(r->ns_pair = joined(f->ctx, section_id, "/", ns)) ||
        !(r->ew_pair = joined(f->ctx, section_id, "/", ew)))
        return DATUM_E_NOMEM;
    if (at->in_match) {
        char dir[TEXT_MAX], t[TEXT_MAX + 4], o[TEXT_MAX + 4], m[5 * TEXT_MAX];
        if ((rc = child_text(f, n, "DIRECTION", dir)) < 0) return rc;
        int swap = strcmp(dir, "EW") == 0;
        snprintf(t, sizeof t, "T%s", swap ? at->opponent : at->team);
        snprintf(o, sizeof o, "T%s", swap ? at->team : at->opponent);
        snprintf(m, sizeof m, "%s/R%s/%sv%s", at->session[0] ? at->session : "1", at->round,
                 at->team, at->opponent);
        if (!(r->ns_team = joined(f->ctx, at->event, "/", t)) ||
            !(r->ew_team = joined(f->ctx, at->event, "/", o)) ||
            !(r->match = joined(f->ctx, at->event, "/", m)))
            return DATUM_E_NOMEM;
        f->has_teams = 1;
    }
    return DATUM_OK;
}

/* An EVENT's name, type and date into at. */
static int enter_event(usebio_file *f, const xmlNode *n, place *at)
{
    char name[TEXT_MAX], date[TEXT_MAX], iso[DATUM_DATE_SIZE];
    int rc = child_text(f, n, "EVENT_DESCRIPTION", name);
    if (rc == 0) rc = child_text(f, n, "TITLE", name);
    if (rc == 0) rc = child_text(f, n, "EVENT_IDENTIFIER", name);
    if (rc < 0) return rc;
    if (rc == 0) {
        const char *base = strrchr(f->path, '/');
        snprintf(name, sizeof name, "%.200s", base ? base + 1 : f->path);
    }
    if ((rc = need_text(f, n, "DATE", date)) != DATUM_OK) return rc;
    if (parse_usebio_date(date, &at->date, iso) != 0)
        return fail_at(f, child(n, "DATE"), "not a date (DD/MM/YYYY): ", date);
    snprintf(at->event, sizeof at->event, "%s %s", name, iso);
    if ((rc = text_of(f, n, "EVENT_TYPE", at->event_type)) == 0)
        rc = child_text(f, n, "EVENT_TYPE", at->event_type);
    return rc < 0 ? rc : DATUM_OK;
}

/* The number of HANDSET children of n. */
static int count_handsets(const xmlNode *n)
{
    int count = 0;
    for (const xmlNode *c = n->children; c; c = c->next)
        count += c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "HANDSET") == 0;
    return count;
}

static void reset_tables(usebio_file *f)
{
    if (f->tables) memset(f->tables, 0, f->tables_cap * sizeof *f->tables);
}

/* Walks the containers (EVENT, SESSION, SECTION, MATCH, BOARD) down to the
 * TRAVELLER_LINEs; other elements are skipped. */
static int walk(usebio_file *f, const xmlNode *n, place at)
{
    const char *name = (const char *)n->name;
    char buf[TEXT_MAX];
    int rc = DATUM_OK, handsets = count_handsets(n);
    if (handsets > 0) at.handsets = handsets;
    if (strcmp(name, "EVENT") == 0) {
        if ((rc = enter_event(f, n, &at)) != DATUM_OK) return rc;
        at.session[0] = at.section[0] = '\0';
        reset_tables(f);
    } else if (strcmp(name, "SESSION") == 0) {
        if ((rc = text_of(f, n, "SESSION_ID", at.session)) == 0)
            rc = child_text(f, n, "SESSION_ID", at.session);
        reset_tables(f);
    } else if (strcmp(name, "SECTION") == 0) {
        if ((rc = text_of(f, n, "SECTION_ID", at.section)) == 0)
            rc = child_text(f, n, "SECTION_ID", at.section);
        reset_tables(f);
    } else if (strcmp(name, "MATCH") == 0) {
        at.in_match = 1;
        if ((rc = need_text(f, n, "TEAM", at.team)) != DATUM_OK ||
            (rc = need_text(f, n, "OPPOSING_TEAM", at.opponent)) != DATUM_OK)
            return rc;
        if ((rc = child_text(f, n, "ROUND_NUMBER", at.round)) == 0) strcpy(at.round, "0");
    } else if (strcmp(name, "BOARD") == 0) {
        if ((rc = need_text(f, n, "BOARD_NUMBER", buf)) != DATUM_OK) return rc;
        if (parse_int(buf, 1, MAX_BOARD, &at.board) != 0)
            return fail_at(f, child(n, "BOARD_NUMBER"),
                           "not a board number (1 to 100000): ", buf);
    } else if (strcmp(name, "TRAVELLER_LINE") == 0) {
        return add_line(f, n, &at);
    } else if (strcmp(name, "USEBIO") != 0) {
        return DATUM_OK;
    }
    if (rc < 0) return rc;
    for (const xmlNode *c = n->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && (rc = walk(f, c, at)) != DATUM_OK) return rc;
    return DATUM_OK;
}

/* libxml2's message into buf: it quotes the input's bytes as they are, so
 * every byte outside printable ASCII becomes \xNN; the final newline goes. */
static void escape_message(const char *message, char *buf, size_t size)
{
    size_t n = 0;
    for (const unsigned char *m = (const unsigned char *)message; *m && n + 5 < size; m++) {
        int plain = *m >= 0x20 && *m <= 0x7e;
        n += (size_t)snprintf(buf + n, size - n, plain ? "%c" : "\\x%02x", *m);
    }
    buf[n] = '\0';
    while (n >= 4 && strcmp(buf + n - 4, "\\x0a") == 0) buf[n -= 4] = '\0';
}

/* libxml2 reports some failures (encoding conversion, I/O) through its
 * global generic handler whatever the parse options say; our message comes
 * from the parser context instead, so that handler is silenced. */
static void ignore_xml_message(void *user, const char *fmt, ...)
{
    (void)user;
    (void)fmt;
}

/* Parses path; "FILE:LINE: malformed XML: ..." on a syntax error. */
static int parse_file(usebio_file *f)
{
    FILE *probe = fopen(f->path, "rb");
    if (!probe) return io_fail_errno(f->ctx, DATUM_E_IO, errno, "cannot open %s", f->path);
    fclose(probe);
    xmlParserCtxtPtr pc = xmlNewParserCtxt();
    if (!pc) return datum_ctx_fail(f->ctx, DATUM_E_NOMEM, "out of memory (libxml2)");
    xmlDocPtr doc = xmlCtxtReadFile(pc, f->path, NULL,
                                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                                        XML_PARSE_BIG_LINES);
    int rc = DATUM_OK;
    if (!doc) {
        xmlErrorPtr e = xmlCtxtGetLastError(pc);
        char msg[512] = "unreadable XML";
        if (e && e->message) escape_message(e->message, msg, sizeof msg);
        rc = datum_ctx_fail(f->ctx, DATUM_E_INPUT, "%s:%d: malformed XML: %s", f->path,
                            e ? e->line : 0, msg);
    } else {
        const xmlNode *root = xmlDocGetRootElement(doc);
        place at;
        memset(&at, 0, sizeof at);
        if (!root || strcmp((const char *)root->name, "USEBIO") != 0)
            rc = datum_ctx_fail(f->ctx, DATUM_E_INPUT,
                                "%s:%ld: not a USEBIO file (root element %s, not USEBIO)",
                                f->path, line_of(root), root ? (const char *)root->name : "none");
        else
            rc = walk(f, root, at);
        if (rc == DATUM_OK && f->n_rows == 0)
            rc = datum_ctx_fail(f->ctx, DATUM_E_INPUT, "%s: no TRAVELLER_LINE in the file%s",
                                f->path, f->n_sitouts ? " but sit-outs" : "");
        xmlFreeDoc(doc);
    }
    xmlFreeParserCtxt(pc);
    return rc;
}

static void usebio_close(void *self)
{
    usebio_file *f = self;
    if (!f) return;
    for (size_t i = 0; i < f->n_rows; i++) urow_free(&f->rows[i]);
    datum_free(f->rows);
    datum_free(f->tables);
    datum_free(f);
}

static int usebio_next(void *self, io_result_row *row)
{
    usebio_file *f = self;
    if (f->next == f->n_rows) return 0;
    const urow *r = &f->rows[f->next++];
    *row = (io_result_row){.line = r->line,
                           .event = r->event,
                           .section = r->section,
                           .ns_pair = r->ns_pair,
                           .ew_pair = r->ew_pair,
                           .date = r->date,
                           .board = r->board,
                           .table = r->table,
                           .ns_score = r->ns_score,
                           .adjusted = r->adjusted,
                           .ns_team = r->match ? r->ns_team : NULL,
                           .ew_team = r->match ? r->ew_team : NULL,
                           .match = r->match,
                           .published_ns = r->published_ns,
                           .published_ew = r->published_ew,
                           .published_method = r->published_method,
                           .deal = r->deal};
    return 1;
}

int io_usebio_open(datum_ctx *ctx, const char *path, void *arg, io_row_source *src)
{
    (void)arg;
    xmlInitParser(); /* idempotent */
    xmlSetGenericErrorFunc(NULL, ignore_xml_message);
    usebio_file *f = datum_calloc(ctx, 1, sizeof *f);
    if (!f) return DATUM_E_NOMEM;
    f->ctx = ctx;
    f->path = path;
    int rc = parse_file(f);
    if (rc != DATUM_OK) {
        usebio_close(f);
        return rc;
    }
    *src = (io_row_source){.self = f, .next = usebio_next, .close = usebio_close,
                           .has_adjusted = f->has_adjusted, .has_teams = f->has_teams,
                           .has_published = f->has_published, .n_sitouts = &f->n_sitouts,
                           .has_deals = 1};
    return DATUM_OK;
}
