/* Byte-level decode checks for coding cookies (see decode_check.h). */
#include "decode_check.h"
#include "codecs_data.h"
#include "encodings.h"
#include <stdbool.h>
#include <string.h>

/* The cookie names the codec through codecs.lookup(), modelled once in
 * lexer/encodings.c; codecs_data.h is indexed by its name table. */
static const struct Codec *find_codec(const char *name, size_t len)
{
    int i = enc_lookup_index(name, len);
    if (i < 0 || (size_t)i >= sizeof codec_of_name / sizeof codec_of_name[0] ||
        codec_of_name[i].codec == NO_CODEC)
        return NULL;
    return &codec_table[codec_of_name[i].codec];
}

static bool in_mask(const uint32_t *mask, unsigned char b)
{
    return (mask[b / 32] >> (b % 32)) & 1;
}

static bool trail_ok(const struct Codec *c, unsigned char lead, unsigned char trail,
                     bool *is_lead)
{
    const TrailRange *r = trail_ranges + c->first_range;
    size_t lo = 0, hi = c->nranges;
    while (lo < hi) {   /* the first range of this lead */
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].lead < lead)
            lo = mid + 1;
        else
            hi = mid;
    }
    *is_lead = lo < c->nranges && r[lo].lead == lead;
    for (; lo < c->nranges && r[lo].lead == lead; lo++)
        if (trail >= r[lo].lo && trail <= r[lo].hi)
            return true;
    return false;
}

static bool in(unsigned char b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; }

/* Length of the multibyte character at p, or 0 when it does not decode
 * (*incomplete: because the file ends inside it). */
static uint32_t dbcs_char(const struct Codec *c, const unsigned char *s, uint32_t p, uint32_t n,
                          bool *incomplete)
{
    unsigned char b = s[p];
    if (b < 0x80 || !in_mask(c->bad, b))
        return 1;
    bool is_lead = false;
    if (p + 1 < n && trail_ok(c, b, s[p + 1], &is_lead))
        return 2;
    if (c->euc3 && b == 0x8f && p + 2 < n && in(s[p + 1], 0xa1, 0xfe) && in(s[p + 2], 0xa1, 0xfe))
        return 3;
    if (c->gb4 && in(b, 0x81, 0xfe) && p + 3 < n && in(s[p + 1], 0x30, 0x39) &&
        in(s[p + 2], 0x81, 0xfe) && in(s[p + 3], 0x30, 0x39))
        return 4;
    if (p + 1 >= n) {
        trail_ok(c, b, 0, &is_lead);
        *incomplete = is_lead || (c->euc3 && b == 0x8f);
    }
    return 0;
}

static const char *check_dbcs(Arena *a, const struct Codec *c, const char *src, uint32_t n,
                              uint32_t *at)
{
    const unsigned char *s = (const unsigned char *)src;
    for (uint32_t p = 0; p < n;) {
        bool incomplete = false;
        uint32_t len = dbcs_char(c, s, p, n, &incomplete);
        if (len == 0) {
            *at = p;
            return arena_printf(a, "'%s' codec can't decode byte 0x%02x in position %u: %s",
                                c->error_name, s[p], p,
                                incomplete ? "incomplete multibyte sequence"
                                           : "illegal multibyte sequence");
        }
        p += len;
    }
    return NULL;
}

static const char *check_sbcs(Arena *a, const struct Codec *c, const char *src, uint32_t n,
                              uint32_t *at)
{
    const unsigned char *s = (const unsigned char *)src;
    for (uint32_t p = 0; p < n; p++) {
        if (!in_mask(c->bad, s[p]))
            continue;
        *at = p;
        bool ascii = strcmp(c->error_name, "ascii") == 0;
        return arena_printf(a, "'%s' codec can't decode byte 0x%02x in position %u: %s",
                            c->error_name, s[p], p,
                            ascii ? "ordinal not in range(128)"
                                  : "character maps to <undefined>");
    }
    return NULL;
}

const char *enc_check_source(Arena *a, const char *name, size_t len, const char *src,
                             uint32_t n, uint32_t *at)
{
    const struct Codec *c = find_codec(name, len);
    if (!c)
        return NULL;
    *at = 0;
    switch (c->kind) {
    case CK_SBCS:
        return check_sbcs(a, c, src, n, at);
    case CK_DBCS:
        return check_dbcs(a, c, src, n, at);
    case CK_UTF16:
    case CK_UTF32:
        /* the cookie line is ASCII, which never reads as UTF-16/32 Python */
        return arena_printf(a, "encoding problem: %s (the source is not %s text)", c->name,
                            c->name);
    default:
        return NULL;
    }
}
