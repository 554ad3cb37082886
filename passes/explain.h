/* `pfc explain CODE`: each rule's documentation. Sections: what it finds, why
 * it is silent at run time, what it costs, how to fix it, when pfc stays
 * quiet, and an example with its fix. */
#ifndef PFC_EXPLAIN_H
#define PFC_EXPLAIN_H

#define EXPLAIN_tg001 \
    "What: a tensor that is still attached to the autograd graph is kept beyond its loop\n" \
    "iteration: appended to a list (`losses.append(loss)`), stored in a dict, accumulated\n" \
    "into a variable that lives across iterations (`total += loss`), or stored on an object.\n" \
    "\n" \
    "Why it is silent: nothing fails; memory grows a little every step until CUDA runs out\n" \
    "of memory, often hours into the run.\n" \
    "\n" \
    "Cost: when no backward() frees the graph in the same iteration (an evaluation loop\n" \
    "without no_grad), every iteration's saved activations stay alive: GPT-2 124M, batch\n" \
    "8 x 1024, six batches: 65.2 GiB peak instead of 6.4 GiB (measured on an H200). After\n" \
    "backward() the saved tensors are freed; a kept scalar loss costs next to nothing on the\n" \
    "GPU but keeps each step's graph nodes on the host, and kept logits cost their full\n" \
    "storage every step (+0.77 GiB per step for batch 4 x 1024 x 50257 fp32).\n" \
    "\n" \
    "Fix: store `loss.detach()` (or `loss.item()`, which syncs with the GPU every step). For\n" \
    "large tensors, .detach() frees the graph but not the storage: keep a reduction\n" \
    "(`.argmax(-1)`, a metric) or `.detach().cpu()`.\n" \
    "\n" \
    "Quiet when: the accumulator is backpropagated later (`total.backward()`), the container\n" \
    "is cleared every iteration, the loop runs under no_grad, the value was detached, or a\n" \
    "Python number is stored.\n" \
    "\n" \
    "Example:\n" \
    "    for x, y in loader:\n" \
    "        loss = F.cross_entropy(model(x), y)\n" \
    "        loss.backward(); opt.step(); opt.zero_grad()\n" \
    "        losses.append(loss)            # keeps every step's graph\n" \
    "Fix:\n" \
    "        losses.append(loss.detach())\n"

#define EXPLAIN_tg002 \
    "What: a loop calls backward() and optimizer.step(), but nothing in an iteration resets\n" \
    "the gradients (optimizer.zero_grad(), model.zero_grad(), p.grad = None, or a helper\n" \
    "that does one of these).\n" \
    "\n" \
    "Why it is silent: gradients add up across steps; the loss may still go down for a while,\n" \
    "then the effective learning rate grows without bound and training diverges.\n" \
    "\n" \
    "Cost: the whole run is wasted.\n" \
    "\n" \
    "Fix: call optimizer.zero_grad() after optimizer.step() (with gradient accumulation,\n" \
    "right after the guarded step).\n" \
    "\n" \
    "Quiet when: the framework owns the loop (HF Trainer, Lightning training_step), or\n" \
    "backward() runs inside an L-BFGS closure passed to step(closure).\n" \
    "\n" \
    "Example:\n" \
    "    for x, y in loader:\n" \
    "        loss = F.cross_entropy(model(x), y)\n" \
    "        loss.backward()\n" \
    "        opt.step()\n" \
    "Fix:\n" \
    "        opt.step()\n" \
    "        opt.zero_grad()\n"

#define EXPLAIN_tg003 \
    "What: a model is called in an evaluation region without a grad-disabling context. An\n" \
    "evaluation region is code after model.eval() (until model.train()), a function named\n" \
    "eval*/evaluate*/valid*/validate*/test*/predict*/infer*, or a loop that calls the model\n" \
    "but never calls backward().\n" \
    "\n" \
    "Why it is silent: results are correct; autograd just records a graph nobody uses.\n" \
    "\n" \
    "Cost: activations are kept for a backward pass that never comes (about the training\n" \
    "activation size per batch) and every step runs slower. With a retained output (TG001)\n" \
    "this becomes an out-of-memory error.\n" \
    "\n" \
    "Fix: wrap the region in `with torch.no_grad():` or decorate the function with\n" \
    "@torch.no_grad() (or torch.inference_mode()).\n" \
    "\n" \
    "Quiet when: backward() or torch.autograd.grad is reachable in the same region,\n" \
    "torch.enable_grad() is explicit, every caller holds no_grad, or the framework hook\n" \
    "already runs under no_grad (Lightning validation_step/test_step/predict_step).\n" \
    "\n" \
    "Example:\n" \
    "    def evaluate(model, loader):\n" \
    "        model.eval()\n" \
    "        for x, y in loader:\n" \
    "            acc += (model(x).argmax(-1) == y).sum().item()\n" \
    "Fix:\n" \
    "    @torch.no_grad()\n" \
    "    def evaluate(model, loader):\n"

