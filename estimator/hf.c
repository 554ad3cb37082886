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
 *    materialises the (b, h, s, s) probabilities. Falcon calls SDPA itself
 *    with one kv head and no enable_gqa: the math kernel in every dtype,
 *    computing in fp32 (sdpa_math_broadcast).
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
 * Dropout probabilities are the configurations' (as the calibration builds
 * them): GPT-2 0.1 (embeddings, attention, residual), OPT 0.1 (residual),
 * BERT 0.1, T5 0.1, Phi-2 / Pythia / Llama family / Mixtral / Gemma 2 / Phi-3
 * / Falcon 0. They act only when tr->training. */
#include "checked.h"
#include "hf.h"
#include <ctype.h>
#include <string.h>

typedef struct M {
    Trace *tr;
    const Arch *a;
    const HfOptions *o;
    int64_t b, s, d, h, kvh, hd, ff, V;
    int64_t enc_s, dec_s; /* encoder-decoder: each stack's length (s is the current one's) */
    bool cache;        /* a DynamicCache is filled */
    bool keep_cache;   /* ... and the returned output holds it */
    uint32_t emb;      /* the word embedding (tied heads) */
    bool ckpt;         /* each layer is a checkpoint region */
    bool eager;
    TId cos, sin;      /* rotary tables, (1, 1, s, rot) */
    TId mask;          /* eager decoders: the additive (b, 1, s, s) mask */
    bool attn_softcap; /* Gemma 2: eager scores soft-capped (tanh) before the mask */
    bool sdpa_no_gqa;  /* Falcon: SDPA called without enable_gqa (see sdpa_math_broadcast) */
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
    uint32_t A = tr_param_dtype(tr, ck_mul((uint64_t)r, (uint64_t)in), DT_F32, true);
    uint32_t B = tr_param_dtype(tr, ck_mul((uint64_t)out, (uint64_t)r), DT_F32, true);
    TId xc = tr_cast(tr, x, DT_F32);
    TId xd = tr_dropout(tr, xc, m->o->lora_dropout);
    TId ya = tr_linear(tr, xd, r, A, 0);
    TId yb = tr_scale(tr, tr_linear(tr, ya, out, B, 0));
    return tr_cast(tr, tr_add(tr, base, yb), tr_dtype(tr, base));
}

/* A bitsandbytes Linear4bit / Linear8bitLt on a quantized weight w: the
 * input cast to the compute dtype (4-bit), the product, cast back. */
static TId quantized_linear(M *m, TId x, int64_t out, uint32_t w, uint32_t b)
{
    Trace *tr = m->tr;
    DType in_dt = tr_dtype(tr, x);
    if (m->o->quant_bits != 4 || in_dt == tr->quant_compute)
        return tr_linear(tr, x, out, w, b);
    TId y = tr_linear(tr, tr_cast(tr, x, tr->quant_compute), out, w, b);
    return tr_cast(tr, y, in_dt);
}

/* nn.Linear / Conv1D with its parameters, and LoRA when targeted. Under
 * bitsandbytes quantization the layers' weights are quantized (the head,
 * recorded after head_begins, is not). */
