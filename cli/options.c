/* options.c - option parsing, the method options, exit codes and progress. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <float.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cli_usage_error(const cli_parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "datum %s: ", p->command);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'datum %s --help')\n", p->command);
    va_end(ap);
    return -1;
}

int cli_parse(cli_parser *p, int argc, char **argv, const cli_option *options, size_t n_options,
              const char *help_text)
{
    p->n_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(help_text, stdout);
            return 1;
        }
        if (arg[0] != '-' || strcmp(arg, "-") == 0) {
            p->positional[p->n_positional++] = arg;
            continue;
        }
        /* --name=value or --name value */
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        const cli_option *opt = NULL;
        for (size_t k = 0; k < n_options; k++)
            if (strlen(options[k].name) == len && strncmp(options[k].name, arg, len) == 0)
                opt = &options[k];
        if (!opt) return cli_usage_error(p, "unknown option %.*s", (int)len, arg);
        const char *value = NULL;
        if (opt->takes_value) {
            if (eq) value = eq + 1;
            else if (i + 1 < argc) value = argv[++i];
            else return cli_usage_error(p, "option %s needs a value", opt->name);
        } else if (eq) {
            return cli_usage_error(p, "option %s takes no value", opt->name);
        }
        if (opt->handle(p, value, opt->target) != 0) return -1;
    }
    return 0;
}

int cli_set_flag(cli_parser *p, const char *value, void *target)
{
    *(int *)target = 1;
    return 0;
}

int cli_set_string(cli_parser *p, const char *value, void *target)
{
    *(const char **)target = value;
    return 0;
}

int cli_set_threads(cli_parser *p, const char *value, void *target)
{
    int64_t v;
    if (datum_parse_int(value, strlen(value), 1, 1024, &v) != DATUM_PARSE_OK)
        return cli_usage_error(p, "--threads takes a whole number from 1 to 1024, not '%s'", value);
    *(int *)target = (int)v;
    return 0;
}

int cli_set_deflate(cli_parser *p, const char *value, void *target)
{
    int64_t v;
    if (datum_parse_int(value, strlen(value), 1, 9, &v) != DATUM_PARSE_OK)
        return cli_usage_error(p, "--deflate takes a level from 1 to 9, not '%s'", value);
    *(int *)target = (int)v;
    return 0;
}

int cli_set_memory(cli_parser *p, const char *value, void *target)
{
    double bytes;
    if (cli_parse_size(value, &bytes) != 0 || bytes < DATUM_IMPORT_MEMORY_MIN || bytes > 0x1p50)
        return cli_usage_error(p, "--memory takes a size of at least 64K (e.g. 256M, 4G), not '%s'",
                               value);
    *(size_t *)target = (size_t)bytes;
    return 0;
}

int cli_set_u64(cli_parser *p, const char *value, void *target)
{
    cli_u64 *u = target;
    if (datum_parse_uint(value, strlen(value), UINT64_MAX, u->value) != DATUM_PARSE_OK)
        return cli_usage_error(p, "%s takes a whole number from 0 to 2^64-1, not '%s'", u->name,
                               value);
    return 0;
}

int cli_set_bounded_int(cli_parser *p, const char *value, void *target)
{
    cli_bounded_int *b = target;
    int64_t v;
    if (datum_parse_int(value, strlen(value), b->lo, b->hi, &v) != DATUM_PARSE_OK)
        return cli_usage_error(p, "%s takes a whole number from %ld to %ld, not '%s'", b->name,
                               b->lo, b->hi, value);
    *b->value = (int)v;
    return 0;
}