#define EXPLAIN_tg004 \
    "What: a DataLoader that feeds a GPU training loop is built with num_workers=0 (or left\n" \
    "at the default), so one CPU thread decodes and collates every batch while the GPU\n" \
    "waits. Also notes a missing pin_memory=True when batches move with non_blocking=True.\n" \
    "\n" \
    "Why it is silent: training is correct, only slow.\n" \
    "\n" \
    "Cost: GPU utilisation drops to whatever one core can feed; on image or text pipelines\n" \
    "often several times slower.\n" \
    "\n" \
    "Fix: DataLoader(..., num_workers=min(8, os.cpu_count()), pin_memory=True,\n" \
    "persistent_workers=True).\n" \
    "\n" \
    "Quiet when: the script never uses CUDA, the loader is not iterated by a loop that\n" \
    "reaches backward(), or num_workers is set to anything but 0.\n" \
    "\n" \
    "Example:\n" \
    "    loader = DataLoader(ds, batch_size=64, shuffle=True)\n" \
    "Fix:\n" \
    "    loader = DataLoader(ds, batch_size=64, shuffle=True, num_workers=8, pin_memory=True)\n"

#define EXPLAIN_tg005 \
    "What: the input of cross_entropy / CrossEntropyLoss is the output of softmax (a\n" \
    "function, a method, an nn.Softmax module, or a forward that ends in one). Same family:\n" \
    "softmax into nll_loss (which expects log-probabilities) and sigmoid into\n" \
    "BCEWithLogitsLoss.\n" \
    "\n" \
    "Why it is silent: the loss still decreases a little; gradients are just much smaller,\n" \
    "so training stalls at a poor accuracy.\n" \
    "\n" \
    "Cost: a model that never converges.\n" \
    "\n" \
    "Fix: drop the softmax and pass logits; apply softmax only for inference.\n" \
    "\n" \
    "Quiet when: the softmax is applied only on some paths (for example only when\n" \
    "`not self.training`); log_softmax into cross_entropy is harmless.\n" \
    "\n" \
    "Example:\n" \
    "    probs = F.softmax(model(x), dim=-1)\n" \
    "    loss = F.cross_entropy(probs, y)\n" \
    "Fix:\n" \
    "    loss = F.cross_entropy(model(x), y)\n"

#define EXPLAIN_tg006 \
    "What: model.eval() runs inside the training loop (typically a validation pass every N\n" \
    "steps) and no model.train() runs before the next backward().\n" \
    "\n" \
    "Why it is silent: from then on dropout is off and BatchNorm statistics are frozen for\n" \
    "the rest of training; nothing crashes and the loss still goes down.\n" \
    "\n" \
    "Cost: a worse model, trained without its regularisation.\n" \
    "\n" \
    "Fix: call model.train() after the evaluation block.\n" \
    "\n" \
    "Quiet when: the model has no train/eval-dependent module (no Dropout or BatchNorm in\n" \
    "an in-file model), or a model.train() runs in the loop.\n" \
    "\n" \
    "Example:\n" \
    "    for step, (x, y) in enumerate(loader):\n" \
    "        ...; loss.backward(); opt.step()\n" \
    "        if step % 100 == 0:\n" \
    "            evaluate(model)          # calls model.eval()\n" \
    "Fix:\n" \
    "            evaluate(model)\n" \
    "            model.train()\n"

