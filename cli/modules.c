/* The project's modules for `pfc estimate` (see modules.h). */
#include "modules.h"
#include "files.h"
#include "project.h"
#include "../parser/parser.h"
#include <stdlib.h>
#include <string.h>

typedef struct LoadedFile {
    char *path;
    char *src;
    Arena arena;
    Syntax syntax;
    Ir ir;
    bool usable;          /* read and parsed without errors */
} LoadedFile;

struct ProjectModules {
    char *inputs[1];      /* the script: the project keeps the array */
    Project *project;
    LoadedFile **files;
    uint32_t n, cap;
};

ProjectModules *project_modules_new(const char *script)
{
    ProjectModules *pm = calloc(1, sizeof *pm);
    if (!pm)
        abort();
    pm->inputs[0] = (char *)script;
    pm->project = project_new(pm->inputs, 1);
    return pm;
}

static LoadedFile *read_module(const char *path)
{
    LoadedFile *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->path = strdup(path);
    uint32_t len;
    const char *err;
    if (!f->path || !read_source(path, &f->src, &len, &err))
        return f;   /* unreadable: the import stays the library name it looks like */
    arena_init(&f->arena);
    parse_file(&f->syntax, f->src, len, &f->arena);
    if (f->syntax.diags.n)
        return f;   /* a module Python could not import either */
    ir_build(&f->ir, &f->syntax);
    f->usable = true;
    return f;
}

static LoadedFile *module_file(ProjectModules *pm, const char *path)
{
    for (uint32_t i = 0; i < pm->n; i++)
        if (strcmp(pm->files[i]->path, path) == 0)
            return pm->files[i];
    if (pm->n == pm->cap) {
        pm->cap = pm->cap ? pm->cap * 2 : 8;
        pm->files = realloc(pm->files, pm->cap * sizeof *pm->files);
        if (!pm->files)
            abort();
    }
    return pm->files[pm->n++] = read_module(path);
}

static bool load(void *ctx, const char *importer, const char *dotted, Syntax **S, const Ir **ir,
                 const char **path)
{
    ProjectModules *pm = ctx;
    char *file = project_module_file(pm->project, importer, dotted);
    if (!file)
        return false;
    LoadedFile *f = module_file(pm, file);
    free(file);
    if (!f->usable)
        return false;
    *S = &f->syntax;
    *ir = &f->ir;
    *path = f->path;
    return true;
}

ModuleSource project_modules_source(ProjectModules *pm)
{
    ModuleSource s = {pm, load};
    return s;
}

void project_modules_free(ProjectModules *pm)
{
    if (!pm)
        return;
    for (uint32_t i = 0; i < pm->n; i++) {
        LoadedFile *f = pm->files[i];
        if (f->src)
            arena_free(&f->arena);
        free(f->src);
        free(f->path);
        free(f);
    }
    free(pm->files);
    project_free(pm->project);
    free(pm);
}