int cli_parse_day(cli_parser *p, const char *option, const char *text, int32_t *day)
{
    if (datum_parse_date(text, strlen(text), DATUM_DATE_ISO, day) != DATUM_PARSE_OK)
        return cli_usage_error(p, "%s takes a date YYYY-MM-DD, not '%s'", option, text);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Method options                                                           */

void cli_method_defaults(cli_method_options *o, const char *preset)
{
    memset(o, 0, sizeof *o);
    o->preset = preset;
    o->scale = "wbf";
    o->trim_min = o->small_max = o->middle_weight = o->round_unit = -1;
}

size_t cli_method_option_table(cli_method_options *o, cli_option *t, size_t n, int with_datum,
                               int with_divisor)
{
    /* Bounds for the integer options (static: the table outlives this call). */
    static cli_bounded_int trim_min, small_max, middle_weight, round_unit;
    trim_min = (cli_bounded_int){&o->trim_min, 0, 1000000, "--trim-min"};
    small_max = (cli_bounded_int){&o->small_max, 0, 1000, "--small-max"};
    middle_weight = (cli_bounded_int){&o->middle_weight, 1, 1000, "--middle-weight"};
    round_unit = (cli_bounded_int){&o->round_unit, 1, 100000, "--round-unit"};
    t[n++] = (cli_option){"--scale", 1, cli_set_string, &o->scale};
    t[n++] = (cli_option){"--double", 0, cli_set_flag, &o->doubled};
    t[n++] = (cli_option){"--half", 0, cli_set_flag, &o->halved};
    if (with_datum) {
        t[n++] = (cli_option){"--datum", 1, cli_set_string, &o->preset};
        t[n++] = (cli_option){"--middle-weight", 1, cli_set_bounded_int, &middle_weight};
        t[n++] = (cli_option){"--trim", 1, cli_set_string, &o->trim};
        t[n++] = (cli_option){"--trim-round", 1, cli_set_string, &o->trim_round};
        t[n++] = (cli_option){"--trim-min", 1, cli_set_bounded_int, &trim_min};
        t[n++] = (cli_option){"--small-max", 1, cli_set_bounded_int, &small_max};
        t[n++] = (cli_option){"--center", 1, cli_set_string, &o->center};
        t[n++] = (cli_option){"--round", 1, cli_set_string, &o->round};
        t[n++] = (cli_option){"--round-unit", 1, cli_set_bounded_int, &round_unit};
        t[n++] = (cli_option){"--adjusted-imps", 1, cli_set_string, &o->adjusted_imps};
    }
    if (with_divisor) t[n++] = (cli_option){"--divisor", 1, cli_set_string, &o->divisor};
    return n;
}

/* Index of text in a NULL-terminated list of names, or -1. */
static int lookup(const char *text, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(text, names[i]) == 0) return i;
    return -1;
}

static const char *const kScales[] = {"wbf", "linear", NULL};
static const char *const kCenters[] = {"mean", "median-low", "median-high", "median", "par", NULL};
static const char *const kRoundings[] = {"none", "toward-zero", "away", "up", "even", "truncate",
                                          NULL};
static const char *const kPctRounds[] = {"ceil", "floor", "nearest", NULL};
static const char *const kDivisors[] = {"n-1", "n", "none", "tables", NULL};
_Static_assert(sizeof kDivisors / sizeof *kDivisors == DATUM_DIVISOR_TABLES_SCALED + 2,
               "kDivisors follows datum_divisor's order");

/* Parses --trim: none | tenth | K (a count) | P% (a percentage). */
static int parse_trim(cli_parser *p, const char *text, datum_rule *r)
{
    size_t len = strlen(text);
    int64_t k;
    if (strcmp(text, "none") == 0) {
        r->trim = DATUM_TRIM_NONE;
    } else if (strcmp(text, "tenth") == 0) {
        r->trim = DATUM_TRIM_TENTH;
    } else if (len > 1 && text[len - 1] == '%') {
        double pct;
        if (datum_parse_real(text, len - 1, 0, 50, &pct) != DATUM_PARSE_OK)
            return cli_usage_error(p, "--trim %s: the percentage must be from 0%% to 50%%", text);
        r->trim = DATUM_TRIM_PERCENT;
        r->trim_percent = pct;
    } else if (datum_parse_int(text, len, 0, 1000000, &k) == DATUM_PARSE_OK) {
        r->trim = DATUM_TRIM_FIXED;
        r->trim_count = (int)k;
    } else {
        return cli_usage_error(p, "--trim takes none, tenth, a count K or a percentage P%%, not '%s'",
                               text);
    }
    return 0;
}