#define EXPLAIN_tg101 \
    "What: an optimizer is built from model.parameters(), then the model gets its adapters\n" \
    "(get_peft_model, LoraModel, inject_adapter_in_model, model.add_adapter) or a layer is\n" \
    "replaced (`model.fc = nn.Linear(...)`), and the old optimizer keeps being used.\n" \
    "\n" \
    "Why it is silent: the optimizer holds the tensors it was given; the adapter (or the new\n" \
    "layer) is created later, gets gradients, and is never updated. step() runs, the loss\n" \
    "moves a little through whatever the optimizer still holds, and nothing fails.\n" \
    "\n" \
    "Cost: the adapters, the only thing meant to train, stay at their initial values: the\n" \
    "whole run is wasted. (LoRA's zero-initialised B makes A's first gradient zero: that is\n" \
    "expected and not this finding.)\n" \
    "\n" \
    "Fix: build the optimizer after get_peft_model (or after replacing the layer), or add the\n" \
    "new parameters with optimizer.add_param_group().\n" \
    "\n" \
    "Quiet when: a new optimizer is built after the change, the old one is not used after\n" \
    "it, or the new layer's parameters are added to an optimizer.\n" \
    "\n" \
    "Example:\n" \
    "    opt = torch.optim.AdamW(model.parameters(), lr=2e-4)\n" \
    "    model = get_peft_model(model, LoraConfig(r=8))\n" \
    "Fix:\n" \
    "    model = get_peft_model(model, LoraConfig(r=8))\n" \
    "    opt = torch.optim.AdamW(model.parameters(), lr=2e-4)\n" \
    "\n" \
    "Reference: https://huggingface.co/docs/peft/quicktour\n"

#define EXPLAIN_tg102 \
    "What: LoRA layers are written by hand (a module that registers `lora_A`/`lora_B`) and\n" \
    "put into a model, but nothing freezes the base parameters, and the optimizer gets all\n" \
    "of them (model.parameters(), or a requires_grad filter that keeps everything).\n" \
    "\n" \
    "Why it is silent: everything trains, the loss goes down: it is a full fine-tune at\n" \
    "LoRA's (high) learning rate, with the optimizer state for every weight.\n" \
    "\n" \
    "Cost: the memory LoRA was meant to save (Adam keeps two fp32 moments per base weight),\n" \
    "and a learning rate tuned for adapters applied to the whole model, which can wreck the\n" \
    "pretrained weights.\n" \
    "\n" \
    "Fix: freeze the base first (`for p in model.parameters(): p.requires_grad = False`),\n" \
    "then add the LoRA layers, and optimize the parameters that require grad.\n" \
    "\n" \
    "Quiet when: any requires_grad write, PEFT call or library helper that takes the model\n" \
    "(loralib's mark_only_lora_as_trainable) may freeze something, or the optimizer selects\n" \
    "parameters by name.\n" \
    "\n" \
    "Example:\n" \
    "    replace_linear_with_lora(model, rank=8)\n" \
    "    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)\n" \
    "Fix:\n" \
    "    model.requires_grad_(False)\n" \
    "    replace_linear_with_lora(model, rank=8)\n" \
    "    opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-3)\n" \
    "\n" \
    "Reference: https://huggingface.co/docs/peft/developer_guides/custom_models\n"

#define EXPLAIN_tg103 \
    "What: every parameter of the model is frozen (`model.requires_grad_(False)` or a\n" \
    "`for p in model.parameters(): p.requires_grad = False` loop, after the adapters were\n" \
    "added, or prepare_model_for_kbit_training with no adapter after it), and then the\n" \
    "optimizer takes `filter(lambda p: p.requires_grad, ...)` (or the HF Trainer builds its\n" \
    "own from the parameters that require grad).\n" \
    "\n" \
    "Why it is silent: not always silent, but late: depending on the setup it fails at the\n" \
    "optimizer (empty parameter list), at the first backward(), or not at all when the inputs\n" \
    "require grad. pfc says so before the model download and the queue wait.\n" \
    "\n" \
    "Cost: the run does nothing useful.\n" \
    "\n" \
    "Fix: freeze the base first, then add the adapters (get_peft_model freezes the base\n" \
    "itself), or unfreeze the part that should train before building the optimizer.\n" \
    "\n" \
    "Quiet when: something unfreezes after the freeze (requires_grad_(True) on a part, a\n" \
    "loop that sets requires_grad by name, an adapter, a new layer), or a requires_grad write\n" \
    "names an object pfc cannot trace.\n" \
    "\n" \
    "Example:\n" \
    "    model = get_peft_model(model, config)\n" \
    "    model.requires_grad_(False)\n" \
    "    opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()))\n" \
    "Fix:\n" \
    "    model.requires_grad_(False)\n" \
    "    model = get_peft_model(model, config)\n" \
    "\n" \
    "Reference: https://pytorch.org/docs/stable/notes/autograd.html#setting-requires-grad\n"

