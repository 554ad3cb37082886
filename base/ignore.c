/* .gitignore matching (gitignore(5)); see ignore.h for the interface.
 *
 * Each line is compiled once into a sequence of tokens. A pattern without '/'
 * (after dropping one trailing '/') is matched against the last component of
 * the path, at any depth; a pattern with a '/' is anchored at its file's
 * directory and matched against the whole path below it.
 *
 * Tokens: a literal character ('\' quotes the next one), '?' and "[...]"
 * (one character, never '/'), '*' (any run without '/'), and runs of two or
 * more stars. Such a run is special when it starts the pattern, follows a
 * '/', or has only plain characters before it in the pattern (no '*', '?',
 * '[' or '\'); a special run means:
 *   - before '/': any run of characters followed by '/', or nothing at all
 *     ("**" + "/b" matches "b", "x/b" and "x/y/b"; "a/" + "**" + "/b"
 *     matches "a/b");
 *   - at the end: any run, '/' included ("logs/" + "**" matches everything
 *     inside logs/, not logs itself);
 *   - before a quoted '/' ("\/"): any run, '/' included, but not "nothing";
 *   - before anything else: the same as '*'.
 * A run that is not special is the same as '*'.
 * This is what git 2.39 does, checked against `git check-ignore` (see
 * tests/tools/check_ignore_vs_git.sh). It agrees with gitignore(5) for the
 * documented leading, trailing and middle forms; elsewhere git is wider than
 * its manual's "other consecutive asterisks are regular asterisks" (with
 * "a**" + "/b", "ab" and "ax/y/b" match; with "a?**" + "/b" they do not),
 * and this module follows git.
 *
 * Matching runs over the set of reachable text positions, token by token
 * (O(tokens * length), no backtracking), so no pattern can make it slow. */
#include "ignore.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    TOK_LIT,           /* the character c */
    TOK_ONE,           /* '?': any character but '/' */
    TOK_CLASS,         /* "[...]": IgnFile.chars[off, off+len) after the '[' */
    TOK_STAR,          /* '*': any run without '/' */
    TOK_ANY,           /* stars at the end or before "\/": any run */
    TOK_DIRS,          /* stars and '/': "" or any run ending in '/' */
};

typedef struct Tok {
    int kind;
    unsigned char c;
    size_t off, len;
} Tok;

enum { PAT_NEGATE = 1, PAT_DIRONLY = 2, PAT_ANCHORED = 4 };

typedef struct Pattern {
    size_t tok, ntok;     /* range of IgnFile.toks */
    int flags;
} Pattern;

typedef struct IgnFile {
    char *base;            /* "" or "dir/sub", no trailing '/' */
    size_t baselen;
    char *chars;           /* processed pattern text of all patterns */
    size_t nchars;
    Pattern *pats;
    size_t npats, cappats;
    Tok *toks;
    size_t ntoks, captoks;
} IgnFile;

struct IgnoreList {
    IgnFile *files;
    size_t n, cap;
};

static void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q) {
        fputs("pfc: out of memory\n", stderr);
        abort();
    }
    return q;
}

/* Grows *v (elements of `elem` bytes, capacity *cap) to hold one more. */
static void *grow(void *v, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return v;
    *cap = *cap ? *cap * 2 : 8;
    return xrealloc(v, *cap * elem);
}

/* ---- character classes ------------------------------------------------------------- */

static bool in_posix_class(const char *name, size_t n, unsigned char c, bool *known)
{
    bool lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z';
    bool digit = c >= '0' && c <= '9', alpha = lower || upper;
    bool graph = c > ' ' && c < 0x7f;
    *known = true;
#define IS(s) (n == sizeof(s) - 1 && memcmp(name, s, n) == 0)
    if (IS("alnum")) return alpha || digit;
    if (IS("alpha")) return alpha;
    if (IS("blank")) return c == ' ' || c == '\t';
    if (IS("cntrl")) return c < ' ' || c == 0x7f;
    if (IS("digit")) return digit;
    if (IS("graph")) return graph;
    if (IS("lower")) return lower;
    if (IS("print")) return graph || c == ' ';
    if (IS("punct")) return graph && !alpha && !digit;
    if (IS("space")) return c == ' ' || (c >= '\t' && c <= '\r');
    if (IS("upper")) return upper;
    if (IS("xdigit")) return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
#undef IS
    *known = false;
    return false;
}

