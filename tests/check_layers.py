#!/usr/bin/env python3
"""The layout of src/ (docs/architecture.md, "Layers"): a folder per layer,
each including only from its own layer and those below it, no folders
including each other in a loop, no equation including another, no layer
above the equations reaching past their seam (equations/*.h) into one
equation's folder, no folder over MAX_SOURCES source files.  Reads the #include "..." lines of every
.c, .h and .cu file under SRC (written relative to SRC) and prints every
breach; exits 1 on any.

  check_layers.py [SRC]        (default: the src/ beside this tests/ folder)
  check_layers.py --self-test  the check itself, on small trees made to break it
"""
import os
import re
import sys

# Top to bottom.  A folder belongs to the first layer whose name is the
# folder or a folder above it; equations/NAME/... is one equation's, but for
# the folders every equation shares (equations/cuda: the CUDA backend's
# lanes, memory and common kernels), which are the equations layer's.
LAYERS = ["program", "inversion", "setup", "shot", "equations/*", "equations", "grid", "options", "data"]
SHARED = {"cuda"}
MAX_SOURCES = 20
SEAM = LAYERS.index("equations/*")  # the layers above it see an equation through equations/*.h alone
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(folder):
    """(rank, unit): rank 0 at the top; unit names an equation (or the folder's layer)."""
    parts = folder.split("/")
    if parts[0] == "equations" and len(parts) > 1 and parts[1] not in SHARED:
        return LAYERS.index("equations/*"), "equations/" + parts[1]
    if parts[0] in LAYERS:
        return LAYERS.index(parts[0]), parts[0]
    return None, None


def sources(src):
    for dirpath, _, names in os.walk(src):
        for name in sorted(names):
            if name.endswith((".c", ".h", ".cu")):
                path = os.path.join(dirpath, name)
                yield os.path.relpath(path, src), path


def find_cycle(graph):
    """One cycle of folders as a list, or None (depth-first search)."""
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if not state.get(nxt):
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if not state.get(node):
            found = visit(node)
            if found:
                return found
    return None


def check(src):
    errors, graph, counts = [], {}, {}
    for rel, path in sources(src):
        folder = os.path.dirname(rel)
        if not folder:
            errors.append(f"src/{rel}: a file outside every layer's folder ({', '.join(LAYERS)})")
            continue
        rank, unit = layer_of(folder)
        if rank is None:
            errors.append(f"src/{rel}: folder {folder} is no layer's ({', '.join(LAYERS)})")
            continue
        if rel.endswith((".c", ".cu")):
            counts[folder] = counts.get(folder, 0) + 1
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for name in INCLUDE.findall(text):
            if not os.path.isfile(os.path.join(src, name)):
                errors.append(f"src/{rel}: #include \"{name}\" is not a path under src/ (write it from src/, e.g. \"grid/grid.h\")")
                continue
            target = os.path.dirname(name)
            if target == folder:
                continue
            trank, tunit = layer_of(target)
            graph.setdefault(folder, set()).add(target)
            if trank < rank:
                errors.append(f"src/{rel}: includes {name}: upward, from the {LAYERS[trank]} layer above its own ({LAYERS[rank]})")
            elif trank == rank and unit != tunit:
                errors.append(f"src/{rel}: includes {name}: one equation includes another's files")
            elif rank < SEAM and trank == SEAM:
                errors.append(f"src/{rel}: includes {name}: past the seam, into {tunit} (above the equations only equations/*.h, the seam, is read)")
    for folder, n in sorted(counts.items()):
        if n > MAX_SOURCES:
            errors.append(f"src/{folder}: {n} source files, over {MAX_SOURCES}: split it")
    cycle = find_cycle(graph)
    if cycle:
        errors.append("folders include each other in a loop: " + " -> ".join(cycle))
    return errors


def self_test():
    """Each breach, planted alone in an otherwise sound tree, is found."""
    import tempfile
    sound = {"data/util.h": "", "grid/grid.h": '#include "data/util.h"\n', "equations/equation.h": '#include "grid/grid.h"\n',
             "equations/a/a.c": '#include "equations/equation.h"\n', "equations/b/b.c": "", "shot/run.c": '#include "equations/equation.h"\n'}
    breaches = {
        "upward": {"grid/grid.c": '#include "shot/run.c"\n'},
        "another's files": {"equations/b/b.c": '#include "equations/a/a.c"\n'},
        "from the equations/* layer above its own (equations)": {"equations/cuda/c.h": '#include "equations/a/a.c"\n'},
        "past the seam": {"shot/run.c": '#include "equations/a/a.c"\n'},
        "loop": {"equations/a/a.h": '#include "equations/a/cpu/k.h"\n', "equations/a/cpu/k.h": '#include "equations/a/a.h"\n'},
        "not a path under src": {"grid/g.c": '#include "util.h"\n'},
        "outside every layer": {"loose.c": ""},
        "source files, over": {f"setup/f{k}.c": "" for k in range(MAX_SOURCES + 1)},
    }
    failed = 0
    for expect, extra in [(None, {})] + list(breaches.items()):
        with tempfile.TemporaryDirectory() as src:
            for rel, text in {**sound, **extra}.items():
                os.makedirs(os.path.join(src, os.path.dirname(rel)), exist_ok=True)
                with open(os.path.join(src, rel), "w") as f:
                    f.write(text)
            errors = check(src)
            ok = not errors if expect is None else any(expect in e for e in errors)
            print(f"{'ok' if ok else 'FAILED'}: {expect or 'a sound tree'}: {errors or 'no breach'}")
            failed += not ok
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    errors = check(src)
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} breach(es) of the layout in docs/architecture.md")
        return 1
    print(f"layers: {len(list(sources(src)))} files, no upward include, no loop between folders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
