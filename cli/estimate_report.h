/* What pfc estimate prints: the text report a person reads in five seconds
 * (the verdict first) and the JSON object scripts read, failures included. */
#ifndef PFC_ESTIMATE_REPORT_H
#define PFC_ESTIMATE_REPORT_H
#include "../base/buf.h"
#include "../estimator/estimate.h"
#include "../estimator/remedy.h"

/* Why there is no estimate: code is "usage", "unknown_gpu", "unreadable",
 * "syntax_error" or "not_estimable"; line is 0 when no line of the script
 * caused it. */
typedef struct EstimateFailure {
    const char *code;
    char message[1024];
    uint32_t line;
    int status;                 /* the exit status */
} EstimateFailure;

typedef struct EstimateReport {
    const char *path;           /* the script (NULL when the command line named none) */
    const EstimateConfig *cfg;  /* NULL when the script was not read */
    const Estimate *e;          /* zeroed on failure */
    const Gpu *gpu;             /* NULL without --gpu */
    uint32_t count;             /* GPUs of the target */
    const Remedies *rem;
    const EstimateFailure *failure;   /* NULL when estimated */
    bool verbose;
} EstimateReport;

void estimate_report_text(Buf *b, const EstimateReport *r);
void estimate_report_json(Buf *b, const EstimateReport *r);

#endif