/* Reads the bracket expression whose '[' is just before p, and tells whether
 * character c belongs to it (negation applied). Returns the position after
 * the closing ']', or NULL when the expression is malformed (no ']', a
 * dangling '\', an unknown "[:name:]"); such a pattern can never match.
 * Rules: a leading '!' or '^' negates; a ']' right after "[" or "[!" is a
 * member; "x-y" is a range unless '-' comes first or last; '\' quotes the
 * next character; "[:name:]" is a POSIX class; a "[:" without a later ":]"
 * is just a '['. */
static const char *scan_class(const char *p, const char *end, unsigned char c, bool *in)
{
    bool negate = false, hit = false, first = true;
    int prev = -1;   /* previous member, start of a possible range */
    if (p < end && (*p == '!' || *p == '^')) {
        negate = true;
        p++;
    }
    for (;; first = false) {
        if (p >= end)
            return NULL;
        unsigned char m = (unsigned char)*p;
        if (m == ']' && !first) {
            p++;
            break;
        }
        if (m == '\\') {
            if (++p >= end)
                return NULL;
            m = (unsigned char)*p++;
            hit |= c == m;
            prev = m;
        } else if (m == '-' && prev >= 0 && p + 1 < end && p[1] != ']') {
            p++;
            unsigned char hi = (unsigned char)*p++;
            if (hi == '\\') {
                if (p >= end)
                    return NULL;
                hi = (unsigned char)*p++;
            }
            hit |= c >= prev && c <= hi;
            prev = -1;
        } else if (m == '[' && p + 1 < end && p[1] == ':') {
            const char *name = p + 2, *q = name;
            while (q < end && *q != ']')
                q++;
            if (q >= end)
                return NULL;
            if (q == name || q[-1] != ':') {   /* not a class name: a plain '[' */
                hit |= c == '[';
                prev = '[';
                p++;
                continue;
            }
            bool known;
            hit |= in_posix_class(name, (size_t)(q - 1 - name), c, &known);
            if (!known)
                return NULL;
            prev = -1;
            p = q + 1;
        } else {
            hit |= c == m;
            prev = m;
            p++;
        }
    }
    *in = hit != negate;
    return p;
}

/* ---- compiling ---------------------------------------------------------------------- */

static size_t trim_trailing_spaces(const char *s, size_t n)
{
    size_t keep = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '\\' && i + 1 < n) {
            i += 2;   /* an escaped character, "\ " included, is kept */
            keep = i;
        } else if (s[i] == ' ') {
            i++;
        } else {
            keep = ++i;
        }
    }
    return keep;
}

static void push_tok(IgnFile *f, int kind, unsigned char c, size_t off, size_t len)
{
    f->toks = grow(f->toks, f->ntoks, &f->captoks, sizeof *f->toks);
    f->toks[f->ntoks++] = (Tok){kind, c, off, len};
}

