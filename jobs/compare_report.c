/* compare_report.c - the report of `datum compare --report DIR`: the tables
 * as CSV files and index.html, a page that needs nothing else (inline CSS,
 * figures as SVG written here). It lives beside the comparison, not in
 * cli/, because it is an output of the job, like the pass's CSV files: the
 * program only names the folder. The folder is written as a whole (io's
 * staging directory, datum_tarot_sheet_dir_*): a failure leaves DIR as it was. */
#include "compare_internal.h"
#include "datum_alloc.h"
#include "datum_tarot_io.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define KINDS DATUM_PERTURB_KINDS

static const char *const kKinds[KINDS] = {"+10 points", "one more trick", "adjusted (A)"};
static const char *const kKindNames[KINDS] = {"ten_points", "one_trick", "adjusted"};
static const char *const kBins[DATUM_COMPARE_RANK_BINS] = {"0", "1", "2", "3", "4-5", "6-10",
                                                           "11-20", "21+"};
static const char *const kBy[] = {"event", "year", "all"};

/* ------------------------------------------------------------------------ */
/* A growing text                                                           */

typedef struct {
    datum_ctx *ctx;
    char *s;
    size_t n, cap;
    int failed;
} text;

static void put(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(text *t, const char *fmt, ...)
{
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int len = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (len < 0) {
            t->failed = 1;
            return;
        }
        if (t->s && t->n + (size_t)len < t->cap) {
            t->n += (size_t)len;
            return;
        }
        if (datum_reserve(t->ctx, &t->s, &t->cap, t->n + (size_t)len + 4096, 1) < 0) {
            t->failed = 1;
            return;
        }
    }
}

/* Text escaped for HTML. */
static void put_text(text *t, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': put(t, "&lt;"); break;
        case '>': put(t, "&gt;"); break;
        case '&': put(t, "&amp;"); break;
        case '"': put(t, "&quot;"); break;
        default: put(t, "%c", *s);
        }
    }
}

/* A number in a table cell: 3 decimals, "–" for NaN. */
static void put_num(text *t, double v, int decimals)
{
    if (isnan(v)) put(t, "<td class=na>&ndash;</td>");
    else put(t, "<td>%.*f</td>", decimals, v);
}

/* ------------------------------------------------------------------------ */
/* Figures                                                                  */

/* From white at lo to dark blue at 1 (lo < 1), grey for NaN: the matrix's
 * own range, so that 0.97 and 0.99 do not look alike. */
static void heat_colour(double v, double lo, char out[16])
{
    if (isnan(v)) {
        snprintf(out, 16, "#dddddd");
        return;
    }
    double a = (v - lo) / (1.0 - lo);
    a = a < 0 ? 0 : a > 1 ? 1 : a;
    snprintf(out, 16, "#%02x%02x%02x", (int)(245 - 215 * a), (int)(245 - 165 * a),
             (int)(255 - 75 * a));
}

/* The statistic between methods a and b (1 when a == b). */
static double pair_value(const datum_compare_summary *s, size_t a, size_t b, int kendall)
{
    if (a == b) return 1.0;
    size_t m = s->n_methods, lo = a < b ? a : b, hi = a < b ? b : a;
    const datum_compare_pair *p = &s->pairs[lo * m - lo * (lo + 1) / 2 + (hi - lo - 1)];
    return kendall ? p->kendall : p->spearman;
}

