/*
 * layout.c - the archive's layout, format version 1 (docs/archive-format.md):
 * its datasets, value rules and root attributes, the one description the
 * writer (archive_writer.c) and the reader (archive.c, chunk_reader.c) go by.
 */
#include "io_internal.h"

#include <time.h>

#define DATE_UNITS "days since 1970-01-01"

const io_dataset_desc io_dict_cols[IO_N_DICTS] = {
    {"dict/events", "event names, sorted by their UTF-8 bytes", NULL},
    {"dict/sections", "section names (possibly empty), sorted by their UTF-8 bytes", NULL},
    {"dict/pairs", "pair identifiers, sorted by their UTF-8 bytes", NULL},
    {"dict/teams", "team names, sorted by their UTF-8 bytes", NULL},
    {"dict/matches", "match identifiers, sorted by their UTF-8 bytes", NULL},
};

const io_dataset_desc io_field_cols[IO_N_FIELD_COLS] = {
    {"fields/event", "event of each board field: index into /dict/events", NULL},
    {"fields/section", "section of each board field: index into /dict/sections", NULL},
    {"fields/board", "board number", NULL},
    {"fields/date", "latest date of the field's results", DATE_UNITS},
    {"fields/offset", "field f owns rows offset[f] .. offset[f+1]-1 of /results", NULL},
    {"fields/deal_set",
     "the deal of the field: two fields of one event with the same board number and the same "
     "deal_set played the same deal (the index into /dict/sections of the first section of the "
     "event that played it)",
     NULL},
};

const io_dataset_desc io_result_cols[IO_N_RESULT_COLS] = {
    {"results/table", "table number", NULL},
    {"results/ns_pair", "North-South pair: index into /dict/pairs", NULL},
    {"results/ew_pair", "East-West pair: index into /dict/pairs", NULL},
    {"results/ns_score", "North-South score (0 on an adjusted result)", NULL},
    {"results/adjusted",
     "0: a real score; 1..12: adjusted A+, A, A-, A+/A-, A-/A+, A/A, A+/A+, A-/A-, A+/A, A/A+, "
     "A-/A, A/A- (NS/EW)",
     NULL},
    {"results/date", "date of the result", DATE_UNITS},
    {"results/ns_team", "North-South team: index into /dict/teams; -1 outside a teams match", NULL},
    {"results/ew_team", "East-West team: index into /dict/teams; -1 outside a teams match", NULL},
    {"results/match", "teams match: index into /dict/matches; -1 outside a teams match", NULL},
    {"results/published_ns", "North-South's points as the scoring program published them "
                             "(USEBIO NS_*_POINTS); NaN: none", NULL},
    {"results/published_ew", "East-West's points as the scoring program published them "
                             "(USEBIO EW_*_POINTS); NaN: none", NULL},
    {"results/published_method",
     "what the published points are: 0 none, 1 butler, 2 cross_imps, 3 matchpoints, 4 imps, "
     "5 other", NULL},
    {"results/published_ns_percent", "North-South's percentage as the scoring program "
                                     "published it (PBN Percentage_NS); NaN: none", NULL},
    {"results/published_ew_percent", "East-West's percentage as the scoring program "
                                     "published it (PBN Percentage_EW); NaN: none", NULL},
};

/* A field's pairs and scores recur whole within a session and a board,
 * which deflate finds as 2- and 4-byte matches and the shuffle splits into
 * planes: unshuffled, decade's and national's pair and score columns deflate
 * in 0.55-0.65 of the time (the scores 15 % smaller) and inflate in
 * 0.75-0.87. Dates, teams and the fields' columns, runs of one value,
 * inflate several times faster shuffled (docs/archive-format.md). */
int io_shuffled(const io_dataset_desc *d)
{
    return d != &io_result_cols[IO_R_NS_PAIR] && d != &io_result_cols[IO_R_EW_PAIR] &&
           d != &io_result_cols[IO_R_NS_SCORE];
}

const io_dataset_desc io_truth_strength = {
    "truth/pair_strength", "true strength of each pair of /dict/pairs, IMPs per board", NULL};

const io_value_rule io_field_rules[IO_N_FIELD_COLS] = {
    [IO_F_EVENT] = {IO_KIND_U32, 0, 0, IO_D_EVENTS},
    [IO_F_SECTION] = {IO_KIND_U32, 0, 0, IO_D_SECTIONS},
    [IO_F_BOARD] = {IO_KIND_I32, 1, INT32_MAX, -1},
    [IO_F_DATE] = {IO_KIND_I32, INT32_MIN, INT32_MAX, -1},
    [IO_F_OFFSET] = {IO_KIND_U64, 0, INT64_MAX, -1},
    [IO_F_DEAL_SET] = {IO_KIND_U32, 0, 0, IO_D_SECTIONS},
};

