"""The codes the audit reports: the static rules' codes where the same bug is
meant, TG4xx for what only a run shows. `pfc explain CODE` documents each; the
C side's table (passes/runtime.def) must agree with this one (tests check)."""

ERROR, WARNING, NOTE = "error", "warning", "note"

CODES = {
    # the static catalog (RULES.md), seen at run time
    "TG101": ("optimizer-before-adapter", ERROR),
    "TG102": ("base-not-frozen", ERROR),
    "TG103": ("nothing-trains", ERROR),
    "TG104": ("checkpointing-without-input-grads", ERROR),
    "TG105": ("trainable-fraction", NOTE),
    "TG201": ("unwrapped-model", ERROR),
    "TG301": ("loss-detached", ERROR),
    "TG302": ("param-not-in-optimizer", ERROR),
    "TG306": ("unused-submodule", WARNING),
    # runtime only
    "TG401": ("no-gradient", ERROR),
    "TG402": ("non-finite", ERROR),
    "TG403": ("dead-relu", WARNING),
    "TG404": ("exploding-gradients", WARNING),
    "TG405": ("vanishing-gradients", WARNING),
    "TG406": ("ddp-unused-parameters", ERROR),
    "TG407": ("peak-memory", NOTE),
    "TG408": ("no-optimizer-step", NOTE),
}


def name_of(code):
    return CODES[code][0]


def severity_of(code):
    return CODES[code][1]
