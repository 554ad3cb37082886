#include "diag.h"

static const int feature_minor[] = {
#define X(id, minor, desc) minor,
    PY_FEATURES(X)
#undef X
};
static const char *const feature_desc[] = {
#define X(id, minor, desc) desc,
    PY_FEATURES(X)
#undef X
};

int feature_min_minor(PyFeature f) { return feature_minor[f]; }
const char *feature_name(PyFeature f) { return feature_desc[f]; }