int cli_parse_size(const char *text, double *bytes)
{
    static const char units[] = "KMGT";
    size_t len = strlen(text);
    const char *u = len > 1 ? strchr(units, text[len - 1] & ~0x20) : NULL; /* k = K */
    double v;
    if (u && *u) len--;
    else u = NULL;
    if (datum_parse_real(text, len, 0, DBL_MAX, &v) != DATUM_PARSE_OK || !(v > 0)) return -1;
    for (const char *k = units; u && k <= u; k++) v *= 1024;
    *bytes = v;
    return 0;
}

int cli_parse_triple(cli_parser *p, const char *option, const char *text, double lo, double hi,
                     double v[3])
{
    const char *s = text;
    for (int i = 0; i < 3; i++) {
        size_t n = strcspn(s, ",");
        if ((s[n] == ',') != (i < 2) || datum_parse_real(s, n, lo, hi, &v[i]) != DATUM_PARSE_OK)
            return cli_usage_error(p, "%s takes PLUS,AVERAGE,MINUS (three numbers from %g to %g), "
                                      "not '%s'", option, lo, hi, text);
        s += n + 1;
    }
    return 0;
}

/* Parses --adjusted-imps PLUS,AVERAGE,MINUS. */
static int parse_awards(cli_parser *p, const char *text, datum_adjusted_imps *a)
{
    double v[3];
    if (cli_parse_triple(p, "--adjusted-imps", text, -DBL_MAX, DBL_MAX, v)) return -1;
    *a = (datum_adjusted_imps){v[0], v[1], v[2]};
    return 0;
}

/* Looks up one named choice; reports the valid names on failure. */
static int choose(cli_parser *p, const char *option, const char *text, const char *const *names,
                  int *out)
{
    int i = lookup(text, names);
    if (i < 0) {
        char list[256] = "";
        for (int k = 0; names[k]; k++) {
            strcat(list, k ? ", " : "");
            strcat(list, names[k]);
        }
        return cli_usage_error(p, "%s takes one of %s, not '%s'", option, list, text);
    }
    *out = i;
    return 0;
}

int cli_method_resolve(cli_parser *p, cli_method_options *o)
{
    datum_method *m = &o->method;
    if (!o->preset) return cli_usage_error(p, "--datum is required (mean, nbb, bastille, par, acbl or bridgewx)");
    if (datum_method_init(m, o->preset) != DATUM_OK)
        return cli_usage_error(p, "unknown datum rule '%s' (mean, nbb, bastille, par, acbl, bridgewx)",
                               o->preset);
    int v;
    if (choose(p, "--scale", o->scale, kScales, &v)) return -1;
    m->scale.kind = (datum_scale_kind)v;
    m->scale.doubled = o->doubled;
    m->scale.halved = o->halved;
    datum_rule *r = &m->rule;
    if (o->trim && parse_trim(p, o->trim, r)) return -1;
    if (o->trim_round) {
        if (choose(p, "--trim-round", o->trim_round, kPctRounds, &v)) return -1;
        r->trim_percent_round = (datum_pct_round)v;
    }
    if (o->center) {
        if (choose(p, "--center", o->center, kCenters, &v)) return -1;
        r->center = (datum_center)v; /* kCenters follows datum_center's order */
    }
    if (o->round) {
        if (choose(p, "--round", o->round, kRoundings, &v)) return -1;
        r->rounding = (datum_rounding)v;
    }
    if (o->trim_min >= 0) r->trim_min_n = o->trim_min;
    if (o->small_max >= 0) r->small_max = o->small_max;
    if (o->middle_weight >= 0) r->middle_weight = o->middle_weight;
    if (o->round_unit >= 0) r->round_unit = o->round_unit;
    if (o->adjusted_imps && parse_awards(p, o->adjusted_imps, &m->award)) return -1;
    if (o->divisor) {
        if (choose(p, "--divisor", o->divisor, kDivisors, &v)) return -1;
        m->cross_divisor = (datum_divisor)v;
    }
    if (datum_rule_check(r) != DATUM_OK) return cli_usage_error(p, "inconsistent datum options");
    return 0;
}

