/*
 * tarot_internal.h - what the tarot files of io/ share; not public and
 * HDF5-free (tarot_import.c validates the CSV files, tarot_archive.c writes
 * and reads the HDF5 layout).
 */
#ifndef DATUM_TAROT_INTERNAL_H
#define DATUM_TAROT_INTERNAL_H

#include "datum_tarot_io.h"
#include "io_common.h"

/* Bound of |pm| of a penalty row, in PM (the kernel takes up to 1e9). */
#define IO_TAROT_MAX_PENALTY 1000000.0

/* Writes d (sorted and checked as datum_tarot_data promises; the event
 * dates are not stored) as a tarot archive at path, atomically. */
int io_tarot_archive_write(datum_ctx *ctx, const char *path, const datum_tarot_data *d,
                           const datum_write_options *opt);

#endif