/* The matrix of a statistic between every two methods (1 on the diagonal). */
static void heat_map(text *t, const datum_compare_summary *s, int kendall, const char *title)
{
    size_t m = s->n_methods;
    double lo = 1;
    for (size_t a = 0; a < m; a++)
        for (size_t b = 0; b < m; b++)
            if (pair_value(s, a, b, kendall) < lo) lo = pair_value(s, a, b, kendall);
    lo = lo >= 1 ? 0 : lo - 0.1 * (1 - lo);
    int cell = 64, left = 180, top = 150, w = left + cell * (int)m + 20, h = top + cell * (int)m + 20;
    put(t, "<figure><svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' role='img' "
           "aria-label='%s'>", w, h, title);
    for (size_t i = 0; i < m; i++) {
        put(t, "<text x='%d' y='%d' text-anchor='end' class=lab>", left - 8,
            top + cell * (int)i + cell / 2 + 4);
        put_text(t, s->methods[i].name);
        put(t, "</text><text transform='translate(%d,%d) rotate(-45)' class=lab>",
            left + cell * (int)i + cell / 2, top - 8);
        put_text(t, s->methods[i].name);
        put(t, "</text>");
    }
    for (size_t a = 0; a < m; a++)
        for (size_t b = 0; b < m; b++) {
            double v = pair_value(s, a, b, kendall);
            char colour[16];
            heat_colour(v, lo, colour);
            int x = left + cell * (int)b, y = top + cell * (int)a;
            put(t, "<rect x='%d' y='%d' width='%d' height='%d' fill='%s' stroke='#fff'/>", x, y, cell,
                cell, colour);
            if (isnan(v)) put(t, "<text x='%d' y='%d' text-anchor='middle' class=val>&ndash;</text>",
                              x + cell / 2, y + cell / 2 + 4);
            else put(t, "<text x='%d' y='%d' text-anchor='middle' class=val%s>%.3f</text>",
                     x + cell / 2, y + cell / 2 + 4,
                     (v - lo) / (1 - lo) > 0.55 ? " style='fill:#fff'" : "", v);
        }
    put(t, "</svg><figcaption>");
    put_text(t, title);
    put(t, "; colours from white at %.3f to dark blue at 1</figcaption></figure>\n", lo);
}

/* Horizontal bars: n labels, values v (NaN: no bar), of at most vmax. */
static void bars(text *t, const char *title, size_t n, const char *const *label, const double *v,
                 double vmax, const char *fmt_unit)
{
    int row = 22, left = 300, width = 420, h = row * (int)n + 30;
    if (!(vmax > 0)) vmax = 1;
    put(t, "<figure><svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' role='img' "
           "aria-label='%s'>", left + width + 90, h, title);
    put(t, "<line x1='%d' y1='4' x2='%d' y2='%d' stroke='#888'/>", left, left, h - 20);
    for (size_t i = 0; i < n; i++) {
        int y = 6 + row * (int)i;
        put(t, "<text x='%d' y='%d' text-anchor='end' class=lab>", left - 6, y + 14);
        put_text(t, label[i]);
        put(t, "</text>");
        if (isnan(v[i])) {
            put(t, "<text x='%d' y='%d' class=val>&ndash;</text>", left + 6, y + 14);
            continue;
        }
        double len = v[i] / vmax * width;
        put(t, "<rect x='%d' y='%d' width='%.1f' height='%d' fill='#3b6fb6'/>", left, y + 2,
            len > 0 ? len : 0, row - 6);
        put(t, "<text x='%.1f' y='%d' class=val>%.4g%s</text>", left + (len > 0 ? len : 0) + 5,
            y + 14, v[i], fmt_unit);
    }
    put(t, "</svg><figcaption>");
    put_text(t, title);
    put(t, "</figcaption></figure>\n");
}

