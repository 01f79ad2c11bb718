/* test_tarot_sheet.c - the French number format and the HTML roadmap
 * sheets: the seed's example line, the footer, escaping, well-formedness,
 * atomic saving. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, dirent */
#include "test_util.h"
#include "datum_tarot_io.h"

#include <dirent.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

static void check_fr(double v, int min_decimals, int max_decimals, const char *expect)
{
    char buf[DATUM_FR_NUMBER_SIZE];
    assert_int_equal(datum_format_fr(v, min_decimals, max_decimals, buf, sizeof buf), DATUM_OK);
    assert_string_equal(buf, expect);
}

static void test_french_numbers(void **state)
{
    check_fr(62.22, 2, 2, "62,22");
    check_fr(50, 2, 2, "50,00");
    check_fr(-0.47, 2, 2, "-0,47");
    check_fr(-160.22, 2, 2, "-160,22");
    check_fr(1250, 2, 2, "1250,00");     /* no digit grouping */
    check_fr(4.2, 2, 3, "4,20");         /* the seed's bonus 4,2 */
    check_fr(29.4, 2, 3, "29,40");
    check_fr(15.318, 2, 3, "15,318");
    check_fr(100.0 / 3, 2, 2, "33,33");
    check_fr(-0.0, 2, 2, "0,00");        /* never "-0,00" */
    check_fr(-0.001, 2, 2, "0,00");
    check_fr(-0.004, 2, 3, "-0,004");
    check_fr(7, 0, 0, "7");
    check_fr(7.25, 0, 2, "7,25");
    check_fr(7.5, 0, 3, "7,5");
    check_fr(NAN, 2, 2, "");
    check_fr(INFINITY, 2, 2, "");
}

static void test_french_numbers_limits(void **state)
{
    char buf[DATUM_FR_NUMBER_SIZE];
    /* The largest finite doubles fit the documented buffer. */
    assert_int_equal(datum_format_fr(-1.7976931348623157e308, 9, 9, buf, sizeof buf), DATUM_OK);
    assert_int_equal(buf[0], '-');
    assert_non_null(strchr(buf, ','));
    char small[6] = "xxxxx";
    assert_int_equal(datum_format_fr(62.22, 2, 2, small, 5), DATUM_E_ARG);
    assert_string_equal(small, "");
    assert_int_equal(datum_format_fr(62.22, 2, 2, small, 6), DATUM_OK); /* "62,22" + NUL */
    assert_string_equal(small, "62,22");
    assert_int_equal(datum_format_fr(1, 3, 2, buf, sizeof buf), DATUM_E_ARG);
    assert_int_equal(datum_format_fr(1, 0, 10, buf, sizeof buf), DATUM_E_ARG);
    assert_int_equal(datum_format_fr(1, -1, 2, buf, sizeof buf), DATUM_E_ARG);
}

/* ------------------------------------------------------------------------ */
/* Reading back what the writer wrote. */

static char *write_to_string(const datum_tarot_sheet *sheet)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(datum_tarot_sheet_write(ctx, sheet, f), DATUM_OK);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    datum_ctx_free(&ctx);
    return text;
}

/* 1 if the elements of html nest properly: every start tag but the void
 * ones closed in order, nothing closed that was not open. */
static int tags_balance(const char *html)
{
    static const char *const kVoid[] = {"meta", "br", "link", "img", "hr", "input", "col"};
    char stack[64][16];
    int depth = 0;
    for (const char *p = strchr(html, '<'); p; p = strchr(p + 1, '<')) {
        if (p[1] == '!') continue; /* doctype */
        int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t len = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789");
        if (len == 0 || len >= 16) return 0;
        if (closing) {
            if (depth == 0 || strlen(stack[depth - 1]) != len ||
                strncmp(stack[depth - 1], name, len) != 0)
                return 0;
            depth--;
            continue;
        }
        int is_void = 0;
        for (size_t v = 0; v < sizeof kVoid / sizeof *kVoid; v++)
            is_void |= strlen(kVoid[v]) == len && strncmp(kVoid[v], name, len) == 0;
        if (is_void) continue;
        if (depth == 64) return 0;
        memcpy(stack[depth], name, len);
        stack[depth++][len] = '\0';
    }
    return depth == 0;
}

