/* context.c - the context object: thread count, progress and the error state. */
#include "datum_alloc.h"
#include "internal.h"

#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

struct datum_ctx {
    datum_warning_fn warning; /* warnings: the callback, its argument, the count */
    void *warning_user;
    uint64_t n_warnings;
    int threads;
    int code;           /* first error recorded, DATUM_OK if none */
    char message[1024]; /* its message */
    datum_progress_fn progress;
    void *progress_user;
    atomic_long allocations; /* made through the context (datum_alloc.h) */
    long fail_at;            /* the allocation to refuse; < 0: none */
};

const char *datum_version(void) { return DATUM_VERSION_STRING; }

const char *datum_strerror(int code)
{
    switch (code) {
    case DATUM_OK: return "ok";
    case DATUM_E_NOMEM: return "out of memory";
    case DATUM_E_ARG: return "invalid argument";
    case DATUM_E_INPUT: return "bad input";
    case DATUM_E_IO: return "input/output error";
    case DATUM_E_FORMAT: return "bad or unsupported file format";
    case DATUM_E_NUMERIC: return "numerical failure";
    case DATUM_W_EMPTY: return "nothing to compute";
    case DATUM_W_INACCURATE: return "result less accurate than asked";
    case DATUM_W_SCORE: return "suspect score kept";
    default: return "unknown error";
    }
}

int datum_ctx_create(datum_ctx **out)
{
    /* Through the one allocator with no context yet: counted nowhere, never
     * refused by a countdown (datum_alloc.h). */
    datum_ctx *ctx = datum_calloc(NULL, 1, sizeof *ctx);
    *out = ctx;
    if (!ctx) return DATUM_E_NOMEM;
    ctx->threads = 1;
    ctx->fail_at = -1;
    atomic_init(&ctx->allocations, 0);
    return DATUM_OK;
}

void datum_ctx_free(datum_ctx **ctx)
{
    if (!ctx || !*ctx) return;
    datum_free(*ctx);
    *ctx = NULL;
}

static void *idle(void *arg) { return arg; }

/* OpenMP's runtime ends the program when it cannot create a thread (libgomp:
 * "Thread creation failed"), as when the address space is too small for the
 * threads' stacks. Creating them first here turns that into an error; the C
 * library keeps their stacks for OpenMP's threads, started at once by an
 * empty parallel region (and kept in its pool, or started again on the
 * cached stacks, for the later regions). */
int datum_start_threads(datum_ctx *ctx, int threads)
{
    if (threads <= 1) return DATUM_OK;
    if (threads > 1024) threads = 1024;
    pthread_t t[1024];
    int started = 0, err = 0;
    while (started < threads - 1 && (err = pthread_create(&t[started], NULL, idle, NULL)) == 0)
        started++;
    for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
    if (err)
        return datum_ctx_fail(ctx, DATUM_E_NOMEM, "out of memory (starting %d threads: %s)",
                              threads, strerror(err));
#pragma omp parallel num_threads(threads)
    {
    }
    return DATUM_OK;
}

int datum_ctx_set_threads(datum_ctx *ctx, int threads)
{
    if (threads < 1 || threads > 1024)
        return datum_ctx_fail(ctx, DATUM_E_ARG, "thread count %d is out of range 1..1024", threads);
    int rc = datum_start_threads(ctx, threads);
    if (rc == DATUM_OK) ctx->threads = threads;
    return rc;
}

int datum_ctx_threads(const datum_ctx *ctx) { return ctx->threads; }

int datum_available_threads(void)
{
    int n = omp_get_max_threads();
    return n < 1 ? 1 : n > 1024 ? 1024 : n;
}

void datum_ctx_set_progress(datum_ctx *ctx, datum_progress_fn fn, void *user)
{
    ctx->progress = fn;
    ctx->progress_user = user;
}

void datum_ctx_progress(datum_ctx *ctx, uint64_t done, uint64_t total)
{
    if (ctx && ctx->progress) ctx->progress(ctx->progress_user, done, total);
}

void datum_ctx_set_warning(datum_ctx *ctx, datum_warning_fn fn, void *user)
{
    ctx->warning = fn;
    ctx->warning_user = user;
}

uint64_t datum_ctx_warnings(const datum_ctx *ctx) { return ctx->n_warnings; }

void datum_ctx_warn(datum_ctx *ctx, const char *fmt, ...)
{
    ctx->n_warnings++;
    if (!ctx->warning) return;
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    ctx->warning(ctx->warning_user, message);
}

int datum_ctx_fail(datum_ctx *ctx, int code, const char *fmt, ...)
{
    if (!ctx) return code;
    /* Allocations fail inside parallel regions too (datum_alloc.h): one
     * thread at a time records. Keep the first error: later ones are usually
     * its consequences. */
#pragma omp critical(datum_ctx_fail)
    if (ctx->code >= 0) {
        ctx->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->message, sizeof ctx->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

int datum_ctx_code(const datum_ctx *ctx) { return ctx->code; }
const char *datum_ctx_message(const datum_ctx *ctx) { return ctx->message; }

void datum_ctx_clear(datum_ctx *ctx)
{
    ctx->code = DATUM_OK;
    ctx->message[0] = '\0';
}

void datum_ctx_fail_allocation(datum_ctx *ctx, long k)
{
    atomic_store(&ctx->allocations, 0);
    ctx->fail_at = k < 0 ? -1 : k;
}

long datum_ctx_allocations(const datum_ctx *ctx) { return atomic_load(&ctx->allocations); }

int datum_ctx_allocation_refused(datum_ctx *ctx)
{
    /* A NULL context (a caller with none) is counted nowhere and never refused. */
    if (!ctx) return 0;
    long n = atomic_fetch_add(&ctx->allocations, 1);
    return ctx->fail_at >= 0 && n == ctx->fail_at;
}
