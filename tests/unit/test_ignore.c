/* Unit tests for base/ignore: .gitignore pattern syntax and matching
 * (gitignore(5)), precedence between nested files, and robustness. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fnmatch.h>
#include <cmocka.h>

#include "../../base/ignore.h"

/* A list holding one root .gitignore with the given text. */
static IgnoreList *root_list(const char *text)
{
    IgnoreList *l = ignore_new();
    assert_non_null(l);
    ignore_add_file(l, "", text, strlen(text));
    return l;
}

#define FILE_IGNORED(l, p) assert_true(ignore_match((l), (p), false))
#define FILE_KEPT(l, p) assert_false(ignore_match((l), (p), false))
#define DIR_IGNORED(l, p) assert_true(ignore_match((l), (p), true))
#define DIR_KEPT(l, p) assert_false(ignore_match((l), (p), true))

/* ---- line syntax --------------------------------------------------------------------- */

static void test_suffix_glob(void **state)
{
    (void)state;
    IgnoreList *l = root_list("*.pyc\n");
    FILE_IGNORED(l, "a.pyc");
    FILE_IGNORED(l, ".pyc");
    FILE_IGNORED(l, "pkg/sub/mod.pyc");
    DIR_IGNORED(l, "weird.pyc");
    FILE_KEPT(l, "a.py");
    FILE_KEPT(l, "a.pyco");
    FILE_KEPT(l, "a.pyc/b.py");   /* only the path's own name is matched */
    ignore_free(l);
}

static void test_blank_lines_and_comments(void **state)
{
    (void)state;
    IgnoreList *l = root_list("\n# comment\n   \n\t\n#*.py\n x.py\nlast");   /* no final newline */
    FILE_KEPT(l, "# comment");
    FILE_KEPT(l, "comment");
    FILE_KEPT(l, "a.py");          /* "#*.py" is a comment */
    FILE_KEPT(l, "#a.py");
    FILE_KEPT(l, "x.py");          /* leading space is part of " x.py" */
    FILE_IGNORED(l, " x.py");
    FILE_IGNORED(l, "\t");         /* a tab is not trimmed: the line is a pattern */
    FILE_IGNORED(l, "last");
    FILE_KEPT(l, "   ");
    ignore_free(l);
}

static void test_escaped_hash_and_bang(void **state)
{
    (void)state;
    IgnoreList *l = root_list("\\#file\n\\!bang\nmid#hash\n");
    FILE_IGNORED(l, "#file");
    FILE_IGNORED(l, "d/#file");
    FILE_KEPT(l, "file");
    FILE_KEPT(l, "\\#file");
    FILE_IGNORED(l, "!bang");
    FILE_KEPT(l, "bang");
    FILE_IGNORED(l, "mid#hash");   /* '#' only starts a comment at the line start */
    assert_int_equal(ignore_lookup(l, "bang", false), IGNORE_NO_MATCH);
    ignore_free(l);
}

static void test_trailing_spaces(void **state)
{
    (void)state;
    IgnoreList *l = root_list("foo   \nbar\\ \nbaz\\  \nq\\\\ \n");
    FILE_IGNORED(l, "foo");
    FILE_KEPT(l, "foo ");
    FILE_KEPT(l, "foo   ");
    FILE_IGNORED(l, "bar ");       /* "\ " keeps the space */
    FILE_KEPT(l, "bar");
    FILE_IGNORED(l, "baz ");       /* escaped space kept, the one after it trimmed */
    FILE_KEPT(l, "baz  ");
    FILE_KEPT(l, "baz");
    FILE_IGNORED(l, "q\\");        /* "\\" is a backslash; the space after it is trimmed */
    FILE_KEPT(l, "q\\ ");
    ignore_free(l);
}

