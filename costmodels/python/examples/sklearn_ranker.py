"""A cost model in Python: scikit-learn's gradient-boosted trees on the tuner's features, trained
to rank configs within each task (the label of a sample is its throughput over its task's best, so
tasks of different speeds share one scale, as the xgb model's labels do).

    tessel tune --workload C6 --model py:costmodels/python/examples/sklearn_ranker.py --trials 200 --log L
"""
import pickle

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor


def relative_to_task_best(throughputs, tasks):
    labels = np.zeros(len(throughputs))
    for task in set(tasks):
        rows = np.array([t == task for t in tasks])
        best = throughputs[rows].max()
        if best > 0:
            labels[rows] = throughputs[rows] / best
    return labels


class Model:
    def __init__(self, seed):
        self.seed = seed
        self.trees = None

    def fit(self, features, throughputs, tasks):
        self.trees = GradientBoostingRegressor(n_estimators=150, max_depth=3, learning_rate=0.1,
                                               subsample=1.0, random_state=self.seed)
        self.trees.fit(features, relative_to_task_best(throughputs, tasks))

    def predict(self, features):
        if self.trees is None:
            return np.zeros(len(features))
        return self.trees.predict(features)

    def save(self, path):
        with open(path, "wb") as f:
            pickle.dump(self.trees, f)

    def load(self, path):
        with open(path, "rb") as f:
            self.trees = pickle.load(f)
