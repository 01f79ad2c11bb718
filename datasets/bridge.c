/* bridge.c - the duplicate bridge scoring table (Laws of Duplicate Bridge
 * 2017, law 77) and the vulnerability of a board number. */
#include "generate.h"

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