static void test_crlf_line_ends(void **state)
{
    (void)state;
    IgnoreList *l = root_list("*.pyc\r\n/top.py\r\nbuild/\r\n!keep.pyc\r\nsp  \r\n# c\r\nlast\r");
    FILE_IGNORED(l, "a.pyc");
    FILE_KEPT(l, "keep.pyc");
    FILE_IGNORED(l, "top.py");
    FILE_KEPT(l, "top.py\r");
    FILE_KEPT(l, "sub/top.py");
    DIR_IGNORED(l, "build");
    FILE_KEPT(l, "build");
    FILE_IGNORED(l, "sp");
    FILE_IGNORED(l, "last");       /* a final "\r" without "\n" is a line end too */
    FILE_KEPT(l, "# c");
    ignore_free(l);
}

static void test_utf8_bom(void **state)
{
    (void)state;
    IgnoreList *l = root_list("\xef\xbb\xbf" "first\n");
    FILE_IGNORED(l, "first");
    FILE_KEPT(l, "\xef\xbb\xbf" "first");
    ignore_free(l);
}

/* ---- negation ------------------------------------------------------------------------ */

static void test_negation_last_match_wins(void **state)
{
    (void)state;
    IgnoreList *l = root_list("*.py\n!keep.py\n");
    FILE_IGNORED(l, "a.py");
    FILE_IGNORED(l, "sub/a.py");
    FILE_KEPT(l, "keep.py");
    FILE_KEPT(l, "sub/keep.py");
    assert_int_equal(ignore_lookup(l, "keep.py", false), IGNORE_REINCLUDED);
    assert_int_equal(ignore_lookup(l, "a.py", false), IGNORE_EXCLUDED);
    assert_int_equal(ignore_lookup(l, "a.c", false), IGNORE_NO_MATCH);
    ignore_free(l);

    l = root_list("!keep.py\n*.py\n");   /* the later "*.py" wins */
    FILE_IGNORED(l, "keep.py");
    ignore_free(l);

    l = root_list("*\n!*/\n!*.py\n");    /* the usual allow-list */
    FILE_KEPT(l, "a.py");
    FILE_IGNORED(l, "a.txt");
    DIR_KEPT(l, "src");
    FILE_IGNORED(l, "src");              /* a file named src is no directory */
    FILE_KEPT(l, "src/x.py");
    ignore_free(l);

    l = root_list("!\n!/\nx\n");         /* empty patterns are no patterns */
    FILE_KEPT(l, "!");
    FILE_IGNORED(l, "x");
    ignore_free(l);
}

/* ---- directories and anchoring ------------------------------------------------------- */

static void test_dir_only(void **state)
{
    (void)state;
    IgnoreList *l = root_list("build/\n");
    DIR_IGNORED(l, "build");
    FILE_KEPT(l, "build");
    DIR_IGNORED(l, "src/build");
    FILE_KEPT(l, "src/build");
    DIR_KEPT(l, "builder");
    DIR_IGNORED(l, "build/");            /* a trailing '/' in the path means a directory */
    /* the walker never descends into build/, so its files are not asked about;
     * the match itself looks at the path's own name only */
    FILE_KEPT(l, "build/x.py");
    ignore_free(l);

    l = root_list("/out/\ndocs/gen/\n");
    DIR_IGNORED(l, "out");
    DIR_KEPT(l, "a/out");
    FILE_KEPT(l, "out");
    DIR_IGNORED(l, "docs/gen");
    FILE_KEPT(l, "docs/gen");
    DIR_KEPT(l, "x/docs/gen");
    ignore_free(l);
}

