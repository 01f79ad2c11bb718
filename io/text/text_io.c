/*
 * text_io.c - a whole text file written atomically (the report of `datum
 * rate`). The ratings CSV read back against an archive is archive/ratings.c.
 */
#include "io_common.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int datum_text_write(datum_ctx *ctx, const char *path, const char *text, size_t len)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
            return io_fail_errno(ctx, DATUM_E_IO, errno ? errno : EIO, "cannot write to standard output");
        return DATUM_OK;
    }
    char *tmp;
    int fd, rc = io_temp_create(ctx, path, &tmp, &fd);
    if (rc != DATUM_OK) return rc;
    for (size_t done = 0; done < len && rc == DATUM_OK;) {
        ssize_t k = write(fd, text + done, len - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) rc = io_fail_errno(ctx, DATUM_E_IO, k < 0 ? errno : EIO, "cannot write %s", path);
        else done += (size_t)k;
    }
    if (close(fd) != 0 && rc == DATUM_OK)
        rc = io_fail_errno(ctx, DATUM_E_IO, errno, "cannot write %s", path);
    if (rc == DATUM_OK) rc = io_temp_commit(ctx, tmp, path);
    if (rc == DATUM_OK) datum_free(tmp);
    else io_temp_discard(&tmp);
    return rc;
}