#define EXPLAIN_tg104 \
    "What: gradient_checkpointing_enable() (or TrainingArguments(gradient_checkpointing=True)\n" \
    "for a Trainer) with reentrant checkpointing, the transformers default, on a PEFT model\n" \
    "whose base is frozen, and nothing calls enable_input_require_grads().\n" \
    "\n" \
    "Why it is silent: the frozen embeddings produce a tensor that does not require grad;\n" \
    "a reentrant checkpoint segment whose inputs do not require grad records no graph, so\n" \
    "the adapters inside it get no gradient. PyTorch only warns (\"None of the inputs have\n" \
    "requires_grad=True\"), and the loss may still move through the layers outside.\n" \
    "\n" \
    "Cost: the adapters do not train: the run is wasted.\n" \
    "\n" \
    "Fix: call model.enable_input_require_grads() before training, pass\n" \
    "gradient_checkpointing_kwargs={\"use_reentrant\": False}, or enable checkpointing on the\n" \
    "base model before get_peft_model (PEFT then enables input gradients itself).\n" \
    "\n" \
    "Quiet when: use_reentrant=False, enable_input_require_grads() or a forward hook on\n" \
    "get_input_embeddings() is present, prepare_model_for_kbit_training ran, or checkpointing\n" \
    "was enabled before the model was wrapped.\n" \
    "\n" \
    "Example:\n" \
    "    model = get_peft_model(model, config)\n" \
    "    model.gradient_checkpointing_enable()\n" \
    "Fix:\n" \
    "    model.enable_input_require_grads()\n" \
    "    model.gradient_checkpointing_enable()\n" \
    "\n" \
    "Reference: https://pytorch.org/docs/stable/checkpoint.html\n"

#define EXPLAIN_tg105 \
    "What: the fraction of a LoRA model's parameters that train, when pfc can count both\n" \
    "sides (a causal LM the estimator knows, loaded by name; a LoraConfig with a literal rank\n" \
    "and target modules, or PEFT's defaults), is below 0.01% or above 10%.\n" \
    "\n" \
    "Why it is silent: any rank trains; the numbers only show in print_trainable_parameters().\n" \
    "\n" \
    "Cost: above 10% the adapters cost most of a full fine-tune's optimizer memory without\n" \
    "its quality; below 0.01% they may be too small to learn the task.\n" \
    "\n" \
    "Fix: an r between 8 and 64 on the attention (and MLP) projections is the usual range.\n" \
    "\n" \
    "Quiet when: the model or the configuration is not literal, the family is not one pfc\n" \
    "counts (Llama-style and GPT-2 so far), or the config has options that change the count\n" \
    "(layers_to_transform, modules_to_save, rank_pattern). A note: off unless selected.\n" \
    "\n" \
    "Example:\n" \
    "    model = AutoModelForCausalLM.from_pretrained(\"gpt2\")\n" \
    "    model = get_peft_model(model, LoraConfig(r=512, target_modules=[\"c_attn\", \"c_fc\"]))\n" \
    "Fix:\n" \
    "    model = get_peft_model(model, LoraConfig(r=16, target_modules=[\"c_attn\", \"c_fc\"]))\n" \
    "\n" \
    "Reference: https://huggingface.co/docs/peft/package_reference/lora\n"

#define EXPLAIN_tg106 \
    "What: a 4-bit quantised base (BitsAndBytesConfig(load_in_4bit=True,\n" \
    "bnb_4bit_compute_dtype=...)) whose compute dtype disagrees with the training precision:\n" \
    "bf16=True with torch.float16 compute, or fp16=True with torch.bfloat16.\n" \
    "\n" \
    "Why it is silent: every quantised layer dequantises to its compute dtype and the\n" \
    "activations are cast back and forth; the results are close enough that nothing fails.\n" \
    "\n" \
    "Cost: slower steps, and float16 compute under a bf16 run can overflow where bf16 would\n" \
    "not.\n" \
    "\n" \
    "Fix: make bnb_4bit_compute_dtype the training dtype.\n" \
    "\n" \
    "Quiet when: the precision is not a literal (bf16=args.bf16), the file asks for both,\n" \
    "or the quantisation is 8-bit.\n" \
    "\n" \
    "Example:\n" \
    "    BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16)\n" \
    "    TrainingArguments(output_dir=\"out\", bf16=True)\n" \
    "Fix:\n" \
    "    BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16)\n" \
    "\n" \
    "Reference: https://huggingface.co/docs/transformers/main/en/quantization/bitsandbytes\n"

