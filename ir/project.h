/* The project: facts that cross files. A module of the project that a file
 * imports is reduced to a summary of what it exports (classes that are
 * nn.Modules, what its functions return, the roles of its module-level
 * values); the importing file's facts read the summary wherever a qualified
 * name ("model.GPT", ".models.Net") names an export.
 *
 * This half knows no files: cli/project.c finds the modules, parses them,
 * and hands each file being analysed a ProjectView of the summaries its
 * imports name. Summaries hold plain strings, not interned ids: every file
 * has its own interner. */
#ifndef PFC_IR_PROJECT_H
#define PFC_IR_PROJECT_H
#include "ir.h"

typedef enum ExportKind { EXPORT_VALUE, EXPORT_CLASS, EXPORT_FUNCTION } ExportKind;

enum {
    EXPORT_NN_MODULE = 1,        /* CLASS: derives from nn.Module, here or in another file */
    EXPORT_STARVED_LOADER = 2,   /* FUNCTION: returns DataLoader(...) with num_workers=0 */
    EXPORT_MODE_DEP = 4,         /* CLASS: has Dropout or BatchNorm layers, or inherits them */
};

enum { EXPORT_ELEMENTS = 4 };

/* One module-level name of a project module. */
typedef struct ProjectExport {
    char *name;
    uint8_t kind;        /* ExportKind */
    uint8_t attach;      /* VALUE: its attachment; FUNCTION: its returns' */
    uint8_t flags;       /* EXPORT_* */
    uint32_t roles;      /* VALUE: its roles; FUNCTION: what every return is */
    /* FUNCTION whose every return is a literal tuple of nelems (at most
     * EXPORT_ELEMENTS) values: what element k of every return is, and
     * whether it is always a DataLoader left at num_workers=0 (bit k) */
    uint8_t nelems;
    uint8_t elem_starved;
    uint16_t elem_roles[EXPORT_ELEMENTS];
} ProjectExport;

typedef struct ProjectSummary {
    ProjectExport *v;
    uint32_t n;
    char **all;          /* __all__ when it is a literal list of strings */
    int32_t nall;        /* -1: no usable __all__ */
    char *path;          /* the file it summarises */
} ProjectSummary;

void project_summary_free(ProjectSummary *s);

/* A module an import statement names, as written: "model", "pkg.mod",
 * ".models", "..utils", "." ; `name` for `from M import name` (NULL for
 * `import M` and for `from M import *`). Strings live in the Syntax's arena. */
typedef struct ImportRequest {
    const char *module;
    const char *name;
    bool star;
} ImportRequest;
typedef ARENA_VEC(ImportRequest) ImportRequestVec;

/* Every import in the file (any scope). Costs nothing for a file without one. */
void ir_project_imports(const Ir *ir, ImportRequestVec *out);

/* The summaries one file can read: `module` as the file writes it. */
typedef struct ProjectImport {
    const char *module;
    const ProjectSummary *summary;
    bool star;           /* `from module import *` */
} ProjectImport;
typedef struct ProjectView { ProjectImport *v; uint32_t n; } ProjectView;

/* Called by ir_build_in_project between lowering and facts: fills the view
 * (allocations in the Syntax's arena) from ir_project_imports' requests. */
typedef struct IrProjectHook {
    void (*resolve)(void *ctx, const Ir *ir, ProjectView *view);
    void *ctx;
} IrProjectHook;

void ir_build_in_project(Ir *ir, Syntax *syn, const IrProjectHook *hook);

/* The export a qualified name (interned in the file) names, or NULL. */
const ProjectExport *ir_project_export(const Ir *ir, uint32_t qual);

/* The facts hooks (ir/facts.c): set v's facts from the export that the
 * callee's or the global's qualified name names; false when there is none. */
bool ir_project_call_facts(const Ir *ir, uint32_t callee_qual, uint32_t fn, IrValue *v,
                           uint32_t value_index);
bool ir_project_global_facts(const Ir *ir, IrValue *v);
/* `train_loader, test_loader = get_data(...)`: element k of a call of a
 * project function that returns tuples; the element's own site is its
 * origin (TG004 tells the two loaders apart). */
bool ir_project_element_facts(const Ir *ir, uint32_t callee_qual, uint32_t k, uint32_t fn,
                              IrValue *v, uint32_t value_index);

/* What the module exports, from its IR with facts (malloc'ed). */
ProjectSummary *ir_project_summarize(const Ir *ir);

/* Internal to ir/: binds the view's exports to the file's qualified names,
 * resolves star-imported names and marks classes derived from project
 * nn.Modules. */
void ir_project_bind(Ir *ir, const ProjectView *view);

#endif
