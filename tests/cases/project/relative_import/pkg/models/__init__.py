from .gpt import GPT
