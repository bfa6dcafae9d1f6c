"""Search: PUCT MCTS over an `Evaluator`, expert mixtures with their gate, recorded gating.

Paper: sec. 2 and 2.3-2.4 (MoE in MCTS), Fig. 3. Imports nets (models and checkpoints only) and
below, never play or report.
"""
