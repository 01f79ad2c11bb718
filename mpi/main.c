/* main.c - datum-mpi: the scoring commands of `datum` and `rate`, run by
 * every process of an MPI job (mpirun -n P datum-mpi COMMAND ARGS). The
 * options and the printing are `datum`'s own (cli/); the processes' common
 * steps are pass_mpi.c's and rate_petsc.c's. Only rank 0 prints on standard
 * output; every process reports its own errors on standard error. */
#include "cli.h"
#include "datum_io_mpi.h"
#include "mpi_driver.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
} command;

static const command kCommands[] = {
    {"score", cmd_score},     {"cross", cmd_cross}, {"matchpoints", cmd_matchpoints},
    {"barking", cmd_barking}, {"rate", cmd_rate},
};

static const char kUsage[] =
    "usage: mpirun -n P datum-mpi COMMAND ARCHIVE.h5 [ARGS]\n\n"
    "datum's score, cross, matchpoints, barking and rate on P processes: each\n"
    "owns a slice of whole fields of the archive (parallel HDF5), the output\n"
    "file (-o) is written by all of them, and every figure equals the serial\n"
    "datum's (docs/scale-out.md). The options are datum COMMAND's (--help);\n"
    "--results and --compare-published are datum's only. Exit codes: 0 ok,\n"
    "1 failure, 2 bad input or usage.\n";

static int dispatch(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD_INPUT : EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("datum-mpi %s\n", datum_version());
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof kCommands / sizeof *kCommands; i++)
        if (!strcmp(argv[1], kCommands[i].name)) {
            int status = kCommands[i].run(argc - 1, argv + 1);
            mpi_write_report(kCommands[i].name);
            return status;
        }
    fprintf(stderr, "datum-mpi: '%s' is not a datum-mpi command (see 'datum-mpi --help')\n",
            argv[1]);
    return EXIT_BAD_INPUT;
}

int main(int argc, char **argv)
{
    int provided, rank;
    /* Only the main thread of a process calls MPI; OpenMP's threads compute. */
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "datum-mpi: MPI_Init failed\n");
        return EXIT_FAILURE_RUN;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mpi_phase_start();
    if (rank > 0 && !freopen("/dev/null", "w", stdout)) /* one ranking, rank 0's */
        fprintf(stderr, "datum-mpi: rank %d: cannot silence standard output\n", rank);
    int status = datum_io_use_mpi(MPI_COMM_WORLD) == 0 ? dispatch(argc, argv) : EXIT_FAILURE_RUN;
    fflush(stdout);
    mpi_rate_finish();
    MPI_Finalize();
    return status;
}
