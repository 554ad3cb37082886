/* .gitignore matching for the directory walker, following gitignore(5).
 *
 * An IgnoreList is a stack of loaded .gitignore files. The walker pushes the
 * file of each directory it enters (ignore_add_file) and pops those of the
 * directories it leaves (ignore_mark before entering, ignore_reset after).
 * Files pushed later must be deeper in the tree: their patterns take
 * precedence, and within one file the last matching pattern wins.
 *
 * Paths are relative to the walk root, with '/' separators and no leading
 * "./" (a leading "./" or '/' and trailing '/' are tolerated and dropped).
 * ignore_match looks at the path itself only, not at its parent directories:
 * git never re-includes a file below an excluded directory, and the walker
 * gets that for free by not descending into directories that match.
 *
 * Memory: malloc'ed; every pattern is compiled into storage owned by the
 * list, so the caller may free `text` as soon as ignore_add_file returns.
 * ignore_reset frees popped files; ignore_free frees everything. Allocation
 * failure aborts, as with the arena. */
#ifndef PFC_IGNORE_H
#define PFC_IGNORE_H
#include <stdbool.h>
#include <stddef.h>

typedef struct IgnoreList IgnoreList;

typedef enum IgnoreResult {
    IGNORE_NO_MATCH = 0,   /* no pattern matched: not ignored */
    IGNORE_EXCLUDED,       /* the deciding pattern excludes the path */
    IGNORE_REINCLUDED,     /* the deciding pattern is a "!" negation: not ignored */
} IgnoreResult;

IgnoreList *ignore_new(void);
void ignore_free(IgnoreList *l);   /* NULL is fine */

/* Adds the patterns of one .gitignore whose directory is `base`, relative to
 * the walk root ("" or "." for the root itself). `text` need not be
 * NUL-terminated; LF and CRLF line ends and a UTF-8 byte order mark are
 * accepted. Malformed patterns (an unterminated "[", an unknown "[:class:]",
 * a trailing unescaped "\") never match, as in git, and are dropped. */
void ignore_add_file(IgnoreList *l, const char *base, const char *text, size_t len);

/* Number of files on the stack; ignore_reset pops back to such a mark. */
size_t ignore_mark(const IgnoreList *l);
void ignore_reset(IgnoreList *l, size_t mark);

/* Whether the path is ignored (is_dir: it names a directory, which patterns
 * ending in "/" require). */
bool ignore_match(const IgnoreList *l, const char *relpath, bool is_dir);
/* Same decision, telling "no pattern" apart from "re-included by !". */
IgnoreResult ignore_lookup(const IgnoreList *l, const char *relpath, bool is_dir);

#endif
