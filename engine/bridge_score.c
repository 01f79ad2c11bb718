/* bridge_score.c - duplicate bridge scoring (Laws of Duplicate Bridge 2017,
 * law 77): the score of a contract, the vulnerability of a board number,
 * parsers of contract and result strings, and the legality of a score. Pure
 * functions: no allocation, no I/O, no global state. */
#include "datum.h"
#include "datum_text.h"

#include <string.h>

int datum_bridge_score(int level, datum_strain strain, int doubled, int vulnerable, int tricks)
{
    if (level < 1 || level > 7 || strain < DATUM_CLUBS || strain > DATUM_NOTRUMP || doubled < 0 ||
        doubled > 2 || tricks < 0 || tricks > 13)
        return 0;
    int need = 6 + level, factor = doubled == 2 ? 2 : 1;
    if (tricks < need) {
        int down = need - tricks;
        if (!doubled) return -(vulnerable ? 100 : 50) * down;
        /* Doubled, vulnerable: 200 then 300 a trick; not vulnerable: 100,
         * 200, 200, then 300. Redoubled: twice that. */
        int penalty = vulnerable
                          ? 200 + 300 * (down - 1)
                          : 100 + 200 * (down > 3 ? 2 : down - 1) + 300 * (down > 3 ? down - 3 : 0);
        return -factor * penalty;
    }
    int per_trick = strain >= DATUM_HEARTS ? 30 : 20; /* majors and notrump; minors */
    int contract =
        (per_trick * level + (strain == DATUM_NOTRUMP ? 10 : 0)) * (doubled ? 2 * factor : 1);
    int score = contract + (contract >= 100 ? (vulnerable ? 500 : 300) : 50);
    if (level == 6) score += vulnerable ? 750 : 500;
    if (level == 7) score += vulnerable ? 1500 : 1000;
    int over = tricks - need;
    if (doubled) score += 50 * factor + over * (vulnerable ? 200 : 100) * factor; /* the insult */
    else score += over * per_trick;
    return score;
}

int datum_board_vulnerability(int board)
{
    /* The cycle of 16: none, NS, EW, all; each group of four shifted by one. */
    static const unsigned char cycle[16] = {0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2};
    return board >= 1 ? cycle[(board - 1) % 16] : 0;
}

static int upper(int c) { return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c; }

/* 1 if s[0..len) equals the upper-case word w, ignoring case. */
static int word_is(const char *s, size_t len, const char *w)
{
    if (strlen(w) != len) return 0;
    for (size_t i = 0; i < len; i++)
        if (upper((unsigned char)s[i]) != w[i]) return 0;
    return 1;
}

int datum_contract_parse(const char *s, size_t len, datum_contract *out)
{
    while (len && (*s == ' ' || *s == '\t')) s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
    datum_contract c = {0, DATUM_CLUBS, 0};
    if (word_is(s, len, "PASS") || word_is(s, len, "AP") || word_is(s, len, "PO") ||
        word_is(s, len, "P") || word_is(s, len, "ALLPASS")) {
        *out = c;
        return DATUM_OK;
    }
    if (len < 2 || s[0] < '1' || s[0] > '7') return DATUM_E_INPUT;
    c.level = s[0] - '0';
    size_t i = 1;
    switch (upper((unsigned char)s[i])) {
    case 'C': c.strain = DATUM_CLUBS; break;
    case 'D': c.strain = DATUM_DIAMONDS; break;
    case 'H': c.strain = DATUM_HEARTS; break;
    case 'S': c.strain = DATUM_SPADES; break;
    case 'N': c.strain = DATUM_NOTRUMP; break;
    default: return DATUM_E_INPUT;
    }
    i++;
    if (c.strain == DATUM_NOTRUMP && i < len && upper((unsigned char)s[i]) == 'T') i++;
    /* Doubling: X or XX (also * and ** as BridgeWebs writes them), D / R. */
    size_t rest = len - i;
    const char *r = s + i;
    if (rest == 0) c.doubled = 0;
    else if (word_is(r, rest, "X") || word_is(r, rest, "*") || word_is(r, rest, "D")) c.doubled = 1;
    else if (word_is(r, rest, "XX") || word_is(r, rest, "**") || word_is(r, rest, "R") ||
             word_is(r, rest, "RD"))
        c.doubled = 2;
    else return DATUM_E_INPUT;
    *out = c;
    return DATUM_OK;
}

