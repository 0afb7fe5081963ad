#!/usr/bin/env bash
# Fails when a build that scripts/test.sh runs after the workspace's test build (maturin's build
# of the Python package alone, `-p petri-python`) would compile a dependency the test build
# already compiled, which rebuilds that dependency and everything above it: the dependency tree
# twice. Cargo turns on in each dependency the features the packages of one invocation ask for;
# crates/engine's Cargo.toml asks for the union, under every build. Compares the two builds'
# units (package, features, profile and, recursively, the units each is built from) from cargo's
# unit graph (an unstable output, read through RUSTC_BOOTSTRAP=1; nothing is built) and names
# the units of shared packages that the test build does not have.
set -euo pipefail
cd "$(dirname "$0")/.."
RUSTC_BOOTSTRAP=1 python3 - <<'PY'
import json
import subprocess
import sys


def units(*args):
    out = subprocess.run(["cargo", *args, "--locked", "--unit-graph", "-Z", "unstable-options"],
                         capture_output=True, text=True, check=True).stdout
    graph = json.loads(out)["units"]
    keys = {}

    def key(i):
        if i not in keys:
            u = graph[i]
            keys[i] = (u["pkg_id"], u["target"]["name"], tuple(u["target"]["kind"]),
                       tuple(sorted(u["features"])), u["platform"], u["mode"],
                       # A profile's name is not part of what cargo builds ("test" is "dev").
                       json.dumps({**u["profile"], "name": None}, sort_keys=True),
                       tuple(sorted(key(d["index"]) for d in u["dependencies"])))
        return keys[i]

    return {key(i): graph[i]["pkg_id"] for i in range(len(graph))}


def package(pkg_id):
    return pkg_id.rsplit("#", 1)[-1].rsplit("/", 1)[-1]


test = units("test", "--no-run", "--workspace", "--exclude", "petri-python",
             "--features", "petri-cli/mpi")
python = units("build", "--lib", "--manifest-path", "crates/python/Cargo.toml")
shared = {pkg for pkg in test.values() if not pkg.startswith("path+")}
again = sorted({package(pkg) for k, pkg in python.items() if pkg in shared and k not in test})
if again:
    print("scripts/check-shared-build.sh: the Python package's build would compile again, with "
          "other features or dependencies than the test build's:\n  " + "\n  ".join(again) +
          "\nAsk for the test build's features in crates/engine/Cargo.toml.", file=sys.stderr)
    sys.exit(1)
own = sorted({package(p) for p in python.values() if p not in shared and not p.startswith("path+")})
print(f"the Python package's build shares the test build's dependencies; its own: {', '.join(own)}")
PY
