#!/usr/bin/env python3
"""Generate a synthetic history on top of the kernel corpus, as a fast-import stream.

Every parameter is fixed here (seed, counts, probabilities) so every figure in
bench/RESULTS.md is taken on the same history; change one and the corpus's
object ids change with it (bump HISTORY_VERSION in history.sh then).

Shape, chosen to look like a busy project's log rather than to be clever:
  - each commit edits 1-5 files (most often 1-2) by inserting, deleting and
    changing runs of lines; 80% of the edits hit a "hot" set of 3,000 files,
    so long delta chains form as they do in real repositories;
  - about 3% of commits also add a file, 1% delete one, 1% rename one;
  - topic branches fork off main now and then, get 2-20 commits interleaved
    with main's, and are merged back with a merge commit (topic side wins
    where both touched a file);
  - an annotated tag every 1,000 commits.

Usage: history-gen.py <kernel-worktree> <base-commit> <commits> > stream
The worktree supplies the base content of each file (read on first touch).
"""

import os
import random
import subprocess
import sys

SEED = 20261130
HOT_FILES = 3000
HOT_SHARE = 0.80
MAX_FILE = 128 * 1024          # only files up to this size are edited
FILES_PER_COMMIT = ([1, 2, 3, 4, 5], [30, 25, 20, 13, 12])
P_ADD, P_DELETE, P_RENAME = 0.03, 0.01, 0.01
P_TOPIC_START, TOPIC_LEN = 0.02, (2, 20)
P_ON_TOPIC = 0.5
TAG_EVERY = 1000
START_TIME = 1700086400        # a day after the base commit (lib.sh dates)

WORDS = (b"int long unsigned static const struct void return if else for while "
         b"goto out err ret dev data size len buf ctx lock state flags priv "
         b"mask val reg addr offset count idx page queue irq node list entry "
         b"unlock spin_lock mutex_lock kfree kzalloc GFP_KERNEL NULL EINVAL "
         b"ENOMEM u32 u64 bool true false break case default sizeof").split()
PUNCT = [b"(", b")", b";", b",", b" = ", b" -> ", b" + ", b" & ", b" | ", b" == "]


