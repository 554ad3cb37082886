/* codecs.lookup() and the tokenizer's get_normal_name() over the generated
 * table of encoding names (lexer/encodings_data.h, tests/tools/gen_encodings.py,
 * whose docstring gives the rules modelled here and checks them). */
#include "encodings.h"
#include "encodings_data.h"
#include <string.h>

/* Position of S in names[], -1 when absent. */
static int find(const char *s)
{
    size_t lo = 0, hi = sizeof names / sizeof names[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s, names[mid].name);
        if (c == 0)
            return (int)mid;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

static bool is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static unsigned char to_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/* codecs.lookup()'s normalisation of NAME into buf; false when it is empty,
 * holds a NUL (ValueError) or is longer than every name of the table. */
static bool normalise(const char *name, size_t len, char buf[MAX_NAME + 1], bool *dot)
{
    size_t n = 0;
    bool punct = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == '\0')
            return false;
        if (is_alnum(c) || c == '.') {
            if (punct && n > 0) {
                if (n == MAX_NAME)
                    return false;
                buf[n++] = '_';
            }
            punct = false;
            if (n == MAX_NAME)
                return false;
            buf[n++] = (char)to_lower(c);
            *dot |= c == '.';
        } else {
            punct = true;
        }
    }
    buf[n] = '\0';
    return n > 0;
}

int enc_lookup_index(const char *name, size_t len)
{
    char buf[MAX_NAME + 1];
    bool dot = false;
    if (!normalise(name, len, buf, &dot))
        return -1;
    int i = find(buf);
    if (i >= 0)
        return names[i].flags & KNOWN ? i : -1;
    if (!dot)
        return -1;
    for (char *p = buf; *p; p++)
        if (*p == '.')
            *p = '_';
    i = find(buf);
    return i >= 0 && (names[i].flags & VIA_DOT) ? i : -1;
}

/* Flags of the codec NAME resolves to, 0 when codecs.lookup() fails. */
static int lookup(const char *name, size_t len)
{
    int i = enc_lookup_index(name, len);
    return i < 0 ? 0 : names[i].flags;
}

bool enc_is_known(const char *name, size_t len)
{
    return (lookup(name, len) & KNOWN) != 0;
}

bool enc_is_text_encoding(const char *name, size_t len)
{
    int f = lookup(name, len);
    return (f & KNOWN) && (f & TEXT);
}

bool enc_is_utf8(const char *name, size_t len)
{
    return (lookup(name, len) & UTF8) != 0;
}

static bool has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

const char *enc_normal_name(const char *name, size_t len)
{
    char buf[13];
    size_t n = 0;
    while (n < 12 && n < len && name[n] != '\0') {
        unsigned char c = (unsigned char)name[n];
        buf[n++] = c == '_' ? '-' : (char)to_lower(c);
    }
    buf[n] = '\0';
    if (strcmp(buf, "utf-8") == 0 || has_prefix(buf, "utf-8-"))
        return "utf-8";
    if (strcmp(buf, "latin-1") == 0 || strcmp(buf, "iso-8859-1") == 0 ||
        strcmp(buf, "iso-latin-1") == 0 || has_prefix(buf, "latin-1-") ||
        has_prefix(buf, "iso-8859-1-") || has_prefix(buf, "iso-latin-1-"))
        return "iso-8859-1";
    return NULL;
}