size_t cli_mp_option_table(cli_mp_options *o, cli_option *t, size_t n)
{
    memset(o, 0, sizeof *o);
    t[n++] = (cli_option){"--top", 1, cli_set_string, &o->top};
    t[n++] = (cli_option){"--neuberg", 0, cli_set_flag, &o->neuberg};
    t[n++] = (cli_option){"--no-neuberg", 0, cli_set_flag, &o->no_neuberg};
    t[n++] = (cli_option){"--adjusted", 1, cli_set_string, &o->adjusted};
    t[n++] = (cli_option){"--neuberg-to", 1, cli_set_string, &o->neuberg_to};
    return n;
}

int cli_mp_resolve(cli_parser *p, cli_mp_options *o)
{
    datum_mp_method m = DATUM_MP_METHOD_INIT;
    if (o->top && strcmp(o->top, "2(n-1)") != 0 && strcmp(o->top, "2n-2") != 0) {
        if (strcmp(o->top, "n-1") != 0)
            return cli_usage_error(p, "--top takes 2(n-1) or n-1, not '%s'", o->top);
        m.half = 1;
    }
    if (o->neuberg && o->no_neuberg)
        return cli_usage_error(p, "--neuberg and --no-neuberg contradict each other");
    m.neuberg = !o->no_neuberg;
    if (o->neuberg_to && strcmp(o->neuberg_to, "event") != 0) {
        if (strcmp(o->neuberg_to, "field") != 0)
            return cli_usage_error(p, "--neuberg-to takes event or field, not '%s'", o->neuberg_to);
        m.neuberg_to_field = 1;
    }
    double v[3];
    if (o->adjusted) {
        if (cli_parse_triple(p, "--adjusted", o->adjusted, 0, 100, v)) return -1;
        m.award = (datum_mp_awards){v[0] / 100, v[1] / 100, v[2] / 100};
    }
    o->mp = m;
    return 0;
}

static const char *const kRules[] = {"mean", "nbb", "bastille", "par", "acbl", "bridgewx", NULL};

/* One OPTION of a spec (word, NUL-terminated, changed in place) against
 * the command's option table: a scale, a flag or KEY=VALUE. 0, or -1
 * (printed). */
static int spec_option(cli_parser *p, char *word, cli_method_options *mo, const cli_option *table,
                       size_t n)
{
    if (lookup(word, kScales) >= 0) {
        mo->scale = kScales[lookup(word, kScales)];
        return 0;
    }
    char *eq = strchr(word, '=');
    if (eq) *eq = '\0';
    char name[136];
    snprintf(name, sizeof name, "--%s", word);
    for (size_t k = 0; k < n; k++) {
        if (strcmp(table[k].name, name) != 0) continue;
        if (table[k].takes_value && !eq) return cli_usage_error(p, "%s needs a value: %s=VALUE", word, word);
        if (!table[k].takes_value && eq) return cli_usage_error(p, "%s takes no value", word);
        return table[k].handle(p, eq ? eq + 1 : NULL, table[k].target);
    }
    return cli_usage_error(p, "unknown option '%s'", word);
}