/* Stacked bars of the rank changes of every pair of methods, as shares. */
static void rank_change_bars(text *t, const datum_compare_summary *s)
{
    static const char *const colour[DATUM_COMPARE_RANK_BINS] = {
        "#1a9850", "#91cf60", "#d9ef8b", "#fee08b", "#fdae61", "#f46d43", "#d73027", "#a50026"};
    size_t m = s->n_methods, np = m * (m - 1) / 2;
    int row = 22, left = 360, width = 420, h = row * (int)np + 60;
    put(t, "<figure><svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' role='img' "
           "aria-label='rank changes'>", left + width + 20, h);
    for (size_t p = 0; p < np; p++) {
        const datum_compare_pair *x = &s->pairs[p];
        uint64_t total = 0;
        for (int b = 0; b < DATUM_COMPARE_RANK_BINS; b++) total += x->rank_changes[b];
        int y = 6 + row * (int)p;
        put(t, "<text x='%d' y='%d' text-anchor='end' class=lab>", left - 6, y + 14);
        put_text(t, s->methods[x->a].name);
        put(t, " / ");
        put_text(t, s->methods[x->b].name);
        put(t, "</text>");
        double at = left;
        for (int b = 0; b < DATUM_COMPARE_RANK_BINS && total; b++) {
            double len = (double)x->rank_changes[b] / (double)total * width;
            put(t, "<rect x='%.2f' y='%d' width='%.2f' height='%d' fill='%s'/>", at, y + 2, len,
                row - 6, colour[b]);
            at += len;
        }
    }
    int y = 14 + row * (int)np;
    for (int b = 0; b < DATUM_COMPARE_RANK_BINS; b++) {
        int x = left + b * 52;
        put(t, "<rect x='%d' y='%d' width='12' height='12' fill='%s'/>", x, y, colour[b]);
        put(t, "<text x='%d' y='%d' class=lab>%s</text>", x + 15, y + 11, kBins[b]);
    }
    put(t, "</svg><figcaption>Share of ranked pairs by how many places their rank moves from one "
           "method to the other (|rank A &minus; rank B|)</figcaption></figure>\n");
}

/* Seed 003's field (datasets/seeds/bastille-scheveningen.csv): eight
 * tables, North-South's scores, the rectification of table 3 from +180 to
 * +150. */
static const int32_t kSeedField[8] = {-100, 400, 180, 420, 210, 100, 112, 990};
#define SEED_ROW 2
#define SEED_AFTER 150

/* Per table, the change of the North-South and East-West IMPs that the
 * rectification brings, under each Butler method of the comparison (the
 * two of the seed, nbb and bastille:linear, when there is none). */
