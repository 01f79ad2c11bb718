/* cli.h - the `datum` program's internal interface: option parsing, the
 * method options shared by scoring commands, exit codes and progress. */
#ifndef DATUM_CLI_H
#define DATUM_CLI_H

#include "datum.h"
#include "datum_io.h"
#include "datum_compare.h"
#include "datum_jobs.h"
#include "datum_rate.h"
#include "datum_text.h"

#include <stdio.h>

/* Exit codes (docs/cli.md). */
enum { EXIT_OK = 0, EXIT_FAILURE_RUN = 1, EXIT_BAD_INPUT = 2 };

/* ------------------------------------------------------------------------ */
/* Option parsing: a table of long options, each with a handler.            */

typedef struct cli_parser cli_parser;

/* Handles one option; value is NULL for a flag. Returns 0, or reports with
 * cli_usage_error and returns -1. */
typedef int (*cli_handler)(cli_parser *p, const char *value, void *target);

typedef struct {
    const char *name;  /* "--datum" or "-o" */
    int takes_value;
    cli_handler handle;
    void *target;
} cli_option;

struct cli_parser {
    const char *command;    /* "score", for messages */
    const char **positional; /* collected positional arguments */
    int n_positional;
};

/* Parses argv[1..argc) against options; positional arguments are collected
 * in p (p->positional points into a buffer owned by the caller of size argc).
 * "--help"/"-h" prints help_text and returns 1; errors return -1 (message
 * printed); success returns 0. */
int cli_parse(cli_parser *p, int argc, char **argv, const cli_option *options, size_t n_options,
              const char *help_text);