static TId lin(M *m, TId x, int64_t in, int64_t out, bool bias, uint32_t lora_bit)
{
    bool quantized = m->o->quant_bits && !m->tr->head_op;
    uint32_t w = quantized ? tr_param_quantized(m->tr, (uint64_t)(in * out), m->o->quant_bits, m->o->quant_double)
                           : param(m, in * out);
    uint32_t b = bias ? param(m, out) : 0;
    TId y = quantized ? quantized_linear(m, x, out, w, b) : tr_linear(m->tr, x, out, w, b);
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

/* (b, s, heads * hd) as (b, heads, s, hd); s is x's own (a cross-attention's
 * keys have the encoder's length) */
static TId view4(M *m, TId x, int64_t heads, int64_t hd)
{
    int64_t dim[4] = {m->b, heads, tr_dim(m->tr, x, 1), hd};
    return tr_view(m->tr, x, 4, dim);
}

static TId merge_heads_view(M *m, TId x, int64_t width)
{
    int64_t dim[3] = {m->b, tr_dim(m->tr, x, -2), width};
    return tr_view(m->tr, x, 3, dim);
}

static TId merge_heads_copy(M *m, TId x, int64_t width)
{
    int64_t dim[3] = {m->b, tr_dim(m->tr, x, -2), width};
    return tr_copy(m->tr, x, 3, dim);
}

/* An in-place `dst += src` or `dst.index_add_(0, index, src)`: the op reads
 * both and writes dst's storage, so its result is a view of dst, not a new
 * block; dst joins the graph when src is in it. */
static TId add_inplace(M *m, TId dst, TId src)
{
    Trace *tr = m->tr;
    TId root = dst;
    while (tr->t.v[root].base)
        root = tr->t.v[root].base;
    TId y = tr_add(tr, dst, src);
    tr->t.v[y].base = root;
    if (tr->t.v[y].grad)
        tr->t.v[root].grad = true;
    return y;
}

/* PEFT's enable_input_require_grads: with LoRA and gradient checkpointing the
 * embedding output requires grad. */
static void peft_input_grads(M *m, TId x)
{
    if (m->o->lora_r && m->ckpt && !m->tr->no_grad)
        m->tr->t.v[x].grad = true;
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
    if (m->keep_cache) {
        tr_keep(tr, *k);
        tr_keep(tr, *v);
    }
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
    if (m->attn_softcap)   /* Gemma 2: scores / cap, tanh (saves its output), * cap */
        sc = tr_scale(tr, tr_act(tr, tr_scale(tr, sc), ACT_TANH, false));
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

/* F.scaled_dot_product_attention called with fewer kv heads than query heads
 * and no enable_gqa (Falcon's multi-query attention calls it itself): the
 * fused kernels require equal head counts, so the math kernel runs. It keeps
 * 16-bit inputs in fp32 (allowFP16BF16ReductionMathSDP is off by default):
 * q, k, v cast up; q scaled; k^T scaled; the matmuls broadcast k and v over
 * the heads (expand + reshape: copies, which the bmm saves); the (b, h, s, s)
 * fp32 probabilities; the output cast back, then transpose(1, 2).reshape
 * copies it into (b, s, h*d). Autocast acts once, at the SDPA call: the
 * kernel's own ops run in the dtype it was given. */
static TId sdpa_math_broadcast(M *m, TId q, TId k, TId v, double p)
{
    Trace *tr = m->tr;
    int64_t h = tr_dim(tr, q, 1), kvh = tr_dim(tr, k, 1), sk = tr_dim(tr, k, 2);
    int64_t hd = tr_dim(tr, q, 3), hv = tr_dim(tr, v, 3);
    q = ac(tr, q);
    k = ac(tr, k);
    v = ac(tr, v);
    DType out_dt = tr_dtype(tr, q);
    bool autocast = tr->autocast_on;
    tr->autocast_on = false;
    q = tr_cast(tr, q, DT_F32);
    k = tr_cast(tr, k, DT_F32);
    v = tr_cast(tr, v, DT_F32);
    int64_t kt[4] = {m->b, kvh, hd, sk}, kx[4] = {m->b, h, hd, sk}, vx[4] = {m->b, h, sk, hv};
    TId qs = tr_scale(tr, q);
    TId ks = tr_scale(tr, tr_view(tr, k, 4, kt));
    TId sc = tr_matmul(tr, qs, tr_copy(tr, ks, 4, kx));
    TId pr = tr_dropout(tr, tr_softmax(tr, sc, false), p);
    TId o = tr_matmul(tr, pr, tr_copy(tr, v, 4, vx));
    tr->autocast_on = autocast;
    return merge_heads_copy(m, tr_cast(tr, o, out_dt), h * hv);
}

static TId attention(M *m, TId q, TId k, TId v, bool qb, bool kb, bool vb, double p, Softmax sm,
                     bool llama_cast)
{
    cache_update(m, &k, &v, &kb, &vb);
    if (m->eager)
        return eager_attn(m, q, k, v, qb, kb, vb, m->mask, p, sm, llama_cast);
    if (m->sdpa_no_gqa && tr_dim(m->tr, k, 1) < tr_dim(m->tr, q, 1))
        return sdpa_math_broadcast(m, q, k, v, p);
    return sdpa_attn(m, q, k, v, qb, p);
}

/* Llama-style self-attention on the normed hidden state n: q/k/v projections,
 * rotary on q and k, attention (softmax in fp32 when eager); the result
 * before o_proj, (b, s, heads * head_dim). */
static TId rope_attention(M *m, TId n, bool qkv_bias)
{
    int64_t d = m->d, h = m->h, kvh = m->kvh, hd = m->hd;
    TId q = lin(m, n, d, h * hd, qkv_bias, LORA_Q);
    TId k = lin(m, n, d, kvh * hd, qkv_bias, LORA_K);
    TId v = lin(m, n, d, kvh * hd, qkv_bias, LORA_V);
    bool qb, kb;
    q = rope(m, view4(m, q, h, hd), h, hd, &qb);
    k = rope(m, view4(m, k, kvh, hd), kvh, hd, &kb);
    return attention(m, q, k, view4(m, v, kvh, hd), qb, kb, false, 0.0, SM_FP32, true);
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

/* ---- families: each records its base model (*Model) and returns the last
 * hidden state; m->emb is the word embedding a tied head reuses ---------------- */

/* The word embedding every decoder starts with; a tied head reuses it. */
static TId embed_tokens(M *m, TId ids)
{
    m->emb = param(m, m->V * m->d);
    return tr_embedding(m->tr, ids, m->d, m->emb);
}

/* GPT2Model: wte + wpe, dropout; blocks ln_1, c_attn (fused qkv, split into
 * views), attention (attn_pdrop inside), c_proj, resid dropout, ln_2, c_fc,
 * gelu_new (Python tanh formula), c_proj, dropout; ln_f. (GPT2LMHeadModel's
 * head is tied to wte.) */
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
    m->emb = wte;
    return layer_norm(m, x);
}

/* GPTNeoXModel (Pythia): fused query_key_value viewed as (b, s, h, 3*hd)
 * and chunked; partial rotary (rotary_pct 0.25) concatenated back; parallel
 * residual: h + attn(ln1(h)) + mlp(ln2(h)); final LayerNorm. (The causal-LM
 * head, embed_out, is separate.) */
static TId neox(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd, rot = hd / 4;
    TId x = embed_tokens(m, ids);
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
    return layer_norm(m, x);
}

/* OPTModel: token (word_embed_proj_dim wide) + learned positions (offset 2,
 * ids from the attention mask's cumsum); q_proj output scaled; dropout 0.1
 * after out_proj and fc2; ReLU MLP. Pre-LN (do_layer_norm_before) with a
 * final LayerNorm; OPT-350m: project_in to the layers' width, post-LN
 * layers (the LayerNorms after each residual add), no final LayerNorm,
 * project_out back to 512. (The causal-LM head is tied.) */
static TId opt(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd, e = arch_opt_embed_dim(m->a);
    bool post_ln = arch_opt_post_ln(m->a);
    const double p = 0.1;
    m->emb = param(m, m->V * e);
    TId x = tr_embedding(tr, ids, e, m->emb);
    if (e != d)
        x = lin(m, x, e, d, false, 0);
    uint32_t pos = param(m, ((int64_t)m->a->positions + 2) * d);
    x = tr_add(tr, x, tr_embedding(tr, position_ids(m, m->b), d, pos));
    eager_mask(m);
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        TId a = post_ln ? x : layer_norm(m, x);
        TId q = tr_scale(tr, lin(m, a, d, d, true, LORA_Q));
        TId k = lin(m, a, d, d, true, LORA_K), v = lin(m, a, d, d, true, LORA_V);
        TId o = attention(m, view4(m, q, h, hd), view4(m, k, h, hd), view4(m, v, h, hd), false,
                          false, false, 0.0, SM_INPUT, false);
        o = tr_dropout(tr, lin(m, o, d, d, true, LORA_O), p);
        x = tr_add(tr, x, o);
        if (post_ln)
            x = layer_norm(m, x);
        TId f = lin(m, post_ln ? x : layer_norm(m, x), d, m->ff, true, LORA_UP);
        f = lin(m, tr_act(tr, f, ACT_RELU, false), m->ff, d, true, LORA_DOWN);
        x = tr_add(tr, x, tr_dropout(tr, f, p));
        if (post_ln)
            x = layer_norm(m, x);
        layer_end(m, x);
    }
    if (!post_ln)
        x = layer_norm(m, x);
    return e != d ? lin(m, x, d, e, false, 0) : x;
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

/* LlamaModel and the models that share its structure: Mistral, Qwen2 (q/k/v
 * biases), Gemma (embeddings * sqrt(d), GemmaRMSNorm, GELU-tanh MLP,
 * head_dim 256, tied head). RMSNorm, rotary on q and k, SwiGLU-style MLP
 * down(act(gate(x)) * up(x)); final norm. */
static TId llama(M *m, TId ids)
{
    Trace *tr = m->tr;
    const Arch *a = m->a;
    bool gemma = name_has(a->name, "gemma"), qkv_bias = a->extra == 1;
    int64_t d = m->d, h = m->h, hd = m->hd;
    TId (*norm)(M *, TId) = gemma ? gemma_norm : rms_norm;
    TId x = embed_tokens(m, ids);
    if (gemma)
        x = tr_scale(tr, x);   /* * normalizer (a 0-dim tensor that needs no grad) */
    peft_input_grads(m, x);
    rotary_tables(m, hd);
    eager_mask(m);
    for (uint32_t l = 0; l < a->layers; l++) {
        layer_begin(m, x);
        TId o = rope_attention(m, norm(m, x), qkv_bias);
        x = tr_add(tr, x, lin(m, o, h * hd, d, false, LORA_O));
        TId n = norm(m, x);
        TId g = tr_act(tr, lin(m, n, d, m->ff, false, LORA_GATE), gemma ? ACT_GELU : ACT_SILU,
                       false);
        TId u = lin(m, n, d, m->ff, false, LORA_UP);
        x = tr_add(tr, x, lin(m, tr_mul(tr, g, u), m->ff, d, false, LORA_DOWN));
        layer_end(m, x);
    }
    return norm(m, x);
}

/* PhiModel (phi-2): one LayerNorm feeding attention and MLP in parallel;
 * q/k/v/dense with biases; partial rotary (0.4) concatenated back; gelu_new
 * MLP; resid dropout on both branches; final LayerNorm. (PhiForCausalLM's
 * head has a bias.) */
static TId phi(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd, rot = (hd * 2 / 5) & ~(int64_t)1;
    /* The snapshot's configuration is the calibration's (shared/calibration/
     * archs.py), which leaves PhiConfig's defaults in place: resid_pdrop 0.
     * (microsoft/phi-2's own config.json says 0.1.) */
    const double p = 0.0;
    TId x = embed_tokens(m, ids);
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
    return layer_norm(m, x);
}

/* MixtralSparseMoeBlock on the normed hidden state x (router_jitter_noise 0;
 * output_router_logits is off, so no auxiliary loss).
 *  - The router: F.linear(x, gate.weight) -> (b*s, E) logits, .float(),
 *    softmax (saves its fp32 output), topk's (b*s, top_k) values divided in
 *    place by their sum (autograd keeps the values and the sums).
 *  - The experts: final = zeros_like(x) as (b*s, d); per expert the tokens
 *    routed to it, gathered (x[token_idx]: a copy), one linear on its slice
 *    of the fused gate_up_proj (E, 2 ff, d), chunked into gate and up views,
 *    act(gate) * up, down_proj's slice, times the routing weights' column
 *    (fp32, which promotes the product to fp32), cast back, index_add_ into
 *    final (in place).
 * Which tokens go where depends on the data: the recording takes the
 * expected load of a balanced router, b*s*top_k/E tokens per expert (the
 * remainder one each on the first experts), so the experts' rows add up to
 * the b*s*top_k routed rows exactly. This is the eager loop
 * (experts_implementation="eager"); transformers 5's default, "grouped_mm"
 * where torch has it, runs all b*s*top_k rows sorted by expert through one
 * grouped matmul and saves tensors of the same total size (gathered rows,
 * gate_up output, activation, product, down output, routing weights) in
 * fewer, larger blocks. Not recorded: the int64 routing indices the
 * backward keeps (topk's indices, each expert's token_idx / top_k_pos: a few
 * times b*s*top_k*8 bytes a layer). PEFT's target_modules reach neither the
 * experts' 3-D parameters nor the router: no LoRA on them. */
static TId moe_block(M *m, TId x)
{
    Trace *tr = m->tr;
    int64_t d = m->d, ff = m->ff, T = m->b * m->s;
    int64_t E = arch_experts(m->a), K = arch_top_k(m->a);
    int64_t td[2] = {T, d}, tk[2] = {T, K}, t1[2] = {T, 1}, bsd[3] = {m->b, m->s, d};
    TId h = tr_view(tr, x, 2, td);
    TId logits = tr_linear(tr, h, E, param(m, E * d), 0);
    TId top = tr_copy(tr, tr_softmax(tr, tr_cast(tr, logits, DT_F32), false), 2, tk);
    TId weights = tr_mul(tr, top, tr_copy(tr, top, 2, t1));   /* /= sum(-1, keepdim) */
    uint32_t gate_up = param(m, E * 2 * ff * d), down = param(m, E * d * ff);
    TId out = tr_new(tr, tr_dtype(tr, h), 2, td);
    for (int64_t e = 0; e < E; e++) {
        int64_t n = T * K / E + (e < T * K % E ? 1 : 0);
        if (n == 0)
            continue;   /* not in expert_hit */
        int64_t nd[2] = {n, d}, nf[2] = {n, ff}, n1[2] = {n, 1};
        TId gu = tr_linear(tr, tr_copy(tr, h, 2, nd), 2 * ff, gate_up, 0);
        TId a = tr_act(tr, tr_view(tr, gu, 2, nf), ACT_SILU, false);
        TId y = tr_linear(tr, tr_mul(tr, a, tr_view(tr, gu, 2, nf)), d, down, 0);
        y = tr_mul(tr, y, tr_copy(tr, weights, 2, n1));
        out = add_inplace(m, out, tr_cast(tr, y, tr_dtype(tr, out)));
    }
    return tr_view(tr, out, 3, bsd);
}

/* MixtralModel: Mistral's decoder (RMSNorm, rotary, Llama-style attention,
 * no sliding window in Mixtral-8x7B's config) with the sparse MoE block in
 * place of the MLP; final norm. (The causal-LM head is untied.) */
static TId mixtral(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd;
    TId x = embed_tokens(m, ids);
    peft_input_grads(m, x);
    rotary_tables(m, hd);
    eager_mask(m);
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        TId o = rope_attention(m, rms_norm(m, x), false);
        x = tr_add(tr, x, lin(m, o, h * hd, d, false, LORA_O));
        x = tr_add(tr, x, moe_block(m, rms_norm(m, x)));
        layer_end(m, x);
    }
    return rms_norm(m, x);
}

/* Gemma2Model: embeddings * sqrt(d); per layer input_layernorm, attention,
 * post_attention_layernorm, residual; pre_feedforward_layernorm, GELU-tanh
 * MLP, post_feedforward_layernorm, residual (GemmaRMSNorm throughout); final
 * norm. (The head is tied; Gemma2ForCausalLM soft-caps the logits.)
 * Attention: transformers 5 has no eager default for Gemma 2 (its
 * PreTrainedModel no longer overrides the choice), so SDPA runs unless
 * attn_implementation="eager", and SDPA ignores attn_logit_softcapping.
 * Eager soft-caps the scores (tanh: one more saved (b, h, s, s) tensor a
 * layer) and gets two additive masks, the full one and the sliding-window
 * one (layer_types: even layers slide), both (b, 1, s, s) for the whole
 * forward. The sliding window (4096) changes nothing at seq < window; from
 * there SDPA's sliding layers get an explicit mask (no causal-mask skip, no
 * enable_gqa: repeated k/v, the memory-efficient kernel) that this recording
 * does not model. */
static TId gemma2(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd;
    TId x = tr_scale(tr, embed_tokens(m, ids));   /* * normalizer */
    peft_input_grads(m, x);
    rotary_tables(m, hd);
    eager_mask(m);
    TId full = m->mask;
    eager_mask(m);
    TId sliding = m->mask;
    m->attn_softcap = true;
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        m->mask = l % 2 == 0 ? sliding : full;
        TId o = rope_attention(m, gemma_norm(m, x), false);
        x = tr_add(tr, x, gemma_norm(m, lin(m, o, h * hd, d, false, LORA_O)));
        TId n = gemma_norm(m, x);
        TId g = tr_act(tr, lin(m, n, d, m->ff, false, LORA_GATE), ACT_GELU, false);
        TId u = lin(m, n, d, m->ff, false, LORA_UP);
        x = tr_add(tr, x, gemma_norm(m, lin(m, tr_mul(tr, g, u), m->ff, d, false, LORA_DOWN)));
        layer_end(m, x);
    }
    return gemma_norm(m, x);
}

