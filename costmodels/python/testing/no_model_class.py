"""A module without a Model class, for py_model_test."""
VALUE = 1