#define EXPLAIN_tg302 \
    "What: the optimizers are built from a part of the model (`model.encoder.parameters()`)\n" \
    "while its forward also runs another submodule with grad enabled, or a module created\n" \
    "after the optimizer (`head = nn.Linear(...)`, `model.extra = ...`) is used in training.\n" \
    "\n" \
    "Why it is silent: backward() computes gradients for the left-out parameters, and step()\n" \
    "simply never updates them; the loss still goes down through the rest.\n" \
    "\n" \
    "Cost: that part stays at its initialisation (a random head, an untrained projection),\n" \
    "and its gradients cost memory and time every step.\n" \
    "\n" \
    "Fix: pass model.parameters(), add a parameter group for the missing part, create the\n" \
    "module before the optimizer, or freeze the part with requires_grad_(False) if it is not\n" \
    "meant to train.\n" \
    "\n" \
    "Quiet when: the left-out part is frozen (requires_grad_(False), a requires_grad loop),\n" \
    "runs under no_grad in forward, is held by another optimizer or an add_param_group(), or\n" \
    "when some optimizer's parameters cannot be traced.\n" \
    "\n" \
    "Example:\n" \
    "    opt = torch.optim.Adam(model.encoder.parameters())   # forward also runs self.head\n" \
    "Fix:\n" \
    "    opt = torch.optim.Adam(model.parameters())\n" \
    "\n" \
    "Reference: https://pytorch.org/docs/stable/optim.html#per-parameter-options\n"

#define EXPLAIN_tg304 \
    "What: model.eval, model.train, optimizer.zero_grad, optimizer.step, loss.backward or\n" \
    "scheduler.step written as a statement without ().\n" \
    "\n" \
    "Why it is silent: the attribute is looked up and thrown away; Python raises nothing.\n" \
    "\n" \
    "Cost: the operation never happens: no gradient step, no reset, the wrong mode.\n" \
    "\n" \
    "Fix: add the parentheses.\n" \
    "\n" \
    "Example:\n" \
    "    optimizer.zero_grad\n" \
    "Fix:\n" \
    "    optimizer.zero_grad()\n"

#define EXPLAIN_tg901 \
    "What: `target_gpu` is set in [tool.pfc] (or `pfc lint --target-gpu NAME`), and pfc's\n" \
    "memory estimator projects that one step of the file's training loop needs more memory\n" \
    "per GPU than one GPU of the target can use. The finding points at the training loop;\n" \
    "its help lists the cheapest changes that make the step fit, each re-estimated.\n" \
    "\n" \
    "Why it is silent: nothing is wrong with the code; the script runs until the first\n" \
    "step on the real GPU, often after minutes of loading a model and a queue wait on a\n" \
    "cluster, then dies with `torch.OutOfMemoryError: CUDA out of memory`.\n" \
    "\n" \
    "Cost: a failed job per try, and a guess at what to change: the weights, gradients\n" \
    "and AdamW state of a 7B model trained in bf16 are 54 GiB before any activation.\n" \
    "\n" \
    "Fix: one of the listed changes (gradient checkpointing, an 8-bit optimizer, LoRA, a\n" \
    "smaller micro-batch with gradient accumulation, sharding over more GPUs), or a larger\n" \
    "target. `pfc estimate FILE --gpu NAME` prints the breakdown and every change tried.\n" \
    "`target-world-size = N` gives the number of ranks of a sharded (FSDP, DeepSpeed) run.\n" \
    "\n" \
    "Quiet when: no target GPU is set; the file holds no training loop; the estimator\n" \
    "cannot read the model; or the estimate rests on a guess that could have made it too\n" \
    "high (an input shape it assumed, a condition it could not evaluate, the world size of\n" \
    "a sharded run unknown, torch.compile). Parts it leaves out only make the real peak\n" \
    "higher, and argparse or environment defaults are the script as written: those stand.\n" \
    "\n" \
    "Example (target_gpu = \"a100-80gb\"):\n" \
    "    model = AutoModelForCausalLM.from_pretrained(\"meta-llama/Llama-2-7b-hf\",\n" \
    "                                                 torch_dtype=torch.bfloat16)\n" \
    "    opt = torch.optim.AdamW(model.parameters())\n" \
    "    for batch in loader:               # TG901: the step needs more than 80 GB\n" \
    "Fix:\n" \
    "    model.gradient_checkpointing_enable()\n" \
    "    opt = bnb.optim.AdamW8bit(model.parameters())\n"
