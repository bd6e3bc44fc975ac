#!/usr/bin/env python3
"""How many pages one durable append writes to SQLite's write-ahead log, for storage layouts.

Issue #19 asks for at most 12 KB written per 200-byte append (today ~41 KB: about ten 4 KiB WAL
frames). Every page a commit dirties is written whole, with a 24-byte frame header, so the
figure is set by how many B-tree pages an append touches. This script measures that for the
layout locker's SQLite store has today and for candidate layouts, with Python's sqlite3 module
(WAL, synchronous=FULL, as the store), by appending N blocks of 200 bytes one transaction
each and reading the log: frames per append, and which table or index each frame belongs to
(SQLite's dbstat). It does not run locker; each layout's statements mirror what one append
writes there (src/store/sqlite/pads.rs and journal.rs):

  today     blocks (rowid) + UNIQUE (pad_id, seq), UPDATE pads (count, bytes, head),
            journal + journal_subject index, journal_head upsert, merkle_hashes rows; hex text
  keyed     blocks WITHOUT ROWID keyed (pad_id, seq) with a running byte count (no pads
            update), journal with the Merkle nodes the leaf completes in a BLOB column (no
            merkle_hashes rows), the head read from the journal's last row; 32-byte hashes
  partial   keyed, and the journal's subject index leaves out pad.append entries (a pad's
            blocks are found in the blocks table)
  inline    no blocks table: a block's columns are in its pad.append journal row, found by the
            subject index (journal + one index per append)
  ranges    schema 12 (what the store has since 2026-12-06): partial's journal; block `seq` of
            pad number `ord` is row `ord * 2^32 + seq` of a rowid blocks table (no index),
            hashes as hex text and the pad's id in the row, a running byte total
  compact   ranges with 32-byte hashes and no pad id in the row (about 270 B instead of 400)
  ordindex  compact's rows at the blocks table's right edge (row ids in insertion order) and
            found by an index of two integers, UNIQUE (pad_ord, seq)

With several pads (--pads), appends go to them in turn, as concurrent agents' would; --group
puts that many appends in one transaction, as the server's group commit does; --page-size sets
the database's page size. Beside the frames it prints the file system's 4 KiB pages each
commit's run of frames touches (what /proc/PID/io's write_bytes counts before the checkpoint
writes the pages back): a 4,120-byte frame straddles two of them.

Usage: scripts/wal-pages.py [--appends N] [--pads K] [--group G] [--page-size B] [--layouts L,...]
"""

import argparse
import collections
import hashlib
import json
import os
import sqlite3
import struct
import tempfile

PAGE = 4096  # the database's page size (--page-size); the file system's pages are 4 KiB
FRAME = 24 + PAGE
FS_PAGE = 4096
PAYLOAD = b"x" * 200


def sha(b):
    return hashlib.sha256(b).digest()


PADS_TODAY = """
CREATE TABLE pads (id TEXT PRIMARY KEY, scope TEXT NOT NULL, created_at INTEGER DEFAULT 0,
  expires_at INTEGER DEFAULT 0, max_blocks INTEGER DEFAULT 4096, max_bytes INTEGER DEFAULT 262144,
  block_count INTEGER NOT NULL DEFAULT 0, current_bytes INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL DEFAULT 'open', write_key_hash TEXT NOT NULL DEFAULT '',
  head_hash TEXT NOT NULL, sealed_at INTEGER);
"""

