/* Notebooks: JSON → joined Python source with a map back to the cells, and
 * the edited cells back into the JSON (cli/notebook.h says what is blanked). */
#define _GNU_SOURCE
#include "notebook.h"
#include "../base/json.h"
#include "cli.h"
#include "files.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct Cell {
    uint32_t number;               /* among all cells, from 1 */
    const JsonValue *source;       /* the "source" value in the JSON */
    const char *text;              /* decoded, as the file holds it */
    uint32_t len;
} Cell;

/* Bytes of the joined source that stand for IPython syntax: `at` follows the
 * edits, text is what the cell holds there (the same length). */
typedef struct Blank {
    uint32_t at, len;
    const char *text;
    bool cell_magic;   /* a cell magic's line: nothing may go before it */
} Blank;

struct Notebook {
    Arena arena;
    char *json;
    uint32_t json_len;
    const JsonValue *root;
    Cell *cells;                   /* code cells only */
    uint32_t ncells;
    ARENA_VEC(Blank) blanks;
    char *joined;
    uint32_t joined_len;
    uint32_t *start, *end;         /* each cell's text in the joined source, through edits */
    uint32_t *number, *nlines;
    const uint32_t **file_line;
    const char *skip;
    bool ensure_ascii;
};

bool notebook_is_path(const char *path)
{
    size_t n = strlen(path);
    return n > 6 && strcmp(path + n - 6, ".ipynb") == 0;
}

/* ---- finding IPython syntax ------------------------------------------------------- */

/* Where the lexical scan of a cell stands at a line start: inside a
 * triple-quoted string, brackets, or a backslash continuation, a line is
 * Python whatever it starts with. */
typedef struct Scan { char triple; int depth; bool continued; } Scan;

static bool scan_is_free(const Scan *sc) { return !sc->triple && !sc->depth && !sc->continued; }

/* Advances the scan over one line of Python, [a, b). */
static void scan_line(Scan *sc, const char *t, uint32_t a, uint32_t b)
{
    sc->continued = false;
    for (uint32_t i = a; i < b; i++) {
        char c = t[i];
        if (sc->triple) {
            if (c == '\\')
                i++;
            else if (c == sc->triple && i + 2 < b && t[i + 1] == c && t[i + 2] == c) {
                sc->triple = 0;
                i += 2;
            }
            continue;
        }
        if (c == '#')
            return;
        if (c == '\'' || c == '"') {
            if (i + 2 < b && t[i + 1] == c && t[i + 2] == c) {
                sc->triple = c;
                i += 2;
                continue;
            }
            for (i++; i < b && t[i] != c; i++)
                i += t[i] == '\\';
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            sc->depth++;
        else if ((c == ')' || c == ']' || c == '}') && sc->depth > 0)
            sc->depth--;
        else if (c == '\\' && i + 1 == b)
            sc->continued = true;
    }
}

static bool is_name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c < 0; }

static uint32_t skip_blanks(const char *t, uint32_t i, uint32_t b)
{
    while (i < b && (t[i] == ' ' || t[i] == '\t'))
        i++;
    return i;
}

/* `obj?`, `obj.attr??`: the whole line is a name and question marks. */
static bool is_help_suffix(const char *t, uint32_t i, uint32_t b)
{
    uint32_t e = b;
    while (e > i && (t[e - 1] == ' ' || t[e - 1] == '\t'))
        e--;
    uint32_t q = e;
    while (q > i && t[q - 1] == '?')
        q--;
    if (q == e || e - q > 2 || q == i || !is_name_char(t[i]) || isdigit((unsigned char)t[i]))
        return false;
    for (uint32_t k = i; k < q; k++)
        if (!is_name_char(t[k]) && t[k] != '.')
            return false;
    return true;
}

