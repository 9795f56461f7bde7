/* Othello's rules for both board widths: othello_impl.h compiled once per width, on the word
 * operations of othello_words.h. */
#include "othello.h"

#include "othello_words.h"

#define W 64
#include "othello_impl.h"
#undef W

#define W 256
#include "othello_impl.h"
#undef W
