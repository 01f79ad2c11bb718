/* tarot_penalties.c - the net penalty of every side of a tarot event. */
#include "datum_jobs.h"
#include "datum_tarot_io.h"

#include <string.h>

void datum_tarot_net_penalties(size_t n, const int32_t *event, const uint8_t *side,
                               const int32_t *id, const double *pm, int32_t which,
                               double *attack, size_t n_attack, double *defense,
                               size_t n_defense)
{
    if (n_attack) memset(attack, 0, n_attack * sizeof *attack);
    if (n_defense) memset(defense, 0, n_defense * sizeof *defense);
    for (size_t i = 0; i < n; i++) {
        if (event[i] != which) continue;
        if (side[i] == DATUM_TAROT_ATTACK) attack[id[i]] += pm[i];
        else defense[id[i]] += pm[i];
    }
}
