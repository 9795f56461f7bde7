/* The search of search.h over Othello's rules, for both board widths (othello.c, which compiles
 * the rules and their search in one unit, so that the search inlines the placements). */
#ifndef UBAO_OTHELLO_SEARCH_H
#define UBAO_OTHELLO_SEARCH_H

#include "othello.h"
#include "search.h"

typedef struct {
    Bb64 black, white;
    int player;
} OthPos64;

typedef struct {
    Bb256 black, white;
    int player;
} OthPos256;

SEARCH_DECLARE(oth_search_64, Oth64, OthPos64)
SEARCH_DECLARE(oth_search_256, Oth256, OthPos256)

#endif
