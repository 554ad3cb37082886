/* Hugging Face transformers 5.x models as trace recordings (see hf.h).
 *
 * Each family follows its modeling_*.py forward op by op, so that trace.c's
 * rules decide what autograd saves. The mechanisms that decide the memory,
 * checked against shared/calibration (H200, torch 2.11, transformers 5.17):
 *
 *  - KV cache: every *Model.forward builds a DynamicCache when use_cache is
 *    set (config.use_cache is True), in training too; only gradient
 *    checkpointing in training turns it off. DynamicLayer.update
 *    concatenates onto an empty tensor, so the cache holds contiguous copies
 *    of each layer's k and v (in their dtype at that point), the attention
 *    reads those copies, and the returned output keeps them alive.
 *  - SDPA (integrations/sdpa_attention.py): with no padding mask the causal
 *    mask is skipped (is_causal=True, attn_mask=None), so GQA goes through
 *    enable_gqa=True without repeat_kv copies. Flash / memory-efficient /
 *    cuDNN save q, k, v, the output and the log-sum-exp. fp32 cannot use
 *    flash and the memory-efficient kernel does not take grouped heads, so
 *    fp32 with GQA falls back to the math kernel, which repeats k/v and
 *    materialises the (b, h, s, s) probabilities.
 *  - The attention output: flash allocates it like q (empty_like), so when q
 *    is a (b, h, s, d)-contiguous tensor (NeoX/Phi's partial-rotary cat) the
 *    `.transpose(1, 2).contiguous()` is a real copy; when q lies in the
 *    projection's (b, s, h, d) memory (Llama's rotary keeps q's layout, GPT-2's
 *    split views) it is free. The memory-efficient kernel (fp32) always
 *    allocates (b, s, h, d).
 *  - Eager attention: torch.matmul folds (b, h) into one batch dim with a
 *    reshape, which copies an operand whose (b, h) are not mergeable (q as a
 *    view of the projection); the copy is what the bmm saves. Llama-style
 *    eager runs softmax in fp32 (dtype=torch.float32) and casts back; GPT-2 /
 *    OPT / BERT softmax in the input dtype (autocast makes it fp32).
 *  - Rotary: q*cos + rotate_half(q)*sin; the products save cos/sin only.
 *  - Loss (loss_utils.ForCausalLMLoss): logits.float() (a copy unless fp32),
 *    labels padded and shifted (no logits copy), cross_entropy saves the fp32
 *    log_softmax. BERT / T5 use CrossEntropyLoss on the logits as they are.
 *  - Gradient checkpointing: each decoder layer (GradientCheckpointingLayer)
 *    is one checkpoint region; the cache is off.
 *  - PEFT LoRA: result = base(x); x cast to the adapter dtype (fp32);
 *    result + B(A(dropout(x))) * scaling; cast back to the result dtype.
 *    With gradient checkpointing PEFT makes the embedding output require grad.
 *
 * Dropout probabilities are the published configs': GPT-2 0.1 (embeddings,
 * attention, residual), OPT 0.1 (residual), Phi-2 0.1 (residual), BERT 0.1,
 * T5 0.1, Pythia / Llama family 0. They act only when tr->training. */
#include "hf.h"
#include <ctype.h>
#include <string.h>

typedef struct M {
    Trace *tr;
    const Arch *a;
    const HfOptions *o;
    int64_t b, s, d, h, kvh, hd, ff, V;
    bool cache;        /* a DynamicCache is filled */
    bool ckpt;         /* each layer is a checkpoint region */
    bool eager;
    TId cos, sin;      /* rotary tables, (1, 1, s, rot) */
    TId mask;          /* eager decoders: the additive (b, 1, s, s) mask */
} M;

/* ---- helpers over the trace API ------------------------------------------------------ */

static int64_t i64max(int64_t x, int64_t y) { return x > y ? x : y; }

/* A tensor the model makes itself (position ids, masks, rotary tables): not
 * held by the script, so freed after its last use. */
static TId fresh(Trace *tr, DType dt, int nd, const int64_t *dim)
{
    TId t = tr_input(tr, dt, nd, dim);
    tr->t.v[t].kept = false;
    return t;
}

/* The dtype a matmul-like op produces (autocast's, or the weights'). */
static DType mm_dtype(const Trace *tr)
{
    return tr->autocast_on && tr->weight_dtype == DT_F32 ? tr->autocast : tr->weight_dtype;
}

