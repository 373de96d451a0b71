"""Writes nanoGPT's shakespeare_char files (train.bin, val.bin, meta.pkl) from a text, as nanoGPT's
data/shakespeare_char/prepare.py does: the sorted set of characters is the vocabulary, the first 90% of
the text is the training split, ids are written as uint16 with numpy's tofile, and meta.pkl holds
vocab_size, itos and stoi. (Ours, for the yardstick tests; nanoGPT's script downloads tinyshakespeare.)

Usage: python prepare.py INPUT_TXT OUT_DIR
"""
import os
import pickle
import sys

import numpy as np


def prepare(input_path, out_dir):
    with open(input_path, encoding="utf-8") as f:
        data = f.read()
    chars = sorted(set(data))
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for i, ch in enumerate(chars)}
    n = len(data)
    os.makedirs(out_dir, exist_ok=True)
    for name, part in (("train.bin", data[:int(n * 0.9)]), ("val.bin", data[int(n * 0.9):])):
        np.array([stoi[c] for c in part], dtype=np.uint16).tofile(os.path.join(out_dir, name))
    with open(os.path.join(out_dir, "meta.pkl"), "wb") as f:
        pickle.dump({"vocab_size": len(chars), "itos": itos, "stoi": stoi}, f)
    return len(chars)


if __name__ == "__main__":
    print(prepare(sys.argv[1], sys.argv[2]))
