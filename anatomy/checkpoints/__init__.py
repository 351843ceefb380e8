"""Model files on disk: our saved folders, the default BERT (offline) or a hub checkpoint, and what every
loader checks before it copies a weight.

Taught in: 05_encoder (the default model), 07_training (saving a model), every notebook that loads one.
"""
from anatomy.checkpoints.checkpoint_files import read_config, unreadable, read_safetensors, load_weights_file
from anatomy.checkpoints.loader_checks import is_supported, check_config_fields, listed, check_weight_names
from anatomy.checkpoints.pretrained import (HubUnreachableError, default_model_dir, looks_like_a_path,
                                            resolve_checkpoint, ensure_available, checkpoint_folder, check_loading_info,
                                            load_pretrained)
