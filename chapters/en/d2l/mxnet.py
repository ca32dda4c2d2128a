#################   WARNING   ################
# The below part is generated automatically through:
#    polybook build lib
# Don't edit it directly

import time

from mxnet import np, npx

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