/* Compiles one line (without its line end). */
static void add_line(IgnFile *f, const char *s, size_t n)
{
    const char *nul = memchr(s, '\0', n);   /* git reads a line as a C string */
    if (nul)
        n = (size_t)(nul - s);
    if (n == 0 || s[0] == '#')
        return;
    n = trim_trailing_spaces(s, n);
    int flags = 0;
    if (n && s[0] == '!') {
        flags |= PAT_NEGATE;
        s++;
        n--;
    }
    if (n && s[n - 1] == '/') {
        flags |= PAT_DIRONLY;
        n--;
    }
    if (n == 0)
        return;
    if (memchr(s, '/', n)) {
        flags |= PAT_ANCHORED;
        if (s[0] == '/') {
            s++;
            n--;
        }
    }

    size_t first = f->ntoks, off = f->nchars;
    memcpy(f->chars + off, s, n);
    f->nchars += n;
    bool plain_so_far = true;   /* no '*', '?', '[' or '\\' before s[i] */
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        bool plain = plain_so_far;
        plain_so_far &= c != '*' && c != '?' && c != '[' && c != '\\';
        if (c == '*') {
            size_t j = i;
            while (j < n && s[j] == '*')
                j++;
            if (j - i == 1 || !(plain || s[i - 1] == '/'))   /* i == 0 is plain */
                push_tok(f, TOK_STAR, 0, 0, 0);
            else if (j == n || (s[j] == '\\' && j + 1 < n && s[j + 1] == '/'))
                push_tok(f, TOK_ANY, 0, 0, 0);
            else if (s[j] == '/')
                push_tok(f, TOK_DIRS, 0, 0, 0), j++;   /* takes the '/' along */
            else
                push_tok(f, TOK_STAR, 0, 0, 0);
            i = j;
        } else if (c == '?') {
            push_tok(f, TOK_ONE, 0, 0, 0);
            i++;
        } else if (c == '[') {
            bool in;
            const char *q = scan_class(s + i + 1, s + n, 0, &in);
            if (!q)
                goto malformed;
            size_t end = (size_t)(q - s);
            push_tok(f, TOK_CLASS, 0, off + i + 1, end - i - 1);
            i = end;
        } else if (c == '\\') {
            if (i + 1 >= n)
                goto malformed;   /* a trailing '\' never matches in git */
            push_tok(f, TOK_LIT, (unsigned char)s[i + 1], 0, 0);
            i += 2;
        } else {
            push_tok(f, TOK_LIT, c, 0, 0);
            i++;
        }
    }
    f->pats = grow(f->pats, f->npats, &f->cappats, sizeof *f->pats);
    f->pats[f->npats++] = (Pattern){first, f->ntoks - first, flags};
    return;

malformed:
    f->ntoks = first;
    f->nchars = off;
}

IgnoreList *ignore_new(void)
{
    IgnoreList *l = xrealloc(NULL, sizeof *l);
    memset(l, 0, sizeof *l);
    return l;
}

static void file_free(IgnFile *f)
{
    free(f->base);
    free(f->chars);
    free(f->pats);
    free(f->toks);
}

void ignore_free(IgnoreList *l)
{
    if (!l)
        return;
    ignore_reset(l, 0);
    free(l->files);
    free(l);
}

size_t ignore_mark(const IgnoreList *l) { return l->n; }

void ignore_reset(IgnoreList *l, size_t mark)
{
    while (l->n > mark)
        file_free(&l->files[--l->n]);
}

/* Drops leading "./" and '/' and trailing '/'; returns the new length. */
static const char *normalize(const char *p, size_t *n, bool *had_trailing_slash)
{
    size_t len = strlen(p);
    for (;;) {
        if (len >= 2 && p[0] == '.' && p[1] == '/') {
            p += 2;
            len -= 2;
        } else if (len >= 1 && p[0] == '/') {
            p++;
            len--;
        } else {
            break;
        }
    }
    if (len == 1 && p[0] == '.')
        len = 0;
    *had_trailing_slash = false;
    while (len && p[len - 1] == '/') {
        len--;
        *had_trailing_slash = true;
    }
    *n = len;
    return p;
}

void ignore_add_file(IgnoreList *l, const char *base, const char *text, size_t len)
{
    l->files = grow(l->files, l->n, &l->cap, sizeof *l->files);
    IgnFile *f = &l->files[l->n++];
    memset(f, 0, sizeof *f);
    bool slash;
    const char *b = normalize(base ? base : "", &f->baselen, &slash);
    f->base = xrealloc(NULL, f->baselen + 1);
    memcpy(f->base, b, f->baselen);
    f->base[f->baselen] = 0;
    if (!text)
        len = 0;
    f->chars = xrealloc(NULL, len + 1);   /* patterns only ever shrink */
    size_t i = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        i = 3;
    while (i < len) {
        const char *line = text + i;
        const char *nl = memchr(line, '\n', len - i);
        size_t n = nl ? (size_t)(nl - line) : len - i;
        i += n + 1;
        if (n && line[n - 1] == '\r')
            n--;
        add_line(f, line, n);
    }
}