/* `name = !cmd` or `name = %magic`: the offset of the '!' or '%', else b. */
static uint32_t assigned_magic(const char *t, uint32_t i, uint32_t b)
{
    if (i >= b || !is_name_char(t[i]) || isdigit((unsigned char)t[i]))
        return b;
    while (i < b && is_name_char(t[i]))
        i++;
    i = skip_blanks(t, i, b);
    if (i + 1 >= b || t[i] != '=' || t[i + 1] == '=')
        return b;
    i = skip_blanks(t, i + 1, b);
    return i < b && (t[i] == '!' || t[i] == '%') ? i : b;
}

/* Where IPython syntax starts on the line [a, b), or b; *value says that it
 * stands where Python needs an expression. */
static uint32_t ipython_start(const char *t, uint32_t a, uint32_t b, bool *value)
{
    uint32_t i = skip_blanks(t, a, b);
    *value = i > a;   /* indented: a statement the block may need */
    if (i < b && (t[i] == '%' || t[i] == '!' || t[i] == '?'))
        return i;
    if (i < b && is_help_suffix(t, i, b))
        return i;
    *value = true;
    return assigned_magic(t, i, b);
}

static uint32_t line_end(const char *t, uint32_t n, uint32_t i)
{
    while (i < n && t[i] != '\n' && t[i] != '\r')
        i++;
    return i;
}

static uint32_t next_line(const char *t, uint32_t n, uint32_t e)
{
    if (e < n && t[e] == '\r' && e + 1 < n && t[e + 1] == '\n')
        return e + 2;
    return e < n ? e + 1 : n;
}

/* Cell magics whose body is Python: only their first line is blanked. */
static bool python_body_magic(const char *t, uint32_t e)
{
    static const char *const names[] = {"time", "timeit", "capture", "prun", "debug",
                                        "python", "python3", "pypy", "tee"};
    uint32_t n = 2;
    while (n < e && is_name_char(t[n]))
        n++;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (n - 2 == strlen(names[k]) && memcmp(t + 2, names[k], n - 2) == 0)
            return true;
    return false;
}

/* ---- the joined source ------------------------------------------------------------ */

/* Replaces [a, b) of the joined source with spaces (a `0` first when the
 * place needs a value) and remembers what was there. */
static void blank(Notebook *nb, Buf *joined, uint32_t base, const char *text, uint32_t a,
                  uint32_t b, bool value)
{
    if (a >= b)
        return;
    memset(joined->v + base + a, ' ', b - a);
    if (value)
        joined->v[base + a] = '0';
    Blank bl = {base + a, b - a, text + a, a == 0 && b >= 2 && text[0] == '%' && text[1] == '%'};
    VEC_PUSH(&nb->arena, nb->blanks, bl);
}

static void blank_cell(Notebook *nb, Buf *joined, uint32_t base, const char *t, uint32_t n)
{
    uint32_t first = line_end(t, n, 0);
    bool whole = n >= 2 && t[0] == '%' && t[1] == '%' && !python_body_magic(t, first);
    Scan sc = {0, 0, false};
    bool magic_continues = false;
    for (uint32_t a = 0; a < n;) {
        uint32_t b = line_end(t, n, a);
        bool value = false;
        uint32_t from = b;
        if (whole || magic_continues || (a == 0 && n >= 2 && t[0] == '%' && t[1] == '%'))
            from = a;
        else if (scan_is_free(&sc))
            from = ipython_start(t, a, b, &value);
        if (from < b) {
            blank(nb, joined, base, t, from, b, value && !magic_continues);
            magic_continues = t[b - 1] == '\\';
        } else {
            magic_continues = false;
            scan_line(&sc, t, a, b);
        }
        a = next_line(t, n, b);
    }
}

