#################   WARNING   ################
# The below part is generated automatically through:
#    polybook build lib
# Don't edit it directly

import time

class Benchmark:
    """Print how long the code in a `with` block takes."""
    def __init__(self, description='Done'):
        """Defined in :numref:`sec_benchmark`"""
        self.description = description

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *args):
        print(f'{self.description}: {time.perf_counter() - self.start:.4f} sec')

import torch

def try_gpu(i=0):
    """Return GPU `i` if it exists, else the CPU.

    Defined in :numref:`sec_benchmark`"""
    if torch.cuda.device_count() >= i + 1:
        return torch.device(f'cuda:{i}')
    return torch.device('cpu')
