"""Builds every Cython module under openlandlord/ (found by glob, so adding a .pyx needs no edit here)."""
import glob
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

def extensions():
    exts = []
    for pyx in sorted(glob.glob("openlandlord/**/*.pyx", recursive=True)):
        name = os.path.splitext(pyx)[0].replace(os.sep, ".")
        exts.append(Extension(name, [pyx], include_dirs=[numpy.get_include()],
                              extra_compile_args=["-O3"],
                              define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]))
    return exts

setup(ext_modules=cythonize(extensions(), language_level=3,
                            compiler_directives={"boundscheck": False, "wraparound": False,
                                                 "cdivision": True, "initializedcheck": False}))
