# A gradient check: the reference inputs are detached copies made leaves on
# purpose, and their own .grad is what the test compares (from the corpus:
# torchtitan's fused SwiGLU tests).
import torch


def test_matches_reference():
    x = torch.randn(4, 8, requires_grad=True)
    fused(x).sum().backward()
    ref = x.detach().clone().requires_grad_()
    torch.nn.functional.silu(ref).sum().backward()
    torch.testing.assert_close(x.grad, ref.grad)