static void test_anchoring(void **state)
{
    (void)state;
    IgnoreList *l = root_list("/top.py\ndocs/*.md\n");
    FILE_IGNORED(l, "top.py");
    FILE_KEPT(l, "sub/top.py");
    FILE_IGNORED(l, "docs/a.md");
    FILE_IGNORED(l, "docs/.md");
    FILE_KEPT(l, "docs/a/b.md");         /* '*' does not cross '/' */
    FILE_KEPT(l, "x/docs/a.md");         /* a middle '/' anchors too */
    FILE_KEPT(l, "docs");
    FILE_IGNORED(l, "./top.py");         /* tolerated leading "./" */
    ignore_free(l);

    l = root_list("cache\n");            /* no slash: any level */
    FILE_IGNORED(l, "cache");
    DIR_IGNORED(l, "a/cache");
    FILE_IGNORED(l, "a/b/cache");
    FILE_KEPT(l, "a/cachex");
    FILE_KEPT(l, "cache/a");
    ignore_free(l);
}

/* ---- wildcards ----------------------------------------------------------------------- */

static void test_star_and_question(void **state)
{
    (void)state;
    IgnoreList *l = root_list("?.py\nsrc/*\nt*st\n");
    FILE_IGNORED(l, "a.py");
    FILE_IGNORED(l, "d/b.py");
    FILE_KEPT(l, "ab.py");
    FILE_KEPT(l, ".py");
    FILE_IGNORED(l, "src/x");
    DIR_IGNORED(l, "src/sub");
    FILE_KEPT(l, "src/sub/x");
    FILE_KEPT(l, "src");
    FILE_IGNORED(l, "tst");
    FILE_IGNORED(l, "t-long-st");
    FILE_KEPT(l, "tsx");
    ignore_free(l);

    l = root_list("d/a?b\nd/x*y\n");
    FILE_IGNORED(l, "d/acb");
    FILE_KEPT(l, "d/a/b");               /* '?' does not match '/' */
    FILE_KEPT(l, "d/x/y");
    FILE_IGNORED(l, "d/xzzy");
    ignore_free(l);
}

static void test_brackets(void **state)
{
    (void)state;
    IgnoreList *l = root_list("[abc].t\n[a-z]1\n[!0-9]2\n[^0-9]3\n[]]4\n[!]]5\n[a-]6\n"
                              "[[:digit:]x]7\n[\\]]8\n[[]9\nz[a-cx-z]\n");
    FILE_IGNORED(l, "a.t");
    FILE_IGNORED(l, "c.t");
    FILE_KEPT(l, "d.t");
    FILE_KEPT(l, "ab.t");
    FILE_IGNORED(l, "q1");
    FILE_KEPT(l, "Q1");
    FILE_KEPT(l, "01");
    FILE_IGNORED(l, "x2");
    FILE_KEPT(l, "5 2");
    FILE_KEPT(l, "52");
    FILE_IGNORED(l, "x3");
    FILE_KEPT(l, "53");
    FILE_IGNORED(l, "]4");
    FILE_KEPT(l, "a4");
    FILE_IGNORED(l, "a5");
    FILE_KEPT(l, "]5");
    FILE_IGNORED(l, "a6");
    FILE_IGNORED(l, "-6");
    FILE_KEPT(l, "b6");
    FILE_IGNORED(l, "47");
    FILE_IGNORED(l, "x7");
    FILE_KEPT(l, "y7");
    FILE_IGNORED(l, "]8");
    FILE_IGNORED(l, "[9");
    FILE_IGNORED(l, "zb");
    FILE_IGNORED(l, "zy");
    FILE_KEPT(l, "zm");
    ignore_free(l);

    l = root_list("d/[!a]\n");           /* a class never matches '/' */
    FILE_IGNORED(l, "d/b");
    FILE_KEPT(l, "d/a");
    ignore_free(l);
}

static void test_backslash_escapes(void **state)
{
    (void)state;
    IgnoreList *l = root_list("\\*star\nq\\?\n\\[x]\n\\a\\b\n");
    FILE_IGNORED(l, "*star");
    FILE_KEPT(l, "xstar");
    FILE_IGNORED(l, "q?");
    FILE_KEPT(l, "qq");
    FILE_IGNORED(l, "[x]");
    FILE_KEPT(l, "x");
    FILE_IGNORED(l, "ab");
    ignore_free(l);
}

