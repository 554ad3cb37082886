/* Dev tool for tests/tools/check_ignore_vs_git.sh; not part of `make test`.
 *
 *   ignore_driver check ROOT   reads NUL-terminated paths (relative to ROOT)
 *                              on stdin and writes, NUL-terminated, those
 *                              that base/ignore.c says a walk would ignore
 *   ignore_driver gen SEED DIR creates a random tree with random nested
 *                              .gitignore files under DIR (which must exist)
 *
 * "check" does what the walker does: it loads ROOT/.gitignore, then for each
 * directory on the way down asks whether that directory is ignored (using the
 * files loaded so far) and, if not, loads its .gitignore; a path below an
 * ignored directory is ignored, as with `git check-ignore`. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "../../base/ignore.h"

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            abort();
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    fclose(f);
    *len = n;
    return buf;
}

static void load(IgnoreList *l, const char *root, const char *dir)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s%s.gitignore", root, dir, *dir ? "/" : "");
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    size_t len;
    char *text = read_file(path, &len);
    if (text) {
        ignore_add_file(l, dir, text, len);
        free(text);
    }
}

static bool walk_ignores(const char *root, const char *rel)
{
    IgnoreList *l = ignore_new();
    load(l, root, "");
    char prefix[4096];
    bool ignored = false;
    for (const char *s = strchr(rel, '/'); s; s = strchr(s + 1, '/')) {
        size_t n = (size_t)(s - rel);
        if (n >= sizeof prefix)
            break;
        memcpy(prefix, rel, n);
        prefix[n] = 0;
        if (ignore_match(l, prefix, true)) {
            ignored = true;
            break;
        }
        load(l, root, prefix);
    }
    if (!ignored) {
        char full[8192];
        snprintf(full, sizeof full, "%s/%s", root, rel);
        struct stat st;
        bool is_dir = lstat(full, &st) == 0 && S_ISDIR(st.st_mode);
        ignored = ignore_match(l, rel, is_dir);
    }
    ignore_free(l);
    return ignored;
}

static int check(const char *root)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getdelim(&line, &cap, '\0', stdin)) > 0) {
        if (line[n - 1] != '\0')
            line[n] = '\0';
        if (walk_ignores(root, line))
            fwrite(line, 1, strlen(line) + 1, stdout);
    }
    free(line);
    return 0;
}

/* ---- random trees ----------------------------------------------------------------------- */

static unsigned long long rng;
static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng >> 33) % n;
}

static const char *const names[] = {
    "a", "b", "c", "ab", "x.py", "y.log", "d.pyc", "build", "logs", "cache", "foo",
    "#h", "!n", "sp ", "[x]", "a b", "Ab", "a1", "top.py", ".hidden",
};
enum { NNAMES = sizeof names / sizeof *names };

static const char *const tokens[] = {
    "a", "b", "c", "ab", "x.py", "y.log", "build", "logs", "cache", "foo", "top.py",
    "*", "?", "**", "*.py", "*.log", "*.pyc", "[a-c]", "[!a]", "[ab]", "[[:upper:]]*",
    "a?", "?b", "*b", "a*", "\\#h", "\\!n", "sp\\ ", "\\[x]", "a b", ".*", "[0-9]",
    "a**", "**b", "***", "\\/", "[/]", "[!/]", "\\", "[a-", "[[:bogus:]]", "\\*",
};
enum { NTOKENS = sizeof tokens / sizeof *tokens };

static void random_gitignore(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/.gitignore", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    unsigned lines = 1 + rnd(6);
    for (unsigned i = 0; i < lines; i++) {
        char line[256] = "";
        unsigned kind = rnd(20);
        if (kind == 0) {
            strcat(line, "# comment");
        } else if (kind == 1) {
            /* blank line */
        } else {
            if (rnd(4) == 0)
                strcat(line, "!");
            if (rnd(5) == 0)
                strcat(line, "/");
            unsigned segs = 1 + rnd(3);
            for (unsigned s = 0; s < segs; s++) {
                if (s)
                    strcat(line, "/");
                strcat(line, tokens[rnd(NTOKENS)]);
                if (rnd(5) == 0)
                    strcat(line, tokens[rnd(NTOKENS)]);
            }
            if (rnd(5) == 0)
                strcat(line, "/");
            if (rnd(10) == 0)
                strcat(line, "  ");
        }
        fputs(line, f);
        fputs(rnd(5) == 0 ? "\r\n" : "\n", f);
    }
    fclose(f);
}

static void random_tree(const char *dir, int depth)
{
    if (rnd(2) == 0 || depth == 0)
        random_gitignore(dir);
    bool used[NNAMES] = {0};
    unsigned entries = 2 + rnd(5);
    for (unsigned i = 0; i < entries; i++) {
        unsigned k = rnd(NNAMES);
        if (used[k])
            continue;
        used[k] = true;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        if (depth < 3 && rnd(5) < 2) {
            if (mkdir(path, 0777) != 0 && errno != EEXIST) {
                perror(path);
                exit(2);
            }
            random_tree(path, depth + 1);
        } else {
            FILE *f = fopen(path, "w");
            if (!f) {
                perror(path);
                exit(2);
            }
            fclose(f);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "check") == 0)
        return check(argv[2]);
    if (argc == 4 && strcmp(argv[1], "gen") == 0) {
        rng = strtoull(argv[2], NULL, 10) * 2654435761ull + 1;
        random_tree(argv[3], 0);
        return 0;
    }
    fprintf(stderr, "usage: %s check ROOT < paths | %s gen SEED DIR\n", argv[0], argv[0]);
    return 2;
}
