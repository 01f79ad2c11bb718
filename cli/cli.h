/* cli.h - the `datum` program's internal interface: option parsing, the
 * method options shared by scoring commands, exit codes and progress. */
#ifndef DATUM_CLI_H
#define DATUM_CLI_H

#include "datum.h"
#include "datum_io.h"
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
int cli_set_string(cli_parser *p, const char *value, void *target); /* const char * */
int cli_set_threads(cli_parser *p, const char *value, void *target);/* int 1..1024 */

/* An int option whose value must be in [lo, hi]: the target of
 * cli_set_bounded_int, so that one handler serves all of them. */
typedef struct {
    int *value;
    long lo, hi;
    const char *name; /* "--boards", for the message */
} cli_bounded_int;
int cli_set_bounded_int(cli_parser *p, const char *value, void *target);

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
} cli_method_options;

void cli_method_defaults(cli_method_options *o, const char *preset);
/* Appends the method options to a table; returns the new count. */
size_t cli_method_option_table(cli_method_options *o, cli_option *table, size_t n,
                               int with_datum, int with_divisor);
/* Builds o->method from the parsed options. Returns 0 or -1 (printed). */
int cli_method_resolve(cli_parser *p, cli_method_options *o);
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

/* Creates the HDF5 output of `command` run on the archive at archive_path
 * (a), its root attributes describing the method mo and the archive. */
int cli_output_create(datum_ctx *ctx, const char *path, const datum_archive *a,
                      const char *archive_path, const char *command,
                      const cli_method_options *mo, datum_output **out);

/* ------------------------------------------------------------------------ */
/* --compare-published (published.c): datum's North-South and East-West    */
/* figures of every line against the ones another program published         */
/* (docs/cli.md).                                                           */

typedef struct cli_published cli_published;

/* The chunk columns cli_published_add reads. */
#define CLI_PUBLISHED_COLUMNS                                                                      \
    (DATUM_COL_PUBLISHED | DATUM_COL_TABLE)

/* Starts a comparison with the published figures of archive a (opened from
 * path, kept open until the report), datum computing figures of the method
 * `own`. DATUM_E_INPUT "PATH: no published figures ..." if a has none;
 * DATUM_E_NOMEM. *out is freed with cli_published_free. */
int cli_published_create(datum_ctx *ctx, const datum_archive *a, const char *path,
                         datum_published_method own, cli_published **out);
/* Counts the lines of chunk c (read with CLI_PUBLISHED_COLUMNS) that have a
 * published NS figure, and those where it agrees with ns[row] (datum's NS
 * figure, NaN: none) within 0.005, keeping the first disagreements; likewise
 * the lines with a published EW figure against ew[row] (ew NULL: -ns). */
void cli_published_add(cli_published *p, const datum_chunk *c, const double *ns,
                       const double *ew);
/* Prints on out "published: N of M lines agree (tolerance 0.005)" (North-
 * South), the first disagreements (event, section, board, table, published,
 * computed), "published: East-West: N of M lines agree" when EW figures were
 * published, and a note for lines that publish another method's figures. */
void cli_published_report(const cli_published *p, FILE *out);
void cli_published_free(cli_published **p); /* accepts NULL and *p == NULL */

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
int cmd_info(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_cross(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_barking(int argc, char **argv);
int cmd_teams(int argc, char **argv);
int cmd_tarot(int argc, char **argv);
int cmd_rate(int argc, char **argv);

#endif
