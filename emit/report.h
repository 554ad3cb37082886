/* Output formats for findings: full (compiler style), concise, json, github.
 * Formatting is per file, so workers format in parallel and the driver only
 * concatenates in a deterministic order. */
#ifndef PFC_REPORT_H
#define PFC_REPORT_H
#include "../base/buf.h"
#include "../base/finding.h"
#include "../parser/parser.h"
#include <stdbool.h>

/* Where each code's documentation (docs/rules/CODE.md) is published: JSON
 * findings' "url" and SARIF rules' "helpUri" are this followed by CODE.md.
 * The one place to change it (or build with -DPFC_RULES_URL=...). */
#ifndef PFC_RULES_URL
#define PFC_RULES_URL "https://github.com/pfc-dev/pfc/blob/main/docs/rules/"
#endif

typedef enum OutputFormat { FMT_FULL, FMT_CONCISE, FMT_JSON, FMT_GITHUB, FMT_SARIF } OutputFormat;

/* A notebook linted as one joined source (cli/notebook.c): code cell i starts at
 * byte start[i] of that source and is cell number[i] of the notebook (counting
 * every cell from 1, as ruff does). Its line k (from 1) lies on line
 * file_line[i][k - 1] of the .ipynb file, for the formats that point into the
 * file itself (github, SARIF); nlines[i] lines are known. */
typedef struct CellMap {
    uint32_t n;
    const uint32_t *start, *number, *nlines;
    const uint32_t *const *file_line;
} CellMap;

/* What SARIF's rule table needs to know of each code. */
typedef struct RuleMeta {
    const char *code, *name, *summary, *help;
    Severity severity;
} RuleMeta;
typedef struct ReportStyle {
    OutputFormat format;
    bool color;
    bool unsafe_fixes;       /* an unsafe fix counts as fixable ([*]) */
    const RuleMeta *rules;   /* SARIF: the rule table, results refer to it by index */
    size_t nrules;
    const CellMap *cells;    /* a notebook's cells (set by report_notebook), or NULL */
} ReportStyle;

bool output_format_parse(const char *s, OutputFormat *out);
const char *severity_name(Severity s);
bool severity_parse(const char *s, Severity *out);

/* Formats the findings of one file. For JSON each finding is one object; the
 * objects are separated by ",\n" and the caller adds the brackets. */
void report_file(Buf *out, const ReportStyle *st, const char *path, Syntax *s,
                 const Finding *f, uint32_t n);

/* report_file for a notebook: positions are given as (cell, line in the cell,
 * column) in text and JSON, and as lines of the .ipynb file with the cell's
 * coordinates beside them in github and SARIF output. */
void report_notebook(Buf *out, const ReportStyle *st, const char *path, Syntax *s,
                     const Finding *f, uint32_t n, const CellMap *cells);

/* SARIF 2.1.0: one run; results (from report_file) go between begin and end,
 * separated by ",\n" like JSON objects. */
void report_sarif_begin(Buf *out, const ReportStyle *st, const char *version);
void report_sarif_end(Buf *out);

/* A problem with a file that has no syntax tree (unreadable, too large). */
void report_file_error(Buf *out, const ReportStyle *st, const char *path, const char *msg);

#endif
