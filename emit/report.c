#include "report.h"
#include <stdio.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include <string.h>

bool output_format_parse(const char *s, OutputFormat *out)
{
    static const struct { const char *name; OutputFormat f; } names[] = {
        {"full", FMT_FULL}, {"concise", FMT_CONCISE}, {"json", FMT_JSON}, {"github", FMT_GITHUB},
        {"sarif", FMT_SARIF},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].f;
            return true;
        }
    return false;
}

const char *severity_name(Severity s)
{
    return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "note";
}

bool severity_parse(const char *s, Severity *out)
{
    for (int i = SEV_NOTE; i <= SEV_ERROR; i++)
        if (strcmp(s, severity_name((Severity)i)) == 0) {
            *out = (Severity)i;
            return true;
        }
    return false;
}

/* ---- positions and source lines --------------------------------------------------- */

/* In a notebook, lines count from the cell's first line; cell is 0 otherwise.
 * file_line: the line of the .ipynb file that holds the (end) line. */
typedef struct Pos {
    uint32_t line, col, end_line, end_col;
    uint32_t cell, file_line, file_end_line;
} Pos;

/* The code cell holding an offset of the joined source: the last to start at
 * or before it. */
static uint32_t cell_index(const CellMap *m, uint32_t offset)
{
    uint32_t lo = 0, hi = m->n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->start[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Line and column of an offset; in a notebook, within its cell (*cell, from 1)
 * and *file_line in the .ipynb. */
static void line_col(const ReportStyle *st, Syntax *s, uint32_t offset, uint32_t *line,
                     uint32_t *col, uint32_t *cell, uint32_t *file_line)
{
    syntax_line_col(s, offset, line, col);
    *cell = 0;
    *file_line = *line;
    const CellMap *m = st ? st->cells : NULL;
    if (!m || !m->n)
        return;
    uint32_t k = cell_index(m, offset), first, c;
    syntax_line_col(s, m->start[k], &first, &c);
    *line = *line >= first ? *line - first + 1 : 1;
    *cell = m->number[k];
    uint32_t i = *line - 1 < m->nlines[k] ? *line - 1 : m->nlines[k] - 1;
    *file_line = m->file_line[k][i];
}

static Pos finding_pos(const ReportStyle *st, Syntax *s, const Finding *f)
{
    Pos p;
    uint32_t end_cell;
    line_col(st, s, f->start, &p.line, &p.col, &p.cell, &p.file_line);
    line_col(st, s, f->end, &p.end_line, &p.end_col, &end_cell, &p.file_end_line);
    if (end_cell != p.cell) {   /* a span to the cell's end: stop at its last character */
        p.end_line = p.line;
        p.end_col = p.col + 1;
        p.file_end_line = p.file_line;
    }
    return p;
}

/* The source line holding `offset`, without its line break. */
static void line_bounds(const Syntax *s, uint32_t offset, uint32_t *from, uint32_t *to)
{
    uint32_t a = offset > s->len ? s->len : offset;
    while (a > 0 && s->src[a - 1] != '\n' && s->src[a - 1] != '\r')
        a--;
    uint32_t b = offset > s->len ? s->len : offset;
    while (b < s->len && s->src[b] != '\n' && s->src[b] != '\r')
        b++;
    *from = a;
    *to = b;
}

/* Long lines (minified code, a 10 MB line) are shown around the span only. */
enum { SNIPPET_MAX = 160 };

static void put_source_line(Buf *b, const char *text, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == 0)
            buf_puts(b, "\\0");
        else if (c < 0x20 && c != '\t')
            buf_putc(b, '?');
        else
            buf_putc(b, (char)c);
    }
}

static void put_snippet(Buf *b, const ReportStyle *st, Syntax *s, const Finding *f, Pos p)
{
    uint32_t from, to;
    line_bounds(s, f->start, &from, &to);
    uint32_t lo = f->start > from + SNIPPET_MAX / 2 ? f->start - SNIPPET_MAX / 2 : from;
    while (lo > from && ((unsigned char)s->src[lo] & 0xc0) == 0x80)
        lo--;   /* do not cut a character in half */
    uint32_t hi = to - lo > SNIPPET_MAX ? lo + SNIPPET_MAX : to;
    while (hi < to && ((unsigned char)s->src[hi] & 0xc0) == 0x80)
        hi++;
    char num[16];
    int w = snprintf(num, sizeof num, "%u", p.line);
    buf_printf(b, "  %*s │ ", w, num);
    if (lo > from)
        buf_puts(b, "…");
    put_source_line(b, s->src + lo, hi - lo);
    buf_printf(b, "\n  %*s │ ", w, "");
    if (lo > from)
        buf_puts(b, " ");
    uint32_t caret_end = f->end > f->start && f->end <= to ? f->end : f->start + 1;
    if (caret_end > hi)
        caret_end = hi > f->start ? hi : f->start + 1;
    for (uint32_t i = lo; i < f->start && i < hi; i++) {
        unsigned char c = (unsigned char)s->src[i];
        if ((c & 0xc0) != 0x80)
            buf_putc(b, c == '\t' ? '\t' : ' ');
    }
    if (st->color)
        buf_puts(b, "\033[1;31m");
    uint32_t carets = 0;
    for (uint32_t i = f->start; i < caret_end; i++)
        if (i >= s->len || ((unsigned char)s->src[i] & 0xc0) != 0x80)
            carets++;
    for (uint32_t i = 0; i < (carets ? carets : 1); i++)
        buf_putc(b, '^');
    if (st->color)
        buf_puts(b, "\033[0m");
    buf_putc(b, '\n');
}

