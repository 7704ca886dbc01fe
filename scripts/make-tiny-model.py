#!/usr/bin/env python3
"""Build fathom-tiny-bert: the tiny BERT encoder the Embedder's tests load.

Adapted from /work/shared/models/make_minilm_costmodel.py (the script that builds the
random-weight, full-size all-MiniLM-L6-v2 "cost model"): same ONNX graph builder, same
inputs/outputs and file layout, same int8 scheme, but a tiny shape and weights chosen so the
vectors mean something simple.

What it is:
  * a BERT (`model_type: bert`, `BertModel`) with all-MiniLM-L6-v2's real WordPiece tokenizer
    (tokenizer.json, tokenizer_config.json, special_tokens_map.json copied from
    resources/all-MiniLM-L6-v2/) and its 30522-token vocabulary; hidden 32, 2 layers, 2 heads,
    intermediate 64, 512 positions;
  * laid out as transformers.js loads it: config.json, the tokenizer files,
    onnx/model.onnx (fp32, dtype 'fp32') and onnx/model_quantized.onnx (int8 weights with
    dynamic activation quantization, dtype 'q8' — the product's default);
  * deterministic (fixed seed), so the shipped files are reproducible. CI never regenerates them.

How the weights are chosen:
  * token embeddings are random, N(0, 1) per dimension. A full 30522 x 32 table would not fit
    the fixture budget (< 2 MB for the whole folder, both dtypes), so the table is hashed:
    embedding(id) = (T1[id % 1009] + T2[id % 1013] + T3[id % 1019]) / sqrt(3). The three primes
    are pairwise coprime and their product exceeds the vocabulary, so every token id gets its own
    random vector (two ids share at most one of the three rows);
  * position and token-type embeddings are small (std 0.05), so word identity dominates;
  * the encoder layers are near-identity: small random Q/K/V/O/FFN weights (std 0.05), zero
    biases, residual connections and LayerNorm (gamma 1, beta 0). Attention is then nearly
    uniform over the real (unmasked) tokens and adds a small shared component.
  Mean-pooled, normalized outputs therefore behave like a normalized bag of token embeddings:
  texts that share WordPiece tokens get closer vectors than texts that share none. Never a
  measure of retrieval quality - only of the code path (loading, batching, pooling, padding).

Needs numpy and onnx (Debian: apt-get install python3-onnx; then run it with /usr/bin/python3
if another python3 comes first on PATH).
Usage: scripts/make-tiny-model.py [OUT_DIR]   (default test/fixtures/models/fathom-tiny-bert)
"""
import json
import os
import shutil
import sys

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save

HIDDEN, LAYERS, HEADS, INTER, VOCAB, MAXPOS = 32, 2, 2, 64, 30522, 512
HEAD = HIDDEN // HEADS
BUCKETS = (1009, 1013, 1019)  # pairwise coprime, product > VOCAB: every id gets its own vector
SEED = 20240611
LAYER_STD = 0.05
POS_STD = 0.05

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKENIZER_DIR = os.path.join(ROOT, "resources", "all-MiniLM-L6-v2")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
assert np.prod(np.array(BUCKETS, dtype=np.int64)) > VOCAB


def make_weights():
    """All weights, drawn once in a fixed order, shared by the fp32 and the q8 graph."""
    rng = np.random.default_rng(SEED)
    w = {}
    for i, n in enumerate(BUCKETS):
        w[f"emb.word{i}"] = (rng.standard_normal((n, HIDDEN)) / np.sqrt(len(BUCKETS))).astype(np.float32)
    w["emb.pos"] = (rng.standard_normal((MAXPOS, HIDDEN)) * POS_STD).astype(np.float32)
    w["emb.type"] = (rng.standard_normal((2, HIDDEN)) * POS_STD).astype(np.float32)
    for layer in range(LAYERS):
        p = f"l{layer}"
        for name, rows, cols in ((".q", HIDDEN, HIDDEN), (".k", HIDDEN, HIDDEN), (".v", HIDDEN, HIDDEN),
                                 (".o", HIDDEN, HIDDEN), (".i", HIDDEN, INTER), (".d", INTER, HIDDEN)):
            w[p + name] = (rng.standard_normal((rows, cols)) * LAYER_STD).astype(np.float32)
    return w


