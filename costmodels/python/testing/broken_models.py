"""Models that fail in each way py_model_test checks: each class is the Model of a module of
its own (broken_models.<Name> is not a module), chosen through the environment."""
import os

import numpy as np

_which = os.environ.get("TESSEL_BROKEN_MODEL", "")


class _Raises:
    def __init__(self, seed):
        pass

    def fit(self, features, throughputs, tasks):
        raise ValueError("this model cannot fit")

    def predict(self, features):
        return np.zeros(len(features))


class _WrongCount(_Raises):
    def fit(self, features, throughputs, tasks):
        pass

    def predict(self, features):
        return np.zeros(len(features) + 1)


class _Dies(_WrongCount):
    def predict(self, features):
        os._exit(3)


class _BadInit:
    def __init__(self, seed):
        raise RuntimeError("no model today")


Model = {"raises": _Raises, "wrong_count": _WrongCount, "dies": _Dies,
         "bad_init": _BadInit}.get(_which, _Raises)