LAYOUTS = {
    "today": PADS_TODAY + """
CREATE TABLE journal (seq INTEGER PRIMARY KEY, prev_hash TEXT NOT NULL, hash TEXT NOT NULL,
  entry BLOB NOT NULL, time INTEGER NOT NULL, kind TEXT NOT NULL, actor TEXT NOT NULL,
  scope TEXT NOT NULL, subject TEXT NOT NULL);
CREATE INDEX journal_subject ON journal(subject, seq);
CREATE TABLE journal_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL,
  hash TEXT NOT NULL);
CREATE TABLE blocks (id INTEGER PRIMARY KEY, pad_id TEXT NOT NULL REFERENCES pads(id),
  seq INTEGER NOT NULL, prev_hash TEXT NOT NULL, curr_hash TEXT NOT NULL,
  content_type TEXT NOT NULL, payload BLOB NOT NULL, created_at INTEGER NOT NULL,
  UNIQUE (pad_id, seq));
CREATE TABLE merkle_hashes (idx INTEGER PRIMARY KEY, hash TEXT NOT NULL);
""",
    "keyed": PADS_TODAY + """
CREATE TABLE journal (seq INTEGER PRIMARY KEY, hash BLOB NOT NULL, entry BLOB NOT NULL,
  time INTEGER NOT NULL, kind TEXT NOT NULL, actor TEXT NOT NULL, scope TEXT NOT NULL,
  subject TEXT NOT NULL, tree BLOB NOT NULL);
CREATE INDEX journal_subject ON journal(subject, seq);
CREATE TABLE blocks (pad_id TEXT NOT NULL, seq INTEGER NOT NULL, prev_hash BLOB NOT NULL,
  curr_hash BLOB NOT NULL, content_type TEXT NOT NULL, payload BLOB NOT NULL,
  created_at INTEGER NOT NULL, bytes_through INTEGER NOT NULL,
  PRIMARY KEY (pad_id, seq)) WITHOUT ROWID;
""",
    "inline": PADS_TODAY + """
CREATE TABLE journal (seq INTEGER PRIMARY KEY, hash BLOB NOT NULL, entry BLOB NOT NULL,
  time INTEGER NOT NULL, kind TEXT NOT NULL, actor TEXT NOT NULL, scope TEXT NOT NULL,
  subject TEXT NOT NULL, tree BLOB NOT NULL, block_prev BLOB, block_hash BLOB,
  content_type TEXT, payload BLOB, bytes_through INTEGER);
CREATE INDEX journal_subject ON journal(subject, seq);
""",
}
LAYOUTS["partial"] = LAYOUTS["keyed"].replace(
    "CREATE INDEX journal_subject ON journal(subject, seq);",
    "CREATE INDEX journal_subject ON journal(subject, seq) WHERE kind != 'pad.append';",
)
JOURNAL_PARTIAL = LAYOUTS["partial"][LAYOUTS["partial"].index("CREATE TABLE journal"):
                                     LAYOUTS["partial"].index("CREATE TABLE blocks")]
LAYOUTS["ranges"] = PADS_TODAY + JOURNAL_PARTIAL + """
CREATE TABLE blocks (id INTEGER PRIMARY KEY, pad_id TEXT NOT NULL, seq INTEGER NOT NULL,
  prev_hash TEXT NOT NULL, curr_hash TEXT NOT NULL, content_type TEXT NOT NULL,
  payload BLOB NOT NULL, created_at INTEGER NOT NULL, pruned_bytes INTEGER,
  total_bytes INTEGER NOT NULL);
"""
LAYOUTS["compact"] = PADS_TODAY + JOURNAL_PARTIAL + """
CREATE TABLE blocks (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, prev_hash BLOB NOT NULL,
  curr_hash BLOB NOT NULL, content_type TEXT NOT NULL, payload BLOB NOT NULL,
  created_at INTEGER NOT NULL, pruned_bytes INTEGER, total_bytes INTEGER NOT NULL);
"""
LAYOUTS["ordindex"] = PADS_TODAY + JOURNAL_PARTIAL + """
CREATE TABLE blocks (id INTEGER PRIMARY KEY, pad_ord INTEGER NOT NULL, seq INTEGER NOT NULL,
  prev_hash BLOB NOT NULL, curr_hash BLOB NOT NULL, content_type TEXT NOT NULL,
  payload BLOB NOT NULL, created_at INTEGER NOT NULL, pruned_bytes INTEGER,
  total_bytes INTEGER NOT NULL, UNIQUE (pad_ord, seq));
"""