static void scheveningen(text *t, const datum_compare_summary *s)
{
    datum_method own[2];
    const char *names[2] = {"nbb:wbf", "bastille:linear"};
    datum_method_init(&own[0], "nbb");
    datum_method_init(&own[1], "bastille");
    own[1].scale.kind = DATUM_SCALE_LINEAR;
    const datum_method *use[DATUM_COMPARE_MAX_METHODS];
    const char *label[DATUM_COMPARE_MAX_METHODS];
    size_t n = 0;
    for (size_t i = 0; i < s->n_methods; i++)
        if (s->methods[i].kind == DATUM_COMPARE_BUTLER)
            use[n] = &s->methods[i].m, label[n++] = s->methods[i].name;
    if (n == 0)
        for (int i = 0; i < 2; i++) use[n] = &own[i], label[n++] = names[i];
    put(t, "<p>Seed 003: in Scheveningen, 1994, a rectification of +180 to +150 at table 3 "
           "(for East-West, Hamman-Wolff) moved the datum of the eight-table field from about "
           "+237 to +232; with a rounded datum (240 to 230) it gave Leufkens-Westra (North-South, "
           "+400, table 2) one IMP more than the pair it was for. The bars show each pair's change "
           "of IMPs on the board, per method: the rectified pair is EW 3.</p>\n");
    int32_t scores[8], work[8];
    int col = 30, left = 10, height = 250, mid = 125;
    for (size_t i = 0; i < n; i++) {
        double before[2][8], after[2][8];
        for (int phase = 0; phase < 2; phase++) {
            memcpy(scores, kSeedField, sizeof scores);
            if (phase) scores[SEED_ROW] = SEED_AFTER;
            datum_value d;
            datum_field_datum(&use[i]->rule, scores, 8, work, &d);
            datum_field_butler(&use[i]->scale, &use[i]->award, scores, NULL, 8, d,
                               phase ? after[0] : before[0], phase ? after[1] : before[1]);
        }
        put(t, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' role='img' "
               "aria-label='Scheveningen'><text x='%d' y='16' class=lab>",
            left + col * 8 + 30, height, left);
        put_text(t, label[i]);
        put(t, "</text><line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#888'/>", left, mid,
            left + col * 8 + 20, mid);
        for (int side = 0; side < 2; side++)
            for (int r = 0, prev_sign = 0, prev_out = 0; r < 8; r++) {
                double dv = after[side][r] - before[side][r];
                double hgt = dv * 40; /* 40 px an IMP */
                int x = left + (side * 8 + r) * col / 2 + side * 10;
                int hot = (side == 1 && r == SEED_ROW) || (side == 0 && r == 1);
                put(t, "<rect x='%d' y='%.1f' width='%d' height='%.1f' fill='%s'/>", x,
                    dv >= 0 ? mid - hgt : (double)mid, col / 2 - 3, fabs(hgt),
                    hot ? "#d73027" : "#3b6fb6");
                put(t, "<text x='%d' y='%d' class=tiny transform='rotate(-90 %d %d)'>%s%d</text>",
                    x + 10, height - 4, x + 10, height - 4, side ? "EW" : "NS", r + 1);
                /* Smaller changes would overprint their neighbours; a label
                 * beside one of the same sign (a bar's width apart, narrower
                 * than the label) goes a line further out, every other one. */
                int labelled = fabs(dv) >= 0.25, sign = dv >= 0 ? 1 : -1;
                int out = labelled && sign == prev_sign && !prev_out ? 10 : 0;
                prev_sign = labelled ? sign : 0;
                prev_out = out;
                if (labelled)
                    put(t, "<text x='%d' y='%.1f' class=tiny>%+.2f</text>", x - 4,
                        dv >= 0 ? mid - hgt - 4 - out : mid + fabs(hgt) + 11 + out, dv);
            }
        put(t, "</svg>\n");
    }
    put(t, "<p class=caption>Change of each pair's IMPs on the seed's board after the "
           "rectification, one panel per method (red: the rectified pair EW 3 and Leufkens-Westra "
           "NS 2)</p>\n");
}

/* ------------------------------------------------------------------------ */
/* Tables as CSV                                                            */

