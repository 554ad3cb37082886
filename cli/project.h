/* The project, the CLI's half: where a linted file's imports live on disk.
 *
 * A file's package root is the nearest directory at or above it holding
 * pyproject.toml, setup.py, setup.cfg or .git, else the common root of the
 * inputs. Its imports resolve the way `python file.py` would: the file's own
 * directory first, then the package root; relative imports from its
 * directory, never above the root. Each project module is parsed once per
 * run and reduced to a summary of its exports (ir/project.h); modules it
 * imports are summarised first, up to a depth and count bound, an import
 * cycle cut where it closes. Thread-safe: one lock around the per-run tables.
 *
 * What a file's facts read (modules, with the hash of their bytes and their
 * stat stamp; paths found absent, with their directory's stamp) goes into its
 * cache entry; a later run replays the entry only if all of them are
 * unchanged, which a stamp that did not move shows without a read or a stat
 * of each absent path (cli/project.c, "directory stamps"). */
#ifndef PFC_CLI_PROJECT_H
#define PFC_CLI_PROJECT_H
#include "../base/buf.h"
#include "../ir/project.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

typedef struct Project Project;
typedef struct ProjectRequest ProjectRequest;

/* The inputs as given on the command line: their common directory is the
 * root of files with no marker above them. */
Project *project_new(char **inputs, int ninputs);
void project_free(Project *p);   /* NULL is fine */

/* One analysis of the file at `path`: pass project_hook(req) to
 * ir_build_in_project; the summaries it reads live until project_request_free. */
ProjectRequest *project_request_new(Project *p, const char *path);
IrProjectHook project_hook(ProjectRequest *r);
/* Can the file's facts involve training: does its source (`len` bytes) hold
 * a "cuda" string, import a training library, or import a project module
 * that can (the relevance its imports get when it is lowered)? What the
 * answer read goes into the request's deps, so that a module that starts to
 * import torch re-lints the file. */
bool project_request_relevant(ProjectRequest *r, const char *src, uint32_t len);
/* What the facts read, as cache-entry text (sorted, front-coded lines:
 * project.c's put_deps). */
void project_request_deps(const ProjectRequest *r, Buf *out);
void project_request_free(ProjectRequest *r);   /* NULL is fine */

/* The file of module `dotted` ("model", "pkg.mod", ".layers") as the file
 * at `importer` imports it, the way `python importer` would find it (its
 * directory, then the package root); NULL when the project has none. The
 * caller frees it. */
char *project_module_file(Project *p, const char *importer, const char *dotted);

/* What stat() said of n paths (stated[i]: st[i] holds it), all taken at or
 * after since_ns (CLOCK_REALTIME): a module at one of these paths (as
 * written) is stamped from it, not stat'ed again. The arrays and strings
 * must outlive the project. */
void project_known_stats(Project *p, char *const *paths, const struct stat *st, const bool *stated,
                         size_t n, int64_t since_ns);

/* Are the modules and directories a cache entry lists still as they were? */
bool project_deps_current(Project *p, const char *deps, size_t len);

#endif