class Log:
    """The journal's running state: sequence numbers, block numbers, the Merkle frontier."""

    def __init__(self, pads):
        self.ord = {p: i + 1 for i, p in enumerate(pads)}
        self.seq = 0
        self.leaves = 0
        self.frontier = []
        self.merkle_rows = 0
        self.block_seq = {p: 0 for p in pads}

    def entry(self, pad, bseq, curr):
        self.seq += 1
        e = {"v": 1, "seq": self.seq, "time": 1800000000, "kind": "pad.append",
             "actor": "operator", "scope": "default", "subject": "pad:" + pad,
             "body": {"pad_id": pad, "seq": bseq, "hash": curr.hex(), "bytes": len(PAYLOAD)}}
        return json.dumps(e, separators=(",", ":")).encode()

    def tree(self, entry):
        """The leaf's hash and every node it completes (what a tree row or BLOB holds)."""
        leaf = sha(b"\x00" + entry)
        self.leaves += 1
        self.frontier.append(leaf)
        out, k = [leaf], self.leaves
        while k % 2 == 0:
            right, left = self.frontier.pop(), self.frontier.pop()
            node = sha(b"\x01" + left + right)
            self.frontier.append(node)
            out.append(node)
            k //= 2
        return out


def append(c, layout, log, pad):
    """One append's statements (the caller's transaction holds one or a group of them)."""
    bseq = log.block_seq[pad]
    log.block_seq[pad] += 1
    prev = sha(pad.encode() + bseq.to_bytes(8, "big"))
    curr = sha(prev + PAYLOAD)
    e = log.entry(pad, bseq, curr)
    h = sha(e)
    nodes = log.tree(e)
    subject = "pad:" + pad
    if layout == "today":
        c.execute("INSERT INTO blocks (pad_id, seq, prev_hash, curr_hash, content_type, payload,"
                  " created_at) VALUES (?, ?, ?, ?, 'application/json', ?, 1800000000)",
                  (pad, bseq, prev.hex(), curr.hex(), PAYLOAD))
        c.execute("UPDATE pads SET block_count = ?, current_bytes = current_bytes + ?,"
                  " head_hash = ? WHERE id = ?", (bseq + 1, len(PAYLOAD), curr.hex(), pad))
        c.execute("INSERT INTO journal VALUES (?, ?, ?, ?, 1800000000, 'pad.append', 'operator',"
                  " 'default', ?)", (log.seq, h.hex(), h.hex(), e, subject))
        c.execute("INSERT INTO journal_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id)"
                  " DO UPDATE SET seq = excluded.seq, hash = excluded.hash", (log.seq, h.hex()))
        for node in nodes:
            c.execute("INSERT INTO merkle_hashes (idx, hash) VALUES (?, ?)",
                      (log.merkle_rows, node.hex()))
            log.merkle_rows += 1
    elif layout == "ordindex":
        c.execute("INSERT INTO blocks (pad_ord, seq, prev_hash, curr_hash, content_type, payload,"
                  " created_at, total_bytes) VALUES (?, ?, ?, ?, 'application/json', ?,"
                  " 1800000000, ?)",
                  (log.ord[pad], bseq, prev, curr, PAYLOAD, len(PAYLOAD) * (bseq + 1)))
        c.execute("INSERT INTO journal VALUES (?, ?, ?, 1800000000, 'pad.append', 'operator',"
                  " 'default', ?, ?)", (log.seq, h, e, subject, b"".join(nodes)))
    elif layout in ("ranges", "compact"):
        row = (log.ord[pad] << 32) + bseq
        total = len(PAYLOAD) * (bseq + 1)
        if layout == "ranges":
            c.execute("INSERT INTO blocks VALUES (?, ?, ?, ?, ?, 'application/json', ?, 1800000000,"
                      " NULL, ?)", (row, pad, bseq, prev.hex(), curr.hex(), PAYLOAD, total))
        else:
            c.execute("INSERT INTO blocks VALUES (?, ?, ?, ?, 'application/json', ?, 1800000000,"
                      " NULL, ?)", (row, bseq, prev, curr, PAYLOAD, total))
        c.execute("INSERT INTO journal VALUES (?, ?, ?, 1800000000, 'pad.append', 'operator',"
                  " 'default', ?, ?)", (log.seq, h, e, subject, b"".join(nodes)))
    elif layout in ("keyed", "partial"):
        c.execute("INSERT INTO blocks VALUES (?, ?, ?, ?, 'application/json', ?, 1800000000, ?)",
                  (pad, bseq, prev, curr, PAYLOAD, len(PAYLOAD) * (bseq + 1)))
        c.execute("INSERT INTO journal VALUES (?, ?, ?, 1800000000, 'pad.append', 'operator',"
                  " 'default', ?, ?)", (log.seq, h, e, subject, b"".join(nodes)))
    else:
        c.execute("INSERT INTO journal VALUES (?, ?, ?, 1800000000, 'pad.append', 'operator',"
                  " 'default', ?, ?, ?, ?, 'application/json', ?, ?)",
                  (log.seq, h, e, subject, b"".join(nodes), prev, curr, PAYLOAD,
                   len(PAYLOAD) * (bseq + 1)))