static int write_csvs(datum_ctx *ctx, datum_tarot_sheet_dir *d, const datum_compare_summary *s)
{
    size_t m = s->n_methods, np = m * (m - 1) / 2;
    const char *path;
    datum_csv_writer *w = NULL;
    int rc = datum_tarot_sheet_dir_reserve(d, "pairs.csv", &path);
    if (rc >= 0) rc = datum_csv_create(ctx, path, &w);
    if (rc < 0) return rc;
    const char *h1[] = {"method_a", "method_b", "groups", "spearman", "kendall_tau_b",
                        "winner_changes", "podium_groups", "podium_changes", "topk_groups",
                        "topk_overlap", "mean_abs_diff_per_board", "results_compared"};
    for (size_t i = 0; i < sizeof h1 / sizeof *h1; i++) datum_csv_str(w, h1[i]);
    datum_csv_end_row(w);
    for (size_t p = 0; p < np; p++) {
        const datum_compare_pair *x = &s->pairs[p];
        datum_csv_str(w, s->methods[x->a].name);
        datum_csv_str(w, s->methods[x->b].name);
        datum_csv_int(w, (int64_t)x->groups);
        datum_csv_real(w, x->spearman);
        datum_csv_real(w, x->kendall);
        datum_csv_int(w, (int64_t)x->winner_changes);
        datum_csv_int(w, (int64_t)x->podium_groups);
        datum_csv_int(w, (int64_t)x->podium_changes);
        datum_csv_int(w, (int64_t)x->topk_groups);
        datum_csv_real(w, x->topk_overlap);
        datum_csv_real(w, x->mean_abs_diff);
        datum_csv_int(w, (int64_t)x->diff_results);
        datum_csv_end_row(w);
    }
    if ((rc = datum_csv_commit(&w)) < 0) return rc;

    if ((rc = datum_tarot_sheet_dir_reserve(d, "rank_changes.csv", &path)) < 0 ||
        (rc = datum_csv_create(ctx, path, &w)) < 0)
        return rc;
    datum_csv_str(w, "method_a");
    datum_csv_str(w, "method_b");
    for (int b = 0; b < DATUM_COMPARE_RANK_BINS; b++) datum_csv_str(w, kBins[b]);
    datum_csv_end_row(w);
    for (size_t p = 0; p < np; p++) {
        const datum_compare_pair *x = &s->pairs[p];
        datum_csv_str(w, s->methods[x->a].name);
        datum_csv_str(w, s->methods[x->b].name);
        for (int b = 0; b < DATUM_COMPARE_RANK_BINS; b++) datum_csv_int(w, (int64_t)x->rank_changes[b]);
        datum_csv_end_row(w);
    }
    if ((rc = datum_csv_commit(&w)) < 0) return rc;

    if ((rc = datum_tarot_sheet_dir_reserve(d, "methods.csv", &path)) < 0 ||
        (rc = datum_csv_create(ctx, path, &w)) < 0)
        return rc;
    const char *h3[] = {"method", "unit", "results", "mean_abs_per_board", "truth_groups",
                        "truth_spearman", "truth_kendall_tau_b"};
    for (size_t i = 0; i < sizeof h3 / sizeof *h3; i++) datum_csv_str(w, h3[i]);
    datum_csv_end_row(w);
    for (size_t i = 0; i < m; i++) {
        datum_csv_str(w, s->methods[i].name);
        datum_csv_str(w, s->figures[i].unit);
        datum_csv_int(w, (int64_t)s->figures[i].results);
        datum_csv_real(w, s->figures[i].mean_abs);
        if (s->has_truth) {
            datum_csv_int(w, (int64_t)s->truth[i].groups);
            datum_csv_real(w, s->truth[i].spearman);
            datum_csv_real(w, s->truth[i].kendall);
        } else {
            datum_csv_empty(w);
            datum_csv_empty(w);
            datum_csv_empty(w);
        }
        datum_csv_end_row(w);
    }
    if ((rc = datum_csv_commit(&w)) < 0) return rc;

    if ((rc = datum_tarot_sheet_dir_reserve(d, "continuity.csv", &path)) < 0 ||
        (rc = datum_csv_create(ctx, path, &w)) < 0)
        return rc;
    const char *h4[] = {"method", "perturbation", "made", "skipped", "others", "moved",
                        "mean_move", "max_move", "rank_perturbations", "rank_changes", "gain_more"};
    for (size_t i = 0; i < sizeof h4 / sizeof *h4; i++) datum_csv_str(w, h4[i]);
    datum_csv_end_row(w);
    for (size_t i = 0; i < m; i++) {
        if (s->methods[i].kind == DATUM_COMPARE_RATE) continue;
        for (int k = 0; k < KINDS; k++) {
            const datum_compare_continuity *x = &s->continuity[i * KINDS + (size_t)k];
            datum_csv_str(w, s->methods[i].name);
            datum_csv_str(w, kKindNames[k]);
            datum_csv_int(w, (int64_t)x->made);
            datum_csv_int(w, (int64_t)x->skipped);
            datum_csv_int(w, (int64_t)x->others);
            datum_csv_int(w, (int64_t)x->moved);
            datum_csv_real(w, x->mean_move);
            datum_csv_real(w, x->max_move);
            datum_csv_int(w, (int64_t)x->rank_perturbations);
            datum_csv_int(w, (int64_t)x->rank_changes);
            datum_csv_int(w, (int64_t)x->gain_more);
            datum_csv_end_row(w);
        }
    }
    return datum_csv_commit(&w);
}