/* The file lines on which each line of the cell starts. */
static void map_file_lines(Notebook *nb, const Cell *c, uint32_t k, const uint32_t *line_at)
{
    uint32_t lines = 1;
    for (uint32_t i = 0; i < c->len; i++)
        lines += c->text[i] == '\n' || (c->text[i] == '\r' && (i + 1 == c->len || c->text[i + 1] != '\n'));
    uint32_t *fl = arena_zalloc(&nb->arena, lines * sizeof *fl);
    const JsonValue *src = c->source;
    uint32_t line = 0, nitems = json_kind(src) == JSON_ARRAY ? src->n : 1;
    bool at_start = true;
    for (uint32_t j = 0; j < nitems && line < lines; j++) {
        const JsonValue *item = json_kind(src) == JSON_ARRAY ? src->items[j] : src;
        uint32_t file_line = line_at[item->start];
        for (uint32_t i = 0; i < item->n && line < lines; i++) {
            if (at_start)
                fl[line] = file_line;
            at_start = false;
            char ch = item->str[i];
            if (ch == '\n' || (ch == '\r' && (i + 1 == item->n || item->str[i + 1] != '\n'))) {
                line++;
                at_start = true;
            }
        }
    }
    for (uint32_t i = 0; i < lines; i++)   /* an empty last line: the line of the source */
        if (!fl[i])
            fl[i] = i ? fl[i - 1] : line_at[src->start];
    nb->nlines[k] = lines;
    nb->file_line[k] = fl;
}

static void join_cells(Notebook *nb)
{
    Buf joined = {0};
    uint32_t *line_at = malloc(((size_t)nb->json_len + 1) * sizeof *line_at);
    if (!line_at)
        abort();
    for (uint32_t i = 0, line = 1; i <= nb->json_len; i++) {
        line_at[i] = line;
        line += i < nb->json_len && nb->json[i] == '\n';
    }
    for (uint32_t k = 0; k < nb->ncells; k++) {
        const Cell *c = &nb->cells[k];
        uint32_t base = (uint32_t)joined.n;
        nb->start[k] = base;
        buf_put(&joined, c->text, c->len);
        blank_cell(nb, &joined, base, c->text, c->len);
        nb->end[k] = (uint32_t)joined.n;
        nb->number[k] = c->number;
        map_file_lines(nb, c, k, line_at);
        buf_putc(&joined, '\n');   /* cells are separate lines whatever their last line */
    }
    free(line_at);
    nb->joined_len = (uint32_t)joined.n;
    buf_putc(&joined, 0);
    nb->joined = arena_copy(&nb->arena, joined.v, joined.n);
    buf_free(&joined);
}

/* ---- reading ----------------------------------------------------------------------- */

/* A cell's source: a string, or a list of strings to concatenate. */
static bool cell_text(Notebook *nb, const JsonValue *src, Cell *c)
{
    if (json_kind(src) == JSON_STRING) {
        c->text = src->str;
        c->len = src->n;
        return true;
    }
    if (json_kind(src) != JSON_ARRAY)
        return false;
    Buf b = {0};
    for (uint32_t i = 0; i < src->n; i++) {
        if (json_kind(src->items[i]) != JSON_STRING) {
            buf_free(&b);
            return false;
        }
        buf_put(&b, src->items[i]->str, src->items[i]->n);
    }
    c->len = (uint32_t)b.n;
    c->text = arena_strndup(&nb->arena, b.v ? b.v : "", b.n);
    buf_free(&b);
    return true;
}

/* Jupyter writes non-ASCII text as it is unless told to escape it. */
static bool writes_ascii_escapes(const char *json, uint32_t len)
{
    bool escapes = false;
    for (uint32_t i = 0; i < len; i++) {
        if ((unsigned char)json[i] >= 0x80)
            return false;
        if (json[i] == '\\' && i + 5 < len && json[i + 1] == 'u' &&
            (json[i + 2] != '0' || json[i + 3] != '0'))
            escapes = true;
        i += json[i] == '\\';
    }
    return escapes;
}

static const char *language_skip(Notebook *nb)
{
    const JsonValue *meta = json_get(nb->root, "metadata");
    const char *lang = json_string(json_get(json_get(meta, "kernelspec"), "language"), NULL);
    if (!lang)
        lang = json_string(json_get(json_get(meta, "language_info"), "name"), NULL);
    if (!lang || strcasecmp(lang, "python") == 0 || strcasecmp(lang, "python3") == 0)
        return NULL;
    return arena_printf(&nb->arena, "the notebook's kernel runs %s, not Python", lang);
}