/* ---- formats ------------------------------------------------------------------------ */

static void put_json_string(Buf *b, const char *s)
{
    buf_putc(b, '"');
    buf_put_escaped(b, s, strlen(s));
    buf_putc(b, '"');
}

/* {"applicability", "message", "edits": [{"content", "location", "end_location"}]} */
static void put_json_fix(Buf *out, const ReportStyle *st, Syntax *s, const Fix *fx)
{
    if (!fx || !s) {
        buf_puts(out, "null");
        return;
    }
    buf_printf(out, "{\"applicability\": \"%s\", \"message\": ",
               fx->applicability == FIX_SAFE ? "safe" : "unsafe");
    put_json_string(out, fx->message);
    buf_puts(out, ", \"edits\": [");
    for (uint32_t i = 0; i < fx->nedits; i++) {
        uint32_t l0, c0, l1, c1, cell, file_line;
        line_col(st, s, fx->edits[i].start, &l0, &c0, &cell, &file_line);
        line_col(st, s, fx->edits[i].end, &l1, &c1, &cell, &file_line);
        buf_puts(out, i ? ", {\"content\": " : "{\"content\": ");
        put_json_string(out, fx->edits[i].text);
        buf_printf(out,
                   ", \"location\": {\"row\": %u, \"column\": %u}, \"end_location\": "
                   "{\"row\": %u, \"column\": %u}}",
                   l0, c0, l1, c1);
    }
    buf_puts(out, "]}");
}

static void report_json(Buf *out, const ReportStyle *st, Syntax *s, const char *path,
                        const Finding *f, Pos p, bool first)
{
    if (!first)
        buf_puts(out, ",\n");
    buf_puts(out, "  {\"code\": ");
    put_json_string(out, f->code);
    buf_puts(out, ", \"name\": ");
    put_json_string(out, f->name);
    buf_printf(out, ", \"severity\": \"%s\", \"message\": ", severity_name(f->severity));
    put_json_string(out, f->message);
    buf_puts(out, ", \"filename\": ");
    put_json_string(out, path);
    if (p.cell)   /* ruff's field for notebooks: rows count from the cell's first line */
        buf_printf(out, ", \"cell\": %u", p.cell);
    buf_printf(out,
               ", \"location\": {\"row\": %u, \"column\": %u}, \"end_location\": {\"row\": %u, "
               "\"column\": %u}, \"fix\": ",
               p.line, p.col, p.end_line, p.end_col);
    put_json_fix(out, st, s, f->fix);
    buf_printf(out, ", \"url\": \"" PFC_RULES_URL "%s.md\"", f->code);
    if (f->help) {
        buf_puts(out, ", \"help\": ");
        put_json_string(out, f->help);
    }
    buf_puts(out, "}");
}

/* GitHub workflow commands need %, CR and LF escaped in the message. */
static void put_github_escaped(Buf *b, const char *s, bool property)
{
    for (; *s; s++) {
        if (*s == '%') buf_puts(b, "%25");
        else if (*s == '\r') buf_puts(b, "%0D");
        else if (*s == '\n') buf_puts(b, "%0A");
        else if (property && *s == ':') buf_puts(b, "%3A");
        else if (property && *s == ',') buf_puts(b, "%2C");
        else buf_putc(b, *s);
    }
}

/* ---- SARIF ----------------------------------------------------------------------------- */

static const char *sarif_level(Severity s)
{
    return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "note";
}

/* A relative URI: '/' separators, no "./", percent-encoding outside the
 * unreserved set. */
static void put_uri(Buf *b, const char *path)
{
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    if (path[0] == '/')
        buf_puts(b, "file://");   /* an absolute path is an absolute URI */
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr("-._~/", c))
            buf_putc(b, (char)c);
        else
            buf_printf(b, "%%%02X", c);
    }
}

static int rule_index(const ReportStyle *st, const char *code)
{
    for (size_t i = 0; i < st->nrules; i++)
        if (strcmp(st->rules[i].code, code) == 0)
            return (int)i;
    return -1;
}