int cli_method_spec(cli_parser *p, const char *spec, datum_compare_method *out)
{
    static const char *const kOthers[] = {"cross", "barking", "mp", "rate", NULL};
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", spec);
    size_t len = strcspn(spec, ":");
    char name[32];
    if (len == 0 || len >= sizeof name)
        return cli_usage_error(p, "--method '%s': a method name comes first (a datum rule: mean, "
                                  "nbb, bastille, par, acbl, bridgewx; or cross, barking, mp, rate)",
                               spec);
    memcpy(name, spec, len);
    name[len] = '\0';
    int rule = lookup(name, kRules), other = lookup(name, kOthers);
    if (rule < 0 && other < 0)
        return cli_usage_error(p, "--method '%s': unknown method '%s' (a datum rule: mean, nbb, "
                                  "bastille, par, acbl, bridgewx; or cross, barking, mp, rate)",
                               spec, name);
    out->kind = rule >= 0 ? DATUM_COMPARE_BUTLER
                : other == 0 ? DATUM_COMPARE_CROSS
                : other == 1 ? DATUM_COMPARE_BARKING
                : other == 2 ? DATUM_COMPARE_MATCHPOINTS
                             : DATUM_COMPARE_RATE;
    cli_method_options mo;
    cli_mp_options mpo;
    cli_method_defaults(&mo, rule >= 0 ? kRules[rule] : "mean");
    cli_option table[32];
    size_t n = 0;
    if (out->kind == DATUM_COMPARE_MATCHPOINTS) {
        n = cli_mp_option_table(&mpo, table, 0);
    } else {
        n = cli_method_option_table(&mo, table, 0, out->kind == DATUM_COMPARE_BUTLER ||
                                                       out->kind == DATUM_COMPARE_RATE,
                                    out->kind == DATUM_COMPARE_CROSS);
        if (out->kind == DATUM_COMPARE_BUTLER) /* the rule is the name */
            for (size_t k = 0; k < n; k++)
                if (strcmp(table[k].name, "--datum") == 0) table[k--] = table[--n];
    }
    /* The options, NUL-terminated in a copy that outlives their resolving. */
    char copy[256];
    if (strlen(spec) >= sizeof copy) return cli_usage_error(p, "--method '%.40s...': too long", spec);
    memcpy(copy, spec, strlen(spec) + 1);
    for (char *word = copy[len] ? copy + len + 1 : NULL, *next; word; word = next) {
        size_t l = strcspn(word, ":");
        next = word[l] ? word + l + 1 : NULL;
        word[l] = '\0'; /* the handlers keep pointers into copy */
        if (l == 0 || spec_option(p, word, &mo, table, n) != 0) {
            if (l == 0) cli_usage_error(p, "an empty option");
            return cli_usage_error(p, "in --method '%s'", spec);
        }
    }
    if (out->kind == DATUM_COMPARE_MATCHPOINTS) {
        if (cli_mp_resolve(p, &mpo) != 0) return cli_usage_error(p, "in --method '%s'", spec);
        out->mp = mpo.mp;
        return 0;
    }
    if (cli_method_resolve(p, &mo) != 0) return cli_usage_error(p, "in --method '%s'", spec);
    if (out->kind == DATUM_COMPARE_BARKING && mo.method.scale.kind != DATUM_SCALE_WBF)
        return cli_usage_error(p, "--method '%s': barking is defined on the wbf scale only", spec);
    out->m = mo.method;
    return 0;
}

size_t cli_method_describe(const cli_method_options *o, const char **keys, const char **values,
                           char buf[][96], size_t max)
{
    const datum_method *m = &o->method;
    const datum_rule *r = &m->rule;
    static const char *const kTrims[] = {"none", "fixed", "tenth", "percent"};
    size_t n = 0;
#define PUT(key, ...) \
    do { if (n < max) { keys[n] = key; snprintf(buf[n], 96, __VA_ARGS__); values[n] = buf[n]; n++; } } while (0)
    PUT("datum", "%s", o->preset);
    PUT("scale", "%s", kScales[m->scale.kind]);
    PUT("double", "%d", m->scale.doubled);
    PUT("half", "%d", m->scale.halved);
    PUT("center", "%s", kCenters[r->center]);
    PUT("trim", "%s", kTrims[r->trim]);
    PUT("trim_count", "%d", r->trim_count);
    PUT("trim_percent", "%.17g", r->trim_percent);
    PUT("trim_round", "%s", kPctRounds[r->trim_percent_round]);
    PUT("trim_min", "%d", r->trim_min_n);
    PUT("small_max", "%d", r->small_max);
    PUT("middle_weight", "%d", r->middle_weight);
    PUT("round", "%s", kRoundings[r->rounding]);
    PUT("round_unit", "%d", r->round_unit);
    PUT("adjusted_imps", "%.17g,%.17g,%.17g", m->award.plus, m->award.average, m->award.minus);
    PUT("divisor", "%s", kDivisors[m->cross_divisor]);
    if (o->across_sections) PUT("across_sections", "yes");
#undef PUT
    return n;
}

