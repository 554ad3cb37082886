/* Parameter counts by family, from the published configurations in
 * archs.def. Each function sums the model's tensors as its reference
 * implementation defines them (Hugging Face transformers, torchvision). */
#include "arch.h"
#include <string.h>
#include <strings.h>

static const Arch archs[] = {
#define ARCH(name, fam, d, l, h, kv, hd, ff, v, p, tied, extra) \
    {name, FAM_##fam, d, l, h, kv, hd, ff, v, p, tied, extra},
#include "archs.def"
#undef ARCH
};

const Arch *arch_all(size_t *n)
{
    *n = sizeof archs / sizeof archs[0];
    return archs;
}

/* The part after the organisation: "openai-community/gpt2" -> "gpt2". */
static const char *model_part(const char *name)
{
    const char *slash = strrchr(name, '/');
    return slash ? slash + 1 : name;
}

static const Arch *find_exact(const char *name)
{
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (strcasecmp(archs[i].name, name) == 0)
            return &archs[i];
    /* the hub renamed organisations (gpt2 -> openai-community/gpt2,
     * bert-base-uncased -> google-bert/...): match the model part */
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (strcasecmp(model_part(archs[i].name), model_part(name)) == 0)
            return &archs[i];
    return NULL;
}

/* The instruction-tuned checkpoints publish their base model's config.json
 * (Qwen2.5-7B-Instruct, gemma-2b-it, Llama-2-7b-chat-hf,
 * Mistral-7B-Instruct-v0.1): `name` without its first "-Instruct", "-it" or
 * "-chat" part (a whole dash-separated part), or false when it has none. */
static bool base_of_tuned(const char *name, char *out, size_t cap)
{
    static const char *const parts[] = {"-instruct", "-it", "-chat"};
    size_t n = strlen(name);
    if (n >= cap)
        return false;
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
        size_t k = strlen(parts[p]);
        for (size_t i = 0; i + k <= n; i++) {
            if (strncasecmp(name + i, parts[p], k) != 0 || (name[i + k] && name[i + k] != '-'))
                continue;
            memcpy(out, name, i);
            memcpy(out + i, name + i + k, n - i - k + 1);
            return true;
        }
    }
    return false;
}

const Arch *arch_find(const char *name)
{
    const Arch *a = find_exact(name);
    char base[256];
    if (!a && base_of_tuned(name, base, sizeof base))
        a = find_exact(base);
    return a;
}

const char *arch_family_name(ArchFamily f)
{
    static const char *const names[] = {"gpt2", "gpt_neox", "opt",     "llama", "phi",
                                        "bert", "t5",       "mixtral",
                                        "gemma2", "phi3",   "falcon", "bloom",
                                        "bart",   "whisper"};
    return names[f];
}

uint32_t arch_head_dim(const Arch *a)
{
    return a->head_dim ? a->head_dim : a->heads ? a->hidden / a->heads : 0;
}

uint32_t arch_experts(const Arch *a) { return a->family == FAM_MIXTRAL ? a->extra >> 8 : 0; }
uint32_t arch_top_k(const Arch *a) { return a->family == FAM_MIXTRAL ? a->extra & 0xff : 0; }

uint32_t arch_decoder_layers(const Arch *a)
{
    return arch_encoder_decoder(a) ? a->extra & 0xffff : 0;
}

bool arch_encoder_decoder(const Arch *a)
{
    return a->family == FAM_T5 || a->family == FAM_BART || a->family == FAM_WHISPER;
}

bool arch_t5_gated(const Arch *a) { return a->family == FAM_T5 && (a->extra & T5_GATED); }
bool arch_bart_pre_ln(const Arch *a) { return a->family == FAM_BART && (a->extra & BART_PRE_LN); }
bool arch_opt_post_ln(const Arch *a) { return a->family == FAM_OPT && (a->extra & OPT_POST_LN); }
bool arch_distilbert(const Arch *a) { return a->family == FAM_BERT && a->extra == 0; }
uint32_t arch_whisper_mels(const Arch *a) { return a->family == FAM_WHISPER ? a->extra >> 16 : 0; }

uint32_t arch_opt_embed_dim(const Arch *a)
{
    uint32_t proj = a->family == FAM_OPT ? a->extra & 0xffff : 0;
    return proj ? proj : a->hidden;
}

typedef uint64_t u64;

static u64 linear(u64 in, u64 out, bool bias) { return in * out + (bias ? out : 0); }
static u64 layer_norm(u64 d) { return 2 * d; }   /* weight and bias */

/* GPT-2: wte, wpe; per block ln_1, c_attn, c_proj, ln_2, c_fc, c_proj; ln_f; tied head */
static u64 gpt2(const Arch *a)
{
    u64 d = a->hidden, ff = a->intermediate;
    u64 block = layer_norm(d) + linear(d, 3 * d, true) + linear(d, d, true) + layer_norm(d) +
                linear(d, ff, true) + linear(ff, d, true);
    return (u64)a->vocab * d + (u64)a->positions * d + a->layers * block + layer_norm(d);
}

/* GPT-NeoX: embed_in; per layer two LayerNorms, fused qkv and dense with
 * biases, MLP with biases; final LayerNorm; embed_out without bias */
static u64 neox(const Arch *a)
{
    u64 d = a->hidden, ff = a->intermediate;
    u64 block = 2 * layer_norm(d) + linear(d, 3 * d, true) + linear(d, d, true) +
                linear(d, ff, true) + linear(ff, d, true);
    return (u64)a->vocab * d + a->layers * block + layer_norm(d) +
           (a->tied ? 0 : (u64)a->vocab * d);
}

/* OPT: tokens (word_embed_proj_dim wide), learned positions with 2 reserved
 * slots; project_in / project_out (no bias) when the embedding width
 * differs; q/k/v/out with biases, two LayerNorms, fc1/fc2; the final
 * LayerNorm only in the pre-LN layout; tied head */
static u64 opt(const Arch *a)
{
    u64 d = a->hidden, ff = a->intermediate, e = arch_opt_embed_dim(a);
    u64 block = 4 * linear(d, d, true) + 2 * layer_norm(d) + linear(d, ff, true) +
                linear(ff, d, true);
    u64 proj = e != d ? linear(e, d, false) + linear(d, e, false) : 0;
    return (u64)a->vocab * e + ((u64)a->positions + 2) * d + proj + a->layers * block +
           (arch_opt_post_ln(a) ? 0 : layer_norm(d));
}

/* Llama, Mistral, Qwen2 (q/k/v biases), Gemma: RMSNorm weights only, SwiGLU */
static u64 llama(const Arch *a)
{
    u64 d = a->hidden, hd = arch_head_dim(a), q = (u64)a->heads * hd, kv = (u64)a->kv_heads * hd;
    bool qkv_bias = a->extra == 1;
    u64 block = linear(d, q, qkv_bias) + 2 * linear(d, kv, qkv_bias) + linear(q, d, false) +
                3 * linear(d, a->intermediate, false) + 2 * d;
    return (u64)a->vocab * d + a->layers * block + d + (a->tied ? 0 : (u64)a->vocab * d);
}

/* Mixtral: Mistral's attention (RMSNorm, no biases); per layer a sparse MoE
 * block: the router (gate, d -> experts, no bias) and the experts' fused
 * parameters, gate_up_proj (experts, 2 ff, d) and down_proj (experts, d,
 * ff): each expert a SwiGLU MLP; untied head */
static u64 mixtral(const Arch *a)
{
    u64 d = a->hidden, hd = arch_head_dim(a), q = (u64)a->heads * hd, kv = (u64)a->kv_heads * hd;
    u64 e = arch_experts(a), ff = a->intermediate;
    u64 block = linear(d, q, false) + 2 * linear(d, kv, false) + linear(q, d, false) + e * d +
                e * 3 * d * ff + 2 * d;
    return (u64)a->vocab * d + a->layers * block + d + (a->tied ? 0 : (u64)a->vocab * d);
}

/* Gemma 2: Gemma's layer with four RMSNorms (input, post-attention,
 * pre-feed-forward, post-feed-forward), GELU-tanh MLP, head_dim 256, tied
 * head */
static u64 gemma2(const Arch *a)
{
    u64 d = a->hidden, hd = arch_head_dim(a), q = (u64)a->heads * hd, kv = (u64)a->kv_heads * hd;
    u64 block = linear(d, q, false) + 2 * linear(d, kv, false) + linear(q, d, false) +
                3 * linear(d, a->intermediate, false) + 4 * d;
    return (u64)a->vocab * d + a->layers * block + d + (a->tied ? 0 : (u64)a->vocab * d);
}

/* Falcon (7B layout: multi-query attention, parallel attention and MLP under
 * one input_layernorm): fused query_key_value d -> (heads + 2 kv_heads) *
 * head_dim, dense, dense_h_to_4h, dense_4h_to_h, no biases; ln_f; the head
 * tied to the word embeddings */
static u64 falcon(const Arch *a)
{
    u64 d = a->hidden, hd = arch_head_dim(a), ff = a->intermediate;
    u64 qkv = ((u64)a->heads + 2 * (u64)a->kv_heads) * hd;
    u64 block = layer_norm(d) + linear(d, qkv, false) + linear(d, d, false) +
                linear(d, ff, false) + linear(ff, d, false);
    return (u64)a->vocab * d + a->layers * block + layer_norm(d) +
           (a->tied ? 0 : (u64)a->vocab * d);
}

/* Phi-2: one LayerNorm per block (parallel attention and MLP), biases
 * everywhere, final LayerNorm, head with bias */
static u64 phi(const Arch *a)
{
    u64 d = a->hidden, ff = a->intermediate;
    u64 block = layer_norm(d) + 4 * linear(d, d, true) + linear(d, ff, true) + linear(ff, d, true);
    return (u64)a->vocab * d + a->layers * block + layer_norm(d) + linear(d, a->vocab, true);
}

/* BERT/RoBERTa (the base model with pooler): word, position and token-type
 * embeddings with a LayerNorm; q/k/v/o, two LayerNorms, MLP; pooler.
 * DistilBERT (no token types): the same layers, no pooler. */
static u64 bert(const Arch *a)
{
    u64 d = a->hidden, ff = a->intermediate;
    u64 emb = ((u64)a->vocab + a->positions + a->extra) * d + layer_norm(d);
    u64 block = 4 * linear(d, d, true) + 2 * layer_norm(d) + linear(d, ff, true) +
                linear(ff, d, true);
    return emb + a->layers * block + (arch_distilbert(a) ? 0 : linear(d, d, true));
}

/* T5: shared embedding; encoder blocks with self-attention and FF, decoder
 * blocks add cross-attention; RMS LayerNorms; relative attention bias (32
 * buckets) in each stack's first block. v1.0: ReLU FF (wi, wo), the head
 * tied to the shared embedding; v1.1 / flan-T5: gated-GELU FF (wi_0, wi_1,
 * wo) and a separate lm_head. */
static u64 t5(const Arch *a)
{
    u64 d = a->hidden, inner = (u64)a->heads * arch_head_dim(a), ff = a->intermediate;
    u64 attn = 4 * d * inner, ffn = (arch_t5_gated(a) ? 3 : 2) * d * ff;
    u64 enc = a->layers * (attn + ffn + 2 * d) + 32 * a->heads + d;
    u64 dec = arch_decoder_layers(a) * (2 * attn + ffn + 3 * d) + 32 * a->heads + d;
    return (u64)a->vocab * d + enc + dec + (a->tied ? 0 : (u64)a->vocab * d);
}

/* BLOOM: word embeddings and their LayerNorm (no position table: ALiBi); per
 * block input_layernorm, fused query_key_value and dense with biases,
 * post_attention_layernorm, dense_h_to_4h / dense_4h_to_h with biases
 * (4x); ln_f; the head tied to the word embeddings */
static u64 bloom(const Arch *a)
{
    u64 d = a->hidden, ff = a->intermediate;
    u64 block = 2 * layer_norm(d) + linear(d, 3 * d, true) + linear(d, d, true) +
                linear(d, ff, true) + linear(ff, d, true);
    return (u64)a->vocab * d + layer_norm(d) + a->layers * block + layer_norm(d) +
           (a->tied ? 0 : (u64)a->vocab * d);
}

/* One attention of BART / Whisper: q, k, v, out_proj (Whisper's k_proj has
 * no bias) */
static u64 s2s_attention(u64 d, bool k_bias) { return 4 * d * d + (k_bias ? 4 : 3) * d; }

/* BART / mBART (BartModel; the head is tied to `shared`, its
 * final_logits_bias a buffer): shared embedding; per stack learned positions
 * with 2 reserved slots and layernorm_embedding; encoder layers
 * self-attention + LayerNorm + fc1/fc2 + LayerNorm; decoder layers add the
 * cross-attention and its LayerNorm; mBART adds a final LayerNorm per
 * stack. */
static u64 bart(const Arch *a)
{
    u64 d = a->hidden, ff = a->intermediate, attn = s2s_attention(d, true);
    u64 ffn = linear(d, ff, true) + linear(ff, d, true);
    u64 stack = ((u64)a->positions + 2) * d + layer_norm(d) +
                (arch_bart_pre_ln(a) ? layer_norm(d) : 0);
    u64 enc = a->layers * (attn + ffn + 2 * layer_norm(d));
    u64 dec = arch_decoder_layers(a) * (2 * attn + ffn + 3 * layer_norm(d));
    return (u64)a->vocab * d + 2 * stack + enc + dec;
}

/* Whisper (WhisperModel; proj_out is tied to the decoder's embed_tokens):
 * encoder conv1 (mels -> d, k 3) and conv2 (d -> d, k 3, stride 2) with
 * biases, 1500 sinusoidal positions (an Embedding, frozen), pre-LN layers
 * (self-attention, fc1/fc2, two LayerNorms), a final LayerNorm; decoder
 * token embedding, learned positions (max_target_positions), layers with
 * self- and cross-attention, three LayerNorms, a final LayerNorm. */
static u64 whisper(const Arch *a)
{
    u64 d = a->hidden, ff = a->intermediate, attn = s2s_attention(d, false);
    u64 ffn = linear(d, ff, true) + linear(ff, d, true);
    u64 stem = linear(arch_whisper_mels(a) * 3, d, true) + linear(d * 3, d, true);
    u64 enc = stem + (u64)WHISPER_ENCODER_POSITIONS * d +
              a->layers * (attn + ffn + 2 * layer_norm(d)) + layer_norm(d);
    u64 dec = ((u64)a->vocab + a->positions) * d +
              arch_decoder_layers(a) * (2 * attn + ffn + 3 * layer_norm(d)) + layer_norm(d);
    return enc + dec;
}

uint64_t arch_params(const Arch *a)
{
    switch (a->family) {
    case FAM_GPT2: return gpt2(a);
    case FAM_NEOX: return neox(a);
    case FAM_OPT: return opt(a);
    case FAM_LLAMA: return llama(a);
    case FAM_PHI: return phi(a);
    case FAM_BERT: return bert(a);
    case FAM_T5: return t5(a);
    case FAM_MIXTRAL: return mixtral(a);
    case FAM_GEMMA2: return gemma2(a);
    /* Phi-3: fused qkv_proj (d -> (heads + 2 kv_heads) * head_dim) and
     * gate_up_proj (d -> 2 ff) hold what Llama's separate projections hold */
    case FAM_PHI3: return llama(a);
    case FAM_FALCON: return falcon(a);
    case FAM_BLOOM: return bloom(a);
    case FAM_BART: return bart(a);
    case FAM_WHISPER: return whisper(a);
    }
    return 0;
}
