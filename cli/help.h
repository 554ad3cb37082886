/* The text of `pfc help`, `pfc COMMAND --help` and `pfc help TOPIC`, and the
 * man page docs/pfc.1, all printed from one table (cli/help.c): the man page
 * is generated (`make docs`), and tests/cli.sh checks it is up to date. */
#ifndef PFC_HELP_H
#define PFC_HELP_H
#include <stdbool.h>
#include <stdio.h>

/* The global help: every command and topic, one line each. */
void help_global(FILE *out);
/* A command's or topic's help (aliases too); false when there is none. */
bool help_topic(const char *name, FILE *out);
/* The whole man page, in roff. */
void help_man(FILE *out);

#endif
