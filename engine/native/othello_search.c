/* The search's Othello instance for both board widths: othello_search_impl.h compiled once per
 * width, on the word operations of othello_words.h. */
#include "othello_search.h"

#include <math.h>

#include "othello_patterns.h"
#include "othello_words.h"

/* Whether constants.h has the evaluations oth_leaf scores: a new one fails the build here. */
typedef char oth_evaluations_known[OTH_EVALUATIONS == 6 ? 1 : -1];

/* Python's hash of a board as an int (the key the Python search uses). */
static inline uint64_t bb_hash64(Bb64 x) { return search_int_hash(x); }

/* Python's hash of the int: its value modulo 2**61 - 1, word by word from the top (2**64 is 8
 * modulo 2**61 - 1). */
static inline uint64_t bb_hash256(Bb256 x) {
    uint64_t h = 0;
    for (int i = OTH_WORDS - 1; i >= 0; i--) {
        h = search_int_hash(h * 8) + search_int_hash(x.w[i]);
        h = search_int_hash(h);
    }
    return h;
}

#define B_HASH B_NAME(bb_hash, W)

#define W 64
#include "othello_search_impl.h"
#undef W

#define W 256
#include "othello_search_impl.h"
#undef W
