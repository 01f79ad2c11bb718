// bench_kernels.cc - Google Benchmark micro-benchmarks of the scoring kernels
// (datum.h) at realistic field sizes, 4 to 40 tables, plus the batch driver.
// Each benchmark reports results per second and a checksum of its outputs, so
// that a faster kernel that computes something else shows.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "datum.h"

namespace {

// Bridge-like scores of one field: a few popular results and some scatter.
std::vector<int32_t> field_scores(size_t n, uint64_t seed)
{
    static const int32_t common[] = {420, 450, 140, 170, -50, -100, 620, 650, 110, -200};
    std::vector<int32_t> s(n);
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto &v : s) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        v = (x % 4 == 0) ? (int32_t)(x >> 20) % 1500 : common[(x >> 8) % 10];
    }
    return s;
}

constexpr int kFieldsPerIteration = 1024; // enough fields to defeat the branch predictor

struct Fields {
    std::vector<int32_t> scores;
    size_t n;
    explicit Fields(size_t tables) : n(tables)
    {
        for (int f = 0; f < kFieldsPerIteration; f++) {
            auto s = field_scores(tables, (uint64_t)f + 1);
            scores.insert(scores.end(), s.begin(), s.end());
        }
    }
    const int32_t *field(int f) const { return scores.data() + (size_t)f * n; }
};

void BM_Datum(benchmark::State &state, const char *preset)
{
    Fields fields((size_t)state.range(0));
    datum_rule rule;
    datum_rule_preset(&rule, preset);
    std::vector<int32_t> work(fields.n);
    double checksum = 0;
    for (auto _ : state) {
        for (int f = 0; f < kFieldsPerIteration; f++) {
            datum_value v;
            datum_field_datum(&rule, fields.field(f), fields.n, work.data(), &v);
            checksum += datum_value_double(v);
        }
    }
    state.SetItemsProcessed(state.iterations() * kFieldsPerIteration * (int64_t)fields.n);
    state.counters["checksum"] = checksum / (double)state.iterations();
}

void BM_Butler(benchmark::State &state, datum_scale_kind kind)
{
    Fields fields((size_t)state.range(0));
    datum_rule rule;
    datum_rule_preset(&rule, "nbb");
    datum_scale scale = {kind, 0, 0};
    datum_adjusted_imps award = DATUM_ADJUSTED_IMPS_INIT;
    std::vector<int32_t> work(fields.n);
    std::vector<double> ns(fields.n), ew(fields.n);
    double checksum = 0;
    for (auto _ : state) {
        for (int f = 0; f < kFieldsPerIteration; f++) {
            datum_value v;
            datum_field_datum(&rule, fields.field(f), fields.n, work.data(), &v);
            datum_field_butler(&scale, &award, fields.field(f), nullptr, fields.n, v, ns.data(), ew.data());
            checksum += std::fabs(ns[0]);
        }
    }
    state.SetItemsProcessed(state.iterations() * kFieldsPerIteration * (int64_t)fields.n);
    state.counters["checksum"] = checksum / (double)state.iterations();
}

void BM_Cross(benchmark::State &state)
{
    Fields fields((size_t)state.range(0));
    datum_scale scale = DATUM_SCALE_INIT;
    std::vector<int32_t> work(2 * fields.n + 1);
    std::vector<double> raw(fields.n);
    double checksum = 0;
    for (auto _ : state) {
        for (int f = 0; f < kFieldsPerIteration; f++) {
            datum_field_cross(&scale, fields.field(f), fields.n, work.data(), raw.data());
            checksum += std::fabs(raw[0]);
        }
    }
    state.SetItemsProcessed(state.iterations() * kFieldsPerIteration * (int64_t)fields.n);
    state.counters["checksum"] = checksum / (double)state.iterations();
}

// The batch driver over a chunk of 2^20 results in fields of `tables` tables,
// with 1 or 2 threads (range(1)).
void BM_ScoreFields(benchmark::State &state)
{
    size_t tables = (size_t)state.range(0), n_fields = ((size_t)1 << 20) / tables;
    std::vector<uint64_t> offset(n_fields + 1);
    std::vector<int32_t> scores;
    for (size_t f = 0; f < n_fields; f++) {
        auto s = field_scores(tables, f + 1);
        scores.insert(scores.end(), s.begin(), s.end());
        offset[f + 1] = offset[f] + tables;
    }
    std::vector<double> datum(n_fields), ns(scores.size()), ew(scores.size());
    datum_method m;
    datum_method_init(&m, "nbb");
    datum_ctx *ctx;
    datum_ctx_create(&ctx);
    datum_ctx_set_threads(ctx, (int)state.range(1));
    datum_fields in = {n_fields, offset.data(), scores.data(), nullptr};
    for (auto _ : state) datum_score_fields(ctx, &m, &in, datum.data(), ns.data(), ew.data());
    double checksum = 0;
    for (double v : ns) checksum += std::fabs(v);
    datum_ctx_free(&ctx);
    state.SetItemsProcessed(state.iterations() * (int64_t)scores.size());
    state.counters["checksum"] = checksum;
}

void field_sizes(benchmark::internal::Benchmark *b)
{
    for (int tables : {4, 8, 12, 20, 40}) b->Arg(tables);
}

} // namespace

BENCHMARK_CAPTURE(BM_Datum, mean, "mean")->Apply(field_sizes);
BENCHMARK_CAPTURE(BM_Datum, nbb, "nbb")->Apply(field_sizes);
BENCHMARK_CAPTURE(BM_Datum, bastille, "bastille")->Apply(field_sizes);
BENCHMARK_CAPTURE(BM_Datum, par, "par")->Apply(field_sizes);
BENCHMARK_CAPTURE(BM_Butler, wbf, DATUM_SCALE_WBF)->Apply(field_sizes);
BENCHMARK_CAPTURE(BM_Butler, linear, DATUM_SCALE_LINEAR)->Apply(field_sizes);
BENCHMARK(BM_Cross)->Apply(field_sizes);
BENCHMARK(BM_ScoreFields)->ArgsProduct({{8, 12, 24}, {1, 2}})->UseRealTime();

BENCHMARK_MAIN();