/* autocast's cast of an activation for a matmul-like op (no-op otherwise) */
static TId ac(Trace *tr, TId x)
{
    if (tr->autocast_on && tr_dtype(tr, x) == DT_F32)
        return tr_cast(tr, x, tr->autocast);
    return x;
}

static uint32_t param(M *m, int64_t n) { return tr_param(m->tr, (uint64_t)n); }

/* PEFT's LoRA branch on a targeted linear: x cast to the adapter dtype,
 * dropout, A, B, scaling, added to the base output, cast back. */
static TId lora(M *m, TId x, TId base, int64_t in, int64_t out)
{
    Trace *tr = m->tr;
    int64_t r = m->o->lora_r;
    uint32_t A = tr_param_dtype(tr, (uint64_t)(r * in), DT_F32, true);
    uint32_t B = tr_param_dtype(tr, (uint64_t)(out * r), DT_F32, true);
    TId xc = tr_cast(tr, x, DT_F32);
    TId xd = tr_dropout(tr, xc, m->o->lora_dropout);
    TId ya = tr_linear(tr, xd, r, A, 0);
    TId yb = tr_scale(tr, tr_linear(tr, ya, out, B, 0));
    return tr_cast(tr, tr_add(tr, base, yb), tr_dtype(tr, base));
}

/* nn.Linear / Conv1D with its parameters, and LoRA when targeted. */
static TId lin(M *m, TId x, int64_t in, int64_t out, bool bias, uint32_t lora_bit)
{
    uint32_t w = param(m, in * out), b = bias ? param(m, out) : 0;
    TId y = tr_linear(m->tr, x, out, w, b);
    if (m->o->lora_r && lora_bit && (m->o->lora_targets & lora_bit))
        y = lora(m, x, y, in, out);
    return y;
}

static TId layer_norm(M *m, TId x)
{
    uint32_t w = param(m, m->d), b = param(m, m->d);
    return tr_layer_norm(m->tr, x, w, b);
}

/* LlamaRMSNorm (and T5LayerNorm, approximately): fp32 inside, weight *
 * normalized.to(input dtype). */
static TId rms_norm(M *m, TId x) { return tr_rms_norm_hf(m->tr, x, param(m, m->d)); }

/* GemmaRMSNorm: x.float() normalised, * (1 + weight.float()) in fp32 (the
 * product saves the fp32 normalised tensor), then cast to x's dtype. */
static TId gemma_norm(M *m, TId x)
{
    DType dt = tr_dtype(m->tr, x);
    TId y = tr_rms_norm_hf(m->tr, tr_cast(m->tr, x, DT_F32), param(m, m->d));
    return tr_cast(m->tr, y, dt);
}

static TId view4(M *m, TId x, int64_t heads, int64_t hd)
{
    int64_t dim[4] = {m->b, heads, m->s, hd};
    return tr_view(m->tr, x, 4, dim);
}

static TId merge_heads_view(M *m, TId x, int64_t width)
{
    int64_t dim[3] = {m->b, m->s, width};
    return tr_view(m->tr, x, 3, dim);
}

static TId merge_heads_copy(M *m, TId x, int64_t width)
{
    int64_t dim[3] = {m->b, m->s, width};
    return tr_copy(m->tr, x, 3, dim);
}

static bool checkpointing(const M *m) { return m->ckpt; }

static void layer_begin(M *m, TId h)
{
    if (checkpointing(m))
        tr_ckpt_begin(m->tr, h);
}

/* Closes a layer's checkpoint region. The layer's output is a real tensor
 * (the checkpoint's output, saved as the next region's input or by what
 * follows the stack), but trace.c keeps it in the region it was made in, and
 * simulate.c counts a saved tensor of a region as recomputed, not live after
 * the forward; so it is moved out of the region here. (Once tr_ckpt_begin
 * clears its input's region itself, this is a no-op.) */
static void layer_end(M *m, TId out)
{
    if (!checkpointing(m))
        return;
    tr_ckpt_end(m->tr);
    while (out && m->tr->t.v[out].base)
        out = m->tr->t.v[out].base;
    if (out)
        m->tr->t.v[out].ckpt = 0;
}

/* From here on the trace records the logits and the loss (Trace.head_op). */
static void head_begins(M *m)
{
    if (!m->tr->head_op)
        m->tr->head_op = m->tr->ops.n + 1;
}

/* ---- rotary embeddings ----------------------------------------------------------------- */

