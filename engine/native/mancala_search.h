/* The search of search.h over the mancala family's rules (mancala_search.c). */
#ifndef UBAO_MANCALA_SEARCH_H
#define UBAO_MANCALA_SEARCH_H

#include "mancala.h"
#include "search.h"

SEARCH_DECLARE(man_search, ManRules, ManPos)

#endif