int datum_result_parse(const char *s, size_t len, int level, int *tricks)
{
    while (len && (*s == ' ' || *s == '\t')) s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
    if (level < 1 || level > 7 || len == 0 || len > 3) return DATUM_E_INPUT;
    if (len == 1 && s[0] == '=') {
        *tricks = 6 + level;
        return DATUM_OK;
    }
    /* "+1", "-2": tricks over or under the contract; "10": tricks taken. */
    int64_t v;
    if (datum_parse_int(s, len, -13, 13, &v) != DATUM_PARSE_OK) return DATUM_E_INPUT;
    int t = s[0] == '+' || s[0] == '-' ? 6 + level + (int)v : (int)v;
    if (t < 0 || t > 13) return DATUM_E_INPUT;
    *tricks = t;
    return DATUM_OK;
}

int datum_declarer_parse(const char *s, size_t len)
{
    while (len && (*s == ' ' || *s == '\t')) s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
    if (len != 1) return -1;
    switch (upper((unsigned char)s[0])) {
    case 'N': return DATUM_NORTH;
    case 'E': return DATUM_EAST;
    case 'S': return DATUM_SOUTH;
    case 'W': return DATUM_WEST;
    default: return -1;
    }
}

int datum_bridge_ns_score(const datum_contract *c, int declarer, int vulnerability, int tricks)
{
    if (c->level == 0) return 0;
    int ew = declarer == DATUM_EAST || declarer == DATUM_WEST;
    int vulnerable = (vulnerability >> ew) & 1;
    int s = datum_bridge_score(c->level, c->strain, c->doubled, vulnerable, tricks);
    return ew ? -s : s;
}

/* The first reading of ns_score as a contract played: the side the score
 * favours declaring first (a made contract before a defeated one), then
 * undoubled before doubled before redoubled, levels 1 to 7, strains clubs to
 * notrump, declarer taking at most max_tricks; 1 and the reading, or 0. */
static int read_score(int32_t ns_score, int vulnerability, int max_tricks, int *ew_declares,
                      datum_contract *c, int *tricks)
{
    if (ns_score == 0 || ns_score % 10 != 0 || ns_score > 7600 || ns_score < -7600) return 0;
    /* 2 declarer sides x 3 doublings x 7 levels x 5 strains x 14 tricks at most. */
    for (int side = 0; side < 2; side++) {
        int ew = (ns_score > 0) == (side == 1);
        int vulnerable = (vulnerability >> ew) & 1;
        int32_t want = ew ? -ns_score : ns_score;
        for (int x = 0; x <= 2; x++)
            for (int level = 1; level <= 7; level++)
                for (int strain = DATUM_CLUBS; strain <= DATUM_NOTRUMP; strain++)
                    for (int t = 0; t <= max_tricks; t++)
                        if (datum_bridge_score(level, (datum_strain)strain, x, vulnerable, t) ==
                            want) {
                            *ew_declares = ew;
                            *c = (datum_contract){level, (datum_strain)strain, x};
                            *tricks = t;
                            return 1;
                        }
    }
    return 0;
}

int datum_bridge_score_legal(int32_t ns_score, int vulnerability)
{
    int ew, tricks;
    datum_contract c;
    return ns_score == 0 /* passed out */ || read_score(ns_score, vulnerability, 13, &ew, &c, &tricks);
}

int datum_bridge_one_more_trick(int32_t ns_score, int vulnerability, int32_t *out)
{
    int ew, tricks;
    datum_contract c;
    if (!read_score(ns_score, vulnerability, 12, &ew, &c, &tricks)) return DATUM_W_EMPTY;
    *out = datum_bridge_ns_score(&c, ew ? DATUM_EAST : DATUM_NORTH, vulnerability, tricks + 1);
    return DATUM_OK;
}