/* The cos/sin tables: computed in fp32 under no_grad, cast to the hidden
 * states' dtype, (1, s, rot) unsqueezed to (1, 1, s, rot). */
static void rotary_tables(M *m, int64_t rot)
{
    int64_t dim[3] = {1, m->s, rot}, dim4[4] = {1, 1, m->s, rot};
    m->cos = tr_view(m->tr, fresh(m->tr, m->tr->weight_dtype, 3, dim), 4, dim4);
    m->sin = tr_view(m->tr, fresh(m->tr, m->tr->weight_dtype, 3, dim), 4, dim4);
}

/* q * cos + rotate_half(q) * sin on the first `rot` dims of x (b, heads, s,
 * hd); with a partial rotary the rotated part is concatenated with the rest
 * (NeoX, Phi), which makes a (b, heads, s, hd)-contiguous tensor. *bhsd tells
 * whether the result has that layout (otherwise it follows x's). */
static TId rope(M *m, TId x, int64_t heads, int64_t rot, bool *bhsd)
{
    Trace *tr = m->tr;
    int64_t hd = tr_dim(tr, x, -1);
    TId xr = rot < hd ? tr_slice_last(tr, x, rot) : x;
    int64_t half[4] = {m->b, heads, m->s, rot / 2};
    TId x1 = tr_view(tr, xr, 4, half), x2 = tr_view(tr, xr, 4, half);
    TId parts[2] = {tr_scale(tr, x2), x1};   /* cat((-x2, x1), -1) */
    TId rh = tr_cat(tr, parts, 2, -1);
    TId e = tr_add(tr, tr_mul(tr, xr, m->cos), tr_mul(tr, rh, m->sin));
    if (rot < hd) {
        int64_t pass[4] = {m->b, heads, m->s, hd - rot};
        TId p2[2] = {e, tr_view(tr, x, 4, pass)};
        *bhsd = true;
        return tr_cat(tr, p2, 2, -1);
    }
    *bhsd = false;
    return e;
}

/* ---- attention --------------------------------------------------------------------------- */

typedef enum Softmax { SM_INPUT, SM_FP32 } Softmax;

/* DynamicLayer.update: contiguous copies of k and v that the cache (and so
 * the returned output) holds; the attention reads them. */
static void cache_update(M *m, TId *k, TId *v, bool *kb, bool *vb)
{
    if (!m->cache)
        return;
    Trace *tr = m->tr;
    int64_t dk[4] = {tr_dim(tr, *k, 0), tr_dim(tr, *k, 1), tr_dim(tr, *k, 2), tr_dim(tr, *k, 3)};
    int64_t dv[4] = {tr_dim(tr, *v, 0), tr_dim(tr, *v, 1), tr_dim(tr, *v, 2), tr_dim(tr, *v, 3)};
    *k = tr_copy(tr, *k, 4, dk);
    *v = tr_copy(tr, *v, 4, dv);
    tr_keep(tr, *k);
    tr_keep(tr, *v);
    *kb = *vb = true;
}

/* An operand of torch.matmul as its bmm sees it: (b, h) folded, which
 * copies a tensor whose memory is not (b, h, ...)-contiguous. */
static TId bmm_operand(M *m, TId x, bool contiguous, int64_t rows, int64_t cols)
{
    int64_t dim[4] = {tr_dim(m->tr, x, 0), tr_dim(m->tr, x, 1), rows, cols};
    x = ac(m->tr, x);
    return contiguous ? tr_view(m->tr, x, 4, dim) : tr_copy(m->tr, x, 4, dim);
}

/* Eager attention: scores = q @ k^T (scaled), + bias/mask, softmax, cast,
 * dropout, @ v, transposed back into a contiguous (b, s, h*d) copy. kv heads
 * are repeated (repeat_kv: expand + reshape, a copy) when grouped. */
