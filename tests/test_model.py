"""RISEv3.3: parameter counts, shapes, output ranges, attention variants, ONNX."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from chessmoe import paper
from chessmoe.nets.model import (
    PRESETS,
    ModelConfig,
    RiseNet,
    build_model,
    count_parameters,
    matched_width,
    preset,
    widened,
)


def test_paper_preset_has_the_papers_size() -> None:
    # Stem 120,320 + blocks 3,225,792 + dense attention 5 x 327,936 + value head 4,116
    # + policy head 765,440 = 5,755,348 ("about 5.8 M").
    assert count_parameters(build_model("paper")) == paper.NETWORK_PARAMETERS == 5_755_348
    # The same net with ECA as Wang et al. define it (5 weights per attention module).
    assert count_parameters(build_model("paper-eca")) == 4_115_693


def test_expansion_channels_follow_the_rule() -> None:
    config = PRESETS["paper"]
    assert [config.expansion(i) for i in range(15)] == [
        224, 256, 288, 320, 352, 384, 416, 352, 480, 512, 544, 416, 416, 448, 672]
    assert [config.kernel(i) for i in range(15)].count(5) == 4


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_outputs_have_the_right_shapes_and_ranges(name: str) -> None:
    torch.manual_seed(0)
    model = build_model(name).eval()
    out = model(torch.randn(5, 52, 8, 8) * 3)
    assert out.value.shape == (5,) and out.wdl.shape == (5, 3)
    assert out.plies.shape == (5,) and out.policy.shape == (5, 4864)
    assert (out.value.abs() <= 1).all()
    assert ((out.plies > 0) & (out.plies < 1)).all()
    probabilities = torch.softmax(out.wdl, dim=1)
    torch.testing.assert_close(out.value, probabilities[:, 2] - probabilities[:, 0])


def test_logit_value_option_is_unbounded_difference() -> None:
    torch.manual_seed(1)
    model = build_model("tiny", value_from="logits").eval()
    out = model(torch.randn(4, 52, 8, 8))
    torch.testing.assert_close(out.value, out.wdl[:, 2] - out.wdl[:, 0])


def test_attention_gates_the_block_input() -> None:
    torch.manual_seed(2)
    for kind in ("dense", "eca"):
        model = build_model("tiny", attention=kind)
        block = model.blocks[1]
        assert block.attention is not None and block.attention.kind == kind
    assert build_model("tiny", attention="none").blocks[1].attention is None
    eca = build_model("paper-eca").blocks[5].attention
    assert eca is not None and eca.kernel == 5 and eca.conv.weight.numel() == 5


def test_stochastic_depth_only_while_training() -> None:
    torch.manual_seed(3)
    model = build_model("tiny", stochastic_depth=0.5)
    x = torch.randn(8, 52, 8, 8)
    model.eval()
    torch.testing.assert_close(model(x).policy, model(x).policy)
    model.train()
    assert not torch.allclose(model(x).policy, model(x).policy)


def test_bad_configs_are_rejected() -> None:
    with pytest.raises(ValueError, match="attention"):
        ModelConfig(attention="se")
    with pytest.raises(ValueError, match="outside"):
        ModelConfig(blocks=4, kernel5_blocks=(7,))
    with pytest.raises(ValueError, match="unknown model preset"):
        preset("huge")
    config = preset("small", channels=32)
    assert ModelConfig.from_dict(config.to_dict()) == config


def test_onnx_export_matches_torch(tmp_path: Path) -> None:
    onnxruntime = pytest.importorskip("onnxruntime")
    from chessmoe.nets.checkpoints import export_onnx

    torch.manual_seed(4)
    model = build_model("tiny").eval()
    x = torch.randn(3, 52, 8, 8)
    path = export_onnx(model, tmp_path / "model.onnx")
    session = onnxruntime.InferenceSession(str(path))
    outputs = session.run(None, {"planes": x.numpy()})
    for got, want in zip(outputs, model(x), strict=True):
        np.testing.assert_allclose(got, want.detach().numpy(), atol=1e-5)


SMALL_PARAMETERS = 201_469  # the small preset (results/experts/small/*/summary.json)
#: How far the parameter-matched network's count may lie from 3 x the small one's.
TOLERANCE = 0.005


def test_the_wide_network_has_three_times_the_small_ones_parameters() -> None:
    """The network of the regular-wide control: the small network widened to the three
    experts' parameters together (issue 40, item 3)."""
    small = preset("small")
    wide = matched_width(small, 3)

    def parameters(config: ModelConfig) -> int:
        return count_parameters(RiseNet(config))

    assert parameters(small) == SMALL_PARAMETERS
    assert parameters(wide) == 604_086  # 2.998 x; 3 x is 604,407
    assert abs(parameters(wide) / (3 * SMALL_PARAMETERS) - 1) < TOLERANCE
    # the small network widened: every channel count x 125/64, depth and pattern unchanged
    assert (wide.channels, wide.expansion_init, wide.expansion_step, wide.kernel5_reduction,
            wide.policy_channels) == (125, 125, 31, 31, 125)
    assert replace(wide, channels=64, expansion_init=64, expansion_step=16,
                   kernel5_reduction=16, policy_channels=64) == small
    # no other width lands closer
    for channels in (123, 124, 126, 127):
        assert abs(parameters(widened(small, channels)) - 3 * SMALL_PARAMETERS) > abs(
            parameters(wide) - 3 * SMALL_PARAMETERS)
    with pytest.raises(ValueError):
        matched_width(small, 0)
