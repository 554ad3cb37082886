/* The YAML subset reader (see yaml.h): the input is cut into logical lines
 * (indent, text without its comment), then read by indentation. */
#include "yaml.h"
#include <string.h>

typedef struct Line {
    uint32_t indent, lineno;
    const char *text;       /* NUL-terminated copy, comment and trailing blanks removed */
} Line;

typedef struct Reader {
    Arena *a;
    Line *lines;
    uint32_t n, at;
    YamlError err;
} Reader;

static bool fail(Reader *r, uint32_t line, const char *msg)
{
    if (!r->err.msg) {
        r->err.line = line;
        r->err.msg = msg;
    }
    return false;
}

/* Where a comment starts: a '#' at the start or after a blank, outside quotes. */
static size_t comment_at(const char *s, size_t n)
{
    char quote = 0;
    for (size_t i = 0; i < n; i++) {
        if (quote) {
            if ((quote == '\'' && s[i] == '\'' && i + 1 < n && s[i + 1] == '\'') ||
                (quote == '"' && s[i] == '\\'))
                i++;   /* '' and \x stay inside the string */
            else if (s[i] == quote)
                quote = 0;
        } else if ((s[i] == '"' || s[i] == '\'') && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '[' ||
                                                     s[i - 1] == ',' || s[i - 1] == ':' || s[i - 1] == '-')) {
            quote = s[i];
        } else if (s[i] == '#' && (i == 0 || s[i - 1] == ' ')) {
            return i;
        }
    }
    return n;
}

static bool add_line(Reader *r, const char *s, size_t n, uint32_t lineno)
{
    size_t indent = 0;
    while (indent < n && (s[indent] == ' ' || s[indent] == '\t')) {
        if (s[indent] == '\t')
            return fail(r, lineno, "a tab in indentation");
        indent++;
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] == 0)
            return fail(r, lineno, "a NUL byte");
    n = comment_at(s, n);
    while (n > indent && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    if (n <= indent)
        return true;
    Line *l = &r->lines[r->n++];
    l->indent = (uint32_t)indent;
    l->lineno = lineno;
    l->text = arena_strndup(r->a, s + indent, n - indent);
    return true;
}

static bool split_lines(Reader *r, const char *src, size_t len)
{
    uint32_t count = 1;
    for (size_t i = 0; i < len; i++)
        count += src[i] == '\n';
    r->lines = arena_zalloc(r->a, count * sizeof *r->lines);
    uint32_t lineno = 1;
    for (size_t start = 0; start <= len; lineno++) {
        const char *nl = memchr(src + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - src) : len;
        if (!add_line(r, src + start, end - start, lineno))
            return false;
        start = end + 1;
    }
    if (r->n && strcmp(r->lines[0].text, "---") == 0 && r->lines[0].indent == 0)
        r->at = 1;
    for (uint32_t i = r->at; i < r->n; i++)
        if (r->lines[i].indent == 0 && (strcmp(r->lines[i].text, "---") == 0 || strcmp(r->lines[i].text, "...") == 0))
            return fail(r, r->lines[i].lineno, "more than one document");
    return true;
}

static YamlValue *node(Reader *r, YamlKind k, uint32_t line)
{
    YamlValue *v = arena_zalloc(r->a, sizeof *v);
    v->kind = k;
    v->line = line;
    return v;
}

/* A quoted scalar from s (at the quote); *end gets the byte after it. */
static const char *unquote(Reader *r, const char *s, const char **end, uint32_t line)
{
    char q = *s++;
    size_t n = strlen(s);
    char *out = arena_zalloc(r->a, n + 1), *o = out;
    for (; *s; s++) {
        if (*s == q && q == '\'' && s[1] == '\'') {
            *o++ = *s++;
        } else if (*s == q) {
            *end = s + 1;
            return out;
        } else if (*s == '\\' && q == '"' && s[1]) {
            s++;
            *o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
            *o++ = *s;
        }
    }
    fail(r, line, "an unterminated quoted string");
    return NULL;
}