static TId eager_attn(M *m, TId q, TId k, TId v, bool qb, bool kb, bool vb, TId bias, double p,
                      Softmax sm, bool llama_cast)
{
    Trace *tr = m->tr;
    int64_t h = tr_dim(tr, q, 1), s = tr_dim(tr, q, 2), sk = tr_dim(tr, k, 2);
    int64_t hd = tr_dim(tr, q, 3), hv = tr_dim(tr, v, 3);
    DType qdt = tr_dtype(tr, q), vdt = tr_dtype(tr, v);
    if (tr_dim(tr, k, 1) < h) {
        int64_t dk[4] = {m->b, h, sk, hd}, dv[4] = {m->b, h, sk, hv};
        k = tr_copy(tr, k, 4, dk);
        v = tr_copy(tr, v, 4, dv);
        kb = vb = true;
    }
    TId qq = bmm_operand(m, q, qb, s, hd);
    TId kt = bmm_operand(m, k, kb, hd, sk);   /* k.transpose(-1, -2) */
    TId sc = tr_scale(tr, tr_matmul(tr, qq, kt));
    if (bias)
        sc = tr_add(tr, sc, bias);
    if (sm == SM_FP32)
        sc = tr_cast(tr, sc, DT_F32);
    TId pr = tr_softmax(tr, sc, false);
    pr = tr_cast(tr, pr, llama_cast ? qdt : vdt);
    pr = tr_dropout(tr, pr, p);
    TId vv = bmm_operand(m, v, vb, sk, hv);
    TId o = tr_matmul(tr, pr, vv);
    return merge_heads_copy(m, o, h * hv);
}

/* SDPA: the fused kernels (or the math fallback for fp32 with grouped
 * heads), then transpose(1, 2).contiguous() into (b, s, h*d). */
static TId sdpa_attn(M *m, TId q, TId k, TId v, bool qb, double p)
{
    Trace *tr = m->tr;
    int64_t h = tr_dim(tr, q, 1), hd = tr_dim(tr, q, 3);
    DType cdt = tr->autocast_on ? mm_dtype(tr) : tr_dtype(tr, q);
    if (cdt == DT_F32 && tr_dim(tr, k, 1) < h) {
        /* _scaled_dot_product_attention_math: q and k scaled by sqrt(scale),
         * k/v repeated for the groups, (b, h, s, s) probabilities */
        int64_t sk = tr_dim(tr, k, 2);
        int64_t dk[4] = {m->b, h, sk, hd}, dkt[4] = {m->b, h, hd, sk};
        int64_t dv[4] = {m->b, h, sk, tr_dim(tr, v, 3)};
        TId qs = tr_scale(tr, q);
        TId kr = tr_copy(tr, k, 4, dk);
        TId ks = tr_scale(tr, tr_view(tr, kr, 4, dkt));
        TId sc = tr_matmul(tr, qs, ks);
        TId pr = tr_dropout(tr, tr_softmax(tr, sc, false), p);
        TId o = tr_matmul(tr, pr, tr_copy(tr, v, 4, dv));
        return merge_heads_copy(m, o, h * tr_dim(tr, v, 3));
    }
    TId o = tr_sdpa(tr, q, k, v, p);
    if (cdt != DT_F32 && qb)   /* flash's output is laid out like q */
        return merge_heads_copy(m, o, h * tr_dim(tr, v, 3));
    return merge_heads_view(m, o, h * tr_dim(tr, v, 3));
}

static TId attention(M *m, TId q, TId k, TId v, bool qb, bool kb, bool vb, double p, Softmax sm,
                     bool llama_cast)
{
    cache_update(m, &k, &v, &kb, &vb);
    if (m->eager)
        return eager_attn(m, q, k, v, qb, kb, vb, m->mask, p, sm, llama_cast);
    return sdpa_attn(m, q, k, v, qb, p);
}

/* The additive causal mask eager attention gets: (b, 1, s, s) in the
 * embeddings' dtype, alive for the whole forward. */
static void eager_mask(M *m)
{
    if (!m->eager)
        return;
    int64_t dim[4] = {m->b, 1, m->s, m->s};
    m->mask = fresh(m->tr, m->tr->weight_dtype, 4, dim);
}

static TId position_ids(M *m, int64_t rows)
{
    int64_t dim[2] = {rows, m->s};
    return fresh(m->tr, DT_I64, 2, dim);
}

/* ---- families ------------------------------------------------------------------------------ */

/* GPT2LMHeadModel: wte + wpe, dropout; blocks ln_1, c_attn (fused qkv, split
 * into views), attention (attn_pdrop inside), c_proj, resid dropout, ln_2,
 * c_fc, gelu_new (Python tanh formula), c_proj, dropout; ln_f; tied head. */