/* Phi3Model (Mistral's decoder with fused projections): RMSNorm; qkv_proj
 * d -> (h + 2 kv) * hd, q/k/v sliced out of its output as views; rotary
 * through Phi-3's apply_rotary_pos_emb, whose cat([rotated, pass-through])
 * copies q and k into (b, heads, s, hd)-contiguous tensors even with the full
 * rotary (the pass-through part is empty), so flash's output needs the
 * transpose copy; v stays a view of qkv, so when attention saves v itself
 * (no cache copy) the whole qkv output stays alive. gate_up_proj d -> 2 ff,
 * chunked into views: up * silu(gate) keeps the fused output (silu saves
 * the gate half, the product the up half). resid/embd/attention dropout 0
 * (the config's). (The head is untied, no bias.) LoRA: qkv_proj is the
 * c_attn kind, gate_up_proj the up kind. */
static TId phi3(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, kvh = m->kvh, hd = m->hd, ff = m->ff;
    int64_t half[3] = {m->b, m->s, ff};
    TId x = embed_tokens(m, ids);
    peft_input_grads(m, x);
    rotary_tables(m, hd);
    eager_mask(m);
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        TId qkv = lin(m, rms_norm(m, x), d, (h + 2 * kvh) * hd, false, LORA_C_ATTN);
        bool qb, kb;
        TId q = rope(m, view4(m, qkv, h, hd), h, hd, &qb);
        TId k = rope(m, view4(m, qkv, kvh, hd), kvh, hd, &kb);
        q = tr_cat(tr, &q, 1, -1);
        k = tr_cat(tr, &k, 1, -1);
        TId o = attention(m, q, k, view4(m, qkv, kvh, hd), true, true, false, 0.0, SM_FP32, true);
        x = tr_add(tr, x, lin(m, o, h * hd, d, false, LORA_O));
        TId gu = lin(m, rms_norm(m, x), d, 2 * ff, false, LORA_UP);
        TId gate = tr_view(tr, gu, 3, half), up = tr_view(tr, gu, 3, half);
        TId y = tr_mul(tr, up, tr_act(tr, gate, ACT_SILU, false));
        x = tr_add(tr, x, lin(m, y, ff, d, false, LORA_DOWN));
        layer_end(m, x);
    }
    return rms_norm(m, x);
}

/* FalconModel, the 7B layout (multi_query, parallel_attn, one
 * input_layernorm, new_decoder_architecture off, no biases, rotary, no
 * dropout: hidden/attention dropout 0). query_key_value d -> (h + 2) * hd,
 * viewed (b, s, h + 2, hd): q = [..., :-2, :] a view, k = [..., [-2], :] and
 * v = [..., [-1], :] copies (indexing with a list); rotary on q and k; the
 * attention calls F.scaled_dot_product_attention itself with one kv head and
 * no enable_gqa: the math kernel (sdpa_math_broadcast), fp32 (b, h, s, s)
 * probabilities, which saves more than eager (softmax in the hidden states'
 * dtype, k/v broadcast by the matmuls). dense on the attention output; MLP
 * dense_h_to_4h, GELU, dense_4h_to_h on the same normed input;
 * mlp_output += attention_output (in place); residual + that. ln_f. (The
 * head is tied to word_embeddings.) LoRA as GPT-NeoX: query_key_value is
 * c_attn, dense o, dense_h_to_4h up, dense_4h_to_h down. */
static TId falcon(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, kvh = m->kvh, hd = m->hd;
    int64_t kv[4] = {m->b, kvh, m->s, hd};
    bool mqa = kvh < h;
    TId x = embed_tokens(m, ids);
    peft_input_grads(m, x);
    rotary_tables(m, hd);
    eager_mask(m);
    m->sdpa_no_gqa = true;
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        TId n = layer_norm(m, x);
        TId qkv = lin(m, n, d, (h + 2 * kvh) * hd, false, LORA_C_ATTN);
        TId q = view4(m, qkv, h, hd);
        TId k = mqa ? tr_copy(tr, qkv, 4, kv) : view4(m, qkv, kvh, hd);
        TId v = mqa ? tr_copy(tr, qkv, 4, kv) : view4(m, qkv, kvh, hd);
        bool qb, kb;
        q = rope(m, q, h, hd, &qb);
        k = rope(m, k, kvh, hd, &kb);
        TId o = lin(m, attention(m, q, k, v, qb, kb, mqa, 0.0, SM_INPUT, false), d, d, false,
                    LORA_O);
        TId f = lin(m, n, d, m->ff, false, LORA_UP);
        f = lin(m, tr_act(tr, f, ACT_GELU, false), m->ff, d, false, LORA_DOWN);
        x = tr_add(tr, x, add_inplace(m, f, o));
        layer_end(m, x);
    }
    return layer_norm(m, x);
}

/* BloomAttention's scores: alibi.baddbmm(q, k^T) over (b*h) batches; q
 * and k are strided views of the fused projection, so the reshapes are
 * copies (what the baddbmm saves); alibi is (b*h, 1, s). */
