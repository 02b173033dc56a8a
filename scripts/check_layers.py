#!/usr/bin/env python3
"""Checks that the folders of src/flexadj/ include one way: a file includes from its own floor and the floors below
only. The floors, lowest first, are the code block after "Floors, lowest first" in docs/design.md (folders on one
line share a floor); the upward includes still to be removed are the list after "Upward includes still to be
removed" there. Fails on any other upward include, on a folder missing from the floors, and on a listed include
that no longer exists (so that the list stays true).

usage: check_layers.py SRC_DIR DESIGN_MD
"""
import os
import re
import sys


def read_design(path):
    text = open(path, encoding="utf-8").read()
    floors_at = text.index("Floors, lowest first")
    block = re.search(r"```\n(.*?)```", text[floors_at:], re.S).group(1)
    floor_of = {}
    for level, line in enumerate(l for l in block.splitlines() if l.strip()):
        for folder in line.split():
            floor_of[folder] = level
    allowed = set()
    listed_at = text.find("Upward includes still to be removed")
    if listed_at >= 0:
        for match in re.finditer(r"^- `([\w/.]+)` includes `([\w/.]+)`", text[listed_at:], re.M):
            allowed.add((match.group(1), match.group(2)))
    return floor_of, allowed


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    source, design = sys.argv[1], sys.argv[2]
    floor_of, allowed = read_design(design)
    root = os.path.join(source, "flexadj")
    failures, seen = [], set()
    for folder in sorted(os.listdir(root)):
        if not os.path.isdir(os.path.join(root, folder)):
            continue
        if folder not in floor_of:
            failures.append(f"folder {folder}/ is on no floor of {design}")
            continue
        for name in sorted(os.listdir(os.path.join(root, folder))):
            path = os.path.join(root, folder, name)
            file = f"{folder}/{name}"
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                match = re.match(r'\s*#\s*include\s+"flexadj/(\w+)/([\w.]+)"', line)
                if not match:
                    continue
                target_folder, target = match.group(1), f"{match.group(1)}/{match.group(2)}"
                if target_folder not in floor_of:
                    failures.append(f"{file}:{number}: includes {target} from folder {target_folder}/, on no floor")
                elif floor_of[target_folder] > floor_of[folder]:
                    if (file, target) in allowed:
                        seen.add((file, target))
                    else:
                        failures.append(f"{file}:{number}: includes {target}, a floor above {folder}/")
    for file, target in sorted(allowed - seen):
        failures.append(f"{design} lists {file} including {target}, which it no longer does: remove it from the list")
    for failure in failures:
        print(failure)
    print(f"{len(failures)} violation(s) of the floors; {len(seen)} listed upward include(s) still to be removed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