/* GitHub matches results across commits by this: the rule and the text of
 * the line, not its number. */
static uint64_t line_hash(const Syntax *s, const Finding *f)
{
    if (!s)
        return XXH3_64bits(f->code, strlen(f->code));
    uint32_t a, b;
    line_bounds(s, f->start, &a, &b);
    while (a < b && (s->src[a] == ' ' || s->src[a] == '\t'))
        a++;
    return XXH3_64bits_withSeed(s->src + a, b - a, XXH3_64bits(f->code, strlen(f->code)));
}

/* A notebook: the region is the lines of the .ipynb (columns inside a JSON
 * string would count its escapes), the cell's own coordinates go in the
 * result's properties. Fixes are left out: they edit the cell's text, not
 * the file's bytes. */
static void sarif_cell_region(Buf *out, const Syntax *s, const Finding *f, Pos p)
{
    buf_printf(out,
               "\"}, \"region\": {\"startLine\": %u, \"endLine\": %u}}}], \"partialFingerprints\": "
               "{\"primaryLocationLineHash\": \"%016llx:1\"}, \"properties\": {\"cell\": %u, "
               "\"cellLine\": %u, \"cellColumn\": %u, \"cellEndLine\": %u, \"cellEndColumn\": %u}}",
               p.file_line, p.file_end_line, (unsigned long long)line_hash(s, f), p.cell, p.line,
               p.col, p.end_line, p.end_col);
}

static void report_sarif(Buf *out, const ReportStyle *st, const char *path, Syntax *s,
                         const Finding *f, Pos p, bool first)
{
    if (!first)
        buf_puts(out, ",\n");
    buf_puts(out, "        {\"ruleId\": ");
    put_json_string(out, f->code);
    int idx = rule_index(st, f->code);
    if (idx >= 0)
        buf_printf(out, ", \"ruleIndex\": %d", idx);
    buf_printf(out, ", \"level\": \"%s\", \"message\": {\"text\": ", sarif_level(f->severity));
    put_json_string(out, f->message);
    buf_puts(out, "}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": \"");
    put_uri(out, path);
    if (p.cell) {
        sarif_cell_region(out, s, f, p);
        return;
    }
    buf_printf(out,
               "\"}, \"region\": {\"startLine\": %u, \"startColumn\": %u, \"endLine\": %u, "
               "\"endColumn\": %u}}}], \"partialFingerprints\": {\"primaryLocationLineHash\": "
               "\"%016llx:1\"}}",
               p.line, p.col, p.end_line, p.end_col > p.col || p.end_line > p.line ? p.end_col : p.col + 1,
               (unsigned long long)line_hash(s, f));
    if (f->fix && s) {
        /* SARIF fixes: the edits as replacements of regions (an insertion
         * deletes an empty region) */
        out->n--;   /* reopen the result object */
        buf_puts(out, ", \"fixes\": [{\"description\": {\"text\": ");
        put_json_string(out, f->fix->message);
        buf_puts(out, "}, \"artifactChanges\": [{\"artifactLocation\": {\"uri\": \"");
        put_uri(out, path);
        buf_puts(out, "\"}, \"replacements\": [");
        for (uint32_t i = 0; i < f->fix->nedits; i++) {
            const Edit *e = &f->fix->edits[i];
            uint32_t l0, c0, l1, c1;
            syntax_line_col(s, e->start, &l0, &c0);
            syntax_line_col(s, e->end, &l1, &c1);
            buf_printf(out,
                       "%s{\"deletedRegion\": {\"startLine\": %u, \"startColumn\": %u, "
                       "\"endLine\": %u, \"endColumn\": %u}, \"insertedContent\": {\"text\": ",
                       i ? ", " : "", l0, c0, l1, c1);
            put_json_string(out, e->text);
            buf_puts(out, "}}");
        }
        buf_puts(out, "]}]}]}");
    }
}

void report_sarif_begin(Buf *out, const ReportStyle *st, const char *version)
{
    buf_puts(out,
             "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
             "  \"version\": \"2.1.0\",\n  \"runs\": [{\n    \"tool\": {\"driver\": {\n"
             "      \"name\": \"pfc\", \"version\": ");
    put_json_string(out, version);
    buf_puts(out, ",\n      \"rules\": [\n");
    for (size_t i = 0; i < st->nrules; i++) {
        const RuleMeta *r = &st->rules[i];
        buf_puts(out, "        {\"id\": ");
        put_json_string(out, r->code);
        buf_puts(out, ", \"name\": ");
        put_json_string(out, r->name);
        buf_puts(out, ", \"shortDescription\": {\"text\": ");
        put_json_string(out, r->summary);
        buf_puts(out, "}, \"fullDescription\": {\"text\": ");
        put_json_string(out, r->summary);
        buf_puts(out, "}, \"help\": {\"text\": ");
        put_json_string(out, r->help ? r->help : r->summary);
        buf_printf(out, "}, \"helpUri\": \"" PFC_RULES_URL "%s.md\", "
                   "\"defaultConfiguration\": {\"level\": \"%s\"}}%s\n", r->code,
                   sarif_level(r->severity), i + 1 < st->nrules ? "," : "");
    }
    buf_puts(out, "      ]\n    }},\n    \"results\": [\n");
}

