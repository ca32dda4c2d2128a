# The book's one config file: Sphinx settings plus polybook's own (the `polybook` dict).
#
# polybook reads this file statically -- literal assignments only, nothing is executed --
# so `polybook check` is safe to run on pull requests. Sphinx executes it when building.

project = "Dive into Deep Learning"
release = "0.1.0"
author = "The D2L authors and translators"
copyright = "2026, the D2L authors"

polybook = {
    "title": {
        "en": "Dive into Deep Learning",
        "ja": "Dive into Deep Learning",
        "pt": "Dive into Deep Learning",
        "zh": "动手学深度学习",
        "tr": "Derin Öğrenmeye Dalış",
    },
    "source_language": "en",
    # Book-wide frameworks in tab order; untagged cells belong to `default_tab`.
    "frameworks": ["mxnet", "pytorch"],
    "default_tab": "mxnet",
    # How readers see each framework's name (tabs, notices, PDF links); default: as written.
    "framework_labels": {"mxnet": "MXNet", "pytorch": "PyTorch"},
    "languages": {
        # The source was moved to PyTorch first: its untagged cells are PyTorch cells.
        "en": {"name": "English", "frameworks": ["pytorch", "mxnet"], "default_tab": "pytorch"},
        "ja": {"name": "日本語"},
        "pt": {"name": "Português"},
        "zh": {"name": "中文"},
        "tr": {"name": "Türkçe"},
    },
    "chapters": "chapters",
    "build_dir": "build",
    # The book's own package, collected from its #@save cells (polybook build lib) and
    # imported by the kernels ahead of any installed d2l; paths below chapters/<lang>/.
    "library": {
        "version_file": "d2l/__init__.py",
        "frameworks": {
            "mxnet": {"lib_file": "d2l/mxnet.py", "lib_name": "np"},
            "pytorch": {"lib_file": "d2l/torch.py", "lib_name": "torch"},
        },
    },
    # `polybook build eval`: one kernel per (chapter, framework) program, cached by content.
    "execution": {
        # Each framework runs in a virtualenv of its own, made by uv from these pins (which need
        # not agree: mxnet 1.9 wants numpy<1.24) into build/envs/ -- `polybook build env`, or the
        # first `polybook build eval`. Only what the chapters and the library import.
        "environments": {
            "mxnet": ["mxnet==1.9.1", "numpy==1.23.5"],
            # a pair that imports on a CPU-only machine; numpy 2 as torch 2.14 is built for
            "pytorch": ["torch==2.14.1", "torchvision==0.29.2", "numpy==2.4.1"],
        },
        # A framework without an environment runs in this kernel, registered into .venv by
        # scripts/setup-kernel.sh (make setup).
        "kernel": "polybook",
        "timeout": 300,  # seconds per cell; per chapter: "chapters": {"name": {"timeout": 600}}
        "cache_dir": "build/cache",
        "frozen_dir": "frozen",  # results computed elsewhere (a GPU machine), reused by key
        "fail_on_needs_gpu": False,  # a CUDA-only cell on a CPU machine is reported, not fatal
    },
}