/* The texts of the cells of the first body row of the étuis table, joined
 * with '|'. */
static void first_row_cells(const char *html, char *out, size_t size)
{
    const char *p = strstr(html, "<table class=\"etuis\">");
    assert_non_null(p);
    p = strstr(p, "<tbody>");
    assert_non_null(p);
    const char *end = strstr(p, "</tr>");
    assert_non_null(end);
    out[0] = '\0';
    for (p = strstr(p, "<td"); p && p < end; p = strstr(p, "<td")) {
        const char *text = strchr(p, '>') + 1, *stop = strstr(text, "</td>");
        if (out[0]) strncat(out, "|", size - strlen(out) - 1);
        strncat(out, text, (size_t)(stop - text) < size - strlen(out) - 1
                               ? (size_t)(stop - text) : size - strlen(out) - 1);
        p = stop;
    }
}

static void assert_contains_all(const char *html, const char *const *what, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strstr(html, what[i])) fail_msg("the sheet lacks %s", what[i]);
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

/* The seed's example sheet: the defense at position 1 of étui n°1, scored
 * by the engine. */
static datum_tarot_sheet seed_defense_sheet(datum_tarot_sheet_line *line)
{
    static const int32_t scores[11] = {62, 60, 66, 66, 74, 64, 58, 54, 56, 86, -98};
    datum_tarot_options opt = DATUM_TAROT_OPTIONS_INIT;
    int32_t work[11];
    datum_tarot_etui etui;
    datum_tarot_line l[11];
    assert_int_equal(datum_tarot_score_etui(&opt, scores, 11, work, &etui, l), DATUM_OK);
    *line = (datum_tarot_sheet_line){1, "G", "EXEMPLE Juste", scores[0], etui.n_positive,
                                     etui.n_negative, etui.reference, l[0].pm_defense,
                                     l[0].pct_defense, l[0].reg_defense};
    datum_tarot_sheet s = {DATUM_TAROT_DEFENSE, "Tournoi de Paris", "2024-05-12", "7",
                           "Dupont & <Fils> \"L'As\", Martin, Petit", "1K, 1T, 2T", line, 1,
                           {.etuis = 1, .pm = 0.47, .regularity = 1, .bonus = 15.318,
                            .penalties = 2, .total = 14.788, .rank = 3},
                           24};
    return s;
}

static void test_seed_line_and_footer(void **state)
{
    datum_tarot_sheet_line line;
    datum_tarot_sheet s = seed_defense_sheet(&line);
    char *html = write_to_string(&s);
    char cells[512];
    first_row_cells(html, cells, sizeof cells);
    /* The seed: 1 G EXEMPLE Juste 62 10 1 62,22 0,47 50,00% 1,00 */
    assert_string_equal(cells, "1|G|EXEMPLE Juste|62|10|1|62,22|0,47|50,00%|1,00");
    static const char *const expected[] = {
        /* the seed's columns, a defense's sheet */
        "<th>Etui</th>", "<th>Contrat</th>", "<th>Attaquant adverse</th>",
        "<th>Votre score</th>", "<th>Notes positives</th>", "<th>Notes négatives</th>",
        "<th>Note de référence</th>", "<th>PM obtenus</th>",
        "<th>Pourcentage sur l'étui</th>", "<th>Régularité en PM</th>",
        /* the footer */
        "<th>Total des PM obtenus</th><td>0,47</td>",
        "<th>Primes de régularité</th><td>1,00</td>",
        "<th>Bonus de départ</th><td>15,318</td>",
        "<th>Pénalités (ou compensations)</th><td>-2,00</td>",
        "<th>Total général</th><td>14,788</td>", "<td>3 sur 24</td>",
        /* French, printable on A4 */
        "<html lang=\"fr\">", "@page { size: A4"};
    assert_contains_all(html, expected, sizeof expected / sizeof *expected);
    assert_null(strstr(html, "Défense adverse"));
    assert_true(tags_balance(html));
    free(html);
}

