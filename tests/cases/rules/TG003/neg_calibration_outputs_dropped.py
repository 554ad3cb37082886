# Calibration for quantization: the model is run over a few batches only for
# the observers its hooks update; each output is dropped at once, so no graph
# outlives its call.
import torch


def calibrate(prepared_model, batches, limit):
    for name, sub in prepared_model.named_modules():
        print(name, type(sub).__name__)
    count = 0
    for data in batches:
        prepared_model(data[0])
        count += 1
        if count == limit:
            break