#define EXPLAIN_tg201 \
    "What: torch.distributed.init_process_group() runs, a loop trains a model, and the\n" \
    "model is never wrapped in DistributedDataParallel or FSDP (nor prepared by Accelerate,\n" \
    "DeepSpeed or Fabric, nor are gradients all-reduced by hand); or it is wrapped and the\n" \
    "training loop still calls the unwrapped object.\n" \
    "\n" \
    "Why it is silent: each process runs forward, backward and step on its own copy. Nothing\n" \
    "fails; the ranks simply never exchange gradients.\n" \
    "\n" \
    "Cost: N GPUs train N independent models on N shards of the data; the checkpoint saved\n" \
    "by rank 0 has seen 1/N of it. The compute of the other ranks is wasted.\n" \
    "\n" \
    "Fix: `model = DistributedDataParallel(model, device_ids=[local_rank])` after moving the\n" \
    "model to its device, build the optimizer from it, and call it (not the inner module)\n" \
    "in the training loop.\n" \
    "\n" \
    "Quiet when: any call in the file may wrap or synchronise (DDP, FSDP, fully_shard,\n" \
    "parallelize_module, accelerator.prepare, deepspeed.initialize, a wrap_model helper,\n" \
    "all_reduce); initialisation and wrapping under the same `if args.distributed:` are\n" \
    "correct, and so is a wrapper applied on some paths only.\n" \
    "\n" \
    "Example:\n" \
    "    dist.init_process_group(\"nccl\")\n" \
    "    model = Net().cuda(local_rank)\n" \
    "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n" \
    "Fix:\n" \
    "    model = DistributedDataParallel(Net().cuda(local_rank), device_ids=[local_rank])\n" \
    "\n" \
    "Reference: https://pytorch.org/docs/stable/notes/ddp.html\n"

#define EXPLAIN_tg202 \
    "What: a DataLoader draws from a DistributedSampler inside an epoch loop, and nothing\n" \
    "in the file calls `sampler.set_epoch(epoch)`.\n" \
    "\n" \
    "Why it is silent: DistributedSampler seeds its shuffle with seed + epoch, and the epoch\n" \
    "stays 0 until set_epoch() changes it. Every epoch yields the same permutation; training\n" \
    "runs and the loss goes down, just worse.\n" \
    "\n" \
    "Cost: the model sees the batches in one fixed order on every rank, every epoch: less\n" \
    "effective shuffling, worse generalisation, and results that differ from a single-GPU run.\n" \
    "\n" \
    "Fix: call `sampler.set_epoch(epoch)` at the top of the epoch loop (unsafe fix: when the\n" \
    "loop variable is the epoch number).\n" \
    "\n" \
    "Quiet when: set_epoch() is called anywhere in the file (on the sampler, on\n" \
    "loader.sampler, in a helper), the sampler is built with shuffle=False, or there is no\n" \
    "loop around the training loop (one epoch).\n" \
    "\n" \
    "Example:\n" \
    "    sampler = DistributedSampler(ds)\n" \
    "    loader = DataLoader(ds, batch_size=32, sampler=sampler)\n" \
    "    for epoch in range(epochs):\n" \
    "        for x, y in loader: ...\n" \
    "Fix:\n" \
    "    for epoch in range(epochs):\n" \
    "        sampler.set_epoch(epoch)\n" \
    "\n" \
    "Reference: https://pytorch.org/docs/stable/data.html#torch.utils.data.distributed.DistributedSampler\n"

#define EXPLAIN_tg203 \
    "What: a model with BatchNorm layers is wrapped in DistributedDataParallel, nothing\n" \
    "converts them to SyncBatchNorm, and the per-GPU batch is a literal of at most 8.\n" \
    "\n" \
    "Why it is silent: DDP synchronises gradients, not BatchNorm statistics; each rank\n" \
    "normalises over its own samples and keeps its own running mean and variance.\n" \
    "\n" \
    "Cost: with a handful of samples per GPU the batch statistics are noisy, training is less\n" \
    "stable and accuracy drops; the running statistics saved by rank 0 describe its shard.\n" \
    "\n" \
    "Fix: `model = nn.SyncBatchNorm.convert_sync_batchnorm(model)` before wrapping in DDP.\n" \
    "\n" \
    "Quiet when: anything in the file names sync batch norm, the batch size is not a literal\n" \
    "or is above 8, the model's class is not in the file, or the wrapping is in a unit\n" \
    "test. A note, off by default.\n" \
    "\n" \
    "Example:\n" \
    "    model = DDP(UNet().cuda(), device_ids=[rank])   # UNet uses nn.BatchNorm2d\n" \
    "    loader = DataLoader(ds, batch_size=2, sampler=sampler)\n" \
    "Fix:\n" \
    "    model = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(UNet()).cuda(), device_ids=[rank])\n" \
    "\n" \
    "Reference: https://pytorch.org/docs/stable/generated/torch.nn.SyncBatchNorm.html\n"

