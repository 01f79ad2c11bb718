/* tarot_sheet.c - the roadmap sheets (feuilles de route) of a tarot
 * Attaque-Défense tournament as printable HTML, and the French number
 * format. A text format: no HDF5 here. */
#include "datum_tarot_io.h"
#include "io_common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* French numbers                                                            */

int datum_format_fr(double v, int min_decimals, int max_decimals, char *buf, size_t size)
{
    if (size > 0) buf[0] = '\0';
    if (size == 0 || min_decimals < 0 || max_decimals > 9 || min_decimals > max_decimals)
        return DATUM_E_ARG;
    if (!isfinite(v)) return DATUM_OK;

    char text[DATUM_FR_NUMBER_SIZE];
    int len = snprintf(text, sizeof text, "%.*f", max_decimals, v);
    /* Find the decimal point by position, not by character: printf follows
     * LC_NUMERIC, which may already be a comma. */
    char *digits = text + (text[0] == '-');
    char *point = digits + strspn(digits, "0123456789");
    if (*point) {
        char *end = text + len;
        while (end > point + 1 + min_decimals && end[-1] == '0') end--;
        if (end == point + 1) end = point; /* no decimals left: no comma */
        *end = '\0';
        *point = ',';
        len = (int)(end - text);
    }
    /* -0.001 to two decimals is "-0,00": show a zero as a zero. */
    if (text[0] == '-' && strspn(digits, "0,") == strlen(digits)) {
        memmove(text, digits, strlen(digits) + 1);
        len--;
    }
    if ((size_t)len >= size) return DATUM_E_ARG;
    memcpy(buf, text, (size_t)len + 1);
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* HTML                                                                      */

static void put_escaped(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

/* A number the French way, followed by suffix (e.g. "%"). */
static void put_number(FILE *out, double v, int min_decimals, int max_decimals,
                       const char *suffix)
{
    char text[DATUM_FR_NUMBER_SIZE];
    datum_format_fr(v, min_decimals, max_decimals, text, sizeof text);
    fputs(text, out);
    fputs(suffix, out);
}

/* A4 portrait, one sheet per page. The screen view imitates the paper. */
static const char kStyle[] =
    "@page { size: A4 portrait; margin: 10mm; }\n"
    "* { box-sizing: border-box; }\n"
    "body { font-family: \"DejaVu Sans\", Arial, sans-serif; font-size: 9pt; color: #000;"
    " margin: 0; }\n"
    ".sheet { width: 190mm; margin: 0 auto; }\n"
    "@media screen { body { background: #ddd; } .sheet { background: #fff; padding: 10mm;"
    " width: 210mm; min-height: 297mm; margin: 8mm auto; box-shadow: 0 0 4mm #888; } }\n"
    "@media print { .sheet { break-after: page; } }\n"
    "h1 { font-size: 15pt; margin: 0 0 3mm; }\n"
    "table.identity { margin-bottom: 4mm; border-collapse: collapse; }\n"
    "table.identity th { text-align: left; font-weight: normal; padding: 0.6mm 4mm 0.6mm 0; }\n"
    "table.identity td { font-weight: bold; padding: 0.6mm 0; }\n"
    "table.etuis { width: 100%; border-collapse: collapse; }\n"
    "table.etuis th, table.etuis td { border: 0.3mm solid #000; padding: 0.5mm 1.2mm; }\n"
    "table.etuis thead th { background: #e6e6e6; font-size: 8pt; vertical-align: bottom; }\n"
    "table.etuis thead { display: table-header-group; }\n"
    "table.etuis tr { break-inside: avoid; }\n"
    "table.etuis tbody tr:nth-child(even) { background: #f4f4f4; }\n"
    "td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }\n"
    "td.code { text-align: center; }\n"
    "td.name { width: 30%; }\n"
    "table.footer { margin: 4mm 0 0 auto; border-collapse: collapse; min-width: 80mm;"
    " break-inside: avoid; }\n"
    "table.footer th { text-align: left; font-weight: normal; padding: 0.7mm 4mm 0.7mm 1mm; }\n"
    "table.footer td { text-align: right; padding: 0.7mm 1mm; font-variant-numeric: tabular-nums; }\n"
    "table.footer tr.total th, table.footer tr.total td { font-weight: bold;"
    " border-top: 0.4mm solid #000; }\n"
    "table.footer tr.rank th, table.footer tr.rank td { font-weight: bold; }\n"
    "@media print { body { -webkit-print-color-adjust: exact; print-color-adjust: exact; } }\n";

/* The seed's columns, in its order; only the opponent's differs by side. */
static const char *const kColumns[] = {
    "Etui", "Contrat", NULL /* opponent */, "Votre score", "Notes positives",
    "Notes négatives", "Note de référence", "PM obtenus", "Pourcentage sur l'étui",
    "Régularité en PM"};

static void put_identity_row(FILE *out, const char *label, const char *value)
{
    if (!value || !*value) return;
    fprintf(out, "<tr><th>%s</th><td>", label);
    put_escaped(out, value);
    fputs("</td></tr>\n", out);
}

static void put_line(FILE *out, const datum_tarot_sheet_line *l)
{
    fprintf(out, "<tr><td class=\"num\">%d</td><td class=\"code\">", (int)l->etui);
    put_escaped(out, l->contract);
    fputs("</td><td class=\"name\">", out);
    put_escaped(out, l->opponent);
    fprintf(out, "</td><td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">%d</td>",
            (int)l->score, (int)l->n_positive, (int)l->n_negative);
    fputs("<td class=\"num\">", out);
    put_number(out, l->reference, 2, 2, "</td><td class=\"num\">");
    put_number(out, l->pm, 2, 2, "</td><td class=\"num\">");
    put_number(out, l->pct, 2, 2, "%</td><td class=\"num\">");
    put_number(out, l->regularity, 2, 2, "</td></tr>\n");
}

static void put_footer_row(FILE *out, const char *class_name, const char *label, double v,
                           int max_decimals)
{
    fprintf(out, "<tr%s%s%s><th>%s</th><td>", class_name ? " class=\"" : "",
            class_name ? class_name : "", class_name ? "\"" : "", label);
    put_number(out, v, 2, max_decimals, "</td></tr>\n");
}

static void put_footer(FILE *out, const datum_tarot_sheet *s)
{
    const datum_tarot_standing *st = &s->standing;
    fputs("<table class=\"footer\">\n<tbody>\n", out);
    put_footer_row(out, NULL, "Total des PM obtenus", st->pm, 2);
    put_footer_row(out, NULL, "Primes de régularité", st->regularity, 2);
    put_footer_row(out, NULL, "Bonus de départ", st->bonus, 3);
    /* Shown as what they do to the total: a penalty lowers it. */
    put_footer_row(out, NULL, "Pénalités (ou compensations)", 0.0 - st->penalties, 3);
    put_footer_row(out, "total", "Total général", st->total, 3);
    fputs("<tr class=\"rank\"><th>Rang théorique sur la séance</th><td>", out);
    if (st->rank <= 0) fputs("non classé", out);
    else if (s->n_ranked > 0) fprintf(out, "%d sur %d", (int)st->rank, (int)s->n_ranked);
    else fprintf(out, "%d", (int)st->rank);
    fputs("</td></tr>\n</tbody>\n</table>\n", out);
}

int datum_tarot_sheet_write(datum_ctx *ctx, const datum_tarot_sheet *s, FILE *out)
{
    if ((unsigned)s->side > DATUM_TAROT_DEFENSE || (s->n_lines > 0 && !s->lines))
        return datum_ctx_fail(ctx, DATUM_E_ARG, "invalid roadmap sheet");
    int attack = s->side == DATUM_TAROT_ATTACK;
    const char *who = attack ? "Attaquant" : "Défense";

    fputs("<!DOCTYPE html>\n<html lang=\"fr\">\n<head>\n<meta charset=\"utf-8\">\n<title>", out);
    fprintf(out, "Feuille de route – %s ", who);
    put_escaped(out, s->id);
    fputs(" – ", out);
    put_escaped(out, s->name);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<div class=\"sheet\">\n", kStyle);
    fputs("<h1>Tournoi Attaque-Défense – Feuille de route</h1>\n", out);

    fputs("<table class=\"identity\">\n<tbody>\n", out);
    put_identity_row(out, "Tournoi", s->event);
    put_identity_row(out, "Date", s->date);
    put_identity_row(out, attack ? "Attaquant n°" : "Défense n°", s->id);
    put_identity_row(out, attack ? "Joueur" : "Joueurs", s->name);
    put_identity_row(out, "Classement", s->classement);
    fputs("</tbody>\n</table>\n", out);

    fputs("<table class=\"etuis\">\n<thead>\n<tr>", out);
    for (size_t c = 0; c < sizeof kColumns / sizeof *kColumns; c++)
        fprintf(out, "<th>%s</th>",
                kColumns[c] ? kColumns[c] : attack ? "Défense adverse" : "Attaquant adverse");
    fputs("</tr>\n</thead>\n<tbody>\n", out);
    for (size_t i = 0; i < s->n_lines; i++) put_line(out, &s->lines[i]);
    fputs("</tbody>\n</table>\n", out);

    put_footer(out, s);
    fputs("</div>\n</body>\n</html>\n", out);
    if (fflush(out) != 0 || ferror(out))
        return datum_ctx_fail(ctx, DATUM_E_IO, "cannot write the roadmap sheet: %s",
                              strerror(errno ? errno : EIO));
    return DATUM_OK;
}

int datum_tarot_sheet_save(datum_ctx *ctx, const datum_tarot_sheet *sheet, const char *path)
{
    char *tmp = NULL;
    int fd = -1;
    int rc = io_temp_create(ctx, path, &tmp, &fd);
    if (rc != DATUM_OK) return rc;
    FILE *out = fdopen(fd, "wb");
    if (!out) {
        rc = datum_ctx_fail(ctx, DATUM_E_IO, "cannot write %s: %s", path, strerror(errno));
        close(fd);
    } else {
        rc = datum_tarot_sheet_write(ctx, sheet, out);
        if (fclose(out) != 0 && rc == DATUM_OK)
            rc = datum_ctx_fail(ctx, DATUM_E_IO, "cannot write %s: %s", path, strerror(errno));
    }
    if (rc == DATUM_OK) rc = io_temp_commit(ctx, tmp, path);
    if (rc == DATUM_OK) datum_free(tmp); /* renamed: nothing to remove */
    else io_temp_discard(&tmp);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The index page                                                            */

static void put_index_ranking(FILE *out, const char *title, const char *who,
                              const datum_tarot_index_entry *e, size_t n)
{
    fprintf(out, "<h3>%s</h3>\n<table class=\"etuis\">\n<thead>\n<tr><th>Rang</th><th>%s</th>"
                 "<th>Étuis joués</th><th>Total général</th></tr>\n</thead>\n<tbody>\n",
            title, who);
    for (size_t i = 0; i < n; i++) {
        fputs("<tr><td class=\"num\">", out);
        if (e[i].rank > 0) fprintf(out, "%d", (int)e[i].rank);
        else fputs("non classé", out);
        fputs("</td><td class=\"name\"><a href=\"", out);
        put_escaped(out, e[i].href);
        fputs("\">", out);
        put_escaped(out, e[i].id);
        fputs("</a>", out);
        if (e[i].name && *e[i].name) {
            fputs(" – ", out);
            put_escaped(out, e[i].name);
        }
        fprintf(out, "</td><td class=\"num\">%d</td><td class=\"num\">", (int)e[i].etuis);
        put_number(out, e[i].total, 2, 3, "</td></tr>\n");
    }
    fputs("</tbody>\n</table>\n", out);
}

int datum_tarot_index_write(datum_ctx *ctx, const datum_tarot_index_event *events,
                            size_t n_events, FILE *out)
{
    for (size_t k = 0; k < n_events; k++)
        if ((events[k].n_attack > 0 && !events[k].attack) ||
            (events[k].n_defense > 0 && !events[k].defense))
            return datum_ctx_fail(ctx, DATUM_E_ARG, "invalid roadmap index");
    if (n_events > 0 && !events) return datum_ctx_fail(ctx, DATUM_E_ARG, "invalid roadmap index");
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"fr\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<title>Tournoi Attaque-Défense – Feuilles de route</title>\n<style>\n%s"
                 "h2 { font-size: 12pt; margin: 5mm 0 2mm; }\n"
                 "h3 { font-size: 10pt; margin: 4mm 0 1.5mm; }\n"
                 "a { color: inherit; }\n</style>\n</head>\n<body>\n",
            kStyle);
    for (size_t k = 0; k < n_events; k++) {
        const datum_tarot_index_event *ev = &events[k];
        fputs("<div class=\"sheet\">\n<h1>Tournoi Attaque-Défense – Feuilles de route</h1>\n"
              "<h2>", out);
        put_escaped(out, ev->event);
        if (ev->date && *ev->date) {
            fputs(" – ", out);
            put_escaped(out, ev->date);
        }
        fputs("</h2>\n", out);
        put_index_ranking(out, "Classement Attaque", "Attaquant", ev->attack, ev->n_attack);
        put_index_ranking(out, "Classement Défense", "Défense", ev->defense, ev->n_defense);
        fputs("</div>\n", out);
    }
    fputs("</body>\n</html>\n", out);
    if (fflush(out) != 0 || ferror(out))
        return datum_ctx_fail(ctx, DATUM_E_IO, "cannot write the roadmap index: %s",
                              strerror(errno ? errno : EIO));
    return DATUM_OK;
}

/* ------------------------------------------------------------------------ */
/* File names                                                                */

int datum_tarot_file_name(const char *prefix, const char *id, const char *suffix, char *buf,
                          size_t size)
{
    enum { MAX_NAME = 200 }; /* well under NAME_MAX (255) everywhere */
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    if (size > 0) buf[0] = '\0';
    const char *parts[3] = {prefix ? prefix : "", id ? id : "", suffix ? suffix : ""};
    for (int part = 0; part < 3; part++)
        for (const unsigned char *p = (const unsigned char *)parts[part]; *p; p++) {
            /* Prefix and suffix are ours and kept as given; the id is
             * encoded one-to-one: a blank is '_', and '_' and '~' are
             * escaped like every other byte. */
            int keep = part != 1 || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                       (*p >= '0' && *p <= '9') || *p == '-' || *p == ' ';
            size_t need = keep ? 1 : 3;
            if (n + need > MAX_NAME || n + need >= size) {
                if (size > 0) buf[0] = '\0';
                return DATUM_E_ARG;
            }
            if (keep) {
                buf[n++] = part == 1 && *p == ' ' ? '_' : (char)*p;
            } else {
                buf[n++] = '~';
                buf[n++] = hex[*p >> 4];
                buf[n++] = hex[*p & 15];
            }
        }
    if (n >= size) return DATUM_E_ARG;
    buf[n] = '\0';
    return DATUM_OK;
}