static void test_malformed_patterns_never_match(void **state)
{
    (void)state;
    IgnoreList *l = root_list("[abc\nfoo\\\n[[:bogus:]]\nx[\n[a-\n[\\\n");
    FILE_KEPT(l, "[abc");
    FILE_KEPT(l, "a");
    FILE_KEPT(l, "foo");
    FILE_KEPT(l, "foo\\");
    FILE_KEPT(l, "b");
    FILE_KEPT(l, "x[");
    FILE_KEPT(l, "x");
    FILE_KEPT(l, "[a-");
    ignore_free(l);
}

static void test_starstar_leading(void **state)
{
    (void)state;
    IgnoreList *l = root_list("**/cache\n**/foo/bar\n");
    DIR_IGNORED(l, "cache");
    FILE_IGNORED(l, "a/cache");
    FILE_IGNORED(l, "a/b/c/cache");
    FILE_KEPT(l, "cachex");
    FILE_KEPT(l, "a/xcache");
    FILE_KEPT(l, "cache/x");
    FILE_IGNORED(l, "foo/bar");
    FILE_IGNORED(l, "x/y/foo/bar");
    FILE_KEPT(l, "foo/x/bar");
    FILE_KEPT(l, "bar");
    ignore_free(l);
}

static void test_starstar_trailing(void **state)
{
    (void)state;
    IgnoreList *l = root_list("logs/**\n");
    FILE_IGNORED(l, "logs/a");
    DIR_IGNORED(l, "logs/a");
    FILE_IGNORED(l, "logs/a/b/c.log");
    DIR_KEPT(l, "logs");                 /* everything inside, not logs itself */
    FILE_KEPT(l, "logs");
    FILE_KEPT(l, "x/logs/a");            /* anchored */
    FILE_KEPT(l, "logsx/a");
    ignore_free(l);

    l = root_list("/**\n");
    FILE_IGNORED(l, "a");
    FILE_IGNORED(l, "a/b");
    ignore_free(l);
}

static void test_starstar_middle(void **state)
{
    (void)state;
    IgnoreList *l = root_list("a/**/b\n");
    FILE_IGNORED(l, "a/b");
    FILE_IGNORED(l, "a/x/b");
    FILE_IGNORED(l, "a/x/y/b");
    DIR_IGNORED(l, "a/x/y/z/b");
    FILE_KEPT(l, "a/xb");
    FILE_KEPT(l, "ab");
    FILE_KEPT(l, "b");
    FILE_KEPT(l, "x/a/b");
    FILE_KEPT(l, "a/b/c");
    FILE_KEPT(l, "a/x/bb");
    ignore_free(l);

    l = root_list("a/**/b/**/c\nx/**/**/y\n");
    FILE_IGNORED(l, "a/b/c");
    FILE_IGNORED(l, "a/1/b/2/3/c");
    FILE_IGNORED(l, "a/b/b/b/c");
    FILE_KEPT(l, "a/1/c");
    FILE_IGNORED(l, "x/y");
    FILE_IGNORED(l, "x/1/2/3/y");
    ignore_free(l);
}

/* Star runs that are not a whole path component: what git 2.39 does (checked
 * with `git check-ignore`), which is wider than gitignore(5)'s "regular
 * asterisks" when the stars come last or before a '/' and nothing but plain
 * characters comes before them. */
