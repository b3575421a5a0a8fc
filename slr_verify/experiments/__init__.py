"""The paper's experiments beyond Sections 3-5 (`docs/MATH.md` §§15-16): the trained
Transformer layer (JAX, the ``jax`` extra) and the linear probing of [CLS] (torch, the
``probing`` extra). Importing this package needs neither; calling an experiment does."""
from .probing import probe_cls
from .transformer import TransformerRun, paper_settings, quick_settings, transformer_layer

__all__ = ["transformer_layer", "paper_settings", "quick_settings", "TransformerRun", "probe_cls"]