static TId bloom_scores(M *m, TId qkv, TId alibi)
{
    Trace *tr = m->tr;
    int64_t bh = m->b * m->h, s = m->s, hd = m->hd;
    int64_t qd[3] = {bh, s, hd}, kd[3] = {bh, hd, s}, sd[3] = {bh, s, s};
    TId q = tr_copy(tr, qkv, 3, qd), k = tr_copy(tr, qkv, 3, kd);
    TId sc = tr_contract(tr, "baddbmm", ac(tr, q), ac(tr, k), 3, sd);
    return tr_add(tr, sc, alibi);
}

/* BloomModel: word embeddings and their LayerNorm; ALiBi (a (b*h, 1, s)
 * bias, no position table); blocks: input_layernorm, fused
 * query_key_value (b, s, h, 3*hd) split into q/k/v, eager attention:
 * baddbmm scores in the weights' dtype, .float(), * layer_number,
 * masked_fill with the causal mask (the (b, 1, s, s) bool mask itself is
 * not recorded), softmax in fp32, cast back, dropout (0),
 * bmm with v (a (b*h, s, hd) copy), heads merged (a copy); dense +
 * residual; post_attention_layernorm; dense_h_to_4h, GeLUFunction (saves its
 * input), dense_4h_to_h + residual; ln_f. Dropouts are 0 in the configs.
 * (The head is tied; the cache holds k and v.) */
static TId bloom(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd, s = m->s;
    int64_t ad[3] = {m->b * h, 1, s}, pd[3] = {m->b * h, s, s};
    int64_t p4[4] = {m->b, h, s, s}, vd[3] = {m->b * h, s, hd}, cd[4] = {m->b, h, s, hd};
    TId x = layer_norm(m, embed_tokens(m, ids));
    peft_input_grads(m, x);
    TId alibi = fresh(tr, tr->weight_dtype, 3, ad);
    for (uint32_t l = 0; l < m->a->layers; l++) {
        layer_begin(m, x);
        TId qkv = lin(m, layer_norm(m, x), d, 3 * d, true, LORA_C_ATTN);
        TId k4 = view4(m, qkv, h, hd), v4 = view4(m, qkv, h, hd);
        bool kb = false, vb = false;
        cache_update(m, &k4, &v4, &kb, &vb);
        TId sc = tr_view(tr, bloom_scores(m, qkv, alibi), 4, p4);
        DType in_dt = tr_dtype(tr, sc);
        TId f32 = tr_scale(tr, tr_cast(tr, sc, DT_F32));
        TId pr = tr_softmax(tr, tr_masked_fill(tr, f32), false);
        pr = tr_view(tr, tr_dropout(tr, tr_cast(tr, pr, in_dt), 0.0), 3, pd);
        TId ctx = tr_matmul(tr, pr, tr_copy(tr, ac(tr, v4), 3, vd));
        TId o = merge_heads_copy(m, tr_view(tr, ctx, 4, cd), d);
        x = tr_add(tr, lin(m, o, d, d, true, LORA_O), x);
        TId f = lin(m, layer_norm(m, x), d, m->ff, true, LORA_UP);
        f = lin(m, tr_act(tr, f, ACT_GELU, false), m->ff, d, true, LORA_DOWN);
        x = tr_add(tr, f, x);
        layer_end(m, x);
    }
    return layer_norm(m, x);
}

static bool is_roberta(const Arch *a) { return name_has(a->name, "roberta"); }

/* BertModel / RobertaModel / DistilBertModel's embeddings and post-LN
 * encoder (the pooler is bert_pooler; DistilBERT has none). Bidirectional:
 * without padding create_bidirectional_mask gives no mask, for SDPA and eager alike. SDPA by default (dropout 0.1 in
 * training inside the kernel). RoBERTa's position ids come from the input
 * ids (cumsum of the non-padding mask, (b, s)) where BERT slices its (1, s)
 * buffer; `roberta_ids` records that (the default head keeps BERT's). */
static TId bert(M *m, TId ids, bool roberta_ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d, h = m->h, hd = m->hd;
    const double p = 0.1;
    uint32_t we = param(m, m->V * d), pe = param(m, (int64_t)m->a->positions * d);
    int64_t bs[2] = {m->b, m->s};
    int64_t rows = roberta_ids ? m->b : 1;
    TId x = tr_embedding(tr, ids, d, we);
    if (!arch_distilbert(m->a)) {   /* DistilBERT has no token types */
        uint32_t te = param(m, (int64_t)m->a->extra * d);
        /* the token_type_ids buffer, gathered */
        TId tt = tr_view(tr, position_ids(m, rows), 2, bs);
        x = tr_add(tr, x, tr_embedding(tr, tt, d, te));
    }
    x = tr_add(tr, x, tr_embedding(tr, position_ids(m, rows), d, pe));
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
    m->emb = we;
    return x;
}

/* hidden_states[:, 0] (a view of the last hidden state, (b, d)) */
static TId first_token(M *m, TId x)
{
    int64_t first[2] = {m->b, m->d};
    return tr_view(m->tr, x, 2, first);
}

