# Module-level pytest functions are unit tests, not evaluation regions: pytest
# collects them and nothing in the file calls them (not a finding).
import torch
import torch.nn as nn


def test_output_shape():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    model.eval()
    for batch in [torch.randn(3, 4), torch.randn(5, 4)]:
        assert model(batch).shape[-1] == 2


def test_eval_is_deterministic():
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5)).eval()
    x = torch.randn(2, 4)
    assert torch.equal(model(x), model(x))