static TId gpt2(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd;
    const double p = 0.1;
    uint32_t wte = param(m, m->V * d), wpe = param(m, (int64_t)m->a->positions * d);
    TId x = tr_add(tr, tr_embedding(tr, ids, d, wte), tr_embedding(tr, position_ids(m, 1), d, wpe));
    x = tr_dropout(tr, x, p);
    eager_mask(m);
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        TId qkv = lin(m, layer_norm(m, x), d, 3 * d, true, LORA_C_ATTN);
        TId q = view4(m, qkv, h, hd), k = view4(m, qkv, h, hd), v = view4(m, qkv, h, hd);
        TId o = attention(m, q, k, v, false, false, false, p, SM_INPUT, false);
        o = tr_dropout(tr, lin(m, o, d, d, true, LORA_C_PROJ), p);
        x = tr_add(tr, o, x);
        TId f = lin(m, layer_norm(m, x), d, m->ff, true, LORA_C_FC);
        f = tr_act(tr, f, ACT_GELU_TANH_PY, false);
        f = tr_dropout(tr, lin(m, f, m->ff, d, true, LORA_C_PROJ), p);
        x = tr_add(tr, x, f);
        layer_end(m, x);
    }
    x = layer_norm(m, x);
    head_begins(m);
    return tr_linear(tr, x, m->V, wte, 0);
}

/* GPTNeoXForCausalLM (Pythia): fused query_key_value viewed as (b, s, h,
 * 3*hd) and chunked; partial rotary (rotary_pct 0.25) concatenated back;
 * parallel residual: h + attn(ln1(h)) + mlp(ln2(h)); separate embed_out. */
static TId neox(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd, rot = hd / 4;
    uint32_t emb = param(m, m->V * d);
    TId x = tr_embedding(tr, ids, d, emb);
    rotary_tables(m, rot);
    eager_mask(m);
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        TId qkv = lin(m, layer_norm(m, x), d, 3 * d, true, LORA_C_ATTN);
        bool qb, kb;
        TId q = rope(m, view4(m, qkv, h, hd), h, rot, &qb);
        TId k = rope(m, view4(m, qkv, h, hd), h, rot, &kb);
        TId o = attention(m, q, k, view4(m, qkv, h, hd), qb, kb, false, 0.0, SM_FP32, true);
        o = lin(m, o, d, d, true, LORA_O);
        TId f = lin(m, layer_norm(m, x), d, m->ff, true, LORA_UP);
        f = lin(m, tr_act(tr, f, ACT_GELU, false), m->ff, d, true, LORA_DOWN);
        x = tr_add(tr, tr_add(tr, f, o), x);
        layer_end(m, x);
    }
    x = layer_norm(m, x);
    uint32_t out = m->a->tied ? emb : param(m, m->V * d);
    head_begins(m);
    return tr_linear(tr, x, m->V, out, 0);
}

/* OPTForCausalLM (pre-LN, do_layer_norm_before): token + learned positions
 * (offset 2, ids from the attention mask's cumsum); q_proj output scaled;
 * dropout 0.1 after out_proj and fc2; ReLU MLP; final LayerNorm; tied head. */
static TId opt(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd;
    const double p = 0.1;
    uint32_t emb = param(m, m->V * d), pos = param(m, ((int64_t)m->a->positions + 2) * d);
    TId x = tr_add(tr, tr_embedding(tr, ids, d, emb), tr_embedding(tr, position_ids(m, m->b), d, pos));
    eager_mask(m);
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        TId a = layer_norm(m, x);
        TId q = tr_scale(tr, lin(m, a, d, d, true, LORA_Q));
        TId k = lin(m, a, d, d, true, LORA_K), v = lin(m, a, d, d, true, LORA_V);
        TId o = attention(m, view4(m, q, h, hd), view4(m, k, h, hd), view4(m, v, h, hd), false,
                          false, false, 0.0, SM_INPUT, false);
        o = tr_dropout(tr, lin(m, o, d, d, true, LORA_O), p);
        x = tr_add(tr, x, o);
        TId f = lin(m, layer_norm(m, x), d, m->ff, true, LORA_UP);
        f = lin(m, tr_act(tr, f, ACT_RELU, false), m->ff, d, true, LORA_DOWN);
        x = tr_add(tr, x, tr_dropout(tr, f, p));
        layer_end(m, x);
    }
    x = layer_norm(m, x);
    head_begins(m);
    return tr_linear(tr, x, m->V, emb, 0);
}

