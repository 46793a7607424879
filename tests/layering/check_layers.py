#!/usr/bin/env python3
"""Fails when a source file includes across the project's layers the wrong way.

The layers, lowest first (README, "Layout"):
  rules/status_macros.h, rules/text_escape.*, rules/digest.*
                        what every layer may use: the status macros, the one
                        JSON and one HTML escaper, the digests (BASE below)
  rules/ (generic)      the plug-in interface and what every ruleset shares,
                        with rules/geometry/ (the plane geometry of the table)
  rules/<name>/         one ruleset: its pure rule files and its engine
  replay/               replay, audit, diff, dice statistics: names no ruleset
  generate/ (generic)   the game generator: options, fault planning, manifests,
                        the generator plug-in list
  generate/<name>/      one ruleset's generator and its plug-in entry
  service/common/, service/store/, service/render/
                        what both programs share: the command line's
                        plumbing, gRPC status, the stores, reports as text
                        and HTML
  service/daemon/       gunbaid
  service/cli/          gunbai
  tests/                anything

What is checked, on the project's own #include "..." lines:
  1. Nothing under rules/ includes replay/, generate/, service/ or tests/;
     nothing under replay/ includes generate/, service/ or tests/.
  2. A ruleset's folder, rules/<name>/ or generate/<name>/, includes no other
     ruleset's folder (generate/<name>/ may include rules/<name>/).
  3. replay/ and service/ include nothing under rules/<name>/ or
     generate/<name>/, and the generic generate/ files nothing under
     rules/<name>/: they reach a ruleset only through rules/engine.h and the
     plug-in lists (rules/plugins.cc, generate/plugins.cc).
  4. A pure rule file (PURE below) reaches no generated proto header and no
     protobuf header, directly or through the project's headers it includes.
  5. The two programs never include each other: nothing under
     service/daemon/ includes service/cli/, and nothing under service/cli/
     includes service/daemon/; the folders both share (service/common/,
     service/store/, service/render/) include neither.
  6. The BASE files include nothing of the project but one another.

Includes that break a rule today and are to go in the restructure of issue
12 are listed in wrong_way_includes.txt, one "FILE -> INCLUDED" a line. The
check fails on a break not in that list, and on a listed one that no longer
happens (take it off the list: the list only shrinks).

Usage: check_layers.py [REPO_ROOT]   (default: two folders up from here)
Exit 0 when clean, 1 with one line per problem otherwise.
"""

import os
import re
import sys

ROOT = os.path.abspath(
    sys.argv[1] if len(sys.argv) > 1 else
    os.path.join(os.path.dirname(__file__), "..", ".."))