static void test_names_are_escaped(void **state)
{
    datum_tarot_sheet_line line;
    datum_tarot_sheet s = seed_defense_sheet(&line);
    line.opponent = "<script>alert('x')</script>";
    s.event = "A&B";
    char *html = write_to_string(&s);
    static const char *const expected[] = {
        "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;",
        "Dupont &amp; &lt;Fils&gt; &quot;L&#39;As&quot;, Martin", "<td>A&amp;B</td>"};
    assert_contains_all(html, expected, sizeof expected / sizeof *expected);
    assert_null(strstr(html, "<script>"));
    assert_null(strstr(html, "<Fils>"));
    assert_true(tags_balance(html));
    free(html);
}

static void test_attacker_sheet_of_many_etuis(void **state)
{
    datum_tarot_sheet_line lines[34];
    for (int i = 0; i < 34; i++)
        lines[i] = (datum_tarot_sheet_line){i + 1, i % 3 ? "G" : "GC", "Défense 12", 40 - 5 * i,
                                            8, 3, -12.5, -1.23 * (i - 17), 100.0 / 3, 0};
    datum_tarot_sheet s = {DATUM_TAROT_ATTACK, NULL, NULL, "12", "Durand", "NC", lines, 34,
                           {.rank = 0}, 0};
    char *html = write_to_string(&s);
    assert_non_null(strstr(html, "<th>Défense adverse</th>"));
    assert_null(strstr(html, "Attaquant adverse"));
    assert_null(strstr(html, ">Tournoi<")); /* NULL fields leave no row */
    assert_non_null(strstr(html, "<td>non classé</td>"));
    assert_non_null(strstr(html, ">-12,50<"));
    assert_non_null(strstr(html, ">33,33%<"));
    assert_non_null(strstr(html, ">20,91<"));  /* -1.23 x -17 */
    assert_non_null(strstr(html, ">-19,68<")); /* -1.23 x 16 */
    /* Rows without a class: the head, 34 étuis, 4 footer rows (total and
     * rank have one) and 3 identity rows (event and date are NULL). */
    assert_int_equal(count(html, "<tr>"), 1 + 34 + 4 + 3);
    assert_int_equal(count(html, "<td class=\"num\">"), 34 * 8);
    assert_true(tags_balance(html));
    free(html);
}

static void test_invalid_sheet(void **state)
{
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    datum_tarot_sheet s = {.side = (datum_tarot_side)2};
    FILE *f = tmpfile();
    assert_int_equal(datum_tarot_sheet_write(ctx, &s, f), DATUM_E_ARG);
    datum_ctx_clear(ctx);
    s.side = DATUM_TAROT_ATTACK;
    s.n_lines = 1;
    assert_int_equal(datum_tarot_sheet_write(ctx, &s, f), DATUM_E_ARG);
    fclose(f);
    datum_ctx_free(&ctx);
}

/* Number of entries of dir whose name contains what. */
static int entries_with(const char *dir, const char *what)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) n += strstr(e->d_name, what) != NULL;
    closedir(d);
    return n;
}

