/*
 * fuzz_reader.c - one fuzz target per text reader (CSV, USEBIO, PBN), chosen
 * at compile time with -DFUZZ_READER_CSV, -DFUZZ_READER_USEBIO or
 * -DFUZZ_READER_PBN (docs/fuzzing.md).
 *
 * The readers take file paths: each input is written to a uniquely named file
 * in a per-process temporary directory and imported to an archive path in the
 * same directory; both are removed afterwards. Import errors are expected;
 * crashes, sanitizer reports and leaks are not.
 *
 * Built with -fsanitize=fuzzer this is a libFuzzer target. Built without it
 * (-DFUZZ_REPLAY_MAIN, the ordinary test build) it is a replay driver:
 *   fuzz_csv_replay [--expect-ok] FILE_OR_DIR...
 * feeds every file (directories: every regular file in them not starting with
 * '.', sorted) to the same entry point and exits 0 unless a file could not be
 * read or, with --expect-ok, an import failed (the seed corpora are valid).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datum.h"
#include "datum_io.h"

#if defined(FUZZ_READER_CSV)
#define FUZZ_EXT ".csv"
#elif defined(FUZZ_READER_USEBIO)
#define FUZZ_EXT ".xml"
#elif defined(FUZZ_READER_PBN)
#define FUZZ_EXT ".pbn"
#else
#error "define FUZZ_READER_CSV, FUZZ_READER_USEBIO or FUZZ_READER_PBN"
#endif

static char g_dir[256];
static unsigned long g_seq;
static int g_last_rc; /* the last import's return code, for the replay driver */

static void cleanup_dir(void) {
    if (g_dir[0]) rmdir(g_dir);
}

static int ensure_dir(void) {
    if (g_dir[0]) return 0;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    snprintf(g_dir, sizeof g_dir, "%s/datum-fuzz-%ld-XXXXXX", tmp, (long)getpid());
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        abort();
    }
    atexit(cleanup_dir);
    return 0;
}

#if defined(FUZZ_READER_PBN)
static void quiet_warning(void *user, const char *message) {
    (void)user;
    (void)message;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ensure_dir();
    char in_path[384], out_path[384];
    unsigned long n = g_seq++;
    snprintf(in_path, sizeof in_path, "%s/in-%lu" FUZZ_EXT, g_dir, n);
    snprintf(out_path, sizeof out_path, "%s/out-%lu.h5", g_dir, n);

    FILE *f = fopen(in_path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f) != 0) abort();

    datum_ctx *ctx = NULL;
    if (datum_ctx_create(&ctx) != DATUM_OK) abort();
    const char *paths[1] = {in_path};
    datum_write_options wo = DATUM_WRITE_OPTIONS_INIT;
    wo.compress = 0;
#if defined(FUZZ_READER_CSV)
    g_last_rc = datum_import_csv(ctx, paths, 1, out_path, &wo);
#elif defined(FUZZ_READER_USEBIO)
    g_last_rc = datum_import_usebio(ctx, paths, 1, out_path, &wo);
#else
    datum_pbn_options po = DATUM_PBN_OPTIONS_INIT;
    datum_ctx_set_warning(ctx, quiet_warning, NULL);
    g_last_rc = datum_import_pbn(ctx, paths, 1, out_path, &po, &wo);
#endif
    datum_ctx_free(&ctx);
    remove(in_path);
    remove(out_path);
    return 0;
}

#ifdef FUZZ_REPLAY_MAIN
static int g_expect_ok; /* --expect-ok: an import error fails the run (the seeds are valid) */

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) abort();
    size_t got;
    while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) abort();
            buf = nb;
        }
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    printf("%s: import returned %d\n", path, g_last_rc);
    return g_expect_ok && g_last_rc < 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "cannot stat %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) return replay_file(path);
    DIR *d = opendir(path);
    if (!d) return 1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) abort();
            names = nn;
        }
        size_t l = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(l);
        if (!names[n]) abort();
        snprintf(names[n], l, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat fs;
        if (stat(names[i], &fs) == 0 && S_ISREG(fs.st_mode)) rc |= replay_file(names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect-ok") == 0)
            g_expect_ok = 1;
        else
            rc |= replay(argv[i]);
    }
    return rc;
}
#endif
