/* Jupyter notebooks (.ipynb) as pfc lints them: the code cells joined in
 * order into one Python source, so that facts flow from cell to cell as when
 * the notebook runs top to bottom. IPython syntax is blanked in place, byte
 * for byte, so that the joined source parses and every offset maps back to
 * its cell: line magics (%time), shell escapes (!pip), help (x?, ?x),
 * magics on the right of an assignment (files = !ls), and cell magics (%%bash:
 * the whole cell; %%time and the other magics whose body is Python: only the
 * magic's line). A blanked line inside a block keeps a `0` statement so that
 * the block is not left empty.
 *
 * Fixes edit the joined source; notebook_render puts the edited cells back
 * into the notebook's JSON and leaves every other byte of the file alone. */
#ifndef PFC_NOTEBOOK_H
#define PFC_NOTEBOOK_H
#include "../base/buf.h"
#include "../base/finding.h"
#include "../emit/report.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Notebook Notebook;

bool notebook_is_path(const char *path);

/* Reads a notebook from its JSON text (copied). NULL with a message in err
 * ("line 3, column 7: expected ',' or '}' in object") if it is not one. */
Notebook *notebook_open(const char *json, uint32_t len, char *err, size_t err_size);
void notebook_free(Notebook *nb);

/* Why the notebook is not linted (a kernel in another language, an old
 * nbformat), or NULL. */
const char *notebook_skip_reason(const Notebook *nb);

/* The joined source (NUL-terminated; owned by the notebook). */
const char *notebook_source(const Notebook *nb, uint32_t *len);
CellMap notebook_cells(const Notebook *nb);
/* The JSON text it was read from (owned by the notebook). */
const char *notebook_json(const Notebook *nb, uint32_t *len);

/* A syntax error's message names lines of the joined source ("detected at
 * line 57"): the same message naming the cell's line ("line 3 of cell 14"),
 * in s's arena, or msg itself. */
const char *notebook_cell_message(const Notebook *nb, Syntax *s, const char *msg);

/* Can these edits of the joined source (sorted, not overlapping) go back into
 * the notebook? Each must lie inside one code cell and leave blanked IPython
 * syntax alone. */
bool notebook_edits_fit(const Notebook *nb, const Edit *edits, uint32_t n);
/* Follows the joined source through edits that fit. */
void notebook_apply_edits(Notebook *nb, const Edit *edits, uint32_t n);
/* The notebook's JSON with each cell whose text changed rewritten from src (the
 * joined source after notebook_apply_edits), in the file's own layout and
 * escaping; every other byte as it was. */
void notebook_render(const Notebook *nb, const char *src, uint32_t len, Buf *out);

/* pfc debug-json FILE...: each file's JSON in a canonical form (one line), to
 * compare with Python's json; pfc dump-notebook FILE: the joined source. */
int cmd_debug_json(int argc, char **argv);
int cmd_dump_notebook(int argc, char **argv);

#endif