def frames_by_object(db, wal):
    """Frames in `wal` per table or index, and the file system's pages its commits touch."""
    data = open(wal, "rb").read()
    pages, off = collections.Counter(), 32
    start, dirtied = off, 0
    while off + FRAME <= len(data):
        page, commit = struct.unpack(">II", data[off:off + 8])
        pages[page] += 1
        off += FRAME
        if commit != 0:
            # One commit writes its frames in one run: the file's 4 KiB pages it touches.
            dirtied += -(-off // FS_PAGE) - start // FS_PAGE
            start = off
    c = sqlite3.connect(db)
    owner = {1: "header (page 1)"}
    for (name,) in c.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')"):
        for (page,) in c.execute("SELECT pageno FROM dbstat WHERE name = ?", (name,)):
            owner.setdefault(page, name)
    c.close()
    by = collections.Counter()
    for page, n in pages.items():
        by[owner.get(page, "other")] += n
    return by, dirtied


def measure(layout, appends, npads, group, work):
    db = os.path.join(work, layout + ".db")
    c = sqlite3.connect(db, isolation_level=None)
    c.execute(f"PRAGMA page_size={PAGE}")
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA synchronous=FULL")
    c.execute("PRAGMA wal_autocheckpoint=0")
    c.executescript(LAYOUTS[layout])
    pads = [hashlib.md5(str(i).encode()).hexdigest() for i in range(npads)]
    c.execute("BEGIN")
    for p in pads:
        c.execute("INSERT INTO pads (id, scope, head_hash) VALUES (?, 'default', '')", (p,))
    c.execute("COMMIT")
    log = Log(pads)
    for i in range(500):  # the trees take their steady shape first
        c.execute("BEGIN IMMEDIATE")
        append(c, layout, log, pads[i % npads])
        c.execute("COMMIT")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for start in range(0, appends, group):
        c.execute("BEGIN IMMEDIATE")
        for i in range(start, min(start + group, appends)):
            append(c, layout, log, pads[(i * 7) % npads])
        c.execute("COMMIT")
    # Still open: closing the last connection would checkpoint the log and delete it.
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--appends", type=int, default=3000)
    ap.add_argument("--pads", type=int, default=1)
    ap.add_argument("--group", type=int, default=1)
    ap.add_argument("--page-size", type=int, default=4096, choices=[1024, 2048, 4096, 8192])
    ap.add_argument("--layouts", default="today,keyed,partial,inline,ranges,compact,ordindex")
    a = ap.parse_args()
    global PAGE, FRAME
    PAGE, FRAME = a.page_size, 24 + a.page_size
    layouts = a.layouts.split(",")
    unknown = [x for x in layouts if x not in LAYOUTS]
    if unknown or a.appends < 1 or a.pads < 1 or a.group < 1:
        ap.error(f"unknown layout(s) {unknown}" if unknown else "counts must be at least 1")
    print(f"{a.appends} appends of {len(PAYLOAD)} B, {a.pads} pad(s) in turn, {a.group} per "
          f"commit; WAL frames per append; {PAGE} B pages")
    with tempfile.TemporaryDirectory() as work:
        for layout in layouts:
            db = os.path.join(work, layout + ".db")
            c = measure(layout, a.appends, a.pads, a.group, work)
            by, dirtied = frames_by_object(db, db + "-wal")
            c.close()
            total = sum(by.values()) / a.appends
            parts = ", ".join(f"{k} {v / a.appends:.2f}" for k, v in by.most_common())
            print(f"{layout:8s} {total:5.2f} frames = {total * FRAME / 1000:5.1f} KB per append,"
                  f" {dirtied * FS_PAGE / a.appends / 1000:5.1f} KB of file pages  ({parts})")


if __name__ == "__main__":
    main()