static bool read_cells(Notebook *nb, char *err, size_t err_size)
{
    const JsonValue *cells = json_get(nb->root, "cells");
    if (json_kind(nb->root) != JSON_OBJECT || (!cells && !json_get(nb->root, "worksheets"))) {
        snprintf(err, err_size, "not a Jupyter notebook: no \"cells\" list at the top level");
        return false;
    }
    if (!cells) {
        nb->skip = "an nbformat 3 notebook (pfc reads nbformat 4; `jupyter nbconvert --to "
                   "notebook` converts it)";
        cells = NULL;
    } else if (json_kind(cells) != JSON_ARRAY) {
        snprintf(err, err_size, "\"cells\" is not a list");
        return false;
    }
    uint32_t n = json_count(cells);
    nb->cells = arena_zalloc(&nb->arena, (n + 1) * sizeof *nb->cells);
    for (uint32_t i = 0; i < n; i++) {
        const JsonValue *cell = cells->items[i];
        if (!json_is(json_get(cell, "cell_type"), "code"))
            continue;
        Cell *c = &nb->cells[nb->ncells];
        c->number = i + 1;
        c->source = json_get(cell, "source");
        if (!cell_text(nb, c->source, c)) {
            snprintf(err, err_size, c->source ? "cell %u: \"source\" is not a string or a list "
                                                "of strings" : "cell %u: a code cell without "
                                                "\"source\"", i + 1);
            return false;
        }
        nb->ncells++;
    }
    return true;
}

static void alloc_maps(Notebook *nb)
{
    uint32_t n = nb->ncells + 1;
    nb->start = arena_zalloc(&nb->arena, n * sizeof *nb->start);
    nb->end = arena_zalloc(&nb->arena, n * sizeof *nb->end);
    nb->number = arena_zalloc(&nb->arena, n * sizeof *nb->number);
    nb->nlines = arena_zalloc(&nb->arena, n * sizeof *nb->nlines);
    nb->file_line = arena_zalloc(&nb->arena, n * sizeof *nb->file_line);
}

Notebook *notebook_open(const char *json, uint32_t len, char *err, size_t err_size)
{
    Notebook *nb = calloc(1, sizeof *nb);
    if (!nb)
        abort();
    arena_init(&nb->arena);
    nb->json = arena_copy(&nb->arena, json, len + 1u);
    nb->json[len] = 0;
    nb->json_len = len;
    JsonError je;
    nb->root = json_parse(&nb->arena, nb->json, len, &je);
    if (!nb->root) {
        snprintf(err, err_size, "invalid notebook JSON: line %u, column %u: %s", je.line, je.col,
                 je.msg);
        notebook_free(nb);
        return NULL;
    }
    if (!read_cells(nb, err, err_size)) {
        notebook_free(nb);
        return NULL;
    }
    if (!nb->skip)
        nb->skip = language_skip(nb);
    nb->ensure_ascii = writes_ascii_escapes(nb->json, len);
    alloc_maps(nb);
    join_cells(nb);
    return nb;
}

void notebook_free(Notebook *nb)
{
    if (!nb)
        return;
    arena_free(&nb->arena);
    free(nb);
}

const char *notebook_skip_reason(const Notebook *nb) { return nb->skip; }

const char *notebook_source(const Notebook *nb, uint32_t *len)
{
    *len = nb->joined_len;
    return nb->joined;
}

const char *notebook_json(const Notebook *nb, uint32_t *len)
{
    *len = nb->json_len;
    return nb->json;
}

CellMap notebook_cells(const Notebook *nb)
{
    CellMap m = {nb->ncells, nb->start, nb->number, nb->nlines, nb->file_line};
    return m;
}