/* ------------------------------------------------------------------------ */
/* The page                                                                 */

static const char kStyle[] =
    "body{font-family:'DejaVu Sans',Arial,sans-serif;margin:2em auto;max-width:1100px;color:#222;"
    "background:#fff;line-height:1.4}"
    "h1{font-size:1.6em;border-bottom:3px solid #3b6fb6;padding-bottom:.2em}"
    "h2{font-size:1.25em;margin-top:2em;color:#3b6fb6}"
    "table{border-collapse:collapse;margin:.8em 0;font-size:.88em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}"
    "th{background:#eef2f8}td.name,th.name{text-align:left}td.na{color:#999;text-align:center}"
    "figure{margin:1em 0}figcaption,.caption{font-size:.85em;color:#555}"
    ".lab{font-size:12px;fill:#222}.val{font-size:11px;fill:#111}.tiny{font-size:9px;fill:#333}"
    "code{background:#f4f4f4;padding:.1em .3em;word-break:break-all}"
    "nav a{margin-right:1em}";

static void method_cell(text *t, const datum_compare_summary *s, int i)
{
    put(t, "<td class=name>");
    put_text(t, s->methods[i].name);
    put(t, "</td>");
}

static void page(text *t, const datum_compare_summary *s, const char *command_line,
                 const char *machine)
{
    size_t m = s->n_methods, np = m * (m - 1) / 2;
    put(t, "<!DOCTYPE html>\n<html lang=en><head><meta charset='utf-8'>"
           "<title>datum compare</title><style>%s</style></head><body>\n", kStyle);
    put(t, "<h1>Comparing scoring methods</h1>\n<nav><a href='#summary'>Summary</a>"
           "<a href='#correlations'>Rank correlations</a><a href='#rank-changes'>Rank changes</a>"
           "<a href='#continuity'>Continuity</a><a href='#truth'>Accuracy</a>"
           "<a href='#scheveningen'>Scheveningen</a><a href='#machine'>Machine</a></nav>\n");

    put(t, "<section id=summary><h2>Summary</h2><p>%llu results, %llu events; rankings by "
           "<b>%s</b>: %llu groups, %llu pairs ranked in all. Statistics of each pair of methods are "
           "means over the groups (each group counting once); their definitions are in "
           "docs/methods.md, &ldquo;Comparing methods&rdquo;. Tables: <a href='pairs.csv'>pairs.csv</a>, "
           "<a href='rank_changes.csv'>rank_changes.csv</a>, <a href='methods.csv'>methods.csv</a>, "
           "<a href='continuity.csv'>continuity.csv</a>.</p>\n",
        (unsigned long long)s->results, (unsigned long long)s->events, kBy[s->by],
        (unsigned long long)s->groups, (unsigned long long)s->group_pairs);
    put(t, "<table><tr><th class=name>method</th><th>unit</th><th>results</th>"
           "<th>mean |figure| per board</th></tr>\n");
    for (size_t i = 0; i < m; i++) {
        put(t, "<tr>");
        method_cell(t, s, (int)i);
        put(t, "<td>%s</td><td>%llu</td>", s->figures[i].unit,
            (unsigned long long)s->figures[i].results);
        put_num(t, s->figures[i].mean_abs, 3);
        put(t, "</tr>\n");
    }
    put(t, "</table></section>\n");

    put(t, "<section id=correlations><h2>Rank correlations</h2>\n");
    heat_map(t, s, 0, "Spearman's rho between the rankings (mean over groups)");
    heat_map(t, s, 1, "Kendall's tau-b between the rankings (mean over groups)");
    put(t, "<table><tr><th class=name>method A</th><th class=name>method B</th><th>groups</th>"
           "<th>Spearman</th><th>Kendall tau-b</th><th>winner changes</th><th>podium changes</th>"
           "<th>top-%d overlap</th><th>mean |A&minus;B| per board</th></tr>\n", s->top_k);
    for (size_t p = 0; p < np; p++) {
        const datum_compare_pair *x = &s->pairs[p];
        put(t, "<tr>");
        method_cell(t, s, x->a);
        method_cell(t, s, x->b);
        put(t, "<td>%llu</td>", (unsigned long long)x->groups);
        put_num(t, x->spearman, 4);
        put_num(t, x->kendall, 4);
        put(t, "<td>%llu (%.1f%%)</td>", (unsigned long long)x->winner_changes,
            x->groups ? 100.0 * (double)x->winner_changes / (double)x->groups : 0.0);
        put(t, "<td>%llu of %llu</td>", (unsigned long long)x->podium_changes,
            (unsigned long long)x->podium_groups);
        put_num(t, x->topk_overlap, 3);
        put_num(t, x->mean_abs_diff, 3);
        put(t, "</tr>\n");
    }
    put(t, "</table></section>\n");

    put(t, "<section id=rank-changes><h2>Distribution of rank changes</h2>\n");
    rank_change_bars(t, s);
    put(t, "<table><tr><th class=name>method A</th><th class=name>method B</th>");
    for (int b = 0; b < DATUM_COMPARE_RANK_BINS; b++) put(t, "<th>%s</th>", kBins[b]);
    put(t, "</tr>\n");
    for (size_t p = 0; p < np; p++) {
        const datum_compare_pair *x = &s->pairs[p];
        put(t, "<tr>");
        method_cell(t, s, x->a);
        method_cell(t, s, x->b);
        for (int b = 0; b < DATUM_COMPARE_RANK_BINS; b++)
            put(t, "<td>%llu</td>", (unsigned long long)x->rank_changes[b]);
        put(t, "</tr>\n");
    }
    put(t, "</table></section>\n");

    put(t, "<section id=continuity><h2>Continuity</h2><p>One result of each sampled board field "
           "changed (%llu fields asked for, seed %llu; %llu perturbed): by 10 points for "
           "North-South, by one more trick for declarer, or into an adjusted result (average both "
           "ways). The <i>other</i> pairs are those of the result's event but its two pairs; their "
           "event totals move in the method's own unit.</p>\n",
        (unsigned long long)s->sample, (unsigned long long)s->seed,
        (unsigned long long)s->sampled_fields);
    {
        const char *labels[DATUM_COMPARE_MAX_METHODS * KINDS];
        char buf[DATUM_COMPARE_MAX_METHODS * KINDS][96];
        double share[DATUM_COMPARE_MAX_METHODS * KINDS], move[DATUM_COMPARE_MAX_METHODS * KINDS];
        size_t n = 0;
        double vmax = 0;
        for (size_t i = 0; i < m; i++) {
            if (s->methods[i].kind == DATUM_COMPARE_RATE) continue;
            for (int k = 0; k < KINDS; k++, n++) {
                const datum_compare_continuity *x = &s->continuity[i * KINDS + (size_t)k];
                snprintf(buf[n], sizeof buf[n], "%s, %s", s->methods[i].name, kKinds[k]);
                labels[n] = buf[n];
                share[n] = x->made ? 100.0 * (double)x->rank_perturbations / (double)x->made : NAN;
                move[n] = x->mean_move;
                if (move[n] > vmax) vmax = move[n];
            }
        }
        bars(t, "Perturbations after which another pair's rank changed (%)", n, labels, share, 100,
             "%");
        bars(t, "Mean movement of another pair's event total (the method's unit)", n, labels, move,
             vmax, "");
    }
    put(t, "<table><tr><th class=name>method</th><th class=name>perturbation</th><th>made</th>"
           "<th>not applicable</th><th>others</th><th>moved</th><th>mean move</th><th>max move</th>"
           "<th>a rank changed</th><th>ranks changed</th><th>an other gained more</th></tr>\n");
    for (size_t i = 0; i < m; i++) {
        if (s->methods[i].kind == DATUM_COMPARE_RATE) continue;
        for (int k = 0; k < KINDS; k++) {
            const datum_compare_continuity *x = &s->continuity[i * KINDS + (size_t)k];
            put(t, "<tr>");
            method_cell(t, s, (int)i);
            put(t, "<td class=name>%s</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%llu</td>",
                kKinds[k], (unsigned long long)x->made, (unsigned long long)x->skipped,
                (unsigned long long)x->others, (unsigned long long)x->moved);
            put_num(t, x->mean_move, 4);
            put_num(t, x->max_move, 3);
            put(t, "<td>%llu</td><td>%llu</td><td>%llu</td></tr>\n",
                (unsigned long long)x->rank_perturbations, (unsigned long long)x->rank_changes,
                (unsigned long long)x->gain_more);
        }
    }
    put(t, "</table><p>The ratings (rate) are one solve over the whole archive: their continuity "
           "is not measured.</p></section>\n");

    put(t, "<section id=truth><h2>Accuracy against the truth</h2>\n");
    if (!s->has_truth) {
        put(t, "<p>The archive holds no true strengths (only <code>datum generate</code> writes "
               "them): nothing to measure.</p>");
    } else {
        const char *labels[DATUM_COMPARE_MAX_METHODS];
        double v[DATUM_COMPARE_MAX_METHODS];
        for (size_t i = 0; i < m; i++) labels[i] = s->methods[i].name, v[i] = s->truth[i].spearman;
        bars(t, "Spearman's rho between each method's ranking and the true strengths (mean over "
                "groups)", m, labels, v, 1, "");
        put(t, "<table><tr><th class=name>method</th><th>groups</th><th>Spearman</th>"
               "<th>Kendall tau-b</th></tr>\n");
        for (size_t i = 0; i < m; i++) {
            put(t, "<tr>");
            method_cell(t, s, (int)i);
            put(t, "<td>%llu</td>", (unsigned long long)s->truth[i].groups);
            put_num(t, s->truth[i].spearman, 4);
            put_num(t, s->truth[i].kendall, 4);
            put(t, "</tr>\n");
        }
        put(t, "</table>");
    }
    put(t, "</section>\n<section id=scheveningen><h2>The Scheveningen story</h2>\n");
    scheveningen(t, s);
    put(t, "</section>\n<section id=machine><h2>Machine and command</h2><table>");
    put(t, "<tr><th class=name>machine</th><td class=name>");
    put_text(t, machine ? machine : "not given");
    put(t, "</td></tr><tr><th class=name>command</th><td class=name><code>");
    put_text(t, command_line ? command_line : "not given");
    put(t, "</code></td></tr><tr><th class=name>seconds</th><td class=name>pass %.2f, statistics "
           "%.2f, ratings %.2f</td></tr><tr><th class=name>datum</th><td class=name>%s</td></tr>"
           "</table></section>\n</body></html>\n",
        s->seconds_pass, s->seconds_stats, s->seconds_rate, datum_version());
}

int compare_report_write(datum_ctx *ctx, const datum_compare_summary *s, const char *dir,
                         const char *command_line, const char *machine)
{
    datum_tarot_sheet_dir *d = NULL;
    int rc = datum_tarot_sheet_dir_create(ctx, dir, &d);
    if (rc >= 0) rc = write_csvs(ctx, d, s);
    text t = {.ctx = ctx};
    if (rc >= 0) {
        page(&t, s, command_line, machine);
        if (t.failed) rc = datum_ctx_code(ctx) < 0 ? datum_ctx_code(ctx) : DATUM_E_NOMEM;
    }
    const char *path;
    if (rc >= 0) rc = datum_tarot_sheet_dir_reserve(d, "index.html", &path);
    if (rc >= 0) rc = datum_text_write(ctx, path, t.s, t.n);
    datum_free(t.s);
    if (rc >= 0) return datum_tarot_sheet_dir_commit(&d);
    datum_tarot_sheet_dir_abort(&d);
    return rc;
}
