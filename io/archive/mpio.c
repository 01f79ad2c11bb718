/* mpio.c - the archive layer's MPI state (datum_io_mpi.h): the communicator
 * the files are shared over, and the few collective steps output.c and
 * h5util.c take with it. Without DATUM_MPI (the serial build) there is no
 * communicator: one process, rank 0, and every step is local. */
#include "io_internal.h"

#include <string.h>

#ifdef DATUM_MPI
#include "datum_io_mpi.h"

/* The process's communicator, like HDF5's own library state process-wide:
 * MPI_COMM_NULL until datum_io_use_mpi. */
static MPI_Comm shared = MPI_COMM_NULL;

int datum_io_use_mpi(MPI_Comm comm)
{
    if (shared != MPI_COMM_NULL) return 0;
    return MPI_Comm_dup(comm, &shared) == MPI_SUCCESS ? 0 : -1;
}

int io_mpi_active(void) { return shared != MPI_COMM_NULL; }

int io_mpi_rank(void)
{
    int rank = 0;
    if (io_mpi_active()) MPI_Comm_rank(shared, &rank);
    return rank;
}

hid_t io_mpi_file_access(hid_t fapl)
{
    if (io_mpi_active() && fapl >= 0 && H5Pset_fapl_mpio(fapl, shared, MPI_INFO_NULL) < 0) {
        H5Pclose(fapl);
        return H5I_INVALID_HID;
    }
    return fapl;
}

int io_mpi_all(int ok)
{
    int all = ok != 0;
    if (io_mpi_active() && MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, shared) != MPI_SUCCESS)
        return 0;
    return all;
}

int io_mpi_share_string(datum_ctx *ctx, char **s)
{
    if (!io_mpi_active()) return DATUM_OK;
    unsigned long long len = *s ? strlen(*s) + 1 : 0;
    if (MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, shared) != MPI_SUCCESS)
        return datum_ctx_fail(ctx, DATUM_E_IO, "MPI_Bcast failed");
    if (io_mpi_rank() != 0) {
        datum_free(*s);
        *s = len ? datum_malloc(ctx, (size_t)len, 1) : NULL;
        if (len && !*s) return DATUM_E_NOMEM; /* the broadcast below would deadlock the others */
    }
    if (len && MPI_Bcast(*s, (int)len, MPI_CHAR, 0, shared) != MPI_SUCCESS)
        return datum_ctx_fail(ctx, DATUM_E_IO, "MPI_Bcast failed");
    return DATUM_OK;
}

#else

int io_mpi_active(void) { return 0; }
int io_mpi_rank(void) { return 0; }
hid_t io_mpi_file_access(hid_t fapl) { return fapl; }
int io_mpi_all(int ok) { return ok != 0; }
int io_mpi_share_string(datum_ctx *ctx, char **s)
{
    (void)ctx, (void)s;
    return DATUM_OK;
}

#endif