class Gen:
    def __init__(self, worktree, base, ncommits):
        self.rng = random.Random(SEED)
        self.wt = worktree
        self.base = base
        self.n = ncommits
        self.out = sys.stdout.buffer
        self.mark = 0
        self.time = START_TIME
        files = self.list_files()
        self.rng.shuffle(files)
        self.cold = files
        self.hot = files[:HOT_FILES]
        r = random.Random(SEED + 1)
        first = ["Ada", "Bo", "Chen", "Dana", "Eli", "Fay", "Gus", "Hana", "Ivo",
                 "Jun", "Kai", "Lea", "Mo", "Nia", "Oto", "Pia", "Raj", "Sol"]
        last = ["Ames", "Berg", "Cruz", "Diaz", "Eng", "Ford", "Gray", "Hale",
                "Ito", "Jost", "Kern", "Lund", "Moss", "Noor", "Okafor", "Petit"]
        self.authors = []
        for _ in range(60):
            f, l = r.choice(first), r.choice(last)
            self.authors.append("%s %s <%s.%s@example.org>"
                                % (f, l, f.lower(), l.lower()))
        # Per-branch state: path -> bytes (None = deleted) over the base tree,
        # and paths this branch created (so they can be edited again).
        self.main = {"over": {}, "new": [], "head": None}
        self.topic = None

    def list_files(self):
        raw = subprocess.run(["git", "-C", self.wt, "ls-files", "-s", "-z"],
                             check=True, capture_output=True).stdout
        files = []
        for rec in raw.split(b"\0"):
            if not rec:
                continue
            meta, path = rec.split(b"\t", 1)
            mode = meta.split(b" ")[0]
            if mode not in (b"100644", b"100755"):
                continue
            st = os.lstat(os.path.join(self.wt.encode(), path))
            if 0 < st.st_size <= MAX_FILE:
                files.append(path)
        files.sort()
        return files

    # ---- content -------------------------------------------------------
    def content(self, br, path):
        if path in br["over"]:
            return br["over"][path]
        try:
            with open(os.path.join(self.wt.encode(), path), "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None
        if b"\0" in data[:8192]:
            return None         # binary: never edited
        return data

    def line(self):
        r = self.rng
        parts = [b"\t" * r.randint(0, 3)]
        for _ in range(r.randint(2, 9)):
            parts.append(r.choice(WORDS))
            parts.append(r.choice(PUNCT) if r.random() < 0.4 else b" ")
        return b"".join(parts).rstrip()

    def edit(self, data):
        r = self.rng
        lines = data.split(b"\n")
        for _ in range(r.randint(1, 3)):
            op = r.random()
            at = r.randint(0, len(lines))
            if op < 0.45 or len(lines) < 12:
                lines[at:at] = [self.line() for _ in range(r.randint(1, 8))]
            elif op < 0.70:
                del lines[at:at + r.randint(1, 6)]
            else:
                k = r.randint(1, 4)
                lines[at:at + k] = [self.line() for _ in range(k)]
        return b"\n".join(lines)

    # ---- stream --------------------------------------------------------
    def data(self, b):
        self.out.write(b"data %d\n" % len(b))
        self.out.write(b)
        self.out.write(b"\n")

    def pick(self, br):
        r = self.rng
        for _ in range(50):
            if br["new"] and r.random() < 0.05:
                p = r.choice(br["new"])
            elif r.random() < HOT_SHARE:
                p = r.choice(self.hot)
            else:
                p = r.choice(self.cold)
            c = self.content(br, p)
            if c is not None:
                return p, c
        raise SystemExit("history-gen: no editable file found")

    def new_path(self, near):
        d = os.path.dirname(near)
        stem = b"%s_%s%d" % (self.rng.choice(WORDS).lower(),
                              self.rng.choice(WORDS).lower(),
                              self.rng.randint(0, 999))
        return (d + b"/" if d else b"") + stem + b".c"

    def header(self, ref, msg, parent, merge=None):
        self.mark += 1
        self.time += self.rng.randint(60, 7200)
        who = self.rng.choice(self.authors).encode()
        w = self.out.write
        w(b"commit %s\nmark :%d\n" % (ref, self.mark))
        w(b"author %s %d +0000\n" % (who, self.time))
        w(b"committer %s %d +0000\n" % (who, self.time + self.rng.randint(0, 3600)))
        self.data(msg)
        if parent is not None:
            w(b"from %s\n" % parent)
        if merge is not None:
            w(b"merge %s\n" % merge)
        return self.mark

    def message(self, paths):
        r = self.rng
        area = os.path.dirname(paths[0]).split(b"/")[-1] or b"top"
        subj = b"%s: %s %s %s" % (area, r.choice([b"fix", b"add", b"drop", b"rework",
                                                    b"simplify", b"clean up"]),
                                   r.choice(WORDS), r.choice(WORDS))
        body = b" ".join(r.choice(WORDS) for _ in range(r.randint(8, 60)))
        return subj + b"\n\n" + body + b"\n"

    def commit(self, br, ref, parent):
        r = self.rng
        ops = []                    # (kind, path, content-or-newpath)
        k = r.choices(*FILES_PER_COMMIT)[0]
        seen = set()
        for _ in range(k):
            p, c = self.pick(br)
            if p in seen:
                continue
            seen.add(p)
            c = self.edit(c)
            br["over"][p] = c
            ops.append((b"M", p, c))
        x = r.random()
        if x < P_ADD:
            p = self.new_path(ops[0][1])
            if p not in br["over"] and not os.path.lexists(
                    os.path.join(self.wt.encode(), p)):
                c = b"\n".join(self.line() for _ in range(r.randint(20, 300))) + b"\n"
                br["over"][p] = c
                br["new"].append(p)
                ops.append((b"M", p, c))
        elif x < P_ADD + P_DELETE:
            p, _ = self.pick(br)
            if p not in seen:
                br["over"][p] = None
                ops.append((b"D", p, None))
        elif x < P_ADD + P_DELETE + P_RENAME:
            p, c = self.pick(br)
            q = self.new_path(p)
            if p not in seen and q not in br["over"] and not os.path.lexists(
                    os.path.join(self.wt.encode(), q)):
                br["over"][p] = None
                br["over"][q] = c
                br["new"].append(q)
                ops.append((b"R", p, q))
        for _, p, _ in ops:
            if "touched" in br:
                br["touched"].add(p)
        m = self.header(ref, self.message([o[1] for o in ops]), parent)
        self.emit_ops(ops)
        br["head"] = b":%d" % m
        return m

    def emit_ops(self, ops):
        w = self.out.write
        for kind, p, c in ops:
            if kind == b"M":
                w(b"M 100644 inline %s\n" % p)
                self.data(c)
            elif kind == b"D":
                w(b"D %s\n" % p)
            else:
                w(b"R %s %s\n" % (p, c))
        w(b"\n")

    def run(self):
        r = self.rng
        main_ref, topic_ref = b"refs/heads/main", b"refs/heads/topic"
        first = True
        made = 0
        while made < self.n:
            if self.topic is None and made > 0 and r.random() < P_TOPIC_START:
                self.topic = {"over": dict(self.main["over"]),
                              "new": list(self.main["new"]),
                              "head": self.main["head"], "touched": set(),
                              "left": r.randint(*TOPIC_LEN), "fresh": True}
            t = self.topic
            if t is not None and t["left"] == 0:
                ops = []
                for p in sorted(t["touched"]):
                    c = t["over"].get(p, b"")
                    if c is None:
                        if self.main["over"].get(p, b"") is not None:
                            ops.append((b"D", p, None))
                            self.main["over"][p] = None
                    else:
                        ops.append((b"M", p, c))
                        self.main["over"][p] = c
                        if p not in self.main["new"] and p in t["new"]:
                            self.main["new"].append(p)
                m = self.header(main_ref, b"Merge branch 'topic'\n", None,
                                t["head"])
                self.emit_ops(ops)
                self.main["head"] = b":%d" % m
                self.topic = None
            elif t is not None and r.random() < P_ON_TOPIC:
                parent = t["head"] if t.pop("fresh", False) else None
                self.commit(t, topic_ref, parent)
                t["left"] -= 1
            else:
                parent = self.base.encode() if first else None
                first = False
                self.commit(self.main, main_ref, parent)
            made += 1
            if made % TAG_EVERY == 0:
                self.out.write(b"tag bench-%d\nfrom %s\n" % (made, self.main["head"]))
                self.out.write(b"tagger %s %d +0000\n"
                               % (self.authors[0].encode(), self.time))
                self.data(b"Snapshot after %d generated commits\n" % made)
        self.out.write(b"done\n")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    Gen(sys.argv[1], sys.argv[2], int(sys.argv[3])).run()


if __name__ == "__main__":
    main()
