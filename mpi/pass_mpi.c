/* pass_mpi.c - a scoring pass on every process of datum-mpi: each process
 * owns a slice of whole fields, runs the library's pass over it (the same
 * kernels and outputs as `datum`), and the pair totals are carried from
 * slice to slice in archive order so that every sum is the serial one, bit
 * for bit (docs/scale-out.md, "Pair totals"). */
#include "cli.h"
#include "datum_alloc.h"
#include "mpi_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

mpi_stats mpi_stat;
static double phase_wall[MPI_PHASE_COUNT], phase_cpu[MPI_PHASE_COUNT], start_wall, start_cpu;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void mpi_phase_begin(int k)
{
    phase_wall[k] = MPI_Wtime();
    phase_cpu[k] = cpu_now();
}

void mpi_phase_start(void)
{
    start_wall = MPI_Wtime();
    start_cpu = cpu_now();
}

void mpi_phase_since_start(int k)
{
    double other_wall = 0, other_cpu = 0;
    for (int i = 0; i < MPI_PHASE_COUNT; i++) {
        other_wall += mpi_stat.wall[i];
        other_cpu += mpi_stat.cpu[i];
    }
    mpi_stat.wall[k] = MPI_Wtime() - start_wall - other_wall;
    mpi_stat.cpu[k] = cpu_now() - start_cpu - other_cpu;
}

void mpi_phase_end(int k)
{
    mpi_stat.wall[k] += MPI_Wtime() - phase_wall[k];
    mpi_stat.cpu[k] += cpu_now() - phase_cpu[k];
}

int mpi_all_ok(int ok)
{
    int all = ok != 0;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    mpi_stat.bytes_sent += sizeof all;
    return all;
}

int mpi_other_failed(datum_ctx *ctx)
{
    return datum_ctx_fail(ctx, DATUM_E_IO, "another process of datum-mpi failed (its message "
                                           "is above)");
}

int mpi_slices(datum_ctx *ctx, const datum_archive *a, int whole, uint64_t *bounds)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    datum_archive_info info;
    datum_archive_get_info(a, &info);
    int rc = DATUM_OK;
    if (rank == 0) {
        /* Chunks of no row column: the offsets (and field columns) only. */
        uint64_t step = info.n_results / (64 * (uint64_t)n);
        datum_chunk_reader *r = NULL;
        rc = datum_chunk_reader_create(ctx, (datum_archive *)a, 0, step ? step : 1, &r);
        if (rc == DATUM_OK) rc = datum_chunk_reader_set_whole_events(r, whole);
        int k = 1;
        bounds[0] = 0;
        while (rc == DATUM_OK) {
            datum_chunk c;
            if ((rc = datum_chunk_reader_next(r, &c)) != DATUM_OK || c.n_fields == 0) break;
            uint64_t end_row = c.first_row + c.n_rows;
            /* Slice k ends with the first chunk that reaches k n-ths of the rows. */
            while (k < n && end_row * (uint64_t)n >= (uint64_t)k * info.n_results)
                bounds[k++] = c.first_field + c.n_fields;
        }
        while (k <= n) bounds[k++] = info.n_fields;
        datum_chunk_reader_free(&r);
    }
    if (!mpi_all_ok(rc == DATUM_OK)) return rc != DATUM_OK ? rc : mpi_other_failed(ctx);
    MPI_Bcast(bounds, n + 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) mpi_stat.bytes_sent += (uint64_t)(n + 1) * sizeof *bounds * (uint64_t)(n - 1);
    return DATUM_OK;
}

/* The sums of one method from rank `from` to `to` (to < 0: to every rank,
 * from the last): boards, IMPs, then raw and ns_boards when the method has
 * them. */
static void carry(const datum_pair_sums *s, int from, int to, int rank)
{
    void *arrays[] = {s->boards, s->imps, s->raw, s->ns_boards};
    MPI_Datatype types[] = {MPI_INT64_T, MPI_DOUBLE, MPI_DOUBLE, MPI_INT64_T};
    for (int i = 0; i < 4; i++) {
        if (!arrays[i]) continue;
        if (to < 0) MPI_Bcast(arrays[i], (int)s->n_pairs, types[i], from, MPI_COMM_WORLD);
        else if (rank == from) MPI_Send(arrays[i], (int)s->n_pairs, types[i], to, 0, MPI_COMM_WORLD);
        else MPI_Recv(arrays[i], (int)s->n_pairs, types[i], from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == from) {
            int size;
            MPI_Comm_size(MPI_COMM_WORLD, &size);
            /* A broadcast sends the array to every other rank (at most). */
            mpi_stat.bytes_sent += (uint64_t)s->n_pairs * 8 * (uint64_t)(to < 0 ? size - 1 : 1);
        }
    }
}

int cli_default_threads(void) { return 1; }

int cli_writes_files(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0;
}

