#!/usr/bin/python3
"""Trains Fathom's code-search model: a dual bag-of-words encoder (CodeSearchNet's NBoW).

    /usr/bin/python3 train/train.py --pairs pairs.jsonl --out resources/model/fathom-code-search.bin

Each side (query words, code) has its own table: a vector and a learned weight per term. A
text's vector is the weighted sum of its distinct terms' vectors, each term counted
1 + log(tf) times, L2-normalized; the weight multiplies into the vector at export, so the
runtime (src/index/static-model.ts) only adds int8 rows and normalizes. Trained with in-batch
softmax (InfoNCE, both directions) and a learned temperature. `--group file|package` fills a
share (`--group-share`) of each batch with whole files' (packages') units, one group after
another, so a unit's siblings are among its negatives (what a search inside a repository must
tell apart: the right function, not only the right file); the rest of the batch is random
pairs. The default (`none`, random batches) is what the shipped model was trained with.
`--tie full` gives both towers one term table (each keeps its own term weights), `--tie init`
starts them equal; `--overlap-weight G` weighs a pair's loss by (1 - the share of its query's
terms the code holds) ^ G. Both were measured and are off by default (docs/MODEL.md). A dev
set of whole packages (hashed, never trained on) measures hit@5 / MRR among 1,000 candidates
after each epoch, and sibling@1 / MRR among the units of each dev file; the best epoch by the
former's MRR is exported.

Debian's python3-torch (1.13) under /usr/bin/python3; CPU only.
"""
import argparse
import hashlib
import json
import math
import random
import struct
import sys
import time
from collections import Counter

import numpy as np
import torch
import torch.nn.functional as F


def log(msg):
    print(f'[train] {msg}', file=sys.stderr, flush=True)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument('--pairs', required=True)
    p.add_argument('--out', required=True)
    p.add_argument('--vocab', type=int, default=40000)
    p.add_argument('--min-df', type=int, default=4)
    p.add_argument('--dims', type=int, default=128)
    p.add_argument('--epochs', type=int, default=2)
    p.add_argument('--batch', type=int, default=512)
    p.add_argument('--lr', type=float, default=0.01)
    p.add_argument('--seed', type=int, default=7)
    p.add_argument('--dev-share', type=float, default=0.04)
    p.add_argument('--threads', type=int, default=2)
    p.add_argument('--report', default='')
    p.add_argument('--drop-query', type=float, default=0.0, help='share of a query\'s terms left out at each step (regularizes)')
    p.add_argument('--drop-code', type=float, default=0.0, help='share of a code unit\'s terms left out at each step')
    p.add_argument('--group', choices=('none', 'file', 'package'), default='none',
                   help='batches filled with whole groups (a file\'s or a package\'s units): harder in-batch negatives')
    p.add_argument('--group-share', type=float, default=1.0,
                   help='share of each batch taken from whole groups; the rest is random pairs')
    p.add_argument('--overlap-weight', type=float, default=0.0,
                   help='weigh a pair\'s loss by (1 - share of its query terms the code holds) ^ this (0: every pair 1): the model\'s capacity on what the keyword index cannot match')
    p.add_argument('--tie', choices=('none', 'init', 'full'), default='none',
                   help='the two towers\' term vectors: separate (none), the same at the start (init), or one table (full)')
    return p.parse_args()


def dev_package(pkg, share):
    h = int(hashlib.sha1(pkg.encode()).hexdigest()[:8], 16)
    return h / 0xFFFFFFFF < share


def load(path):
    rows = []
    with open(path, encoding='utf8') as f:
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
    return rows


def build_vocab(rows, size, min_df):
    df = Counter()
    for r in rows:
        df.update(set(r['q']))
        df.update(set(r['c']))
    # ties broken by the term itself: the same vocabulary whatever Python's string hashing
    terms = [t for t, n in sorted(df.items(), key=lambda x: (-x[1], x[0])) if n >= min_df][: size - 1]
    return ['<unk>'] + terms  # id 0: never looked up (unknown terms are dropped)


def encode(terms, index):
    tf = Counter(index[t] for t in terms if t in index)
    ids = list(tf.keys())
    w = [1.0 + math.log(n) for n in tf.values()]
    return ids, w


def dropped(sample, share, rng):
    """`sample` (ids, weights) with about `share` of its terms left out, at least one kept."""
    if share <= 0:
        return sample
    ids, w = sample
    keep = [k for k in range(len(ids)) if rng.random() >= share] or [rng.randrange(len(ids))]
    return [ids[k] for k in keep], [w[k] for k in keep]


