/* io_test_util.c - files and folders for the io/ tests. */
#include "io_test_util.h"

#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_home[PATH_MAX], g_dir[PATH_MAX];

int tu_enter_temp_dir(void **state)
{
    const char *tmp = getenv("TMPDIR");
    assert_non_null(getcwd(g_home, sizeof g_home));
    snprintf(g_dir, sizeof g_dir, "%s/datum-io-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(g_dir));
    assert_int_equal(chdir(g_dir), 0);
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int tu_leave_temp_dir(void **state)
{
    assert_int_equal(chdir(g_home), 0);
    assert_int_equal(nftw(g_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
    return 0;
}

datum_ctx *tu_ctx;

int tu_enter_with_ctx(void **state)
{
    tu_enter_temp_dir(state);
    assert_int_equal(datum_ctx_create(&tu_ctx), DATUM_OK);
    return 0;
}

int tu_leave_with_ctx(void **state)
{
    datum_ctx_free(&tu_ctx);
    return tu_leave_temp_dir(state);
}

void tu_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

char *tu_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    if (len) *len = (size_t)n;
    return s;
}

int tu_count_files(void)
{
    DIR *d = opendir(".");
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

int tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}
