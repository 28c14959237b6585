"""The MLX student (LandlordFormer-Lite): model, losses and checkpoints."""
from .checkpoint import load_checkpoint, save_checkpoint
from .losses import loss_fn, student_loss, value_target
from .student import (ARCHITECTURE, MASK_VALUE, LandlordFormerLite, ModelConfig, compositions,
                      merge_pools, num_parameters)

__all__ = ["ARCHITECTURE", "MASK_VALUE", "LandlordFormerLite", "ModelConfig", "compositions",
           "merge_pools", "num_parameters", "load_checkpoint", "save_checkpoint", "loss_fn",
           "student_loss", "value_target"]