cli_option cli_across_option(cli_method_options *o)
{
    return (cli_option){"--across-sections", 0, cli_set_flag, &o->across_sections};
}

void cli_across_report(const char *command, const datum_archive *a, const char *archive_path,
                       uint64_t fields_read, uint64_t fields_scored)
{
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    fprintf(stderr, "datum %s: across sections: %llu board fields scored as %llu\n", command,
            (unsigned long long)fields_read, (unsigned long long)fields_scored);
    if (!info.has_deal_sets)
        fprintf(stderr,
                "datum %s: note: %s does not record which sections played the same deals (a CSV "
                "import): every section of an event is taken to have played the same boards\n",
                command, archive_path);
}

/* ------------------------------------------------------------------------ */

datum_pass_outputs cli_pass_outputs(cli_output_attrs *attrs, const cli_method_options *mo,
                                    const char *archive_path)
{
    attrs->n = cli_method_describe(mo, attrs->keys, attrs->values, attrs->buffers, 31);
    attrs->keys[attrs->n] = "archive";
    attrs->values[attrs->n++] = archive_path;
    return (datum_pass_outputs){
        .attr_keys = attrs->keys, .attr_values = attrs->values, .n_attrs = attrs->n};
}

int cli_output_create(datum_ctx *ctx, const char *path, const datum_archive *a,
                      const char *archive_path, const char *command,
                      const cli_method_options *mo, datum_output **out)
{
    cli_output_attrs attrs;
    cli_pass_outputs(&attrs, mo, archive_path);
    datum_write_options wo = DATUM_WRITE_OPTIONS_INIT;
    return datum_output_create(ctx, path, a, command, attrs.keys, attrs.values, attrs.n, &wo, out);
}

int cli_run_job(int threads, cli_job_fn fn, const char *archive, void *job)
{
    datum_ctx *ctx;
    if (datum_ctx_create(&ctx) != DATUM_OK) return EXIT_FAILURE_RUN;
    int rc = datum_ctx_set_threads(ctx, threads);
    if (rc == DATUM_OK) rc = fn(ctx, archive, job);
    int status = rc < 0 ? cli_fail(ctx, rc) : EXIT_OK;
    datum_ctx_free(&ctx);
    return status;
}

int cli_fail(datum_ctx *ctx, int code)
{
    const char *msg = datum_ctx_message(ctx);
    fprintf(stderr, "datum: %s\n", msg[0] ? msg : datum_strerror(code));
    switch (code) {
    case DATUM_E_ARG:
    case DATUM_E_INPUT:
    case DATUM_E_FORMAT: return EXIT_BAD_INPUT;
    default: return EXIT_FAILURE_RUN;
    }
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void show_progress(void *user, uint64_t done, uint64_t total)
{
    cli_progress *p = user;
    double elapsed = cli_now() - p->start;
    if (elapsed < 1.0) return;
    p->shown = 1;
    fprintf(stderr, "\r%s: %5.1f%% (%llu of %llu) %.0f s", p->label,
            total ? 100.0 * (double)done / (double)total : 100.0, (unsigned long long)done,
            (unsigned long long)total, elapsed);
    fflush(stderr);
}

void cli_progress_start(cli_progress *p, datum_ctx *ctx, const char *label)
{
    *p = (cli_progress){label, cli_now(), 0};
    if (isatty(STDERR_FILENO)) datum_ctx_set_progress(ctx, show_progress, p);
}

void cli_progress_finish(cli_progress *p)
{
    if (p->shown) fputc('\n', stderr);
}