static bool name_has(const char *name, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = name; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

/* LlamaForCausalLM and the models that share its structure: Mistral, Qwen2
 * (q/k/v biases), Gemma (embeddings * sqrt(d), GemmaRMSNorm, GELU-tanh MLP,
 * head_dim 256, tied head). RMSNorm, rotary on q and k, SwiGLU-style MLP
 * down(act(gate(x)) * up(x)). */
static TId llama(M *m, TId ids)
{
    Trace *tr = m->tr;
    const Arch *a = m->a;
    bool gemma = name_has(a->name, "gemma"), qkv_bias = a->extra == 1;
    int64_t d = m->d, h = m->h, kvh = m->kvh, hd = m->hd;
    TId (*norm)(M *, TId) = gemma ? gemma_norm : rms_norm;
    uint32_t emb = param(m, m->V * d);
    TId x = tr_embedding(tr, ids, d, emb);
    if (gemma)
        x = tr_scale(tr, x);   /* * normalizer (a 0-dim tensor that needs no grad) */
    if (m->o->lora_r && m->ckpt && !tr->no_grad)
        tr->t.v[x].grad = true;   /* PEFT's enable_input_require_grads */
    rotary_tables(m, hd);
    eager_mask(m);
    for (uint32_t l = 0; l < a->layers; l++) {
        layer_begin(m, x);
        TId n = norm(m, x);
        TId q = lin(m, n, d, h * hd, qkv_bias, LORA_Q);
        TId k = lin(m, n, d, kvh * hd, qkv_bias, LORA_K);
        TId v = lin(m, n, d, kvh * hd, qkv_bias, LORA_V);
        bool qb, kb;
        q = rope(m, view4(m, q, h, hd), h, hd, &qb);
        k = rope(m, view4(m, k, kvh, hd), kvh, hd, &kb);
        TId o = attention(m, q, k, view4(m, v, kvh, hd), qb, kb, false, 0.0, SM_FP32, true);
        x = tr_add(tr, x, lin(m, o, h * hd, d, false, LORA_O));
        n = norm(m, x);
        TId g = tr_act(tr, lin(m, n, d, m->ff, false, LORA_GATE), gemma ? ACT_GELU : ACT_SILU,
                       false);
        TId u = lin(m, n, d, m->ff, false, LORA_UP);
        x = tr_add(tr, x, lin(m, tr_mul(tr, g, u), m->ff, d, false, LORA_DOWN));
        layer_end(m, x);
    }
    x = norm(m, x);
    uint32_t head = a->tied ? emb : param(m, m->V * d);
    head_begins(m);
    return tr_linear(tr, x, m->V, head, 0);
}

/* PhiForCausalLM (phi-2): one LayerNorm feeding attention and MLP in
 * parallel; q/k/v/dense with biases; partial rotary (0.4) concatenated back;
 * gelu_new MLP; resid dropout on both branches; head with bias. */
static TId phi(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd, rot = (hd * 2 / 5) & ~(int64_t)1;
    const double p = 0.1;
    uint32_t emb = param(m, m->V * d);
    TId x = tr_embedding(tr, ids, d, emb);
    rotary_tables(m, rot);
    eager_mask(m);
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        TId n = layer_norm(m, x);
        TId q = lin(m, n, d, d, true, LORA_Q), k = lin(m, n, d, d, true, LORA_K);
        TId v = lin(m, n, d, d, true, LORA_V);
        bool qb, kb;
        q = rope(m, view4(m, q, h, hd), h, rot, &qb);
        k = rope(m, view4(m, k, h, hd), h, rot, &kb);
        TId o = attention(m, q, k, view4(m, v, h, hd), qb, kb, false, 0.0, SM_FP32, true);
        o = tr_dropout(tr, lin(m, o, d, d, true, LORA_O), p);
        TId f = lin(m, n, d, m->ff, true, LORA_UP);
        f = lin(m, tr_act(tr, f, ACT_GELU_TANH_PY, false), m->ff, d, true, LORA_DOWN);
        x = tr_add(tr, tr_add(tr, o, tr_dropout(tr, f, p)), x);
        layer_end(m, x);
    }
    x = layer_norm(m, x);
    uint32_t w = param(m, m->V * d), b = param(m, m->V);
    head_begins(m);
    return tr_linear(tr, x, m->V, w, b);
}

/* BertModel (post-LN encoder, with pooler) + a masked-LM projection onto the
 * tied word embeddings. Bidirectional: no mask without padding. */
