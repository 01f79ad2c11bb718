// bench_barking.cc - barking cross-IMPs (§5): the literal enumeration against
// the fast kernel at 4, 8, 12, 32 and 128 tables, and one million 12-table
// fields through the batch driver on 2 threads (issue 5's targets: at most
// 2 s; at 32 tables at least 20 times faster than the literal one).
//
// Two kinds of fields: "bridge" draws each board's scores from 3 to 6 likely
// results (what real fields look like: many tables agree), "distinct" gives
// every table its own score (the worst case of the fast kernel). Each
// benchmark reports a checksum of its outputs beside the timings.
#include "datum.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Rng {  // SplitMix64: fixed seeds, the same fields on every run
    uint64_t state;
    uint64_t next()
    {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    int64_t range(int64_t lo, int64_t hi) { return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1)); }
};

enum Kind { kBridge = 0, kDistinct = 1 };

void make_field(Rng &rng, Kind kind, int32_t *s, size_t n)
{
    static const int32_t pool[] = {-800, -500, -200, -100, -50, 90,  110, 140, 170,
                                   420,  450,  480,  620,  650, 680, 990, 1430, 1460};
    const size_t pool_n = sizeof pool / sizeof *pool;
    if (kind == kDistinct) {
        for (size_t i = 0; i < n; i++) s[i] = (int32_t)(10 * rng.range(-760, 760));
        return;
    }
    int32_t likely[6];
    size_t k = (size_t)rng.range(3, 6);
    for (size_t v = 0; v < k; v++) likely[v] = pool[rng.range(0, (int64_t)pool_n - 1)];
    for (size_t i = 0; i < n; i++) s[i] = likely[rng.range(0, (int64_t)k - 1)];
}

// A few fields of n tables, cycled through so that one field's cache state
// does not flatter the timing.
std::vector<int32_t> fields(Kind kind, size_t n, size_t count)
{
    Rng rng{0x5EED0000u + n * 2 + (uint64_t)kind};
    std::vector<int32_t> s(n * count);
    for (size_t f = 0; f < count; f++) make_field(rng, kind, &s[f * n], n);
    return s;
}

const datum_scale kWbf = DATUM_SCALE_INIT;

// Checksum of the raw scores of every field, each weighted by its table
// number (a field's raw scores sum to 0): the literal and the fast kernel
// must print the same one.
template <typename Kernel>
double checksum(const std::vector<int32_t> &s, size_t n, size_t count, Kernel kernel)
{
    std::vector<double> raw(n);
    double sum = 0;
    for (size_t f = 0; f < count; f++) {
        kernel(&s[f * n], raw.data());
        for (size_t i = 0; i < n; i++) sum += raw[i] * (double)(i + 1);
    }
    return sum;
}

void BM_Literal(benchmark::State &state)
{
    size_t n = (size_t)state.range(0), count = 16;
    Kind kind = (Kind)state.range(1);
    std::vector<int32_t> s = fields(kind, n, count);
    std::vector<double> raw(n);
    size_t f = 0;
    for (auto _ : state) {
        datum_field_barking_literal(&kWbf, &s[(f++ % count) * n], n, raw.data());
        benchmark::DoNotOptimize(raw.data());
    }
    state.counters["checksum"] = checksum(s, n, count, [&](const int32_t *field, double *out) {
        datum_field_barking_literal(&kWbf, field, n, out);
    });
    state.counters["terms/s"] = benchmark::Counter(
        (double)datum_barking_terms(n) * (double)n * (double)state.iterations(),
        benchmark::Counter::kIsRate);
    state.SetLabel(kind == kBridge ? "bridge" : "distinct");
}

void BM_Fast(benchmark::State &state)
{
    size_t n = (size_t)state.range(0), count = 16;
    Kind kind = (Kind)state.range(1);
    std::vector<int32_t> s = fields(kind, n, count);
    std::vector<double> raw(n);
    std::vector<int64_t> work(datum_barking_work_len(n));
    size_t f = 0;
    for (auto _ : state) {
        datum_field_barking(&kWbf, &s[(f++ % count) * n], n, work.data(), raw.data());
        benchmark::DoNotOptimize(raw.data());
    }
    state.counters["checksum"] = checksum(s, n, count, [&](const int32_t *field, double *out) {
        datum_field_barking(&kWbf, field, n, work.data(), out);
    });
    state.SetLabel(kind == kBridge ? "bridge" : "distinct");
}

// One million 12-table fields through datum_barking_fields on 2 threads (and
// on 1, to see the scaling; CPU time is the calling thread's only).
void BM_Fields12(benchmark::State &state)
{
    const size_t n_fields = 1000000, n = 12;
    Kind kind = (Kind)state.range(0);
    int threads = (int)state.range(1);
    std::vector<int32_t> s = fields(kind, n, n_fields);
    std::vector<uint64_t> offset(n_fields + 1);
    for (size_t f = 0; f <= n_fields; f++) offset[f] = f * n;
    std::vector<double> raw(s.size()), avg(s.size());
    std::vector<int64_t> terms(s.size());
    datum_fields in = {n_fields, offset.data(), s.data(), nullptr};
    datum_ctx *ctx = nullptr;
    datum_ctx_create(&ctx);
    datum_ctx_set_threads(ctx, threads);
    for (auto _ : state) {
        if (datum_barking_fields(ctx, &kWbf, &in, raw.data(), avg.data(), terms.data()) != DATUM_OK)
            state.SkipWithError(datum_ctx_message(ctx));
        benchmark::DoNotOptimize(raw.data());
    }
    double sum = 0;  // raw weighted by table number, as checksum() does
    for (size_t r = 0; r < raw.size(); r++) sum += raw[r] * (double)(r % n + 1);
    state.counters["checksum"] = sum;
    state.counters["fields/s"] =
        benchmark::Counter((double)n_fields * (double)state.iterations(), benchmark::Counter::kIsRate);
    state.SetLabel(std::string(kind == kBridge ? "bridge, " : "distinct, ") + std::to_string(threads) +
                   (threads == 1 ? " thread" : " threads"));
    datum_ctx_free(&ctx);
}

void TableSizes(benchmark::internal::Benchmark *b, bool literal)
{
    for (int kind : {kBridge, kDistinct})
        for (int n : {4, 8, 12, 32, 128}) {
            if (literal && n == 128) continue;  // registered separately, with few iterations
            b->Args({n, kind});
        }
}

}  // namespace

BENCHMARK(BM_Literal)->Apply([](benchmark::internal::Benchmark *b) { TableSizes(b, true); });
BENCHMARK(BM_Literal)->Args({128, kBridge})->Args({128, kDistinct})->Iterations(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Fast)->Apply([](benchmark::internal::Benchmark *b) { TableSizes(b, false); });
BENCHMARK(BM_Fields12)
    ->Args({kBridge, 2})->Args({kDistinct, 2})->Args({kBridge, 1})->Args({kDistinct, 1})
    ->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
