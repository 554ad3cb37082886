# Two unit tests of one file: one trains in bf16 without quantisation, the
# other quantises with float16 compute and no mixed precision. Not one run.
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments


class TestTraining:
    def test_bf16(self, tmp_path):
        args = TrainingArguments(output_dir=str(tmp_path), bf16=True)
        assert args.bf16

    def test_quantized(self):
        cfg = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16)
        model = AutoModelForCausalLM.from_pretrained("tiny-model", quantization_config=cfg)
        assert model is not None
