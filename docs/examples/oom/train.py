"""Full fine-tune of a 7B model in bf16 with AdamW: the project README.md's
TG901 demo lints with target_gpu = "a100-80gb" (pyproject.toml)."""
import argparse

import torch
from transformers import AutoModelForCausalLM


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--seq-len", type=int, default=2048)
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()

    model = AutoModelForCausalLM.from_pretrained(
        "meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16).cuda()
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)

    for step in range(args.steps):
        ids = torch.randint(0, 32000, (args.batch_size, args.seq_len), device="cuda")
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


if __name__ == "__main__":
    main()