static void test_double_stars_elsewhere(void **state)
{
    (void)state;
    IgnoreList *l = root_list("a**b\nd/**z\nd/x**\n**q\n");
    FILE_IGNORED(l, "ab");               /* followed by a letter: just '*' */
    FILE_IGNORED(l, "a-x-b");
    FILE_IGNORED(l, "q/axxb");
    FILE_IGNORED(l, "d/z");
    FILE_IGNORED(l, "d/yz");
    FILE_KEPT(l, "d/y/z");
    FILE_IGNORED(l, "d/x");
    FILE_IGNORED(l, "d/xyz");
    FILE_IGNORED(l, "d/xy/z1");          /* at the end: anything, '/' included */
    FILE_KEPT(l, "d/y");
    FILE_IGNORED(l, "qq");
    FILE_IGNORED(l, "1/2/q");
    ignore_free(l);

    l = root_list("x/a**/b\ny/**\\/b\n");
    FILE_IGNORED(l, "x/ab");             /* stars + '/' may match nothing */
    FILE_IGNORED(l, "x/a/b");
    FILE_IGNORED(l, "x/ac/b");
    FILE_IGNORED(l, "x/ac/d/b");         /* ... or a run with '/' in it */
    FILE_KEPT(l, "x/acb");
    FILE_KEPT(l, "x/ac/bd");
    FILE_IGNORED(l, "y/c/b");            /* before a quoted '/': a run, not nothing */
    FILE_IGNORED(l, "y/c/d/b");
    FILE_KEPT(l, "y/b");
    ignore_free(l);

    l = root_list("p?**/c\n[r]**/c\n\\s**/c\n");   /* a wildcard before: plain '*' */
    FILE_IGNORED(l, "py/c");
    FILE_KEPT(l, "pyc");
    FILE_KEPT(l, "py/d/c");
    FILE_IGNORED(l, "r/c");
    FILE_KEPT(l, "rc");
    FILE_KEPT(l, "r/d/c");
    FILE_IGNORED(l, "s/c");
    FILE_KEPT(l, "sc");
    FILE_KEPT(l, "s/d/c");
    ignore_free(l);
    l = root_list("/t*u**\n!/t*u\n");
    FILE_IGNORED(l, "tu1");
    DIR_KEPT(l, "tu");
    FILE_KEPT(l, "tu/v");                /* "t*u**" is "t*u*": stays in one component */
    ignore_free(l);

    l = root_list("**\n");               /* no slash: matches every name */
    FILE_IGNORED(l, "anything");
    FILE_IGNORED(l, "a/b/c");
    ignore_free(l);
}

/* ---- nested files -------------------------------------------------------------------- */

static void test_nested_precedence_and_reset(void **state)
{
    (void)state;
    IgnoreList *l = ignore_new();
    assert_int_equal(ignore_mark(l), 0);
    const char *root = "*.log\n/gen\ntmp/\n";
    ignore_add_file(l, "", root, strlen(root));
    size_t m1 = ignore_mark(l);
    assert_int_equal(m1, 1);

    const char *sub = "!*.log\n/gen\n*.tmp\n";
    ignore_add_file(l, "sub", sub, strlen(sub));
    size_t m2 = ignore_mark(l);
    assert_int_equal(m2, 2);
    const char *deep = "*.log\n!tmp/\n";
    ignore_add_file(l, "sub/deep/", deep, strlen(deep));   /* trailing '/' tolerated */
    assert_int_equal(ignore_mark(l), 3);

    FILE_IGNORED(l, "x.log");
    FILE_IGNORED(l, "other/x.log");
    FILE_KEPT(l, "sub/x.log");             /* sub's "!*.log" beats the root's "*.log" */
    FILE_KEPT(l, "sub/a/x.log");
    FILE_IGNORED(l, "sub/deep/x.log");     /* deeper still wins */
    FILE_IGNORED(l, "sub/deep/z/x.log");
    FILE_IGNORED(l, "gen");
    FILE_KEPT(l, "other/gen");
    FILE_IGNORED(l, "sub/gen");            /* anchored at sub/ */
    FILE_KEPT(l, "sub/a/gen");
    FILE_KEPT(l, "x.tmp");                 /* sub's patterns stay below sub/ */
    FILE_KEPT(l, "subway/x.tmp");
    FILE_IGNORED(l, "sub/x.tmp");
    DIR_IGNORED(l, "sub/tmp");
    DIR_KEPT(l, "sub/deep/tmp");
    assert_int_equal(ignore_lookup(l, "sub/deep/tmp", true), IGNORE_REINCLUDED);

    ignore_reset(l, m2);                   /* left sub/deep */
    assert_int_equal(ignore_mark(l), 2);
    FILE_KEPT(l, "sub/deep/x.log");
    DIR_IGNORED(l, "sub/deep/tmp");

    ignore_reset(l, m1);                   /* left sub */
    FILE_IGNORED(l, "sub/x.log");
    FILE_KEPT(l, "sub/x.tmp");
    FILE_KEPT(l, "sub/gen");

    /* a sibling directory's file, pushed after the reset */
    const char *sib = "/gen\n";
    ignore_add_file(l, "other", sib, strlen(sib));
    FILE_IGNORED(l, "other/gen");
    FILE_KEPT(l, "sub/gen");

    ignore_reset(l, 0);
    FILE_KEPT(l, "x.log");
    ignore_reset(l, 5);                    /* a mark above the top is a no-op */
    assert_int_equal(ignore_mark(l), 0);
    ignore_free(l);
    ignore_free(NULL);
}