def bag(batch):
    """Flat ids, per-sample tf weights and offsets for embedding_bag."""
    ids, ws, offsets = [], [], []
    for i, w in batch:
        offsets.append(len(ids))
        ids.extend(i)
        ws.extend(w)
    return torch.tensor(ids, dtype=torch.long), torch.tensor(ws), torch.tensor(offsets, dtype=torch.long)


class Tower(torch.nn.Module):
    def __init__(self, vocab, dims, idf):
        super().__init__()
        self.emb = torch.nn.Parameter(torch.randn(vocab, dims) * 0.1)
        # the learned weight of a term, softplus(raw); starts at its idf
        raw = torch.log(torch.expm1(torch.clamp(idf, min=0.05)))
        self.raw = torch.nn.Parameter(raw)

    def forward(self, ids, tfw, offsets):
        w = F.softplus(self.raw[ids]) * tfw
        v = F.embedding_bag(ids, self.emb, offsets, mode='sum', per_sample_weights=w)
        return F.normalize(v, dim=-1)

    def export(self):
        return (self.emb * F.softplus(self.raw)[:, None]).detach().numpy()


def evaluate(qt, ct, dev, pool=1000, seed=1):
    if len(dev) < 50:
        return {}
    rng = random.Random(seed)
    items = dev[:]
    rng.shuffle(items)
    hits5 = 0
    rr = 0.0
    n = 0
    with torch.no_grad():
        for s in range(0, len(items), pool):
            part = items[s:s + pool]
            if len(part) < 100:
                break
            q = qt(*bag([p[0] for p in part]))
            c = ct(*bag([p[1] for p in part]))
            scores = q @ c.T
            gold = scores.diag()[:, None]
            rank = (scores > gold).sum(1)
            hits5 += int((rank < 5).sum())
            rr += float((1.0 / (rank + 1).float()).sum())
            n += len(part)
    return {'hit@5': hits5 / n, 'mrr': rr / n, 'n': n}


def evaluate_siblings(qt, ct, dev, keys):
    """Among the units of its own file (files of 2+ dev units): how often the gold unit ranks first."""
    files = {}
    for i, k in enumerate(keys):
        files.setdefault(k, []).append(i)
    top1 = 0
    rr = 0.0
    n = 0
    with torch.no_grad():
        for idx in files.values():
            if len(idx) < 2:
                continue
            q = qt(*bag([dev[i][0] for i in idx]))
            c = ct(*bag([dev[i][1] for i in idx]))
            scores = q @ c.T
            rank = (scores > scores.diag()[:, None]).sum(1)
            top1 += int((rank == 0).sum())
            rr += float((1.0 / (rank + 1).float()).sum())
            n += len(idx)
    return {'sibling@1': top1 / n, 'sibling_mrr': rr / n, 'sibling_n': n} if n else {}