static const YamlValue *scalar(Reader *r, const char *s, size_t n, uint32_t line)
{
    while (n && s[n - 1] == ' ')
        n--;
    while (n && *s == ' ')
        s++, n--;
    const char *text = arena_strndup(r->a, s, n);
    if (!n || strcmp(text, "~") == 0 || strcmp(text, "null") == 0 || strcmp(text, "Null") == 0 ||
        strcmp(text, "NULL") == 0)
        return node(r, YAML_NULL, line);
    if (*text == '&' || *text == '*' || *text == '!' || *text == '|' || *text == '>' || *text == '{' ||
        *text == '@' || *text == '`') {
        fail(r, line, *text == '{' ? "a flow mapping (not in the subset pfc reads)"
                      : *text == '@' || *text == '`' ? "a reserved character starts a value"
                                                     : "an anchor, alias, tag or block scalar (not in the "
                                                       "subset pfc reads)");
        return NULL;
    }
    YamlValue *v = node(r, YAML_SCALAR, line);
    if (*text == '"' || *text == '\'') {
        const char *end = NULL;
        v->str = unquote(r, text, &end, line);
        v->quoted = true;
        if (v->str && *end) {
            fail(r, line, "text after a quoted string");
            return NULL;
        }
        return v->str ? v : NULL;
    }
    v->str = text;
    return v;
}

/* [a, 'b', 3] or []: a list of scalars on one line. */
static const YamlValue *flow_seq(Reader *r, const char *s, uint32_t line)
{
    size_t n = strlen(s);
    if (n < 2 || s[n - 1] != ']') {
        fail(r, line, "an unterminated [ list");
        return NULL;
    }
    YamlValue *v = node(r, YAML_SEQ, line);
    const YamlValue **items = arena_zalloc(r->a, (n + 1) * sizeof *items);
    const char *p = s + 1, *stop = s + n - 1;
    while (p < stop) {
        while (p < stop && *p == ' ')
            p++;
        if (p == stop && !v->n)
            break;   /* [] */
        const char *q = p;
        char quote = (*q == '"' || *q == '\'') ? *q : 0;
        for (q += quote != 0; q < stop && (quote ? *q != quote : *q != ','); q++)
            if (!quote && (*q == '[' || *q == ']' || *q == '{' || *q == '}')) {
                fail(r, line, "a nested flow collection (not in the subset pfc reads)");
                return NULL;
            }
        if (quote && q >= stop) {
            fail(r, line, "an unterminated quoted string");
            return NULL;
        }
        if (quote)
            while (q < stop && *q != ',')
                q++;
        const YamlValue *item = scalar(r, p, (size_t)(q - p), line);
        if (!item)
            return NULL;
        items[v->n++] = item;
        p = q < stop ? q + 1 : q;
    }
    v->items = items;
    return v;
}

static const YamlValue *inline_value(Reader *r, const char *s, uint32_t line)
{
    if (*s == '[')
        return flow_seq(r, s, line);
    if (strcmp(s, "{}") == 0)
        return node(r, YAML_MAP, line);
    return scalar(r, s, strlen(s), line);
}

static const YamlValue *block(Reader *r, uint32_t indent, int depth);

static bool is_item(const char *t) { return t[0] == '-' && (t[1] == 0 || t[1] == ' '); }

static const YamlValue *block_seq(Reader *r, uint32_t indent, int depth)
{
    YamlValue *v = node(r, YAML_SEQ, r->lines[r->at].lineno);
    uint32_t first = r->at, count = 0;
    while (first + count < r->n && r->lines[first + count].indent >= indent)
        count++;
    const YamlValue **items = arena_zalloc(r->a, (count + 1) * sizeof *items);
    while (r->at < r->n && r->lines[r->at].indent == indent && is_item(r->lines[r->at].text)) {
        const Line *l = &r->lines[r->at++];
        const char *t = l->text[1] ? l->text + 2 : "";
        while (*t == ' ')
            t++;
        if (!*t && r->at < r->n && r->lines[r->at].indent > indent) {
            fail(r, l->lineno, "a nested block in a list (not in the subset pfc reads)");
            return NULL;
        }
        if (is_item(t) || (strstr(t, ": ") && *t != '"' && *t != '\'') || (*t && t[strlen(t) - 1] == ':')) {
            fail(r, l->lineno, "a list of mappings or lists (not in the subset pfc reads)");
            return NULL;
        }
        const YamlValue *item = inline_value(r, t, l->lineno);
        if (!item)
            return NULL;
        items[v->n++] = item;
    }
    (void)depth;
    v->items = items;
    return v;
}