static void test_base_dot_and_text_not_terminated(void **state)
{
    (void)state;
    IgnoreList *l = ignore_new();
    char buf[] = {'a', '.', 'x', '\n', 'b', 'X'};   /* "a.x\nb" then a byte past len */
    ignore_add_file(l, ".", buf, 5);
    memset(buf, '?', sizeof buf);                    /* patterns were copied */
    FILE_IGNORED(l, "a.x");
    FILE_IGNORED(l, "b");
    FILE_KEPT(l, "bX");
    FILE_KEPT(l, "");
    ignore_add_file(l, "s", NULL, 0);
    FILE_IGNORED(l, "s/b");
    ignore_free(l);
}

/* ---- robustness and an independent oracle --------------------------------------------- */

static uint32_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

static void test_random_bytes_never_crash(void **state)
{
    (void)state;
    static const char alphabet[] = "ab/*?[]!^-\\#: \r\n.:\xff\0";   /* NUL last */
    rng_state = 20240611u;
    char text[256], path[64];
    size_t hits = 0;
    IgnoreList *l = ignore_new();
    for (int i = 0; i < 2000; i++) {
        size_t tn = rnd(sizeof text);
        for (size_t k = 0; k < tn; k++)
            text[k] = alphabet[rnd(sizeof alphabet - 1)];
        size_t mark = ignore_mark(l);
        char base[8] = "";
        if (rnd(3) == 0)
            snprintf(base, sizeof base, "%c", "ab"[rnd(2)]);
        ignore_add_file(l, base, text, tn);
        for (int j = 0; j < 4; j++) {
            size_t pn = rnd(sizeof path);
            for (size_t k = 0; k < pn; k++)
                path[k] = alphabet[rnd(sizeof alphabet - 2)];   /* no NUL inside */
            path[pn] = 0;
            bool is_dir = rnd(2);
            bool m = ignore_match(l, path, is_dir);
            assert_int_equal(m, ignore_match(l, path, is_dir));   /* deterministic */
            hits += m;
        }
        if (rnd(4) == 0)
            ignore_reset(l, mark);
        if (ignore_mark(l) > 20)
            ignore_reset(l, 0);
    }
    ignore_free(l);
    assert_true(hits > 0);   /* the inputs did exercise matches */
}

/* Patterns without "**" components and without a trailing '/' must agree with
 * POSIX fnmatch(FNM_PATHNAME): on the whole path when anchored, on the last
 * component otherwise. */