# The pure rule files: the rules as computations, with no proto types.
PURE = [
    "rules/types.h", "rules/types.cc",
    "rules/daimyo/tables.h", "rules/daimyo/tables.cc",
    "rules/battle_state.h", "rules/battle_state.cc",
    "rules/victory.h", "rules/victory.cc",
    "rules/rule_docs.h", "rules/rule_docs.cc",
    "rules/excerpt.h", "rules/excerpt.cc",
    "rules/daimyo/firing.h", "rules/daimyo/firing.cc",
    "rules/daimyo/melee.h", "rules/daimyo/melee.cc",
    "rules/daimyo/morale.h", "rules/daimyo/morale.cc",
    "rules/daimyo/leader_loss.h", "rules/daimyo/leader_loss.cc",
    "rules/skf/tables.h", "rules/skf/tables.cc",
    "rules/skf/melee.h", "rules/skf/melee.cc",
    "rules/skf/morale.h", "rules/skf/morale.cc",
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE = (".h", ".cc")
FOLDERS = ("rules", "replay", "generate", "service")


def project_files():
    out = []
    for top in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                if name.endswith(SOURCE):
                    out.append(os.path.relpath(os.path.join(dirpath, name), ROOT))
    return sorted(out)


def includes_of(path, cache={}):
    if path not in cache:
        found = []
        full = os.path.join(ROOT, path)
        if os.path.isfile(full):
            with open(full, encoding="utf-8") as f:
                for line in f:
                    m = INCLUDE.match(line)
                    if m:
                        found.append(m.group(1))
        cache[path] = found
    return cache[path]


# Folders under rules/ that every ruleset shares (not a ruleset): the
# plane geometry of the table.
SHARED_RULES_FOLDERS = ("geometry",)
# The files every layer may use (rule 6).
BASE = ("rules/status_macros.h", "rules/text_escape.", "rules/digest.")


def ruleset_folder(path):
    """'daimyo' for rules/daimyo/x.h or generate/daimyo/x.h, else None."""
    parts = path.split("/")
    if len(parts) >= 3 and parts[0] in ("rules", "generate"):
        if parts[0] == "rules" and parts[1] in SHARED_RULES_FOLDERS:
            return None
        return parts[1]
    return None


def breaks(path):
    """The (included, why) pairs of path's direct includes breaking 1-3, 5, 6."""
    out = []
    own = ruleset_folder(path)
    top = path.split("/")[0]
    for inc in includes_of(path):
        theirs = ruleset_folder(inc)
        if (path.startswith(BASE) and inc.startswith(FOLDERS) and
                not inc.startswith(BASE)):
            out.append((inc, "a file every layer may use includes the "
                        "project outside them"))
        elif top == "rules" and inc.split("/")[0] in ("replay", "generate",
                                                    "service", "tests"):
            out.append((inc, "rules/ includes a higher layer"))
        elif top == "replay" and inc.split("/")[0] in ("generate", "service",
                                                       "tests"):
            out.append((inc, "replay/ includes a higher layer"))
        elif own is not None and theirs is not None and theirs != own:
            out.append((inc, "a ruleset includes another ruleset's folder"))
        elif top in ("replay", "service") and theirs is not None:
            out.append((inc, top + "/ includes a ruleset's folder"))
        elif (top == "generate" and own is None and theirs is not None and
              inc.startswith("rules/")):
            out.append((inc, "the generic generator includes a ruleset's "
                        "folder"))
        elif top == "service" and inc.startswith("service/"):
            why = program_break(path.split("/")[1], inc.split("/")[1])
            if why:
                out.append((inc, why))
    return out


# service/'s folders: each program's, and those both share.
PROGRAMS = ("daemon", "cli")
SHARED_SERVICE_FOLDERS = ("common", "store", "render")


def program_break(own, theirs):
    """Why service/<own>/ may not include service/<theirs>/, or None."""
    if own in PROGRAMS and theirs in PROGRAMS and own != theirs:
        return f"service/{own}/ includes the other program's service/{theirs}/"
    if own in SHARED_SERVICE_FOLDERS and theirs in PROGRAMS:
        return (f"service/{own}/, shared by both programs, includes "
                f"service/{theirs}/")
    if own not in PROGRAMS + SHARED_SERVICE_FOLDERS:
        return (f"service/{own}: a file in no folder of service/ (daemon/, "
                "cli/, common/, store/, render/)")
    return None


def proto_reached(path):
    """The first proto header path reaches through project headers, or None."""
    seen = set()
    stack = [(path, [path])]
    while stack:
        cur, chain = stack.pop()
        for inc in includes_of(cur):
            if inc.startswith("gunbai/v1/") or inc.startswith("google/protobuf"):
                return " -> ".join(chain + [inc])
            if inc.startswith(FOLDERS) and inc not in seen:
                seen.add(inc)
                stack.append((inc, chain + [inc]))
    return None


def main():
    listed_path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "wrong_way_includes.txt")
    listed = set()
    with open(listed_path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                listed.add(line)

    problems = []
    seen_listed = set()
    files = project_files()
    for path in files:
        for inc, why in breaks(path):
            key = f"{path} -> {inc}"
            if key in listed:
                seen_listed.add(key)
            else:
                problems.append(f"{path}: includes \"{inc}\": {why} "
                                "(see tests/layering/check_layers.py)")
    for path in PURE:
        if not os.path.isfile(os.path.join(ROOT, path)):
            problems.append(f"{path}: listed as a pure rule file but missing; "
                            "update PURE in tests/layering/check_layers.py")
            continue
        chain = proto_reached(path)
        if chain:
            problems.append(f"{path}: a pure rule file reaches a proto header: "
                            f"{chain}")
    for key in sorted(listed - seen_listed):
        problems.append(f"{key}: listed in tests/layering/wrong_way_includes.txt "
                        "but no longer happens: take it off the list")

    for p in problems:
        print(p)
    print(f"check_layers: {len(files)} files, {len(seen_listed)} known "
          f"wrong-way includes left, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
