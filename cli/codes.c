#include "codes.h"
#include <stdio.h>
#include <string.h>

#define EXPLAIN_e999 \
    "What: the file is not valid Python for the target version (--target-version, or\n" \
    "target-version in [tool.pfc]): a syntax error, or syntax newer than that version.\n" \
    "\n" \
    "Why it matters: the rules need a whole syntax tree, so a file with a syntax error is\n" \
    "checked for nothing else; staying quiet would claim it was checked.\n" \
    "\n" \
    "Fix: correct the syntax at the reported location (every error pfc found is listed,\n" \
    "up to 100 per file), or raise the target version if the newer syntax is intended.\n" \
    "\n" \
    "Always reported: E999 cannot be deselected, ignored or suppressed with noqa.\n"

#define EXPLAIN_e902 \
    "What: a file could not be read (missing, permission denied, a directory, FIFO or\n" \
    "device named *.py, larger than 64 MiB), or `--fix` could not write its fixes.\n" \
    "\n" \
    "Why it matters: a file pfc cannot read was not checked.\n" \
    "\n" \
    "Fix: make the file readable, or exclude it (exclude in [tool.pfc], .gitignore). A\n" \
    "failed write leaves the original file as it was and makes the exit status 2.\n" \
    "\n" \
    "Always reported: E902 cannot be deselected, ignored or suppressed with noqa.\n"

#define EXPLAIN_tg000 \
    "What: a `# noqa: TGxxx` comment names a pfc code that reports nothing on its line.\n" \
    "Off by default: select it (`--extend-select TG000`, or extend-select in [tool.pfc]).\n" \
    "\n" \
    "Why it matters: a stale suppression hides the next real finding on that line.\n" \
    "\n" \
    "Fix: remove the code from the comment (or the whole comment).\n" \
    "\n" \
    "Quiet when: the comment names only other tools' codes (`# noqa: F401`, `E501`),\n" \
    "is a bare `# noqa` (it may be meant for another tool), is another tool's directive\n" \
    "(`# flake8: noqa`, `# type: ignore`), or the file has `# pfc: noqa`.\n" \
    "\n" \
    "Example:\n" \
    "    import torch  # noqa: TG001\n" \
    "Fix:\n" \
    "    import torch\n"

static const RuleInfo driver_codes[] = {
    {"E999", "syntax-error", SEV_ERROR, true, "the file is not valid Python for the target version",
     EXPLAIN_e999, NULL},
    {"E902", "io-error", SEV_ERROR, true,
     "the file could not be read, or its fixes could not be written", EXPLAIN_e902, NULL},
    {"TG000", "unused-noqa", SEV_NOTE, false, "a noqa comment names a pfc code it does not "
     "suppress", EXPLAIN_tg000, NULL},
};

const RuleInfo *code_nth(size_t i)
{
    size_t n;
    const RuleInfo *rules = rules_all(&n);
    if (i < n)
        return &rules[i];
    i -= n;
    return i < sizeof driver_codes / sizeof driver_codes[0] ? &driver_codes[i] : NULL;
}

static char upper(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c; }

void code_upcase(char *s)
{
    for (; *s; s++)
        *s = upper(*s);
}

static bool prefix_ci(const char *prefix, const char *s)
{
    for (; *prefix; prefix++, s++)
        if (upper(*prefix) != upper(*s))
            return false;
    return true;
}

const RuleInfo *code_lookup(const char *code)
{
    const RuleInfo *r;
    for (size_t i = 0; (r = code_nth(i)); i++)
        if (strlen(r->code) == strlen(code) && prefix_ci(code, r->code))
            return r;
    return NULL;
}

bool code_selector_known(const char *sel)
{
    if (!*sel)
        return false;
    if (strlen(sel) == 3 && prefix_ci(sel, "ALL"))
        return true;
    const RuleInfo *r;
    for (size_t i = 0; (r = code_nth(i)); i++)
        if (strlen(sel) <= strlen(r->code) && prefix_ci(sel, r->code))
            return true;
    return false;
}

size_t edit_distance(const char *a, const char *b)
{
    enum { MAX = 64 };
    size_t na = strlen(a), nb = strlen(b), row[MAX + 1];
    if (na > MAX || nb > MAX)
        return na > nb ? na : nb;
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            size_t best = diag + (upper(a[i - 1]) != upper(b[j - 1]));
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

const char *code_suggest(const char *sel, char *buf, size_t size)
{
    size_t best = (size_t)-1, n = strlen(sel);
    const RuleInfo *r;
    buf[0] = 0;
    for (size_t i = 0; (r = code_nth(i)); i++) {
        char cand[16];
        /* a short selector is likely a prefix: compare it with prefixes */
        snprintf(cand, sizeof cand, "%.*s", n < strlen(r->code) ? (int)n : 15, r->code);
        size_t letters = strspn(r->code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
        /* TG999 is nearer TG000 than E999: the family letters count double */
        size_t d = edit_distance(sel, cand) + 2 * (strncmp(sel, cand, letters) != 0);
        if (d < best) {
            best = d;
            snprintf(buf, size, "%s", cand);
        }
    }
    return buf;
}

bool codes_check(const char *const *v, size_t n, const char *where, char *err, size_t size)
{
    for (size_t i = 0; i < n; i++) {
        if (code_selector_known(v[i]))
            continue;
        char near[16];
        snprintf(err, size, "unknown rule code or prefix '%s' in %s (did you mean '%s'? "
                 "'pfc explain' lists every code)", v[i], where, code_suggest(v[i], near,
                                                                             sizeof near));
        return false;
    }
    return true;
}
