#!/usr/bin/env python3
"""extract.py GITDIR COMMIT DEST: writes COMMIT's tree of the git directory
GITDIR into DEST, leaving out (and naming) the blobs a partial copy lacks,
which git archive would stop at."""
import os
import subprocess
import sys

gitdir, commit, dest = sys.argv[1:4]
listing = subprocess.run(["git", "-C", gitdir, "ls-tree", "-r", "-z", commit],
                         capture_output=True, check=True).stdout.split(b"\0")
cat = subprocess.Popen(["git", "-C", gitdir, "cat-file", "--batch"],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)
missing = []
for entry in filter(None, listing):
    meta, path = entry.split(b"\t", 1)
    mode, kind, sha = meta.decode().split()
    if kind != "blob":
        continue
    cat.stdin.write(sha.encode() + b"\n")
    cat.stdin.flush()
    header = cat.stdout.readline().split()
    if len(header) < 3 or header[1] == b"missing":
        missing.append(path.decode())
        continue
    data = cat.stdout.read(int(header[2]))
    cat.stdout.read(1)
    target = os.path.join(dest, path.decode())
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if mode == "120000":
        os.symlink(data.decode(), target)
        continue
    with open(target, "wb") as f:
        f.write(data)
    if mode == "100755":
        os.chmod(target, 0o755)
cat.stdin.close()
cat.wait()
if missing:
    print(f"extract: {len(missing)} blobs not in {gitdir}, left out: {', '.join(missing)}")