int cli_slice(datum_ctx *ctx, const datum_archive *a, int whole_events, uint64_t *first,
              uint64_t *end)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    uint64_t *bounds = datum_malloc(ctx, (size_t)n + 1, sizeof *bounds);
    int rc = bounds ? DATUM_OK : DATUM_E_NOMEM;
    if (!mpi_all_ok(rc == DATUM_OK)) {
        datum_free(bounds);
        return rc != DATUM_OK ? rc : mpi_other_failed(ctx);
    }
    mpi_phase_begin(MPI_PHASE_SLICE);
    rc = mpi_slices(ctx, a, whole_events, bounds);
    mpi_phase_end(MPI_PHASE_SLICE);
    if (rc == DATUM_OK) {
        *first = mpi_stat.first_field = bounds[rank];
        *end = mpi_stat.end_field = bounds[rank + 1];
    }
    datum_free(bounds);
    return rc;
}

int cli_pass_run(datum_ctx *ctx, datum_pass *pass)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    uint64_t first, end;
    int rc = cli_slice(ctx, datum_pass_archive(pass), datum_pass_whole_events(pass), &first, &end);
    if (rc == DATUM_OK) rc = datum_pass_set_fields(pass, first, end);
    /* Every later step is collective: a process that failed still takes
     * part, so that none waits for it. */
    if (!mpi_all_ok(rc == DATUM_OK)) return rc != DATUM_OK ? rc : mpi_other_failed(ctx);

    mpi_phase_begin(MPI_PHASE_ROWS);
    rc = datum_pass_run_slice(pass, rank > 0); /* the first slice's sums start from zero */
    mpi_phase_end(MPI_PHASE_ROWS);
    if (!mpi_all_ok(rc == DATUM_OK)) return rc != DATUM_OK ? rc : mpi_other_failed(ctx);

    /* The sums in archive order: from rank 0 to the last, then back to all. */
    mpi_phase_begin(MPI_PHASE_CARRY);
    size_t n_methods = datum_pass_n_methods(pass);
    datum_pair_sums s;
    for (size_t id = 0; rank > 0 && id < n_methods; id++) /* the slices' before */
        if (datum_pass_sums(pass, (int)id, &s) == DATUM_OK) carry(&s, rank - 1, rank, rank);
    if (rank > 0) rc = datum_pass_add_deferred(pass);
    for (size_t id = 0; rank < n - 1 && id < n_methods; id++) /* with this slice's */
        if (datum_pass_sums(pass, (int)id, &s) == DATUM_OK) carry(&s, rank, rank + 1, rank);
    for (size_t id = 0; id < n_methods; id++) /* the final sums, to every process */
        if (datum_pass_sums(pass, (int)id, &s) == DATUM_OK) carry(&s, n - 1, -1, rank);
    mpi_phase_end(MPI_PHASE_CARRY);
    if (!mpi_all_ok(rc == DATUM_OK)) return rc != DATUM_OK ? rc : mpi_other_failed(ctx);

    mpi_phase_begin(MPI_PHASE_FINISH);
    rc = datum_pass_finish(pass, rank == 0); /* rank 0 writes the pair figures */
    mpi_phase_end(MPI_PHASE_FINISH);
    if (!mpi_all_ok(rc == DATUM_OK)) return rc != DATUM_OK ? rc : mpi_other_failed(ctx);
    return DATUM_OK;
}

void mpi_write_report(const char *command)
{
    const char *path = getenv("DATUM_MPI_REPORT");
    if (!path) return;
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    static const char *const kPhase[] = {"slice", "rows", "carry", "finish", "assemble", "solve"};
    char line[2048];
    int len = snprintf(line, sizeof line,
                       "{\"command\":\"%s\",\"rank\":%d,\"ranks\":%d,\"first_field\":%llu,"
                       "\"end_field\":%llu,\"bytes_sent\":%llu,\"maxrss_kb\":%ld,\"iterations\":%llu",
                       command, rank, n, (unsigned long long)mpi_stat.first_field,
                       (unsigned long long)mpi_stat.end_field,
                       (unsigned long long)mpi_stat.bytes_sent, ru.ru_maxrss,
                       (unsigned long long)mpi_stat.iterations);
    for (int k = 0; k < MPI_PHASE_COUNT && len < (int)sizeof line - 100; k++)
        len += snprintf(line + len, sizeof line - (size_t)len, ",\"%s_s\":%.4f,\"%s_cpu_s\":%.4f",
                        kPhase[k], mpi_stat.wall[k], kPhase[k], mpi_stat.cpu[k]);
    snprintf(line + len, sizeof line - (size_t)len, "}\n");
    /* In rank order: each appends once the one before has. */
    int token = 0;
    if (rank > 0) MPI_Recv(&token, 1, MPI_INT, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    FILE *f = fopen(path, rank == 0 ? "w" : "a");
    if (f) {
        fputs(line, f);
        fclose(f);
    } else {
        fprintf(stderr, "datum-mpi: cannot write the report %s\n", path);
    }
    if (rank < n - 1) MPI_Send(&token, 1, MPI_INT, rank + 1, 1, MPI_COMM_WORLD);
}