const char *notebook_cell_message(const Notebook *nb, Syntax *s, const char *msg)
{
    const char *p = strstr(msg, "line ");
    if (!p || !isdigit((unsigned char)p[5]) || !nb->ncells)
        return msg;
    char *end;
    unsigned long n = strtoul(p + 5, &end, 10);
    uint32_t first, col;
    syntax_line_col(s, 0, &first, &col);   /* makes the line table */
    if (n == 0 || n > s->nlines)
        return msg;
    uint32_t offset = s->line_starts[n - 1], k = 0;
    while (k + 1 < nb->ncells && nb->start[k + 1] <= offset)
        k++;
    syntax_line_col(s, nb->start[k], &first, &col);
    unsigned long line = n - first + 1;   /* the end of the input: the cell's last line */
    if (line > nb->nlines[k])
        line = nb->nlines[k];
    return arena_printf(s->arena, "%.*sline %lu of cell %u%s", (int)(p - msg), msg, line,
                        nb->number[k], end);
}

/* ---- fixes ----------------------------------------------------------------------- */

static bool edit_fits(const Notebook *nb, const Edit *e)
{
    bool in_cell = false;
    for (uint32_t k = 0; k < nb->ncells && !in_cell; k++)
        in_cell = nb->start[k] <= e->start && e->end <= nb->end[k];
    if (!in_cell)
        return false;
    for (uint32_t i = 0; i < nb->blanks.n; i++) {
        const Blank *b = &nb->blanks.v[i];
        bool touches = e->start == e->end
                           ? (b->at < e->start || (b->cell_magic && b->at == e->start)) &&
                                 e->start < b->at + b->len
                           : e->start < b->at + b->len && b->at < e->end;
        if (touches)
            return false;
    }
    return true;
}

bool notebook_edits_fit(const Notebook *nb, const Edit *edits, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!edit_fits(nb, &edits[i]))
            return false;
    return true;
}

/* How far edits move an offset: by those before it; `after_insertion` says
 * whether an insertion exactly there comes before it. */
static uint32_t shifted(uint32_t p, const Edit *edits, uint32_t n, bool after_insertion)
{
    int64_t d = 0;
    for (uint32_t i = 0; i < n; i++) {
        const Edit *e = &edits[i];
        bool before = e->end < p || (e->end == p && (e->start < p || after_insertion));
        if (before)
            d += (int64_t)strlen(e->text) - (e->end - e->start);
    }
    return (uint32_t)((int64_t)p + d);
}

void notebook_apply_edits(Notebook *nb, const Edit *edits, uint32_t n)
{
    for (uint32_t k = 0; k < nb->ncells; k++) {
        /* an insertion at a cell's first byte belongs to it; so does one at its end */
        nb->start[k] = shifted(nb->start[k], edits, n, false);
        nb->end[k] = shifted(nb->end[k], edits, n, true);
    }
    for (uint32_t i = 0; i < nb->blanks.n; i++)
        nb->blanks.v[i].at = shifted(nb->blanks.v[i].at, edits, n, true);
}

/* Cell k's text in src with its IPython syntax put back. */
static void cell_now(const Notebook *nb, uint32_t k, const char *src, Buf *out)
{
    uint32_t a = nb->start[k], b = nb->end[k];
    size_t base = out->n;
    buf_put(out, src + a, b - a);
    for (uint32_t i = 0; i < nb->blanks.n; i++) {
        const Blank *bl = &nb->blanks.v[i];
        if (bl->at >= a && bl->at + bl->len <= b)
            memcpy(out->v + base + (bl->at - a), bl->text, bl->len);
    }
}

/* A source list in the layout of the one it replaces: what comes after '[',
 * between items and before ']' is copied from it (a one-item list repeats its
 * opening after each comma). Lines keep their line breaks, as nbformat splits. */
