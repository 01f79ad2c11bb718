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

/* What io_tarot_read_csv hands the tables to (d valid during the call only);
 * its return value becomes io_tarot_read_csv's. */
typedef int (*io_tarot_consumer)(datum_ctx *ctx, const datum_tarot_data *d, void *user);

/* Reads and checks the CSV files of *in (formats.md; the results, players and
 * defenses files are required, DATUM_E_ARG if not), sorts them into the
 * order datum_tarot_data promises (the event dates are not set) and hands
 * them to consume: what datum_tarot_import_csv writes. */
int io_tarot_read_csv(datum_ctx *ctx, const datum_tarot_inputs *in, io_tarot_consumer consume,
                      void *user);

#endif
