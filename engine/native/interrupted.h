/* What a long run without the GIL polls (the search, the solver's probe, the endgame
 * database's build), so that Ctrl-C ends it: one type, for every file that runs one. */
#ifndef UBAO_INTERRUPTED_H
#define UBAO_INTERRUPTED_H

/* Polled now and then by long loops: nonzero stops them (a signal is pending, say). */
typedef int (*Interrupted)(void *context);

#endif