/* "key: value" / "key:"; the key without quotes, *rest what follows ':'. */
static const char *map_key(Reader *r, const Line *l, const char **rest)
{
    const char *t = l->text, *colon = NULL;
    if (*t == '"' || *t == '\'') {
        const char *end = NULL;
        const char *key = unquote(r, t, &end, l->lineno);
        if (!key)
            return NULL;
        if (*end != ':' || (end[1] && end[1] != ' ')) {
            fail(r, l->lineno, "a quoted key without ':'");
            return NULL;
        }
        *rest = end + 1;
        return key;
    }
    for (const char *p = t; *p && !colon; p++)
        if (*p == ':' && (p[1] == 0 || p[1] == ' '))
            colon = p;
    if (!colon || colon == t) {
        fail(r, l->lineno, colon ? "an empty key" : "a line that is not `key: value` or `- item`");
        return NULL;
    }
    *rest = colon + 1;
    return arena_strndup(r->a, t, (size_t)(colon - t));
}

/* The value after "key:" with nothing inline: a deeper block, a list at the
 * same indentation (YAML allows it), or null. */
static const YamlValue *nested(Reader *r, uint32_t indent, uint32_t line, int depth)
{
    if (r->at < r->n && r->lines[r->at].indent > indent)
        return block(r, r->lines[r->at].indent, depth + 1);
    if (r->at < r->n && r->lines[r->at].indent == indent && is_item(r->lines[r->at].text))
        return block_seq(r, indent, depth + 1);
    return node(r, YAML_NULL, line);
}

static const YamlValue *block_map(Reader *r, uint32_t indent, int depth)
{
    YamlValue *v = node(r, YAML_MAP, r->lines[r->at].lineno);
    uint32_t count = 0;
    for (uint32_t i = r->at; i < r->n && r->lines[i].indent >= indent; i++)
        count++;
    const char **keys = arena_zalloc(r->a, (count + 1) * sizeof *keys);
    const YamlValue **items = arena_zalloc(r->a, (count + 1) * sizeof *items);
    while (r->at < r->n && r->lines[r->at].indent == indent) {
        const Line *l = &r->lines[r->at++];
        if (is_item(l->text)) {
            fail(r, l->lineno, "a list item among mapping keys");
            return NULL;
        }
        const char *rest;
        const char *key = map_key(r, l, &rest);
        if (!key)
            return NULL;
        while (*rest == ' ')
            rest++;
        const YamlValue *item = *rest ? inline_value(r, rest, l->lineno) : nested(r, indent, l->lineno, depth);
        if (!item)
            return NULL;
        keys[v->n] = key;
        items[v->n++] = item;
    }
    if (r->at < r->n && r->lines[r->at].indent > indent) {
        fail(r, r->lines[r->at].lineno, "unexpected indentation");
        return NULL;
    }
    v->keys = keys;
    v->items = items;
    return v;
}

static const YamlValue *block(Reader *r, uint32_t indent, int depth)
{
    if (depth > YAML_MAX_DEPTH) {
        fail(r, r->lines[r->at].lineno, "nesting deeper than YAML_MAX_DEPTH");
        return NULL;
    }
    const Line *l = &r->lines[r->at];
    if (is_item(l->text))
        return block_seq(r, indent, depth);
    const char *rest;
    bool is_map = false;
    for (const char *p = l->text; *p && !is_map; p++)
        is_map = *p == ':' && (p[1] == 0 || p[1] == ' ');
    if (!is_map && r->at + 1 == r->n) {   /* a document that is one scalar */
        r->at++;
        return inline_value(r, l->text, l->lineno);
    }
    (void)rest;
    return block_map(r, indent, depth);
}

const YamlValue *yaml_parse(Arena *a, const char *src, size_t len, YamlError *err)
{
    Reader r = {a, NULL, 0, 0, {0, NULL}};
    const YamlValue *v = NULL;
    if (len > UINT32_MAX / 2)
        fail(&r, 1, "input too large");
    else if (split_lines(&r, src, len))
        v = r.at < r.n ? block(&r, r.lines[r.at].indent, 0) : node(&r, YAML_NULL, 1);
    if (v && r.at < r.n) {
        fail(&r, r.lines[r.at].lineno, r.lines[r.at].indent < r.lines[0].indent ? "unexpected dedent"
                                                                                : "unexpected indentation");
        v = NULL;
    }
    if (err)
        *err = r.err;
    return r.err.msg ? NULL : v;
}

YamlKind yaml_kind(const YamlValue *v) { return v ? v->kind : YAML_NONE; }

const YamlValue *yaml_get(const YamlValue *map, const char *key)
{
    for (uint32_t i = map && map->kind == YAML_MAP ? map->n : 0; i-- > 0;)
        if (strcmp(map->keys[i], key) == 0)
            return map->items[i];
    return NULL;
}