def epoch_batches(keys, group, share, size, rng, order=None):
    """One epoch's batches (lists of indices): random, or a share of each batch from whole groups
    (groups shuffled, a group's units shuffled, laid one after another) and the rest random.
    Random batches shuffle `order` in place, epoch after epoch (the order the shipped model's
    training, which shuffled its pairs in place, saw)."""
    n = len(keys)
    if group == 'none' or share <= 0:
        order = list(range(n)) if order is None else order
        rng.shuffle(order)
        return [order[s * size:(s + 1) * size] for s in range(n // size)]
    groups = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    grouped, loose = [], []
    for g in groups.values():
        (grouped if rng.random() < share else loose).append(g)
    rng.shuffle(grouped)
    stream = []
    for g in grouped:
        rng.shuffle(g)
        stream.extend(g)
    rest = [i for g in loose for i in g]
    rng.shuffle(rest)
    k = size if share >= 1 else max(1, round(size * share))
    steps = len(stream) // k if k == size else min(len(stream) // k, len(rest) // (size - k))
    return [stream[s * k:(s + 1) * k] + rest[s * (size - k):(s + 1) * (size - k)] for s in range(steps)]


def quantize(m):
    scale = np.abs(m).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.round(m / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


def export(path, vocab, qm, cm, meta):
    qq, qs = quantize(qm)
    cq, cs = quantize(cm)
    header = dict(meta, format='fathom-static-model', version=1, dims=int(qm.shape[1]), vocab=vocab)
    hb = json.dumps(header, ensure_ascii=False, separators=(',', ':')).encode('utf8')
    hb += b' ' * ((-len(hb) - 8) % 4)  # keep the float arrays 4-byte aligned
    with open(path, 'wb') as f:
        f.write(b'FTHM')
        f.write(struct.pack('<I', len(hb)))
        f.write(hb)
        for arr in (qs, cs, qq, cq):
            f.write(arr.tobytes())


def main():
    a = parse_args()
    torch.manual_seed(a.seed)
    random.seed(a.seed)
    torch.set_num_threads(a.threads)
    t0 = time.time()
    rows = load(a.pairs)
    train_rows = [r for r in rows if not dev_package(r['p'], a.dev_share)]
    dev_rows = [r for r in rows if dev_package(r['p'], a.dev_share)]
    vocab = build_vocab(train_rows, a.vocab, a.min_df)
    index = {t: i for i, t in enumerate(vocab)}
    log(f'{len(rows)} pairs ({len(train_rows)} train, {len(dev_rows)} dev), vocab {len(vocab)}, {time.time() - t0:.0f} s')

    def enc(r):
        return encode(r['q'], index), encode(r['c'], index)

    def key(r):
        return r['p'] if a.group == 'package' else (r['p'], r.get('f', ''))

    train, train_keys = [], []
    for r in train_rows:
        p = enc(r)
        if p[0][0] and p[1][0]:
            train.append(p)
            train_keys.append(key(r))
    dev, dev_files = [], []
    for r in dev_rows:
        p = enc(r)
        if p[0][0] and p[1][0]:
            dev.append(p)
            dev_files.append((r['p'], r.get('f', '')))
    def overlap(p):
        q, c = set(p[0][0]), set(p[1][0])
        return len(q & c) / len(q)
    pair_weights = [max(0.1, 1 - overlap(p)) ** a.overlap_weight for p in train]
    df = Counter()
    for (qi, _), (ci, _) in train:
        df.update(qi)
        df.update(ci)
    n = len(train) * 2
    idf = torch.tensor([math.log((n + 1) / (df.get(i, 0) + 1)) for i in range(len(vocab))], dtype=torch.float32)
    qt = Tower(len(vocab), a.dims, idf)
    ct = Tower(len(vocab), a.dims, idf)
    if a.tie == 'init':
        ct.emb.data.copy_(qt.emb.data)
    elif a.tie == 'full':
        ct.emb = qt.emb
    log_temp = torch.nn.Parameter(torch.tensor(math.log(1 / 0.05)))
    params = list({id(p): p for p in list(qt.parameters()) + list(ct.parameters())}.values())
    opt = torch.optim.Adam(params + [log_temp], lr=a.lr)
    best = None
    history = []
    steps_per_epoch = len(epoch_batches(train_keys, a.group, a.group_share, a.batch, random.Random(a.seed)))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=max(1, steps_per_epoch * a.epochs), pct_start=0.1)
    order = list(range(len(train)))
    for epoch in range(a.epochs):
        total = 0.0
        te = time.time()
        batches = epoch_batches(train_keys, a.group, a.group_share, a.batch, random, order)
        for batch in batches[:steps_per_epoch]:
            part = [train[i] for i in batch]
            q = qt(*bag([dropped(p[0], a.drop_query, random) for p in part]))
            c = ct(*bag([dropped(p[1], a.drop_code, random) for p in part]))
            logits = (q @ c.T) * log_temp.exp().clamp(max=100)
            labels = torch.arange(len(part))
            if a.overlap_weight > 0:
                w = torch.tensor([pair_weights[i] for i in batch])
                per = (F.cross_entropy(logits, labels, reduction='none') + F.cross_entropy(logits.T, labels, reduction='none')) / 2
                loss = (per * w).sum() / w.sum()
            else:
                loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss)
        m = evaluate(qt, ct, dev)
        m.update(evaluate_siblings(qt, ct, dev, dev_files))
        history.append(dict(epoch=epoch + 1, loss=total / max(1, steps_per_epoch), **m))
        log(f'epoch {epoch + 1}: loss {total / max(1, steps_per_epoch):.3f}, dev {m}, {time.time() - te:.0f} s')
        if best is None or m.get('mrr', 0) > best[0]:
            best = (m.get('mrr', 0), epoch + 1, qt.export(), ct.export())
    _, epoch, qm, cm = best
    meta = dict(
        name='fathom-code-search',
        trainedOn=len(train), devPairs=len(dev), epochs=a.epochs, bestEpoch=epoch,
        seconds=round(time.time() - t0), history=history, temperature=float(log_temp.exp()),
        settings={k: v for k, v in vars(a).items() if k not in ('pairs', 'out', 'report')},
    )
    export(a.out, vocab, qm, cm, meta)
    log(f'exported epoch {epoch} to {a.out} ({len(vocab)} terms x {a.dims} dims), {time.time() - t0:.0f} s')
    if a.report:
        with open(a.report, 'w') as f:
            json.dump(meta, f, indent=1)


if __name__ == '__main__':
    main()