/* Prints "datum COMMAND: message (see datum COMMAND --help)" on stderr. */
int cli_usage_error(const cli_parser *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Handlers for common value types. */
int cli_set_flag(cli_parser *p, const char *value, void *target);   /* int = 1 */
/* Parses "PLUS,AVERAGE,MINUS" (three numbers in [lo, hi]) into v; 0, or -1
 * after a usage error naming option. */
int cli_parse_triple(cli_parser *p, const char *option, const char *text, double lo, double hi,
                     double v[3]);
/* SIZE: a positive decimal number of bytes, with an optional K, M, G or T
 * (either case; powers of 1024) into *bytes: 0, or -1 (nothing written). */
int cli_parse_size(const char *text, double *bytes);
int cli_set_string(cli_parser *p, const char *value, void *target); /* const char * */
int cli_set_threads(cli_parser *p, const char *value, void *target);/* int 1..1024 */
int cli_set_deflate(cli_parser *p, const char *value, void *target);/* --deflate: int 1..9 */
/* --memory SIZE (cli_parse_size) into a size_t, at least DATUM_IMPORT_MEMORY_MIN. */
int cli_set_memory(cli_parser *p, const char *value, void *target);

/* An int option whose value must be in [lo, hi]: the target of
 * cli_set_bounded_int, so that one handler serves all of them. */
typedef struct {
    int *value;
    long lo, hi;
    const char *name; /* "--boards", for the message */
} cli_bounded_int;
int cli_set_bounded_int(cli_parser *p, const char *value, void *target);
/* A whole number 0..2^64-1 (a count, a seed) into *value. */
typedef struct {
    uint64_t *value;
    const char *name; /* "--seed", for the message */
} cli_u64;
int cli_set_u64(cli_parser *p, const char *value, void *target);
/* The date text (YYYY-MM-DD, datum_parse_date) of option into *day: 0, or
 * -1 after a usage error naming option. */
int cli_parse_day(cli_parser *p, const char *option, const char *text, int32_t *day);

/* ------------------------------------------------------------------------ */
/* The method options of scoring commands.                                  */

typedef struct {
    datum_method method;
    const char *preset;   /* --datum */
    const char *scale;    /* --scale */
    /* Recipe overrides, applied after the preset (NULL / -1 = preset's). */
    const char *trim, *trim_round, *center, *round;
    int trim_min, small_max, middle_weight, round_unit;
    const char *adjusted_imps, *divisor;
    int doubled, halved;
    int across_sections; /* --across-sections (score, cross, barking, rate) */
} cli_method_options;

void cli_method_defaults(cli_method_options *o, const char *preset);
/* Appends the method options to a table; returns the new count. */
size_t cli_method_option_table(cli_method_options *o, cli_option *table, size_t n,
                               int with_datum, int with_divisor);
/* Builds o->method from the parsed options. Returns 0 or -1 (printed). */
int cli_method_resolve(cli_parser *p, cli_method_options *o);
/* --across-sections: its table entry (setting o->across_sections), its help
 * text, and what it did, printed on stderr after the run: the fields read
 * and scored (datum_across_counts), and a note when the archive does not
 * record which sections share a deal. */
cli_option cli_across_option(cli_method_options *o);
#define CLI_ACROSS_HELP                                                                             \
    "  --across-sections     score each board across the sections of its event\n"                 \
    "                        that played the same deal (docs/methods.md)\n"
void cli_across_report(const char *command, const datum_archive *a, const char *archive_path,
                       uint64_t fields_read, uint64_t fields_scored);

/* The options of matchpoints (datum matchpoints, and compare's mp method). */
typedef struct {
    datum_mp_method mp; /* built by cli_mp_resolve */
    const char *top, *adjusted, *neuberg_to;
    int neuberg, no_neuberg;
} cli_mp_options;
/* Appends --top, --neuberg, --no-neuberg, --adjusted and --neuberg-to to a
 * table (o zeroed first); returns the new count. */
size_t cli_mp_option_table(cli_mp_options *o, cli_option *table, size_t n);
/* Builds o->mp from the parsed options. Returns 0 or -1 (printed). */
int cli_mp_resolve(cli_parser *p, cli_mp_options *o);

/* A method of datum compare, NAME[:OPTION]...: NAME is a datum rule (mean,
 * nbb, bastille, par, acbl, bridgewx: Butler), cross, barking, mp or rate;
 * each OPTION is a scale (wbf, linear), a flag (double, half, neuberg,
 * no-neuberg) or KEY=VALUE, an option --KEY of the score, cross, barking or
 * matchpoints command (rate: score's, and datum=RULE), parsed by the same
 * handlers. Fills *out (name: the spec). Returns 0, or -1 after a usage
 * error naming the spec. */
int cli_method_spec(cli_parser *p, const char *spec, datum_compare_method *out);

/* Key/value description of the method for output file attributes. The
 * strings live in o's buffers until the next call. Returns the count. */
size_t cli_method_describe(const cli_method_options *o, const char **keys, const char **values,
                           char buffers[][96], size_t max);

/* ------------------------------------------------------------------------ */

/* Maps a library return code to an exit code and prints the context's
 * message "datum: MESSAGE" on stderr. */
int cli_fail(datum_ctx *ctx, int code);

/* Runs fn(ctx, archive, job) with a new context of `threads` threads and
 * returns the exit code (an error printed by cli_fail). */
typedef int (*cli_job_fn)(datum_ctx *ctx, const char *archive, void *job);
int cli_run_job(int threads, cli_job_fn fn, const char *archive, void *job);

/* The program's hooks: `datum` runs everything in one process (main.c);
 * datum-mpi on every process of an MPI job (mpi/), each with a slice of the
 * archive. */

/* Runs a scoring pass: datum_pass_run in `datum`; in datum-mpi every
 * process runs its slice of the archive and the pair totals are carried
 * from slice to slice in archive order (mpi/pass_mpi.c). Returns as
 * datum_pass_run. */
int cli_pass_run(datum_ctx *ctx, datum_pass *pass);
/* The fields this process reads: [*first, *end), whole events when
 * whole_events. `datum`: all of them. datum-mpi: its slice (collective).
 * DATUM_OK or an error recorded in ctx. */
int cli_slice(datum_ctx *ctx, const datum_archive *a, int whole_events, uint64_t *first,
              uint64_t *end);
/* Solves the ratings: datum_rate_solve in `datum`; in datum-mpi the
 * problems of every process's slice summed and solved on PETSc, the result
 * on every process (mpi/rate_petsc.c). Returns as datum_rate_solve. */
int cli_rate_solve(datum_ctx *ctx, datum_rate_problem *p, const datum_rate_options *opt,
                   datum_rate_result **out);
/* What the whole archive kept for the ratings: `datum`, s as it is;
 * datum-mpi, the slices' counts summed, their dates' range (collective;
 * layouts can count up to P - 1 more than one process would: equal layouts
 * on both sides of a slice boundary are not merged). DATUM_OK. */
int cli_rate_summary(datum_ctx *ctx, datum_rate_summary *s);
/* The thread count of a command without --threads: `datum`, every
 * processor it may use (datum_available_threads); datum-mpi, 1 per process
 * (the processes already fill the cores). */
int cli_default_threads(void);
/* 1 when this process writes the text files of a command (CSV, reports):
 * always in `datum`, rank 0 in datum-mpi. */
int cli_writes_files(void);

/* Creates the HDF5 output of `command` run on the archive at archive_path
 * (a), its root attributes describing the method mo and the archive. */
int cli_output_create(datum_ctx *ctx, const char *path, const datum_archive *a,
                      const char *archive_path, const char *command,
                      const cli_method_options *mo, datum_output **out);

/* The HDF5 root attributes of a command's output: the method mo's
 * description and "archive" = archive_path. */
typedef struct {
    const char *keys[32], *values[32];
    char buffers[32][96];
    size_t n;
} cli_output_attrs;
/* Fills *attrs and returns outputs of a pass with those attributes and no
 * file yet (the strings live in *attrs and archive_path). */
datum_pass_outputs cli_pass_outputs(cli_output_attrs *attrs, const cli_method_options *mo,
                                    const char *archive_path);

/* --compare-published (published.c): prints on out "published: N of M lines
 * agree (tolerance T)" (North-South), the first disagreements (event,
 * section, board, table, published, computed) of archive a, "published:
 * East-West: N of M lines agree" when EW figures were published, and a note
 * for lines that publish another method's figures (docs/cli.md). */
void cli_published_report(const datum_published_summary *s, const datum_archive *a, FILE *out);

/* A progress line on stderr, shown only when stderr is a terminal and the
 * job has run for more than a second. */
typedef struct {
    const char *label;
    double start;
    int shown;
} cli_progress;

void cli_progress_start(cli_progress *p, datum_ctx *ctx, const char *label);
void cli_progress_finish(cli_progress *p);
double cli_now(void);

/* Commands. */
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_compact(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_matchpoints(int argc, char **argv);
int cmd_cross(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_barking(int argc, char **argv);
int cmd_teams(int argc, char **argv);
int cmd_tarot(int argc, char **argv);
int cmd_rate(int argc, char **argv);
int cmd_compare(int argc, char **argv);

#endif
