/* mpi_driver.h - datum-mpi's own parts (mpi/): the processes' common steps
 * (pass_mpi.c) and what each process measured (the --mpi-report file). */
#ifndef DATUM_MPI_DRIVER_H
#define DATUM_MPI_DRIVER_H

#include "datum.h"
#include "datum_io.h"

#include <mpi.h>
#include <stdint.h>

/* What one process measured: wall and CPU seconds per phase, the bytes it
 * sent (MPI point-to-point and collectives, counted at the call; PETSc's
 * own messages are in its -log_view), and the archive it owned. */
enum { MPI_PHASE_SLICE, MPI_PHASE_ROWS, MPI_PHASE_CARRY, MPI_PHASE_FINISH, MPI_PHASE_ASSEMBLE,
       MPI_PHASE_SOLVE, MPI_PHASE_COUNT };
typedef struct {
    double wall[MPI_PHASE_COUNT], cpu[MPI_PHASE_COUNT];
    uint64_t bytes_sent;
    uint64_t first_field, end_field, rows;
    uint64_t iterations; /* rate: CG iterations */
} mpi_stats;

/* The process's stats, filled by the steps below and the rate driver. */
extern mpi_stats mpi_stat;
/* Starts phase k's clock; mpi_phase_end adds the time since. */
void mpi_phase_begin(int k);
void mpi_phase_end(int k);
/* The process's clocks start (main); phase k gets the time since then that
 * no other phase took (rate: the reading of the slice, in cmd_rate.c). */
void mpi_phase_start(void);
void mpi_phase_since_start(int k);

/* The slices of the archive, fields bounds[k] .. bounds[k + 1] - 1 for rank
 * k of n: whole fields (whole events when `whole`), as equal in rows as
 * chunks of 1/64 of a slice allow. Computed by rank 0 and broadcast
 * (collective). bounds has n + 1 entries. Returns DATUM_OK, or the chunk
 * reader's error on rank 0 (the others get DATUM_E_IO "another process
 * failed"). */
int mpi_slices(datum_ctx *ctx, const datum_archive *a, int whole, uint64_t *bounds);

/* 1 when every process passes ok != 0 (collective). */
int mpi_all_ok(int ok);

/* A failure of another process, recorded in ctx: DATUM_E_IO. */
int mpi_other_failed(datum_ctx *ctx);

/* Ends PETSc if rate_petsc.c started it (before MPI_Finalize). */
void mpi_rate_finish(void);

/* Writes the process's stats as one JSON line per rank, in rank order, to
 * the file named by the environment variable DATUM_MPI_REPORT (nothing when
 * unset); collective. */
void mpi_write_report(const char *command);

#endif
