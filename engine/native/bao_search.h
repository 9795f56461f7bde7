/* The search of search.h over Bao's rules (bao_search.c). */
#ifndef UBAO_BAO_SEARCH_H
#define UBAO_BAO_SEARCH_H

#include "bao.h"
#include "search.h"

/* The rules of a Bao search, with what it keeps of each ply's moves (one per search). */
typedef struct {
    const BaoRules *rules;
    BaoKept *kept;
} BaoSearch;

SEARCH_DECLARE(bao_search, BaoSearch, BaoPos)

#endif
