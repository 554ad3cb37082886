# The model name comes from the command line: pfc cannot count it.
import sys
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained(sys.argv[1])
model = get_peft_model(model, LoraConfig(r=512, target_modules=["c_attn", "c_fc"]))
