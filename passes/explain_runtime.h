/* `pfc explain TG4xx`: the runtime codes of `pfc audit` (runtime.def). Same
 * sections as explain.h; "Measured" says what the audited step looks at. */
#ifndef PFC_EXPLAIN_RUNTIME_H
#define PFC_EXPLAIN_RUNTIME_H

#define EXPLAIN_tg401 \
    "What: a parameter that requires grad, held by the optimizer that stepped, belongs to a\n" \
    "module whose forward ran, yet no gradient reached it in the audited step (its .grad hook\n" \
    "never fired).\n" \
    "\n" \
    "Why it is silent: optimizers skip parameters whose .grad is None; the layer keeps its\n" \
    "initial weights for the whole run.\n" \
    "\n" \
    "Cost: the model trains without that part (an auxiliary head, a detached branch).\n" \
    "\n" \
    "Fix: let its output reach the loss (no .detach(), no torch.no_grad() around it), or\n" \
    "freeze it on purpose with requires_grad_(False).\n" \
    "\n" \
    "Quiet when: the parameter belongs to another optimizer (a GAN's second optimizer steps\n" \
    "later), its module never ran (that is TG306), the model is wrapped in DDP (TG406), or\n" \
    "nothing of the model got a gradient (a frozen teacher).\n" \
    "\n" \
    "Example:\n" \
    "    feats = self.body(x)\n" \
    "    aux = self.aux_head(feats.detach())   # aux_head gets no gradient from the loss\n"

#define EXPLAIN_tg402 \
    "What: the first NaN or Inf of the step, pinned to where it was born: the batch given to\n" \
    "the model, the first module whose output is non-finite while its inputs were finite\n" \
    "(outputs walked through tuples, lists and dicts), code between modules in a forward,\n" \
    "the loss computed outside any module, a gradient before the step, or a weight after it.\n" \
    "\n" \
    "Why it is silent: NaN propagates without an error; the loss prints nan and every\n" \
    "weight it touches is lost. Anomaly mode checks backward only, and slowly.\n" \
    "\n" \
    "Cost: the run is lost from the step it appears.\n" \
    "\n" \
    "Fix: at the named module: log/sqrt/division of zero, an fp16 overflow (use bf16 or a\n" \
    "GradScaler), a learning rate too large; for the batch, clean the data.\n" \
    "\n" \
    "Quiet when: the non-finite gradients of a GradScaler's skipped step (the optimizer never\n" \
    "sees them).\n" \
    "\n" \
    "Example:\n" \
    "    def forward(self, x):\n" \
    "        return torch.log(self.fc(x))      # log of a negative number: NaN, pinned here\n" \
    "Fix:\n" \
    "        return F.logsigmoid(self.fc(x))\n"

#define EXPLAIN_tg403 \
    "What: the fraction of a ReLU module's units (channels for images, features otherwise)\n" \
    "that output 0 for every input of the step is at or above the threshold (default 50%,\n" \
    "with at least 4 inputs per unit).\n" \
    "\n" \
    "Why it is silent: a dead unit has zero gradient and never recovers; the loss still goes\n" \
    "down through the units that are left.\n" \
    "\n" \
    "Cost: a smaller model than the one paid for; at 100% nothing behind the layer trains.\n" \
    "\n" \
    "Fix: check the initialisation (a large negative bias), the input scale and the\n" \
    "learning rate; LeakyReLU or GELU do not die.\n" \
    "\n" \
    "Quiet when: fewer than 4 inputs reach a unit (a batch of 1 is zero half the time), or the\n" \
    "ReLU is a function call (F.relu) rather than a module.\n" \
    "\n" \
    "Example:\n" \
    "    nn.init.constant_(layer.bias, -10.0)  # every unit of the next ReLU is dead\n"

#define EXPLAIN_tg404 \
    "What: the total L2 norm of the gradients the optimizer is about to apply is above the\n" \
    "threshold (default 1e3; audit(..., thresholds={'grad_norm_max': ...})). The finding\n" \
    "names the modules with the largest norms. Measured after a GradScaler unscales and\n" \
    "after clipping, as the optimizer sees them.\n" \
    "\n" \
    "Why it is silent: the first updates are huge; the loss jumps or turns into NaN some\n" \
    "steps later.\n" \
    "\n" \
    "Cost: a diverged run, or one that needs a far smaller learning rate.\n" \
    "\n" \
    "Fix: a loss summed instead of averaged, unnormalised inputs, a bad initialisation;\n" \
    "clip with torch.nn.utils.clip_grad_norm_.\n" \
    "\n" \
    "Example:\n" \
    "    loss = F.mse_loss(model(x), y, reduction=\"sum\") * 1e4\n"

#define EXPLAIN_tg405 \
    "What: the total gradient norm of the step is below the threshold (default 1e-8), or a\n" \
    "parameter's whole gradient is exactly zero while others are not.\n" \
    "\n" \
    "Why it is silent: the optimizer steps; nothing moves.\n" \
    "\n" \
    "Cost: the run does not learn (or that layer does not).\n" \
    "\n" \
    "Fix: saturated activations (sigmoid/tanh stacks), a dead ReLU in front (TG403), a\n" \
    "weight initialised to zero behind the parameter, a loss multiplied by zero.\n" \
    "\n" \
    "Quiet when: the parameter is LoRA's A matrix and its B is still all zero: LoRA\n" \
    "initialises B to zero, so A's first gradient is zero by design.\n" \
    "\n" \
    "Example:\n" \
    "    nn.init.zeros_(model.fc2.weight)      # fc1 gets an all-zero gradient\n"

#define EXPLAIN_tg406 \
    "What: a process group is up, the model is wrapped in DistributedDataParallel without\n" \
    "find_unused_parameters=True, and some of its trainable parameters got no gradient in\n" \
    "the step.\n" \
    "\n" \
    "Why it is silent on step 1: DDP waits for those gradients and raises only at the next\n" \
    "forward (\"Expected to have finished reduction in the prior iteration\"), hours into a\n" \
    "queue wait on a cluster.\n" \
    "\n" \
    "Cost: the job dies at step 2.\n" \
    "\n" \
    "Fix: use every parameter in forward, remove the unused ones, or pass\n" \
    "find_unused_parameters=True (slower).\n" \
    "\n" \
    "Example:\n" \
    "    model = DDP(Net())                    # Net.forward skips self.extra\n"

#define EXPLAIN_tg407 \
    "What: the peak GPU memory allocated while the script ran up to its first optimizer\n" \
    "step (torch.cuda.max_memory_allocated), beside the allocated peak `pfc estimate`\n" \
    "projects for the same script. CUDA only: on the CPU the note says it was not measured.\n" \
    "\n" \
    "Why it matters: the estimate is what pfc promises before a run; the measurement checks\n" \
    "it on your script and your GPU. A large gap is worth a report.\n" \
    "\n" \
    "Cost: none; a note.\n" \
    "\n" \
    "Fix: nothing to fix; `pfc estimate SCRIPT --gpu G` says what would fit.\n"

#define EXPLAIN_tg408 \
    "What: the audited script ran no optimizer step. Without an optimizer the audit stops\n" \
    "after the first backward() and checks the gradients it produced; with one that never\n" \
    "stepped (the script ended, or a GradScaler skipped every step) the step checks ran on\n" \
    "what was there; without any backward() nothing about gradients was checked.\n" \
    "\n" \
    "Cost: none; a note on what the audit could see.\n" \
    "\n" \
    "Fix: audit a script that trains for at least one step (shrink its sizes, not its loop).\n"

#endif