#define EXPLAIN_tg204 \
    "What: a model is wrapped in DistributedDataParallel without\n" \
    "find_unused_parameters=True, and its forward uses a submodule (or nn.Parameter) on some\n" \
    "paths only: under an `if` whose other branch does not use it.\n" \
    "\n" \
    "Why it is silent: the code is correct on one GPU, and under DDP as long as every step\n" \
    "takes the branch that uses the submodule.\n" \
    "\n" \
    "Cost: on the first step that skips it, DDP's reducer waits for gradients that never\n" \
    "come and raises at the next iteration (\"Expected to have finished reduction in the\n" \
    "prior iteration\"), or the ranks hang when they disagree.\n" \
    "\n" \
    "Fix: pass find_unused_parameters=True (it costs an extra traversal of the graph every\n" \
    "step), or use the submodule on every path (multiply its output by 0 when unused).\n" \
    "\n" \
    "Quiet when: find_unused_parameters or static_graph is passed (True, or a value pfc\n" \
    "cannot read), several classes share the model class's name, forward\n" \
    "reads self.training (the paths depend on the mode), the submodule is registered under a\n" \
    "condition too, the class hides what forward reads, or the wrapping is in a unit test\n" \
    "(tests provoke the error on purpose). A note, off by default.\n" \
    "\n" \
    "Example:\n" \
    "    def forward(self, x, use_aux=False):\n" \
    "        h = self.body(x)\n" \
    "        if use_aux:\n" \
    "            h = h + self.aux(h)\n" \
    "        return self.head(h)\n" \
    "    model = DDP(Net().cuda(), device_ids=[rank])\n" \
    "Fix:\n" \
    "    model = DDP(Net().cuda(), device_ids=[rank], find_unused_parameters=True)\n" \
    "\n" \
    "Reference: https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html\n"

#define EXPLAIN_tg301 \
    "What: backward() is called on a value whose graph was cut: a tensor rebuilt from a\n" \
    "detached number (`torch.tensor(loss.item(), requires_grad=True)`,\n" \
    "`loss.detach().requires_grad_()`, `Variable(loss.data, requires_grad=True)`), or a value\n" \
    "detached outright (`loss.detach()`, `torch.tensor(loss.item())`).\n" \
    "\n" \
    "Why it is silent: the rebuilt tensor is a new leaf that requires grad, so backward()\n" \
    "succeeds; the gradient stops at that leaf. The model's .grad stay None (or zero) and\n" \
    "optimizer.step() changes nothing; the logged loss looks normal. (A value detached\n" \
    "without requires_grad raises at the first step instead.)\n" \
    "\n" \
    "Cost: the whole run trains nothing.\n" \
    "\n" \
    "Fix: call backward() on the loss computed from the model's output; take .item() only\n" \
    "for logging.\n" \
    "\n" \
    "Quiet when: any part of the value may carry the model's graph (a model or loss-module\n" \
    "call, a function pfc cannot read), or the leaf is a fresh tensor optimised itself\n" \
    "(`x = torch.tensor(0.5, requires_grad=True)` in an optimisation over x).\n" \
    "\n" \
    "Example:\n" \
    "    loss = torch.tensor(criterion(model(x), y).item(), requires_grad=True)\n" \
    "    loss.backward()\n" \
    "Fix:\n" \
    "    loss = criterion(model(x), y)\n" \
    "    loss.backward()\n" \
    "\n" \
    "Reference: https://pytorch.org/docs/stable/notes/autograd.html\n"