/* BertPooler: dense on the first token, tanh. */
static TId bert_pooler(M *m, TId x)
{
    TId pooled = lin(m, first_token(m, x), m->d, m->d, true, 0);
    return tr_act(m->tr, pooled, ACT_TANH, false);
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

/* T5LayerFF: v1.0's T5DenseActDense (wi, ReLU, dropout, wo); v1.1's
 * T5DenseGatedActDense (gelu_new(wi_0(x)) * wi_1(x), dropout, wo). */
static TId t5_ff(M *m, TId x, double p)
{
    Trace *tr = m->tr;
    TId n = rms_norm(m, x), f;
    if (arch_t5_gated(m->a)) {
        TId g = tr_act(tr, lin(m, n, m->d, m->ff, false, LORA_GATE), ACT_GELU_TANH_PY, false);
        f = tr_mul(tr, g, lin(m, n, m->d, m->ff, false, LORA_UP));
    } else {
        f = tr_act(tr, lin(m, n, m->d, m->ff, false, LORA_UP), ACT_RELU, false);
    }
    f = lin(m, tr_dropout(tr, f, p), m->ff, m->d, false, LORA_DOWN);
    return tr_add(tr, x, tr_dropout(tr, f, p));
}

/* The relative position bias of a stack's first block, on the current
 * stack's length s: buckets (s, s) -> embedding (s, s, h) -> permuted to
 * (1, h, s, s); the decoder's gets the causal mask added, (b, h, s, s). */
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

/* T5 (v1.0): the shared embedding; the encoder stack (self-attention, ReLU
 * FF), final RMS norm and dropout: T5EncoderModel's output. RMS LayerNorms;
 * dropout 0.1. Approximation: T5LayerNorm recorded as HF's RMSNorm. */
static TId t5_encoder(M *m, TId ids)
{
    Trace *tr = m->tr;
    int64_t d = m->d;
    const double p = 0.1;
    uint32_t shared = param(m, m->V * d);
    m->emb = shared;
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
    return enc;
}

/* From here on the recording is the decoder's: its length is the labels'
 * (or decoder_input_ids'), not the encoder's. */
static void decoder_begins(M *m) { m->s = m->dec_s; }

/* The decoder stack on decoder_input_ids (the labels shifted right: a new
 * (b, dec_s) tensor): causal self-attention, cross-attention on the encoder
 * output (keys and values of the encoder's length), FF; final RMS norm and
 * dropout: T5Model's output. Approximation: the cross-attention bias as a
 * (1, h, dec_s, enc_s) zeros tensor. */
static TId t5_decoder(M *m, TId enc)
{
    Trace *tr = m->tr;
    int64_t d = m->d;
    const double p = 0.1;
    decoder_begins(m);
    int64_t bs[2] = {m->b, m->s}, zd[4] = {1, m->h, m->s, m->enc_s};
    TId y = tr_dropout(tr, tr_embedding(tr, fresh(tr, DT_I64, 2, bs), d, m->emb), p);
    TId sbias = t5_bias(m, true);
    TId xbias = fresh(tr, tr->weight_dtype, 4, zd);
    for (uint32_t l = 0; l < arch_decoder_layers(m->a); l++) {
        layer_begin(m, y);
        y = t5_attention(m, y, 0, sbias, p);
        y = t5_attention(m, y, enc, xbias, p);
        y = t5_ff(m, y, p);
        layer_end(m, y);
    }
    return tr_dropout(tr, rms_norm(m, y), p);
}

/* ---- losses ------------------------------------------------------------------------------ */

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

/* CrossEntropyLoss on logits.view(-1, n) against labels.view(-1) (b*s rows),
 * the logits as they are; `upcast`: loss_utils' ForTokenClassification, which
 * takes logits.float() first. */
static TId token_loss(M *m, TId logits, TId labels, int64_t n, bool upcast)
{
    Trace *tr = m->tr;
    int64_t flat = m->b * m->s, dim2[2] = {flat, n};
    TId l = tr_view(tr, logits, 2, dim2);
    if (upcast)
        l = tr_cast(tr, l, DT_F32);
    return tr_cross_entropy(tr, l, tr_view(tr, labels, 1, &flat));
}

/* The sequence-classification loss on (b, n) logits (problem_type from
 * num_labels and integer labels): MSELoss(logits.squeeze(), labels.squeeze())
 * for one label, else CrossEntropyLoss on logits.view(-1, n) against the
 * script's (b,) labels. */
static TId seq_cls_loss(M *m, TId logits, int64_t n)
{
    Trace *tr = m->tr;
    int64_t b = m->b;
    if (n == 1)
        return tr_mse(tr, tr_view(tr, logits, 1, &b));
    return tr_cross_entropy(tr, logits, fresh(tr, DT_I64, 1, &b));
}

/* qa_outputs' (b, s, 2) logits split into start and end: squeeze(-1) views
 * made .contiguous(), (b, s) copies each. With positions given (o->labels):
 * each clamped (a new (b,) tensor), CrossEntropyLoss(ignore_index=s) on
 * start and end, (start_loss + end_loss) / 2. */
static TId qa_split(M *m, TId logits, TId *loss)
{
    Trace *tr = m->tr;
    int64_t bs[2] = {m->b, m->s}, b = m->b;
    TId start = tr_copy(tr, logits, 2, bs), end = tr_copy(tr, logits, 2, bs);
    if (m->o->labels) {
        TId ls = tr_cross_entropy(tr, start, fresh(tr, DT_I64, 1, &b));
        TId le = tr_cross_entropy(tr, end, fresh(tr, DT_I64, 1, &b));
        *loss = tr_scale(tr, tr_add(tr, ls, le));
    }
    return start;
}

/* ---- heads ------------------------------------------------------------------------------- */

static TId lm_head(M *m, TId h);

/* A fused linear cross-entropy (Liger's FusedLinearCrossEntropy): the head
 * projection and the loss run chunk by chunk in the forward, each chunk's
 * gradients computed there; only the hidden state, one chunk's logits and
 * the gradient buffers (the hidden state's, the head weight's in fp32) live.
 * Chunks have about b*s / ceil(V/d) rows. Returns the loss. */
static TId fused_lm_loss(M *m, TId h)
{
    Trace *tr = m->tr;
    int64_t w = tr_dim(tr, h, -1);   /* the head's input width (OPT-350m: 512) */
    int64_t rows = m->b * m->s, chunks = (m->V + w - 1) / w;
    int64_t chunk = (rows + chunks - 1) / (chunks ? chunks : 1);
    int64_t hd[2] = {chunk, w}, grad_h[3] = {m->b, m->s, w}, grad_w[2] = {m->V, w};
    tr_hold(tr, tr_dtype(tr, h), 3, grad_h);
    tr_hold(tr, DT_F32, 2, grad_w);
    TId part = lm_head(m, tr_view(tr, h, 2, hd));
    return tr_cross_entropy(tr, tr_cast(tr, part, DT_F32), fresh(tr, DT_I64, 1, &chunk));
}

static int64_t labels_of(const HfOptions *o) { return o->num_labels > 0 ? o->num_labels : 2; }

/* The causal-LM projection of the decoders: tied to the word embedding or its
 * own weight, as the snapshot says (Phi's has a bias). */
static TId lm_head(M *m, TId h)
{
    uint32_t w = m->emb, b = 0;
    switch (m->a->family) {
    case FAM_NEOX: case FAM_LLAMA: case FAM_MIXTRAL: case FAM_GEMMA2: case FAM_PHI3:
    case FAM_FALCON: case FAM_BLOOM:
        if (!m->a->tied)
            w = param(m, m->V * m->d);
        break;
    case FAM_PHI:
        w = param(m, m->V * m->d);
        b = param(m, m->V);
        break;
    default:   /* GPT-2, OPT: tied */
        break;
    }
    head_begins(m);
    return tr_linear(m->tr, h, m->V, w, b);
}

/* The decoder-only families' heads on the base model's last hidden state h.
 *  - sequence classification (GPT2ForSequenceClassification,
 *    GPTNeoX/OPT's own, GenericForSequenceClassification for Llama-style
 *    and Phi): score = Linear(d, n, bias=False) on every position, then
 *    logits[arange(b), last_non_pad_token] (an index copy, (b, n); the
 *    (b, s) int32 padding arithmetic that finds the index is not recorded);
 *  - token classification (GPT2ForTokenClassification,
 *    GenericForTokenClassification): dropout (classifier_dropout, else
 *    hidden_dropout, else 0.1: 0.1 for every snapshot config), Linear(d, n)
 *    with bias (Falcon's own class: hidden_dropout, 0 in its config); GPT-2
 *    and Falcon compute CrossEntropyLoss inline, the generic class through
 *    ForTokenClassification (logits.float() first);
 *  - question answering (GPT2/GPTNeoX/OPT's own, GenericForQuestionAnswering):
 *    qa_outputs = Linear(d, 2). */
static TId decoder_head(M *m, TId ids, TId h, TId *loss)
{
    Trace *tr = m->tr;
    const HfOptions *o = m->o;
    int64_t n = labels_of(o), w = tr_dim(tr, h, -1);   /* OPT-350m: project_out's 512 */
    switch (o->head) {
    case HF_HEAD_DEFAULT: case HF_HEAD_CAUSAL_LM: {
        if (o->labels && o->fused_ce && m->a->family != FAM_GEMMA2) {
            *loss = fused_lm_loss(m, h);
            return 0;   /* no logits are returned */
        }
        TId out = lm_head(m, h);
        if (m->a->family == FAM_GEMMA2)   /* final_logit_softcapping: / cap, tanh, * cap */
            out = tr_scale(tr, tr_act(tr, tr_scale(tr, out), ACT_TANH, false));
        if (o->labels)
            *loss = causal_lm_loss(m, out, ids);
        return out;
    }
    case HF_HEAD_SEQ_CLS: {
        head_begins(m);
        TId all = lin(m, h, w, n, false, 0);
        int64_t bn[2] = {m->b, n};
        TId pooled = tr_copy(tr, all, 2, bn);
        if (o->labels)
            *loss = seq_cls_loss(m, pooled, n);
        return pooled;
    }
    case HF_HEAD_TOKEN_CLS: {
        /* Falcon's and BLOOM's own classes: hidden_dropout (0), inline loss */
        bool own = m->a->family == FAM_FALCON || m->a->family == FAM_BLOOM;
        head_begins(m);
        TId out = lin(m, tr_dropout(tr, h, own ? 0.0 : 0.1), w, n, true, 0);
        if (o->labels)
            *loss = token_loss(m, out, ids, n, m->a->family != FAM_GPT2 && !own);
        return out;
    }
    case HF_HEAD_QA:
        head_begins(m);
        return qa_split(m, lin(m, h, w, 2, true, 0), loss);
    case HF_HEAD_BASE:
        return h;
    default:
        return 0;
    }
}

/* BERT / RoBERTa heads on the encoder output x (see hf.h). Losses are
 * CrossEntropyLoss inline on the logits as they are, except the causal-LM
 * head's (ForCausalLMLoss). classifier_dropout is None in both configs, so
 * hidden_dropout_prob (0.1) applies. */
static TId bert_head(M *m, TId ids, TId x, TId *loss)
{
    Trace *tr = m->tr;
    const HfOptions *o = m->o;
    int64_t d = m->d, n = labels_of(o);
    const double p = 0.1;
    bool distil = arch_distilbert(m->a);
    switch (o->head) {
    case HF_HEAD_DEFAULT: {
        /* BertModel's pooler, then the bare projection onto the tied
         * embeddings (no transform, no decoder bias) */
        if (!distil)
            (void)bert_pooler(m, x);
        head_begins(m);
        TId out = tr_linear(tr, x, m->V, m->emb, 0);
        if (o->labels)
            *loss = token_loss(m, out, ids, m->V, false);
        return out;
    }
    case HF_HEAD_MASKED_LM: case HF_HEAD_CAUSAL_LM: {
        /* BertOnlyMLMHead / RobertaLMHead: dense, GELU, LayerNorm; decoder
         * weight tied to the word embeddings, its bias tied to the head's
         * vocab-sized bias (one parameter) */
        head_begins(m);
        TId t = tr_act(tr, lin(m, x, d, d, true, 0), ACT_GELU, false);
        t = layer_norm(m, t);
        TId out = tr_linear(tr, t, m->V, m->emb, param(m, m->V));
        if (o->labels)
            *loss = o->head == HF_HEAD_CAUSAL_LM ? causal_lm_loss(m, out, ids)
                                                 : token_loss(m, out, ids, m->V, false);
        return out;
    }
    case HF_HEAD_SEQ_CLS: {
        TId out;
        if (distil) {
            /* pre_classifier on [CLS], ReLU, dropout (seq_classif_dropout 0.2) */
            head_begins(m);
            TId c = tr_act(tr, lin(m, first_token(m, x), d, d, true, 0), ACT_RELU, false);
            out = lin(m, tr_dropout(tr, c, 0.2), d, n, true, 0);
        } else if (is_roberta(m->a)) {
            /* RobertaClassificationHead on <s>; RobertaModel without pooler */
            head_begins(m);
            TId c = tr_dropout(tr, first_token(m, x), p);
            c = tr_act(tr, lin(m, c, d, d, true, 0), ACT_TANH, false);
            out = lin(m, tr_dropout(tr, c, p), d, n, true, 0);
        } else {
            TId pooled = bert_pooler(m, x);
            head_begins(m);
            out = lin(m, tr_dropout(tr, pooled, p), d, n, true, 0);
        }
        if (o->labels)
            *loss = seq_cls_loss(m, out, n);
        return out;
    }
    case HF_HEAD_TOKEN_CLS: {
        head_begins(m);
        TId out = lin(m, tr_dropout(tr, x, p), d, n, true, 0);
        if (o->labels)
            *loss = token_loss(m, out, ids, n, false);
        return out;
    }
    case HF_HEAD_QA:
        /* qa_outputs = Linear(d, config.num_labels): two, or the split fails */
        head_begins(m);
        return qa_split(m, lin(m, x, d, n, true, 0), loss);
    case HF_HEAD_BASE:
        if (!distil)
            (void)bert_pooler(m, x);   /* add_pooling_layer=True */
        return x;
    default:
        return 0;
    }
}

/* The labels the seq2seq loss reads, (b, dec_s): the input ids themselves
 * when the lengths agree (what pfc assumes when the script's labels cannot
 * be read), else the script's own labels tensor. */
static TId decoder_labels(M *m, TId ids)
{
    bool same = m->dec_s == m->enc_s && m->a->family != FAM_WHISPER;
    return same ? ids : tr_input2(m->tr, DT_I64, m->b, m->dec_s);
}

/* T5's classes. T5ForConditionalGeneration: the decoder output scaled by
 * d^-0.5 (tied embeddings) into the tied head; CrossEntropyLoss on the
 * logits as they are. T5Model: encoder and decoder, no head. The
 * classification and QA classes run T5Model on decoder_input_ids =
 * input_ids shifted right and turn the cache off when labels are given.
 * T5ForSequenceClassification: the decoder row of the last <eos> (boolean
 * indexing: a (b, d) copy; the (b, s) mask is not recorded), T5ClassificationHead (dropout
 * classifier_dropout = 0.0, dense, tanh, dropout, out_proj).
 * T5ForTokenClassification: T5EncoderModel, dropout (0.0), classifier.
 * T5ForQuestionAnswering: qa_outputs = Linear(d, config.num_labels). */
static TId t5_head(M *m, TId ids, TId *loss)
{
    Trace *tr = m->tr;
    const HfOptions *o = m->o;
    int64_t d = m->d, n = labels_of(o);
    const double pc = 0.0;   /* T5Config.classifier_dropout */
    switch (o->head) {
    case HF_HEAD_DEFAULT: case HF_HEAD_SEQ2SEQ_LM: {
        /* v1.0 (tied) rescales the decoder output by d^-0.5; v1.1's own
         * lm_head does not */
        TId y = t5_decoder(m, t5_encoder(m, ids));
        if (m->a->tied)
            y = tr_scale(tr, y);
        uint32_t w = m->a->tied ? m->emb : param(m, m->V * d);
        head_begins(m);
        TId out = tr_linear(tr, y, m->V, w, 0);
        if (o->labels)
            *loss = token_loss(m, out, decoder_labels(m, ids), m->V, false);
        return out;
    }
    case HF_HEAD_BASE:
        return t5_decoder(m, t5_encoder(m, ids));
    case HF_HEAD_TOKEN_CLS: {
        TId enc = t5_encoder(m, ids);
        head_begins(m);
        TId out = lin(m, tr_dropout(tr, enc, pc), d, n, true, 0);
        if (o->labels)
            *loss = token_loss(m, out, ids, n, false);
        return out;
    }
    case HF_HEAD_SEQ_CLS: case HF_HEAD_QA: {
        if (o->labels)
            m->cache = false;
        TId y = t5_decoder(m, t5_encoder(m, ids));
        head_begins(m);
        if (o->head == HF_HEAD_QA)
            return qa_split(m, lin(m, y, d, n, true, 0), loss);
        int64_t bd[2] = {m->b, d};
        TId c = tr_dropout(tr, tr_copy(tr, y, 2, bd), pc);
        c = tr_act(tr, lin(m, c, d, d, true, 0), ACT_TANH, false);
        TId out = lin(m, tr_dropout(tr, c, pc), d, n, true, 0);
        if (o->labels)
            *loss = seq_cls_loss(m, out, n);
        return out;
    }
    default:
        return 0;
    }
}

/* ---- BART and Whisper: encoder-decoders with learned positions ---------------------------- */

/* A configuration's dropouts and layout. */
typedef struct S2s {
    bool pre_ln;                 /* mBART, Whisper: LayerNorm before each sublayer */
    double p, attn_p, act_p;     /* dropout, attention_dropout, activation_dropout */
} S2s;

static S2s s2s_config(const Arch *a)
{
    if (a->family == FAM_WHISPER)   /* every Whisper config: all three 0.0 */
        return (S2s){true, 0.0, 0.0, 0.0};
    if (arch_bart_pre_ln(a))        /* mbart-large-cc25 */
        return (S2s){true, 0.1, 0.0, 0.0};
    return (S2s){false, 0.1, 0.1, 0.1};   /* bart-base, bart-large */
}

typedef enum Sub { SUB_SELF, SUB_CAUSAL, SUB_CROSS, SUB_FFN } Sub;

/* BartAttention / WhisperAttention on xq, keys and values from kv_src (the
 * encoder output) or xq: q/k/v projections (Whisper's k_proj has no bias),
 * the cache's copies, SDPA (is_causal in the decoder's self-attention, no
 * mask otherwise) or eager (the causal mask added, softmax in the input
 * dtype), out_proj. */
static TId s2s_attention(M *m, TId xq, TId kv_src, bool causal, double p)
{
    int64_t d = m->d, h = m->h, hd = m->hd;
    bool k_bias = m->a->family != FAM_WHISPER;
    TId src = kv_src ? kv_src : xq;
    TId q = view4(m, lin(m, xq, d, d, true, LORA_Q), h, hd);
    TId k = view4(m, lin(m, src, d, d, k_bias, LORA_K), h, hd);
    TId v = view4(m, lin(m, src, d, d, true, LORA_V), h, hd);
    bool kb = false, vb = false;
    cache_update(m, &k, &v, &kb, &vb);
    TId mask = causal ? m->mask : 0;
    TId o = m->eager ? eager_attn(m, q, k, v, false, kb, vb, mask, p, SM_INPUT, false)
                     : sdpa_attn(m, q, k, v, false, p);
    return lin(m, o, d, d, true, LORA_O);
}

/* One residual sublayer, x + dropout(f(x)): post-LN (BART: the LayerNorm
 * after the add) or pre-LN (before f). The MLP: fc1, GELU, activation
 * dropout, fc2. */
static TId s2s_sub(M *m, const S2s *c, TId x, Sub kind, TId enc)
{
    Trace *tr = m->tr;
    TId in = c->pre_ln ? layer_norm(m, x) : x, y;
    if (kind == SUB_FFN) {
        y = tr_act(tr, lin(m, in, m->d, m->ff, true, LORA_UP), ACT_GELU, false);
        y = lin(m, tr_dropout(tr, y, c->act_p), m->ff, m->d, true, LORA_DOWN);
    } else {
        y = s2s_attention(m, in, kind == SUB_CROSS ? enc : 0, kind == SUB_CAUSAL, c->attn_p);
    }
    y = tr_add(tr, x, tr_dropout(tr, y, c->p));
    return c->pre_ln ? y : layer_norm(m, y);
}

/* A stack's layers: encoder (self-attention, MLP) or decoder (causal
 * self-attention, cross-attention on enc, MLP); mBART and Whisper end with a
 * LayerNorm. */
static TId s2s_layers(M *m, const S2s *c, TId x, uint32_t layers, TId enc)
{
    for (uint32_t l = 0; l < layers; l++) {
        layer_begin(m, x);
        x = s2s_sub(m, c, x, enc ? SUB_CAUSAL : SUB_SELF, 0);
        if (enc)
            x = s2s_sub(m, c, x, SUB_CROSS, enc);
        x = s2s_sub(m, c, x, SUB_FFN, 0);
        layer_end(m, x);
    }
    return c->pre_ln ? layer_norm(m, x) : x;
}

/* BART's embeddings for a stack on ids (b, s): tokens (shared, * sqrt(d) for
 * mBART's scale_embedding) + learned positions (the stack's own table, 2
 * reserved rows, (b, s) position ids), layernorm_embedding, dropout. */
static TId bart_embed(M *m, const S2s *c, TId ids)
{
    Trace *tr = m->tr;
    TId x = tr_embedding(tr, ids, m->d, m->emb);
    if (arch_bart_pre_ln(m->a))
        x = tr_scale(tr, x);
    uint32_t pos = param(m, ((int64_t)m->a->positions + 2) * m->d);
    x = tr_add(tr, x, tr_embedding(tr, position_ids(m, m->b), m->d, pos));
    return tr_dropout(tr, layer_norm(m, x), c->p);
}

/* BartModel / MBartModel: the encoder on input_ids, the decoder on
 * decoder_input_ids (the labels shifted right: a new (b, dec_s) tensor). */
static TId bart(M *m, TId ids)
{
    S2s c = s2s_config(m->a);
    m->emb = param(m, m->V * m->d);
    bool cache = m->cache;
    m->cache = false;   /* the encoder has no cache */
    TId enc = s2s_layers(m, &c, bart_embed(m, &c, ids), m->a->layers, 0);
    m->cache = cache;
    decoder_begins(m);
    eager_mask(m);
    int64_t bs[2] = {m->b, m->s};
    TId y = bart_embed(m, &c, fresh(m->tr, DT_I64, 2, bs));
    return s2s_layers(m, &c, y, arch_decoder_layers(m->a), enc);
}

/* WhisperEncoder on input_features (b, mels, 3000): conv1 (k 3, pad 1) and
 * GELU, conv2 (k 3, stride 2, pad 1) and GELU, permuted to (b, 1500, d) (a
 * view), + embed_positions.weight (frozen: requires_grad_(False)), the
 * pre-LN layers, layer_norm. */
static TId whisper_encoder(M *m, TId features)
{
    Trace *tr = m->tr;
    int64_t d = m->d, mels = arch_whisper_mels(m->a), bsd[3] = {m->b, m->enc_s, d};
    S2s c = s2s_config(m->a);
    uint32_t w1 = param(m, mels * 3 * d), b1 = param(m, d);
    TId x = tr_act(tr, tr_conv2d(tr, features, d, 3, 1, 1, 1, w1, b1), ACT_GELU, false);
    uint32_t w2 = param(m, d * 3 * d), b2 = param(m, d);
    x = tr_act(tr, tr_conv2d(tr, x, d, 3, 2, 1, 1, w2, b2), ACT_GELU, false);
    x = tr_view(tr, x, 3, bsd);
    uint64_t positions = (uint64_t)WHISPER_ENCODER_POSITIONS * (uint64_t)d;
    uint32_t pos = tr_param_dtype(tr, positions, tr->weight_dtype, false);
    x = tr_dropout(tr, tr_with_param(tr, x, pos, false), c.p);
    bool cache = m->cache;
    m->cache = false;
    x = s2s_layers(m, &c, x, m->a->layers, 0);
    m->cache = cache;
    return x;
}

/* WhisperDecoder on decoder_input_ids (the labels shifted right, (b,
 * dec_s)): embed_tokens + embed_positions (learned, max_target_positions),
 * dropout (0), the pre-LN layers with cross-attention, layer_norm.
 * (proj_out is tied to embed_tokens.) */
static TId whisper_decoder(M *m, TId enc)
{
    Trace *tr = m->tr;
    S2s c = s2s_config(m->a);
    decoder_begins(m);
    eager_mask(m);
    int64_t bs[2] = {m->b, m->s};
    m->emb = param(m, m->V * m->d);
    uint32_t pos = param(m, (int64_t)m->a->positions * m->d);
    TId y = tr_embedding(tr, fresh(tr, DT_I64, 2, bs), m->d, m->emb);
    y = tr_add(tr, y, tr_embedding(tr, position_ids(m, 1), m->d, pos));
    return s2s_layers(m, &c, tr_dropout(tr, y, c.p), arch_decoder_layers(m->a), enc);
}

/* BartForConditionalGeneration: lm_head tied to `shared`, + final_logits_bias
 * (a (1, V) buffer: a second logits-sized tensor), CrossEntropyLoss on the
 * logits as they are. WhisperForConditionalGeneration: proj_out (tied), the
 * same loss. *Model (BASE): the decoder's last hidden state. */
static TId s2s_head(M *m, TId input, TId *loss)
{
    Trace *tr = m->tr;
    bool bart_family = m->a->family == FAM_BART;
    TId y = bart_family ? bart(m, input) : whisper_decoder(m, whisper_encoder(m, input));
    if (m->o->head == HF_HEAD_BASE)
        return y;
    head_begins(m);
    TId out = tr_linear(tr, y, m->V, m->emb, 0);
    if (bart_family) {
        int64_t bias[2] = {1, m->V};
        out = tr_add(tr, out, fresh(tr, tr_dtype(tr, out), 2, bias));
    }
    if (m->o->labels)
        *loss = token_loss(m, out, decoder_labels(m, input), m->V, false);
    return out;
}

/* ---- entry ------------------------------------------------------------------------------- */

bool hf_head_supported(const Arch *a, HfHead head)
{
    if (!a)
        return false;
    bool decoder = a->family == FAM_GPT2 || a->family == FAM_NEOX || a->family == FAM_OPT ||
                   a->family == FAM_LLAMA || a->family == FAM_PHI || a->family == FAM_MIXTRAL ||
                   a->family == FAM_GEMMA2 || a->family == FAM_PHI3 || a->family == FAM_FALCON ||
                   a->family == FAM_BLOOM;
    /* BART and Whisper: the conditional-generation class and the base model
     * (their classification heads are not modelled) */
    if (a->family == FAM_BART || a->family == FAM_WHISPER)
        return head == HF_HEAD_DEFAULT || head == HF_HEAD_SEQ2SEQ_LM || head == HF_HEAD_BASE;
    if (!decoder && a->family != FAM_BERT && a->family != FAM_T5)
        return false;
    switch (head) {
    case HF_HEAD_DEFAULT: case HF_HEAD_SEQ_CLS: case HF_HEAD_BASE:
        return true;
    case HF_HEAD_CAUSAL_LM:   /* no DistilBertForCausalLM */
        return decoder || (a->family == FAM_BERT && !arch_distilbert(a));
    case HF_HEAD_MASKED_LM:
        return a->family == FAM_BERT;
    case HF_HEAD_SEQ2SEQ_LM:
        return a->family == FAM_T5;
    case HF_HEAD_TOKEN_CLS:   /* no OPTForTokenClassification */
        return a->family != FAM_OPT;
    case HF_HEAD_QA:          /* no Phi, Phi3, Gemma or Gemma2 ForQuestionAnswering */
        return a->family != FAM_PHI && a->family != FAM_PHI3 && a->family != FAM_GEMMA2 &&
               !(a->family == FAM_LLAMA && name_has(a->name, "gemma"));
    }
    return false;
}

/* DistilBERT's classes (arch_params counts DistilBertModel: no pooler):
 * ForMaskedLM vocab_transform d -> d, GELU, vocab_layer_norm, vocab_projector
 * tied + its bias; ForSequenceClassification pre_classifier d -> d, ReLU,
 * dropout, classifier; token classification and QA a classifier / qa_outputs. */
static int64_t distilbert_head_params(HfHead head, int64_t d, int64_t V, int64_t n)
{
    switch (head) {
    case HF_HEAD_MASKED_LM: return d * d + d + 2 * d + V;
    case HF_HEAD_SEQ_CLS: return d * d + d + d * n + n;
    case HF_HEAD_TOKEN_CLS: case HF_HEAD_QA: return d * n + n;
    default: return 0;
    }
}

int64_t hf_head_params(const Arch *a, HfHead head, int64_t num_labels)
{
    int64_t V = a ? a->vocab : 0, n = num_labels > 0 ? num_labels : 2;
    if (!hf_head_supported(a, head) || num_labels < 0)
        return 0;
    /* OPT-350m's heads sit on the project_out width */
    int64_t d = a->family == FAM_OPT ? arch_opt_embed_dim(a) : a->hidden;
    if (head == HF_HEAD_QA && (a->family == FAM_BERT || a->family == FAM_T5) && n != 2)
        return 0;   /* hf_build refuses it: the split needs two outputs */
    int64_t dense = d * d + d;   /* a d -> d Linear with bias: BertPooler, heads' dense */
    int64_t lm = 0;              /* what the causal-LM head adds to the base model */
    switch (a->family) {
    case FAM_NEOX: case FAM_LLAMA: case FAM_MIXTRAL: case FAM_GEMMA2: case FAM_PHI3:
    case FAM_FALCON: case FAM_BLOOM:
        lm = a->tied ? 0 : V * d;
        break;
    case FAM_PHI: lm = V * d + V; break;
    default: break;
    }
    switch (a->family) {
    case FAM_GPT2: case FAM_NEOX: case FAM_OPT: case FAM_LLAMA: case FAM_PHI: case FAM_MIXTRAL:
    case FAM_GEMMA2: case FAM_PHI3: case FAM_FALCON: case FAM_BLOOM:
        /* arch_params counts the causal-LM model */
        switch (head) {
        case HF_HEAD_SEQ_CLS: return d * n - lm;
        case HF_HEAD_TOKEN_CLS: return d * n + n - lm;
        case HF_HEAD_QA: return d * 2 + 2 - lm;
        case HF_HEAD_BASE: return -lm;
        default: return 0;
        }
    case FAM_BERT:
        if (arch_distilbert(a))
            return distilbert_head_params(head, d, V, n);
        /* arch_params counts BertModel with its pooler */
        switch (head) {
        case HF_HEAD_MASKED_LM: case HF_HEAD_CAUSAL_LM:
            /* no pooler (-dense); the transform's dense (+dense), its
             * LayerNorm, the decoder bias (the weight is tied) */
            return 2 * d + V;
        case HF_HEAD_SEQ_CLS:
            /* BERT: pooler kept + classifier; RoBERTa: pooler dropped, dense +
             * out_proj: the same count */
            return d * n + n;
        case HF_HEAD_TOKEN_CLS: case HF_HEAD_QA:
            return -dense + d * n + n;
        default:
            return 0;
        }
    case FAM_T5: {
        /* arch_params counts T5ForConditionalGeneration (= T5Model, the head
         * being tied to the shared embedding) */
        int64_t inner = (int64_t)a->heads * arch_head_dim(a);
        int64_t ffn = (arch_t5_gated(a) ? 3 : 2) * d * a->intermediate;
        int64_t decoder = (int64_t)arch_decoder_layers(a) * (2 * 4 * d * inner + ffn + 3 * d) +
                          32 * (int64_t)a->heads + d;
        int64_t head_w = a->tied ? 0 : V * d;   /* v1.1's own lm_head */
        switch (head) {
        case HF_HEAD_SEQ_CLS: return dense + d * n + n - head_w;
        case HF_HEAD_TOKEN_CLS: return -decoder + d * n + n - head_w;
        case HF_HEAD_QA: return d * n + n - head_w;
        case HF_HEAD_BASE: return -head_w;
        default: return 0;
        }
    }
    default:
        return 0;
    }
}

/* The decoder's length: the labels' (decoder_input_ids') for the classes
 * that take them; T5's classification and QA classes shift input_ids. */
static int64_t decoder_length(const Arch *a, const HfOptions *o)
{
    bool own = o->head == HF_HEAD_DEFAULT || o->head == HF_HEAD_SEQ2SEQ_LM ||
               o->head == HF_HEAD_BASE;
    if (a->family == FAM_WHISPER && !o->dec_seq)
        return 0;   /* there are no input ids to shift */
    return own && o->dec_seq > 0 ? o->dec_seq : o->seq;
}

const char *hf_length_error(const Arch *a, const HfOptions *o)
{
    if (!a || !o)
        return NULL;
    int64_t dec = decoder_length(a, o);
    if (a->family == FAM_WHISPER) {
        if (o->seq != 2 * WHISPER_ENCODER_POSITIONS)
            return "Whisper's input_features must have 3000 mel frames (30 s; WhisperEncoder "
                   "refuses other lengths)";
        if (o->mels && o->mels != (int64_t)arch_whisper_mels(a))
            return "input_features' mel bins differ from the model's num_mel_bins";
        if (dec <= 0)
            return "Whisper's labels / decoder_input_ids length could not be read (--seq N "
                   "gives it)";
    }
    if ((a->family == FAM_WHISPER || a->family == FAM_BART) && dec > (int64_t)a->positions)
        return a->family == FAM_WHISPER ? "the labels are longer than Whisper's 448 positions"
                                        : "the decoder's length exceeds BART's 1024 positions";
    if (a->family == FAM_BART && o->seq > (int64_t)a->positions)
        return "input_ids are longer than BART's 1024 positions";
    return NULL;
}

bool hf_build(Trace *tr, const Arch *a, const HfOptions *o, TId *logits, TId *loss)
{
    *logits = 0;
    *loss = 0;
    if (!a || !o || o->batch <= 0 || o->seq <= 0 || o->num_labels < 0 ||
        o->num_labels > ((int64_t)1 << 24))
        return false;
    if (!hf_head_supported(a, o->head))
        return false;
    if (!a->hidden || !a->heads || !a->layers || !a->vocab || hf_length_error(a, o))
        return false;
    /* BERT / T5's qa_outputs has num_labels outputs, split into exactly two */
    if (o->head == HF_HEAD_QA && (a->family == FAM_BERT || a->family == FAM_T5) &&
        labels_of(o) != 2)
        return false;
    M m = {0};
    m.tr = tr;
    m.a = a;
    m.o = o;
    m.b = o->batch;
    m.s = m.enc_s = a->family == FAM_WHISPER ? WHISPER_ENCODER_POSITIONS : o->seq;
    m.dec_s = arch_encoder_decoder(a) ? decoder_length(a, o) : o->seq;
    m.d = a->hidden;
    m.h = a->heads;
    m.kvh = a->kv_heads ? a->kv_heads : a->heads;
    m.hd = arch_head_dim(a);
    m.ff = a->intermediate;
    m.V = a->vocab;
    m.ckpt = o->grad_ckpt && tr->training && !tr->no_grad;
    /* GPT2Model / GradientCheckpointingLayer turn the cache off when
     * checkpointing in training; encoders have none. Token classification
     * and QA outputs do not carry it: it is filled, then dropped. */
    m.cache = o->use_cache && !(o->grad_ckpt && tr->training) && a->family != FAM_BERT;
    if (a->family == FAM_BART && o->labels)
        m.cache = false;   /* BartForConditionalGeneration: "use_cache is changed to False" */
    m.keep_cache = o->head != HF_HEAD_TOKEN_CLS && (o->head != HF_HEAD_QA || a->family == FAM_T5);
    m.eager = o->eager_attention || a->family == FAM_T5;
    if (m.hd <= 0 || m.b > ((int64_t)1 << 40) / i64max(i64max(m.s, m.dec_s), 1))
        return false;

    bool frozen = tr->frozen;
    if (o->lora_r)
        tr->frozen = true;
    TId ids;
    if (a->family == FAM_WHISPER) {   /* input_features (b, mels, frames) */
        int64_t fd[3] = {m.b, arch_whisper_mels(a), o->seq};
        ids = tr_input(tr, tr->weight_dtype, 3, fd);
    } else {
        ids = tr_input2(tr, DT_I64, m.b, m.s);
    }
    TId out = 0, h = 0;
    switch (a->family) {
    case FAM_GPT2: h = gpt2(&m, ids); break;
    case FAM_NEOX: h = neox(&m, ids); break;
    case FAM_OPT: h = opt(&m, ids); break;
    case FAM_LLAMA: h = llama(&m, ids); break;
    case FAM_PHI: h = phi(&m, ids); break;
    case FAM_MIXTRAL: h = arch_experts(a) && arch_top_k(a) ? mixtral(&m, ids) : 0; break;
    case FAM_GEMMA2: h = gemma2(&m, ids); break;
    case FAM_PHI3: h = phi3(&m, ids); break;
    case FAM_FALCON: h = falcon(&m, ids); break;
    case FAM_BLOOM: h = bloom(&m, ids); break;
    case FAM_BERT:
        h = bert(&m, ids, o->head != HF_HEAD_DEFAULT && is_roberta(a));
        break;
    default: break;
    }
    if (a->family == FAM_T5)
        out = t5_head(&m, ids, loss);
    else if (a->family == FAM_BART || a->family == FAM_WHISPER)
        out = s2s_head(&m, ids, loss);
    else if (a->family == FAM_BERT)
        out = h ? bert_head(&m, ids, h, loss) : 0;
    else
        out = h ? decoder_head(&m, ids, h, loss) : 0;
    tr->frozen = frozen;
    if (!out && !(o->fused_ce && *loss))   /* a fused loss returns no logits */
        return false;
    *logits = out;
    return !tr->overflow;
}