static void test_agrees_with_fnmatch(void **state)
{
    (void)state;
    static const char *const tok[] = {"a", "b", "ab", "*", "?", "[ab]", "[!a]", "[a-b]", "."};
    rng_state = 7u;
    int anchored_hits = 0, base_hits = 0;
    for (int i = 0; i < 2000; i++) {
        char pat[64] = "", path[64] = "";
        bool anchored = rnd(2);
        int ncomp = anchored ? 1 + (int)rnd(3) : 1;
        for (int c = 0; c < ncomp; c++) {
            if (c)
                strcat(pat, "/");
            char comp[32] = "";
            int nt = 1 + (int)rnd(3);
            for (int t = 0; t < nt; t++)
                strcat(comp, tok[rnd(sizeof tok / sizeof *tok)]);
            if (strspn(comp, "*") == strlen(comp) && strlen(comp) > 1)
                strcpy(comp, "*");   /* keep "**" components out of this oracle */
            strcat(pat, comp);
        }
        int depth = anchored && rnd(4) ? ncomp : 1 + (int)rnd(3);   /* mostly same depth */
        for (int c = 0; c < depth; c++) {
            if (c)
                strcat(path, "/");
            int len = 1 + (int)rnd(3);
            for (int k = 0; k < len; k++)   /* no "." or ".." components */
                strncat(path, &"ab."[rnd(k ? 3 : 2)], 1);
        }
        char line[80];
        snprintf(line, sizeof line, "%s%s\n", anchored ? "/" : "", pat);
        IgnoreList *l = root_list(line);
        bool got = ignore_match(l, path, false);
        const char *name = strrchr(path, '/');
        name = name ? name + 1 : path;
        bool want = fnmatch(pat, anchored ? path : name, FNM_PATHNAME) == 0;
        if (got != want)
            fail_msg("pattern \"%s\" path \"%s\": got %d, fnmatch says %d", line, path, got, want);
        anchored_hits += anchored && got;
        base_hits += !anchored && got;
        ignore_free(l);
    }
    print_message("fnmatch oracle: %d anchored and %d basename matches\n", anchored_hits, base_hits);
    assert_true(anchored_hits > 50);
    assert_true(base_hits > 50);
}

static void test_no_exponential_backtracking(void **state)
{
    (void)state;
    char path[4096];
    memset(path, 'a', 3000);
    path[3000] = 0;
    IgnoreList *l = root_list("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n");
    FILE_KEPT(l, path);
    ignore_free(l);

    /* 600 components "a/a/.../a" against many "**" */
    for (int i = 0; i < 600; i++) {
        path[2 * i] = 'a';
        path[2 * i + 1] = '/';
    }
    path[1199] = 0;
    l = root_list("**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b\n");
    FILE_KEPT(l, path);
    ignore_free(l);
    l = root_list("**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a\n");
    FILE_IGNORED(l, path);
    ignore_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suffix_glob),
        cmocka_unit_test(test_blank_lines_and_comments),
        cmocka_unit_test(test_escaped_hash_and_bang),
        cmocka_unit_test(test_trailing_spaces),
        cmocka_unit_test(test_crlf_line_ends),
        cmocka_unit_test(test_utf8_bom),
        cmocka_unit_test(test_negation_last_match_wins),
        cmocka_unit_test(test_dir_only),
        cmocka_unit_test(test_anchoring),
        cmocka_unit_test(test_star_and_question),
        cmocka_unit_test(test_brackets),
        cmocka_unit_test(test_backslash_escapes),
        cmocka_unit_test(test_malformed_patterns_never_match),
        cmocka_unit_test(test_starstar_leading),
        cmocka_unit_test(test_starstar_trailing),
        cmocka_unit_test(test_starstar_middle),
        cmocka_unit_test(test_double_stars_elsewhere),
        cmocka_unit_test(test_nested_precedence_and_reset),
        cmocka_unit_test(test_base_dot_and_text_not_terminated),
        cmocka_unit_test(test_random_bytes_never_crash),
        cmocka_unit_test(test_agrees_with_fnmatch),
        cmocka_unit_test(test_no_exponential_backtracking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