#define EXPLAIN_tg303 \
    "What: inside a training loop that draws batches (a DataLoader, next(it)), the value\n" \
    "backward() runs on depends on nothing the iteration draws: it is computed from tensors\n" \
    "made before the loop (a cached batch, the full dataset under a near-miss name), from\n" \
    "state a helper reads from self, or from the previous iteration's detached result.\n" \
    "\n" \
    "Why it is silent: the loss is a real, attached loss on real data, so backward() and\n" \
    "optimizer.step() work and the loss goes down; the batches the loop loads are simply\n" \
    "never used.\n" \
    "\n" \
    "Cost: the model fits the same few samples for the whole run (training loss near zero,\n" \
    "validation no better than chance), and the data loading is wasted work.\n" \
    "\n" \
    "Fix: compute the loss from this iteration's batch (`out = model(xb)` for the `xb` the\n" \
    "loop unpacks, not a variable of the same meaning from before the loop).\n" \
    "\n" \
    "Quiet when: the loop draws nothing (full-batch training over range()), the loss depends\n" \
    "on anything drawn in the iteration (noise from torch.randn in a GAN generator step, a\n" \
    "batch size, a batch reached through a helper, a tuple or next()), or on a call pfc\n" \
    "cannot read (it may draw). Off by default: deliberate overfitting on one batch is a\n" \
    "common sanity check; select it with `--select TG303` or `extend-select`.\n" \
    "\n" \
    "Example:\n" \
    "    for xb, yb in loader:\n" \
    "        loss = criterion(model(x), y)\n" \
    "        loss.backward()\n" \
    "Fix:\n" \
    "        loss = criterion(model(xb), yb)\n" \
    "\n" \
    "Reference: https://pytorch.org/tutorials/beginner/basics/optimization_tutorial.html\n"

#define EXPLAIN_tg305 \
    "What: torch.nn.functional.dropout (dropout2d, alpha_dropout, ...) is called in model\n" \
    "code (forward and what it calls) without a `training=` argument.\n" \
    "\n" \
    "Why it is silent: the functional form does not know the module's mode; its training\n" \
    "argument defaults to True. model.eval() changes self.training, which this call never\n" \
    "reads, so nothing fails and dropout keeps running.\n" \
    "\n" \
    "Cost: validation and inference drop activations at random: metrics are noisy and worse\n" \
    "than the model is, and predictions change from run to run.\n" \
    "\n" \
    "Fix: pass `training=self.training` (unsafe fix: only where the module's mode is what you\n" \
    "want), or use an nn.Dropout module, which follows model.train()/eval().\n" \
    "\n" \
    "Quiet when: `training=` is passed (keyword or third positional argument), the arguments\n" \
    "come from `*args`/`**kwargs`, or the call is not in model code.\n" \
    "\n" \
    "Example:\n" \
    "    def forward(self, x):\n" \
    "        return self.fc(F.dropout(x, 0.1))\n" \
    "Fix:\n" \
    "        return self.fc(F.dropout(x, 0.1, training=self.training))\n" \
    "\n" \
    "Reference: https://pytorch.org/docs/stable/generated/torch.nn.functional.dropout.html\n"

#define EXPLAIN_tg306 \
    "What: a submodule or nn.Parameter registered in a model's __init__ (`self.x = nn.Linear(...)`,\n" \
    "`nn.Parameter`, register_parameter, add_module) is never reached from forward, directly\n" \
    "or through the methods forward calls, and nothing else in the class or the file uses it.\n" \
    "\n" \
    "Why it is silent: an unused module is legal; its parameters simply never get a gradient.\n" \
    "\n" \
    "Cost: the optimizer carries its parameters (and their Adam state) for nothing, the\n" \
    "checkpoint stores them, and DistributedDataParallel without find_unused_parameters=True\n" \
    "raises at the first step (\"Expected to have finished reduction in the prior iteration\").\n" \
    "Often the real bug is that forward was meant to use it (a forgotten head or norm).\n" \
    "\n" \
    "Fix: use it in forward, or remove it.\n" \
    "\n" \
    "Quiet when: the attribute is used in any other method (training_step, a loss helper,\n" \
    "a property), outside the class (`model.head(h)`), named by a string (get_submodule,\n" \
    "getattr with a constant, a parameter-name filter), passed out of __init__ (weight\n" \
    "tying), or the class hides what forward reads (getattr with a computed name,\n" \
    "self.children(), self._modules, hooks, super().forward, self handed to other code);\n" \
    "layers without parameters (activations, pooling, dropout, losses) and buffers.\n" \
    "\n" \
    "Example:\n" \
    "    def __init__(self):\n" \
    "        super().__init__()\n" \
    "        self.body = nn.Linear(64, 64)\n" \
    "        self.norm = nn.LayerNorm(64)      # never used\n" \
    "    def forward(self, x):\n" \
    "        return self.body(x)\n" \
    "Fix:\n" \
    "        return self.norm(self.body(x))\n" \
    "\n" \
    "Reference: https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html\n"

#endif