void report_sarif_end(Buf *out) { buf_puts(out, "\n    ]\n  }]\n}\n"); }

/* ruff's [*]: a fix --fix would apply (an unsafe one with --unsafe-fixes). */
static const char *fixable_mark(const ReportStyle *st, const Finding *f)
{
    return f->fix && (f->fix->applicability == FIX_SAFE || st->unsafe_fixes) ? " [*]" : "";
}

static void report_one(Buf *out, const ReportStyle *st, const char *path, Syntax *s,
                       const Finding *f, bool first)
{
    Pos p = s ? finding_pos(st, s, f) : (Pos){1, 1, 1, 1, 0, 1, 1};
    const char *bold = st->color ? "\033[1m" : "", *reset = st->color ? "\033[0m" : "";
    const char *sevc = !st->color ? "" : f->severity == SEV_ERROR ? "\033[1;31m"
                                       : f->severity == SEV_WARNING ? "\033[1;33m" : "\033[1;36m";
    switch (st->format) {
    case FMT_CONCISE:
        if (p.cell)
            buf_printf(out, "%s:cell %u:%u:%u: %s%s %s\n", path, p.cell, p.line, p.col, f->code,
                       fixable_mark(st, f), f->message);
        else
            buf_printf(out, "%s:%u:%u: %s%s %s\n", path, p.line, p.col, f->code,
                       fixable_mark(st, f), f->message);
        break;
    case FMT_GITHUB:
        buf_printf(out, "::%s title=pfc (%s),file=", f->severity == SEV_NOTE ? "notice"
                                                     : severity_name(f->severity), f->code);
        put_github_escaped(out, path, true);
        if (p.cell) {   /* the annotation goes on the line of the .ipynb that holds it */
            buf_printf(out, ",line=%u,endLine=%u::%s cell %u, line %u: ", p.file_line,
                       p.file_end_line, f->code, p.cell, p.line);
            put_github_escaped(out, f->message, false);
            buf_putc(out, '\n');
            break;
        }
        buf_printf(out, ",line=%u,col=%u,endLine=%u,endColumn=%u::%s ", p.line, p.col,
                   p.end_line, p.end_col, f->code);
        put_github_escaped(out, f->message, false);
        buf_putc(out, '\n');
        break;
    case FMT_JSON:
        report_json(out, st, s, path, f, p, first);
        break;
    case FMT_SARIF:
        report_sarif(out, st, path, s, f, p, first);
        break;
    case FMT_FULL:
        if (first)
            buf_printf(out, "%s%s%s\n", bold, path, reset);
        if (p.cell)
            buf_printf(out, "  cell %u, line %u:%u  %s%-7s%s %s%s (%s)%s%s\n", p.cell, p.line, p.col,
                       sevc, severity_name(f->severity), reset, bold, f->code, f->name, reset,
                       fixable_mark(st, f));
        else
            buf_printf(out, "  %u:%u  %s%-7s%s %s%s (%s)%s%s\n", p.line, p.col, sevc,
                       severity_name(f->severity), reset, bold, f->code, f->name, reset,
                       fixable_mark(st, f));
        buf_printf(out, "  %s\n", f->message);
        if (s)
            put_snippet(out, st, s, f, p);
        if (f->help)
            buf_printf(out, "  help: %s\n", f->help);
        if (f->fix)
            buf_printf(out, "  fix:  %s (run with --fix%s)\n", f->fix->message,
                       f->fix->applicability == FIX_SAFE ? "" : " --unsafe-fixes");
        break;
    }
}

void report_file(Buf *out, const ReportStyle *st, const char *path, Syntax *s,
                 const Finding *f, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        report_one(out, st, path, s, &f[i], i == 0);
    if (n && st->format == FMT_FULL)
        buf_putc(out, '\n');
}

void report_notebook(Buf *out, const ReportStyle *st, const char *path, Syntax *s,
                     const Finding *f, uint32_t n, const CellMap *cells)
{
    ReportStyle with_cells = *st;
    with_cells.cells = cells;
    report_file(out, &with_cells, path, s, f, n);
}

void report_file_error(Buf *out, const ReportStyle *st, const char *path, const char *msg)
{
    Finding f = {"E902", "io-error", SEV_ERROR, 0, 0, msg, NULL, NULL};
    report_one(out, st, path, NULL, &f, true);
    if (st->format == FMT_FULL)
        buf_putc(out, '\n');
}
