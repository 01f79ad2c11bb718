/*
 * datum_io_mpi.h - the archive layer under MPI (datum-mpi; builds with
 * -DDATUM_MPI=ON only, against parallel HDF5). After datum_io_use_mpi, every
 * HDF5 file the library opens for reading is opened by all the processes of
 * the communicator together, through MPI-IO (H5Pset_fapl_mpio), and every
 * output file (datum_output_*) is one file written by all of them: rank 0
 * creates it and its datasets, and each process writes the elements it
 * computed (docs/scale-out.md). Opening, closing and committing a file are
 * then collective: every process makes the same calls in the same order.
 */
#ifndef DATUM_IO_MPI_H
#define DATUM_IO_MPI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the library's files shared by the processes of comm (duplicated;
 * MPI must be initialised and stay so while files are open). Call once,
 * before opening any file. Returns 0, or -1 when MPI fails. */
int datum_io_use_mpi(MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif
