/* LoRA target module bits (PEFT target_modules), shared by the configuration
 * reader and the Hugging Face family forwards. */
#ifndef PFC_HF_LORA_H
#define PFC_HF_LORA_H
enum {
    LORA_Q = 1, LORA_K = 2, LORA_V = 4, LORA_O = 8, LORA_GATE = 16, LORA_UP = 32,
    LORA_DOWN = 64, LORA_C_ATTN = 128, LORA_C_PROJ = 256, LORA_C_FC = 512,
};
#endif