static void put_source_list(const Notebook *nb, const JsonValue *old, const char *t, size_t n,
                            Buf *out)
{
    const char *j = nb->json;
    const JsonValue *first = old->n ? old->items[0] : NULL, *last = old->n ? old->items[old->n - 1] : NULL;
    const char *open = first ? j + old->start + 1 : "";
    size_t open_n = first ? first->start - old->start - 1 : 0;
    const char *close = last ? j + last->end : "";
    size_t close_n = last ? old->end - 1 - last->end : 0;
    if (n == 0) {
        buf_puts(out, "[]");
        return;
    }
    buf_putc(out, '[');
    buf_put(out, open, open_n);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && t[b] != '\n' && t[b] != '\r')
            b++;
        b += b < n && t[b] == '\r' && b + 1 < n && t[b + 1] == '\n' ? 2 : b < n;
        if (a) {
            if (old->n >= 2)
                buf_put(out, j + old->items[0]->end, old->items[1]->start - old->items[0]->end);
            else {
                buf_putc(out, ',');
                buf_put(out, open_n ? open : " ", open_n ? open_n : 1);
            }
        }
        json_put_string(out, t + a, b - a, nb->ensure_ascii);
        a = b;
    }
    buf_put(out, close, close_n);
    buf_putc(out, ']');
}

void notebook_render(const Notebook *nb, const char *src, uint32_t len, Buf *out)
{
    (void)len;
    uint32_t copied = 0;
    Buf text = {0};
    for (uint32_t k = 0; k < nb->ncells; k++) {
        const Cell *c = &nb->cells[k];
        text.n = 0;
        cell_now(nb, k, src, &text);
        if (text.n == c->len && memcmp(text.v ? text.v : "", c->text, c->len) == 0)
            continue;
        buf_put(out, nb->json + copied, c->source->start - copied);
        if (json_kind(c->source) == JSON_ARRAY)
            put_source_list(nb, c->source, text.v, text.n, out);
        else
            json_put_string(out, text.v, text.n, nb->ensure_ascii);
        copied = c->source->end;
    }
    buf_put(out, nb->json + copied, nb->json_len - copied);
    buf_free(&text);
}

/* ---- debugging commands ----------------------------------------------------------- */

static int debug_json_one(const char *path)
{
    char *src;
    uint32_t len;
    const char *why;
    if (!read_source(path, &src, &len, &why)) {
        printf("%s\terror\t%s\n", path, why);
        return 1;
    }
    Arena a;
    arena_init(&a);
    JsonError err;
    const JsonValue *v = json_parse(&a, src, len, &err);
    Buf out = {0};
    if (v)
        json_write(&out, v, src);
    if (v)
        printf("%s\tok\t%.*s\n", path, (int)out.n, out.v);
    else
        printf("%s\terror\t%u:%u: %s\n", path, err.line, err.col, err.msg);
    buf_free(&out);
    arena_free(&a);
    free(src);
    return v ? 0 : 1;
}

int cmd_debug_json(int argc, char **argv)
{
    if (argc < 1)
        return usage_error("debug-json expects files");
    int failed = 0;
    for (int i = 0; i < argc; i++)
        failed += debug_json_one(argv[i]);
    return failed ? EXIT_FINDINGS : EXIT_CLEAN;
}

int cmd_dump_notebook(int argc, char **argv)
{
    if (argc != 1)
        return usage_error("dump-notebook expects one file");
    char *src;
    uint32_t len;
    const char *why;
    char err[256];
    if (!read_source(argv[0], &src, &len, &why)) {
        fprintf(stderr, "pfc: error: %s: %s\n", argv[0], why);
        return EXIT_USAGE;
    }
    Notebook *nb = notebook_open(src, len, err, sizeof err);
    free(src);
    if (!nb) {
        fprintf(stderr, "pfc: error: %s: %s\n", argv[0], err);
        return EXIT_USAGE;
    }
    uint32_t n;
    const char *joined = notebook_source(nb, &n);
    fwrite(joined, 1, n, stdout);
    notebook_free(nb);
    return EXIT_CLEAN;
}