/* ---- matching ------------------------------------------------------------------------ */

static bool tok_takes(const IgnFile *f, const Tok *t, unsigned char c)
{
    switch (t->kind) {
    case TOK_LIT:
        return c == t->c;
    case TOK_ONE:
        return c != '/';
    default: {   /* TOK_CLASS */
        bool in = false;
        const char *p = f->chars + t->off;
        return c != '/' && scan_class(p, p + t->len, c, &in) && in;
    }
    }
}

/* Whether the pattern matches all of s[0, n). `at` holds the reachable
 * positions of s (bytes 0/1), `to` receives the next ones; both n + 1 long. */
static bool match_pattern(const IgnFile *f, const Pattern *pt, const char *s, size_t n,
                          unsigned char *at, unsigned char *to)
{
    memset(at, 0, n + 1);
    at[0] = 1;
    size_t lo = 0;   /* lowest reachable position */
    for (size_t k = 0; k < pt->ntok; k++) {
        const Tok *t = &f->toks[pt->tok + k];
        memset(to, 0, n + 1);
        bool on = false;
        switch (t->kind) {
        case TOK_STAR:
            for (size_t j = lo; j <= n; j++) {
                on |= at[j];
                to[j] = on;
                if (j < n && s[j] == '/')
                    on = false;
            }
            break;
        case TOK_ANY:
            memset(to + lo, 1, n + 1 - lo);
            break;
        case TOK_DIRS:
            for (size_t j = lo; j <= n; j++) {
                to[j] |= at[j];
                if (j < n && s[j] == '/')
                    to[j + 1] = 1;
            }
            break;
        default:
            for (size_t j = lo; j < n; j++)
                if (at[j] && tok_takes(f, t, (unsigned char)s[j]))
                    to[j + 1] = 1;
            break;
        }
        while (lo <= n && !to[lo])
            lo++;
        if (lo > n)
            return false;
        unsigned char *tmp = at;
        at = to;
        to = tmp;
    }
    return at[n];
}

IgnoreResult ignore_lookup(const IgnoreList *l, const char *relpath, bool is_dir)
{
    size_t plen;
    bool slash;
    const char *path = normalize(relpath ? relpath : "", &plen, &slash);
    is_dir |= slash;
    if (plen == 0)
        return IGNORE_NO_MATCH;   /* the walk root itself */
    unsigned char small[2 * 512], *work = small;
    if (plen + 1 > sizeof small / 2)
        work = xrealloc(NULL, 2 * (plen + 1));
    unsigned char *at = work, *to = work + plen + 1;
    IgnoreResult res = IGNORE_NO_MATCH;
    for (size_t fi = l->n; fi-- > 0 && res == IGNORE_NO_MATCH;) {
        const IgnFile *f = &l->files[fi];
        const char *rel = path, *end = path + plen;
        if (f->baselen) {
            if (plen <= f->baselen || memcmp(path, f->base, f->baselen) != 0 ||
                path[f->baselen] != '/')
                continue;   /* not below this file's directory */
            rel = path + f->baselen + 1;
        }
        const char *name = end;
        while (name > rel && name[-1] != '/')
            name--;
        for (size_t pi = f->npats; pi-- > 0;) {
            const Pattern *pt = &f->pats[pi];
            if ((pt->flags & PAT_DIRONLY) && !is_dir)
                continue;
            const char *s = pt->flags & PAT_ANCHORED ? rel : name;
            if (match_pattern(f, pt, s, (size_t)(end - s), at, to)) {
                res = pt->flags & PAT_NEGATE ? IGNORE_REINCLUDED : IGNORE_EXCLUDED;
                break;
            }
        }
    }
    if (work != small)
        free(work);
    return res;
}

bool ignore_match(const IgnoreList *l, const char *relpath, bool is_dir)
{
    return ignore_lookup(l, relpath, is_dir) == IGNORE_EXCLUDED;
}
