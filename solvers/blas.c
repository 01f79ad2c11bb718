/*
 * blas.c - the BLAS under CHOLMOD's supernodal factorisations: which library
 * it is, and its working memory taken while running out can still be
 * reported.
 *
 * OpenBLAS (Debian's libopenblas0-serial, chosen by scripts/setup; see
 * docs/performance.md "The BLAS") maps a buffer of 128 MiB for each caller
 * that runs at once, the first time one is needed, and retries a failed mmap
 * for ever: under an address-space limit (ulimit -v) `datum rate` would hang
 * inside dpotrf instead of failing. Its buffers, once mapped, are kept and
 * reused for the life of the process. So before the first factorisation
 * rate_blas_reserve checks that the buffers fit (mmap's answer can be read),
 * then has OpenBLAS map them (blas_memory_alloc/free, which libopenblas
 * exports), while no other thread allocates.
 */
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#include "rate_internal.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/* OpenBLAS 0.3's BUFFER_SIZE on x86-64 (32 << 22: one mmap of 134217728
 * bytes, seen with strace), with a page of slack. */
#define OPENBLAS_BUFFER_BYTES ((size_t)128 << 20)
#define OPENBLAS_BUFFER_SLACK ((size_t)1 << 20)
/* More concurrent callers than this exhaust OpenBLAS's table; datum's teams
 * are far smaller. */
#define OPENBLAS_CALLERS_MAX 64

/* The loaded file's real path: Debian's alternatives make the loader's
 * name a link (/lib/x86_64-linux-gnu/libblas.so.3) whatever the BLAS. */
static char blas_path[PATH_MAX];
static void find_blas_library(void)
{
    void *dgemm = dlsym(RTLD_DEFAULT, "dgemm_");
    Dl_info info;
    if (!dgemm || !dladdr(dgemm, &info) || !info.dli_fname || !realpath(info.dli_fname, blas_path))
        snprintf(blas_path, sizeof blas_path, "%s",
                 dgemm && info.dli_fname ? info.dli_fname : "none");
}

const char *datum_rate_blas_library(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_blas_library);
    return blas_path;
}

int rate_blas_reserve(datum_ctx *ctx, int callers)
{
    /* OpenBLAS's buffer table is the process's, so is the count of buffers
     * it has already mapped for datum. */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int reserved;
    void *(*take)(int) = (void *(*)(int))dlsym(RTLD_DEFAULT, "blas_memory_alloc");
    void (*give)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "blas_memory_free");
    if (!take || !give || !dlsym(RTLD_DEFAULT, "openblas_get_config"))
        return DATUM_OK; /* another BLAS: the reference BLAS allocates nothing */
    if (callers > OPENBLAS_CALLERS_MAX) callers = OPENBLAS_CALLERS_MAX;
    int rc = DATUM_OK;
    pthread_mutex_lock(&lock);
    int need = callers - reserved;
    if (need > 0) {
        void *probe[OPENBLAS_CALLERS_MAX], *buffer[OPENBLAS_CALLERS_MAX];
        int mapped = 0;
        while (mapped < need) {
            void *p = mmap(NULL, OPENBLAS_BUFFER_BYTES + OPENBLAS_BUFFER_SLACK,
                           PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED) break;
            probe[mapped++] = p;
        }
        for (int k = 0; k < mapped; k++)
            munmap(probe[k], OPENBLAS_BUFFER_BYTES + OPENBLAS_BUFFER_SLACK);
        if (mapped < need) {
            rc = datum_ctx_fail(ctx, DATUM_E_NOMEM,
                                "out of memory (OpenBLAS's working buffers: %d of %zu MiB)", need,
                                OPENBLAS_BUFFER_BYTES >> 20);
        } else {
            /* All held at once, so that each maps its own buffer. */
            for (int k = 0; k < need; k++) buffer[k] = take(0);
            for (int k = 0; k < need; k++)
                if (buffer[k]) give(buffer[k]);
            reserved = callers;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}
