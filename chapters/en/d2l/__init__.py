"""The book's own library: the code its chapters save with ``#@save``, one module per
framework (``d2l/mxnet.py``, ``d2l/torch.py``), written by ``polybook build lib``.

The kernels of ``polybook build eval`` import this package ahead of any installed ``d2l``.
"""

__version__ = "0.1.0"
