"""Builds every Cython module under openlandlord/ (found by glob, so adding a .pyx needs no edit
here) and installs one import package, `openlandlord`: the repo's top-level stage folders
distill/, export/ and eval/ (the product's layout) become openlandlord.distill, .export, .eval."""
import glob
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

STAGES = ("distill", "export", "eval")


def extensions():
    exts = []
    for pyx in sorted(glob.glob("openlandlord/**/*.pyx", recursive=True)):
        name = os.path.splitext(pyx)[0].replace(os.sep, ".")
        exts.append(Extension(name, [pyx], include_dirs=[numpy.get_include()],
                              extra_compile_args=["-O3"],
                              define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]))
    return exts


def packages():
    found = find_packages(include=["openlandlord", "openlandlord.*"])
    for stage in STAGES:
        found += [f"openlandlord.{p}" for p in find_packages(include=[stage, f"{stage}.*"])]
    return found


setup(packages=packages(),
      package_dir={f"openlandlord.{stage}": stage for stage in STAGES},
      ext_modules=cythonize(extensions(), language_level=3,
                            compiler_directives={"boundscheck": False, "wraparound": False,
                                                 "cdivision": True, "initializedcheck": False}))