static TId bert(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd;
    const double p = 0.1;
    uint32_t we = param(m, m->V * d), pe = param(m, (int64_t)m->a->positions * d);
    uint32_t te = param(m, (int64_t)m->a->extra * d);
    int64_t bs[2] = {m->b, m->s};
    TId tt = tr_view(tr, position_ids(m, 1), 2, bs);   /* the token_type_ids buffer, expanded */
    TId x = tr_add(tr, tr_embedding(tr, ids, d, we), tr_embedding(tr, tt, d, te));
    x = tr_add(tr, x, tr_embedding(tr, position_ids(m, 1), d, pe));
    x = tr_dropout(tr, layer_norm(m, x), p);
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        TId q = lin(m, x, d, d, true, LORA_Q), k = lin(m, x, d, d, true, LORA_K);
        TId v = lin(m, x, d, d, true, LORA_V);
        TId o = attention(m, view4(m, q, h, hd), view4(m, k, h, hd), view4(m, v, h, hd), false,
                          false, false, p, SM_INPUT, false);
        o = tr_dropout(tr, lin(m, o, d, d, true, LORA_O), p);
        x = layer_norm(m, tr_add(tr, o, x));
        TId f = tr_act(tr, lin(m, x, d, m->ff, true, LORA_UP), ACT_GELU, false);
        f = tr_dropout(tr, lin(m, f, m->ff, d, true, LORA_DOWN), p);
        x = layer_norm(m, tr_add(tr, f, x));
        layer_end(m, x);
    }
    int64_t first[2] = {m->b, d};
    TId pooled = lin(m, tr_view(tr, x, 2, first), d, d, true, 0);
    (void)tr_act(tr, pooled, ACT_TANH, false);
    head_begins(m);
    return tr_linear(tr, x, m->V, we, 0);
}

/* A T5 attention block (eager: scores + position bias, softmax in fp32, cast
 * back, dropout, @ v). kv comes from x (self) or from the encoder output. */
static TId t5_attention(M *m, TId x, TId kv_src, TId bias, double p)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd, inner = h * hd;
    TId n = rms_norm(m, x);
    TId src = kv_src ? kv_src : n;
    TId q = lin(m, n, d, inner, false, LORA_Q);
    TId k = lin(m, src, d, inner, false, LORA_K), v = lin(m, src, d, inner, false, LORA_V);
    TId q4 = view4(m, q, h, hd), k4 = view4(m, k, h, hd), v4 = view4(m, v, h, hd);
    bool kb = false, vb = false;
    cache_update(m, &k4, &v4, &kb, &vb);
    TId o = eager_attn(m, q4, k4, v4, false, kb, vb, bias, p, SM_FP32, false);
    o = lin(m, o, inner, d, false, LORA_O);
    return tr_add(tr, x, tr_dropout(tr, o, p));
}

static TId t5_ff(M *m, TId x, double p)
{
    Trace *tr = m->tr;
    TId f = lin(m, rms_norm(m, x), m->d, m->ff, false, LORA_UP);
    f = tr_dropout(tr, tr_act(tr, f, ACT_RELU, false), p);
    f = lin(m, f, m->ff, m->d, false, LORA_DOWN);
    return tr_add(tr, x, tr_dropout(tr, f, p));
}

/* The relative position bias of a stack's first block: buckets (s, s) ->
 * embedding (s, s, h) -> permuted to (1, h, s, s); the decoder's gets the
 * causal mask added, (b, h, s, s). */
static TId t5_bias(M *m, bool causal)
{
    Trace *tr = m->tr;
    int64_t ss[2] = {m->s, m->s}, dim4[4] = {1, m->h, m->s, m->s};
    uint32_t rel = param(m, 32 * m->h);
    TId e = tr_view(tr, tr_embedding(tr, fresh(tr, DT_I64, 2, ss), m->h, rel), 4, dim4);
    if (!causal)
        return e;
    int64_t md[4] = {m->b, 1, m->s, m->s};
    return tr_add(tr, e, fresh(tr, tr_dtype(tr, e), 4, md));
}

/* T5ForConditionalGeneration (v1.0): shared embedding; encoder blocks
 * (self-attention, ReLU FF), decoder blocks (causal self-attention,
 * cross-attention on the encoder output, FF); RMS LayerNorms; dropout 0.1;
 * the decoder output scaled by d^-0.5 into the tied head. Approximations:
 * T5LayerNorm recorded as HF's RMSNorm, the cross-attention bias as a
 * (1, h, s, s) zeros tensor, decoder length = encoder length. */
