"""A numpy-only model for py_model_test: the mean throughput of the 5 nearest fitted samples."""
import numpy as np


class Model:
    def __init__(self, seed):
        self.features = None
        self.throughputs = None

    def fit(self, features, throughputs, tasks):
        assert len(tasks) == len(features) == len(throughputs)
        self.features, self.throughputs = np.array(features), np.array(throughputs)

    def predict(self, features):
        print("predicting", len(features), "rows")  # must not disturb the protocol
        if self.features is None:
            return np.zeros(len(features))
        distances = ((features[:, None, :] - self.features[None, :, :]) ** 2).sum(axis=2)
        nearest = np.argsort(distances, axis=1)[:, :5]
        return self.throughputs[nearest].mean(axis=1)

    def save(self, path):
        np.savez(path, features=self.features, throughputs=self.throughputs)

    def load(self, path):
        data = np.load(path if path.endswith(".npz") else path + ".npz")
        self.features, self.throughputs = data["features"], data["throughputs"]