static void test_save_is_atomic(void **state)
{
    char dir[] = "/tmp/datum-sheet-XXXXXX", path[64], missing[96];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/defense-7.html", dir);
    snprintf(missing, sizeof missing, "%s/no/such/dir/x.html", dir);
    datum_tarot_sheet_line line;
    datum_tarot_sheet s = seed_defense_sheet(&line);
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);

    assert_int_equal(datum_tarot_sheet_save(ctx, &s, path), DATUM_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char head[16] = {0};
    assert_int_equal(fread(head, 1, 15, f), 15);
    fclose(f);
    assert_string_equal(head, "<!DOCTYPE html>");
    assert_int_equal(entries_with(dir, ".tmp-"), 0);

    assert_int_equal(datum_tarot_sheet_save(ctx, &s, missing), DATUM_E_IO);
    assert_non_null(strstr(datum_ctx_message(ctx), "no/such/dir/x.html"));
    datum_ctx_clear(ctx);
    s.side = (datum_tarot_side)5; /* fails after the temporary file exists */
    assert_int_equal(datum_tarot_sheet_save(ctx, &s, path), DATUM_E_ARG);
    assert_int_equal(entries_with(dir, ".tmp-"), 0);
    assert_int_equal(entries_with(dir, "defense-7.html"), 1); /* the old one stays */

    datum_ctx_free(&ctx);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void check_name(const char *prefix, const char *id, const char *suffix, const char *want)
{
    char buf[256];
    assert_int_equal(datum_tarot_file_name(prefix, id, suffix, buf, sizeof buf), DATUM_OK);
    assert_string_equal(buf, want);
}

static void test_file_names(void **state)
{
    check_name("attaque-", "7", ".html", "attaque-7.html");
    check_name("defense-", "D-12", ".html", "defense-D-12.html");
    check_name("attaque-", "MARTIN Léa", ".html", "attaque-MARTIN_L~C3~A9a.html");
    /* One to one: '_' and '~' are escaped, so no two identifiers meet. */
    check_name("", "a b", "", "a_b");
    check_name("", "a_b", "", "a~5Fb");
    check_name("", "a~20b", "", "a~7E20b");
    check_name("", "../x/.y", "", "~2E~2E~2Fx~2F~2Ey");
    check_name("", "", ".html", ".html");
    char buf[256], id[80];
    memset(id, '/', sizeof id - 1);
    id[sizeof id - 1] = '\0';
    assert_int_equal(datum_tarot_file_name("", id, "", buf, sizeof buf), DATUM_E_ARG); /* 237 */
    assert_string_equal(buf, "");
    assert_int_equal(datum_tarot_file_name("a-", "12", ".html", buf, 9), DATUM_E_ARG);
    assert_int_equal(datum_tarot_file_name("a-", "12", ".html", buf, 10), DATUM_OK);
}

static void test_index(void **state)
{
    datum_tarot_index_entry attack[2] = {{"attaque-A.html", "A&B", NULL, 4, 12.345, 1},
                                         {"attaque-C.html", "C", "", 4, -1.5, 0}};
    datum_tarot_index_entry defense[1] = {{"x/defense-1.html", "1", "Dupont, <Martin>", 3, 7, 1}};
    datum_tarot_index_event ev = {"Tournoi \"d'été\"", "14/03/2026", attack, defense, 2, 1};
    datum_ctx *ctx;
    assert_int_equal(datum_ctx_create(&ctx), DATUM_OK);
    FILE *f = tmpfile();
    assert_int_equal(datum_tarot_index_write(ctx, &ev, 1, f), DATUM_OK);
    long n = ftell(f);
    rewind(f);
    char *html = calloc((size_t)n + 1, 1);
    assert_int_equal(fread(html, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    static const char *const expected[] = {
        "<html lang=\"fr\">", "Tournoi &quot;d&#39;été&quot; – 14/03/2026",
        "<h3>Classement Attaque</h3>", "<h3>Classement Défense</h3>",
        "<a href=\"attaque-A.html\">A&amp;B</a></td><td class=\"num\">4</td>"
        "<td class=\"num\">12,345</td>",
        "<td class=\"num\">non classé</td>", ">-1,50<",
        "<a href=\"x/defense-1.html\">1</a> – Dupont, &lt;Martin&gt;"};
    assert_contains_all(html, expected, sizeof expected / sizeof *expected);
    assert_true(tags_balance(html));
    free(html);
    ev.attack = NULL;
    f = tmpfile();
    assert_int_equal(datum_tarot_index_write(ctx, &ev, 1, f), DATUM_E_ARG);
    fclose(f);
    datum_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_french_numbers),
        cmocka_unit_test(test_french_numbers_limits),
        cmocka_unit_test(test_seed_line_and_footer),
        cmocka_unit_test(test_names_are_escaped),
        cmocka_unit_test(test_attacker_sheet_of_many_etuis),
        cmocka_unit_test(test_invalid_sheet),
        cmocka_unit_test(test_save_is_atomic),
        cmocka_unit_test(test_file_names),
        cmocka_unit_test(test_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
