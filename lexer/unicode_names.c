/* \N{NAME} lookup over the generated hash tables (unicode_names_data.h). */
#include "unicode_names.h"
#include "unicode_names_data.h"
#include <stdbool.h>
#include <string.h>

enum { OLDEST_MINOR = 9 };

static uint32_t fnv1a_upper(const char *s, size_t len)
{
    uint32_t h = 0x811c9dc5u;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'a' && c <= 'z')
            c = (unsigned char)(c - 'a' + 'A');
        h = (h ^ c) * 0x01000193u;
    }
    return h;
}

/* Position of c in `alphabet`: the printable ASCII from '#' less '?' and '\\'. */
static unsigned digit_value(char c)
{
    unsigned v = (unsigned)(c - '#');
    return v - (c > '?') - (c > '\\');
}

static bool in_base_table(uint32_t h)
{
    size_t lo = 0, hi = sizeof blocks / sizeof blocks[0];
    while (hi - lo > 1) {   /* the last block whose first hash is <= h */
        size_t mid = lo + (hi - lo) / 2;
        if (blocks[mid].hash <= h)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t cur = blocks[lo].hash;
    const char *p = deltas + blocks[lo].at;
    const char *end = lo + 1 < sizeof blocks / sizeof blocks[0] ? deltas + blocks[lo + 1].at
                                                                 : deltas + sizeof deltas - 1;
    while (cur < h && p < end) {
        uint32_t d = 0;
        for (unsigned shift = 0;; shift += 5) {
            unsigned v = digit_value(*p++);
            d |= (uint32_t)(v & 31) << shift;
            if (v >= 32)
                break;
        }
        cur += d;
    }
    return cur == h;
}

static int late_minor(uint32_t h)
{
    size_t lo = 0, hi = sizeof late / sizeof late[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (late[mid].hash == h)
            return late[mid].minor;
        if (late[mid].hash < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int cjk_minor(const char *hex, size_t len)
{
    if (len != 4 && len != 5)
        return -1;
    uint32_t cp = 0;
    for (size_t i = 0; i < len; i++) {
        char c = hex[i];
        if (c >= '0' && c <= '9')
            cp = cp * 16 + (uint32_t)(c - '0');
        else if (c >= 'A' && c <= 'F')
            cp = cp * 16 + (uint32_t)(c - 'A' + 10);
        else
            return -1;
    }
    for (size_t i = 0; i < sizeof cjk / sizeof cjk[0]; i++)
        if (cp >= cjk[i].lo && cp <= cjk[i].hi)
            return cjk[i].minor;
    return -1;
}

/* Longest of the jamo short names in `names` that starts s; -1 if none. */
static int longest_jamo(const char *s, size_t len, const char *const *names, int count,
                        size_t *used)
{
    int best = -1;
    size_t best_len = 0;
    for (int i = 0; i < count; i++) {
        size_t n = strlen(names[i]);
        if (n <= len && memcmp(s, names[i], n) == 0 && (best < 0 || n > best_len)) {
            best = i;
            best_len = n;
        }
    }
    *used = best_len;
    return best;
}

/* Lead consonant, vowel and trailing consonant, each matched longest first. */
static bool is_hangul_syllable(const char *s, size_t len)
{
    static const char *const lead[] = {"G", "GG", "N", "D", "DD", "R", "M", "B", "BB", "S",
                                       "SS", "", "J", "JJ", "C", "K", "T", "P", "H"};
    static const char *const vowel[] = {"A", "AE", "YA", "YAE", "EO", "E", "YEO", "YE", "O",
                                        "WA", "WAE", "OE", "YO", "U", "WEO", "WE", "WI", "YU",
                                        "EU", "YI", "I"};
    static const char *const trail[] = {"", "G", "GG", "GS", "N", "NJ", "NH", "D", "L", "LG",
                                        "LM", "LB", "LS", "LT", "LP", "LH", "M", "B", "BS",
                                        "S", "SS", "NG", "J", "C", "K", "T", "P", "H"};
    const char *const *parts[] = {lead, vowel, trail};
    const int counts[] = {19, 21, 28};
    for (int i = 0; i < 3; i++) {
        size_t used;
        if (longest_jamo(s, len, parts[i], counts[i], &used) < 0)
            return false;
        s += used;
        len -= used;
    }
    return len == 0;
}

static bool has_prefix(const char *s, size_t len, const char *prefix, size_t plen)
{
    return len >= plen && memcmp(s, prefix, plen) == 0;
}

int uni_name_min_minor(const char *name, size_t len)
{
    static const char cjk_prefix[] = "CJK UNIFIED IDEOGRAPH-";
    static const char hangul_prefix[] = "HANGUL SYLLABLE ";
    if (has_prefix(name, len, cjk_prefix, sizeof cjk_prefix - 1))
        return cjk_minor(name + sizeof cjk_prefix - 1, len - (sizeof cjk_prefix - 1));
    if (has_prefix(name, len, hangul_prefix, sizeof hangul_prefix - 1))
        return is_hangul_syllable(name + sizeof hangul_prefix - 1,
                                  len - (sizeof hangul_prefix - 1))
                   ? OLDEST_MINOR
                   : -1;
    if (len == 0 || len > 128)
        return -1;
    uint32_t h = fnv1a_upper(name, len);
    if (in_base_table(h))
        return OLDEST_MINOR;
    return late_minor(h);
}
