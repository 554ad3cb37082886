# A helper method of a pytest test class stitches per-document outputs into
# one tensor in a loop: unit-test code, not a training loop.
import torch
import torch.nn as nn


class TestPacking:
    def _stitched(self, model, x, starts, ends):
        outs = []
        for s, e in zip(starts, ends):
            outs.append(model(x[s:e]))
        return torch.cat(outs)

    def test_packed_matches(self):
        model = nn.Linear(8, 8)
        x = torch.randn(10, 8)
        assert torch.allclose(model(x), self._stitched(model, x, [0, 5], [5, 10]))