def quantize(w):
    """Symmetric per-tensor int8, as in the cost model."""
    scale = float(np.abs(w).max() / 127.0)
    return np.clip(np.round(w / scale), -127, 127).astype(np.int8), scale


def build(weights, quantized):
    nodes, inits = [], []

    def init(name, array):
        inits.append(numpy_helper.from_array(array, name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name + "_" + op, **attrs))
        return name

    def linear(x, name):
        w = weights[name]
        b = init(name + ".b", np.zeros(w.shape[1], np.float32))
        if not quantized:
            y = node("MatMul", [x, init(name + ".w", w)], name + ".mm")
        else:
            wq, scale = quantize(w)
            xq, xs, xz = (name + ".xq", name + ".xs", name + ".xz")
            nodes.append(helper.make_node("DynamicQuantizeLinear", [x], [xq, xs, xz], name=name + "_dq"))
            acc = node("MatMulInteger", [xq, init(name + ".wq", wq), xz, init(name + ".wz", np.array(0, np.int8))], name + ".mmi")
            accf = node("Cast", [acc], name + ".accf", to=TensorProto.FLOAT)
            s = node("Mul", [xs, init(name + ".ws", np.array(scale, np.float32))], name + ".s")
            y = node("Mul", [accf, s], name + ".mm")
        return node("Add", [y, b], name + ".out")

    def layernorm(x, name):
        g = init(name + ".g", np.ones(HIDDEN, np.float32))
        b = init(name + ".b", np.zeros(HIDDEN, np.float32))
        return node("LayerNormalization", [x, g, b], name + ".out", axis=-1, epsilon=1e-12)

    def table(name, ids):
        """Gather rows of an embedding table (int8 + DequantizeLinear in the q8 graph)."""
        t = weights[name]
        if not quantized:
            return node("Gather", [init(name, t), ids], name + ".g", axis=0)
        tq, scale = quantize(t)
        g = node("Gather", [init(name + "q", tq), ids], name + ".gq", axis=0)
        return node("DequantizeLinear", [g, init(name + ".s", np.array(scale, np.float32)),
                                         init(name + ".z", np.array(0, np.int8))], name + ".g")

    shape = node("Shape", ["input_ids"], "shape")
    seq = node("Gather", [shape, init("one_i", np.array(1, np.int64))], "seq", axis=0)
    pos = node("Range", [init("zero_i", np.array(0, np.int64)), seq, "one_i"], "pos")

    # Hashed word embeddings: sum of one row from each bucket table.
    word = None
    for i, n in enumerate(BUCKETS):
        idx = node("Mod", ["input_ids", init(f"bucket{i}", np.array(n, np.int64))], f"emb.idx{i}", fmod=0)
        row = table(f"emb.word{i}", idx)
        word = row if word is None else node("Add", [word, row], f"emb.wsum{i}")
    posv = table("emb.pos", pos)
    typ = table("emb.type", "token_type_ids")
    x = layernorm(node("Add", [node("Add", [word, posv], "emb.wp"), typ], "emb.sum"), "emb.ln")

    maskf = node("Cast", ["attention_mask"], "maskf", to=TensorProto.FLOAT)
    inv = node("Sub", [init("one_f", np.array(1.0, np.float32)), maskf], "mask.inv")
    bias = node("Mul", [inv, init("neg", np.array(-10000.0, np.float32))], "mask.bias")
    bias = node("Unsqueeze", [bias, init("axes12", np.array([1, 2], np.int64))], "mask.b4")
    split = init("split_shape", np.array([0, 0, HEADS, HEAD], np.int64))
    merge = init("merge_shape", np.array([0, 0, HIDDEN], np.int64))
    scale = init("attn_scale", np.array(1.0 / np.sqrt(HEAD), np.float32))

    for i in range(LAYERS):
        p = f"l{i}"
        q = node("Transpose", [node("Reshape", [linear(x, p + ".q"), split], p + ".qr")], p + ".qt", perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [linear(x, p + ".k"), split], p + ".kr")], p + ".kt", perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [linear(x, p + ".v"), split], p + ".vr")], p + ".vt", perm=[0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k], p + ".qk"), scale], p + ".qks"), bias], p + ".sc")
        ctx = node("MatMul", [node("Softmax", [scores], p + ".sm", axis=-1), v], p + ".ctx")
        ctx = node("Reshape", [node("Transpose", [ctx], p + ".ctxt", perm=[0, 2, 1, 3]), merge], p + ".ctxm")
        x = layernorm(node("Add", [x, linear(ctx, p + ".o")], p + ".res1"), p + ".ln1")
        h = linear(x, p + ".i")
        erf = node("Erf", [node("Mul", [h, init(p + ".rs2", np.array(1 / np.sqrt(2), np.float32))], p + ".hs")], p + ".erf")
        gelu = node("Mul", [node("Mul", [h, init(p + ".half", np.array(0.5, np.float32))], p + ".hh"),
                            node("Add", [erf, "one_f"], p + ".erf1")], p + ".gelu")
        x = layernorm(node("Add", [x, linear(gelu, p + ".d")], p + ".res2"), p + ".ln2")

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="out"))
    dims = ["batch_size", "sequence_length"]
    graph = helper.make_graph(
        nodes, "fathom_tiny_bert",
        [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in ("input_ids", "attention_mask", "token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [HIDDEN])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="fathom-make-tiny-model")
    model.ir_version = 8
    checker.check_model(model)
    return model


CONFIG = {
    "_name_or_path": "fathom-tiny-bert",
    "architectures": ["BertModel"],
    "model_type": "bert",
    "attention_probs_dropout_prob": 0.1,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "hidden_size": HIDDEN,
    "initializer_range": 0.02,
    "intermediate_size": INTER,
    "layer_norm_eps": 1e-12,
    "max_position_embeddings": MAXPOS,
    "num_attention_heads": HEADS,
    "num_hidden_layers": LAYERS,
    "pad_token_id": 0,
    "position_embedding_type": "absolute",
    "type_vocab_size": 2,
    "vocab_size": VOCAB,
}

README = f"""# fathom-tiny-bert

Test fixture for `src/index/embedder.ts`, generated by `scripts/make-tiny-model.py` (do not edit;
regenerate with `/usr/bin/python3 scripts/make-tiny-model.py`, which needs numpy and Debian's
python3-onnx). A BERT encoder with all-MiniLM-L6-v2's real WordPiece tokenizer and vocabulary
({VOCAB} tokens) but a tiny shape (hidden {HIDDEN}, {LAYERS} layers, {HEADS} heads, intermediate
{INTER}, {MAXPOS} positions) and deterministic weights (seed {SEED}): random hashed token
embeddings and near-identity encoder layers, so mean-pooled vectors behave like a bag of tokens.
`onnx/model.onnx` is fp32, `onnx/model_quantized.onnx` is int8 (dtype `q8`). Its vectors carry no
meaning beyond shared tokens: it tests the code path, never retrieval quality.

Tokenizer files: from sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0).
"""


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "test", "fixtures", "models", "fathom-tiny-bert")
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    weights = make_weights()
    save(build(weights, False), os.path.join(out, "onnx", "model.onnx"))
    save(build(weights, True), os.path.join(out, "onnx", "model_quantized.onnx"))
    with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(CONFIG, f, indent=2)
        f.write("\n")
    for name in TOKENIZER_FILES:
        shutil.copyfile(os.path.join(TOKENIZER_DIR, name), os.path.join(out, name))
        os.chmod(os.path.join(out, name), 0o644)
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write(README)
    total = 0
    for dirpath, _, files in os.walk(out):
        for name in sorted(files):
            size = os.path.getsize(os.path.join(dirpath, name))
            total += size
            print(f"{size:>10,}  {os.path.relpath(os.path.join(dirpath, name), out)}")
    print(f"{total:>10,}  total in {out}")
    if total >= 2 * 1024 * 1024:
        sys.exit("fixture folder is over 2 MB")


if __name__ == "__main__":
    main()