static TId t5(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d;
    const double p = 0.1;
    uint32_t shared = param(m, m->V * d);
    bool cache = m->cache;
    m->cache = false;   /* the encoder has no cache */
    TId x = tr_dropout(tr, tr_embedding(tr, ids, d, shared), p);
    TId bias = t5_bias(m, false);
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        x = t5_ff(m, t5_attention(m, x, 0, bias, p), p);
        layer_end(m, x);
    }
    TId enc = tr_dropout(tr, rms_norm(m, x), p);
    m->cache = cache;
    int64_t bs[2] = {m->b, m->s}, zd[4] = {1, m->h, m->s, m->s};
    TId y = tr_dropout(tr, tr_embedding(tr, fresh(tr, DT_I64, 2, bs), d, shared), p);
    TId sbias = t5_bias(m, true);
    TId xbias = fresh(tr, tr->weight_dtype, 4, zd);
    for (uint32_t l = 0; l < m->a->extra; l++) {
        layer_begin(m, y);
        y = t5_attention(m, y, 0, sbias, p);
        y = t5_attention(m, y, enc, xbias, p);
        y = t5_ff(m, y, p);
        layer_end(m, y);
    }
    y = tr_scale(tr, tr_dropout(tr, rms_norm(m, y), p));
    head_begins(m);
    return tr_linear(tr, y, m->V, shared, 0);
}

/* ---- the loss ------------------------------------------------------------------------------ */

/* ForCausalLMLoss: logits.float(); labels padded by one column and shifted
 * (a contiguous int64 copy); cross_entropy. */
static TId causal_lm_loss(M *m, TId logits, TId labels)
{
    Trace *tr = m->tr;
    int64_t padded[2] = {m->b, m->s + 1}, flat = m->b * m->s;
    TId pad = tr_copy(tr, labels, 2, padded);
    TId shift = tr_copy(tr, pad, 1, &flat);
    return tr_cross_entropy(tr, tr_cast(tr, logits, DT_F32), shift);
}

/* ---- entry ------------------------------------------------------------------------------- */

bool hf_build(Trace *tr, const Arch *a, const HfOptions *o, TId *logits, TId *loss)
{
    *logits = 0;
    *loss = 0;
    if (!a || !o || o->batch <= 0 || o->seq <= 0)
        return false;
    switch (a->family) {
    case FAM_GPT2: case FAM_NEOX: case FAM_OPT: case FAM_LLAMA: case FAM_PHI: case FAM_BERT:
    case FAM_T5:
        break;
    default:
        return false;
    }
    if (!a->hidden || !a->heads || !a->layers || !a->vocab)
        return false;
    M m = {0};
    m.tr = tr;
    m.a = a;
    m.o = o;
    m.b = o->batch;
    m.s = o->seq;
    m.d = a->hidden;
    m.h = a->heads;
    m.kvh = a->kv_heads ? a->kv_heads : a->heads;
    m.hd = arch_head_dim(a);
    m.ff = a->intermediate;
    m.V = a->vocab;
    m.ckpt = o->grad_ckpt && tr->training && !tr->no_grad;
    /* GPT2Model / GradientCheckpointingLayer turn the cache off when
     * checkpointing in training; encoders have none. */
    m.cache = o->use_cache && !(o->grad_ckpt && tr->training) && a->family != FAM_BERT;
    m.eager = o->eager_attention || a->family == FAM_T5;
    if (m.hd <= 0 || m.b > ((int64_t)1 << 40) / i64max(m.s, 1))
        return false;

    bool frozen = tr->frozen;
    if (o->lora_r)
        tr->frozen = true;
    TId ids = tr_input2(tr, DT_I64, m.b, m.s);
    TId out = 0;
    switch (a->family) {
    case FAM_GPT2: out = gpt2(&m, ids); break;
    case FAM_NEOX: out = neox(&m, ids); break;
    case FAM_OPT: out = opt(&m, ids); break;
    case FAM_LLAMA: out = llama(&m, ids); break;
    case FAM_PHI: out = phi(&m, ids); break;
    case FAM_BERT: out = bert(&m, ids); break;
    case FAM_T5: out = t5(&m, ids); break;
    default: break;
    }
    tr->frozen = frozen;
    if (!out)
        return false;
    *logits = out;
    if (o->labels) {
        if (a->family == FAM_BERT || a->family == FAM_T5) {
            /* CrossEntropyLoss on logits.view(-1, V) as they are */
            int64_t flat = m.b * m.s;
            int64_t dim2[2] = {flat, m.V};
            *loss = tr_cross_entropy(tr, tr_view(tr, out, 2, dim2), tr_view(tr, ids, 1, &flat));
        } else {
            *loss = causal_lm_loss(&m, out, ids);
        }
    }
    return !tr->overflow;
}