const io_value_rule io_result_rules[IO_N_RESULT_COLS] = {
    [IO_R_TABLE] = {IO_KIND_I32, 0, INT32_MAX, -1},
    [IO_R_NS_PAIR] = {IO_KIND_I32, 0, 0, IO_D_PAIRS},
    [IO_R_EW_PAIR] = {IO_KIND_I32, 0, 0, IO_D_PAIRS},
    [IO_R_NS_SCORE] = {IO_KIND_I32, -IO_MAX_SCORE, IO_MAX_SCORE, -1},
    [IO_R_ADJUSTED] = {IO_KIND_U8, 0, DATUM_ADJ_COUNT - 1, -1},
    [IO_R_DATE] = {IO_KIND_I32, INT32_MIN, INT32_MAX, -1},
    [IO_R_NS_TEAM] = {IO_KIND_I32, -1, 0, IO_D_TEAMS},
    [IO_R_EW_TEAM] = {IO_KIND_I32, -1, 0, IO_D_TEAMS},
    [IO_R_MATCH] = {IO_KIND_I32, -1, 0, IO_D_MATCHES},
    [IO_R_PUBLISHED_NS] = {IO_KIND_F64, 0, 0, -1},
    [IO_R_PUBLISHED_EW] = {IO_KIND_F64, 0, 0, -1},
    [IO_R_PUBLISHED_METHOD] = {IO_KIND_U8, 0, DATUM_PUBLISHED_COUNT - 1, -1},
    [IO_R_PUBLISHED_NS_PERCENT] = {IO_KIND_F64, 0, 0, -1},
    [IO_R_PUBLISHED_EW_PERCENT] = {IO_KIND_F64, 0, 0, -1},
};

const char *datum_published_method_name(int method)
{
    static const char *const name[DATUM_PUBLISHED_COUNT] = {"none",        "butler", "cross_imps",
                                                            "matchpoints", "imps",   "other"};
    return method >= 0 && method < DATUM_PUBLISHED_COUNT ? name[method] : NULL;
}

hid_t io_kind_memtype(int kind)
{
    switch (kind) {
    case IO_KIND_U8: return H5T_NATIVE_UINT8;
    case IO_KIND_U32: return H5T_NATIVE_UINT32;
    case IO_KIND_U64: return H5T_NATIVE_UINT64;
    case IO_KIND_F64: return H5T_NATIVE_DOUBLE;
    default: return H5T_NATIVE_INT32;
    }
}

size_t io_kind_size(int kind)
{
    return kind == IO_KIND_U8 ? 1 : kind == IO_KIND_U64 || kind == IO_KIND_F64 ? 8 : 4;
}

int io_has_result_col(int c, int has_adjusted, int has_teams, int has_published,
                      int has_published_percent)
{
    if (c == IO_R_ADJUSTED) return has_adjusted;
    if (c >= IO_R_PUBLISHED_NS_PERCENT) return has_published_percent;
    if (c >= IO_R_PUBLISHED_NS) return has_published;
    return c >= IO_R_NS_TEAM ? has_teams : 1;
}

int io_has_field_col(int c, int has_deal_sets) { return c == IO_F_DEAL_SET ? has_deal_sets : 1; }

int io_has_dict(int k, int has_teams) { return k >= IO_D_TEAMS ? has_teams : 1; }

const char *const io_summary_attrs[IO_N_SUMMARY_ATTRS] = {
    "format_version", "n_results", "n_fields", "first_date", "last_date", "has_adjusted",
    "has_teams", "has_published", "has_published_percent"};

int io_archive_write_summary(hid_t file, const io_archive_summary *s, int version)
{
    const int64_t value[IO_N_SUMMARY_ATTRS] = {version,
                                        (int64_t)s->n_results,
                                        (int64_t)s->n_fields,
                                        s->first_date,
                                        s->last_date,
                                        s->has_adjusted != 0,
                                        s->has_teams != 0,
                                        s->has_published != 0,
                                        s->has_published_percent != 0};
    const hid_t type[IO_N_SUMMARY_ATTRS] = {H5T_STD_I32LE, H5T_STD_U64LE, H5T_STD_U64LE, H5T_STD_I32LE,
                                     H5T_STD_I32LE, H5T_STD_I32LE, H5T_STD_I32LE, H5T_STD_I32LE,
                                     H5T_STD_I32LE};
    char created[32];
    time_t now = time(NULL);
    struct tm utc;
    if (!gmtime_r(&now, &utc) || !strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &utc) ||
        io_h5_set_str_attr(file, "format", io_bridge_archive.format) < 0 ||
        io_h5_set_str_attr(file, "engine_version", datum_version()) < 0 ||
        io_h5_set_str_attr(file, "created", created) < 0)
        return -1;
    for (int i = 0; i < IO_N_SUMMARY_ATTRS; i++)
        if ((i != IO_A_HAS_PUBLISHED_PERCENT || value[i]) && /* absent reads as 0 */
            io_h5_set_int_attr(file, io_summary_attrs[i], type[i], value[i]) < 0)
            return -1;
    return 0;
}
