/* The project's modules for `pfc estimate`: the interpreter asks for a
 * module the script (or a module it reads) imports, and gets it parsed and
 * lowered, found the way `python script.py` would find it (cli/project.h).
 * Each file is read once per run, however many names import it. */
#ifndef PFC_CLI_MODULES_H
#define PFC_CLI_MODULES_H
#include "../estimator/interp.h"

typedef struct ProjectModules ProjectModules;

ProjectModules *project_modules_new(const char *script);
ModuleSource project_modules_source(ProjectModules *pm);
void project_modules_free(ProjectModules *pm);   /* NULL is fine */

#endif
