#!/usr/bin/env bash
# Runs two petri binaries (e.g. the last release and a refactor) on every asset with the same
# arguments and checks that every output file is byte for byte the same. Manifests are compared
# without the fields that describe the machine or the clock (timings, adapter, version);
# checkpoints are left out (their format may change between versions; tests resume them bitwise).
#
#   scripts/compare-runs.sh OLD_PETRI NEW_PETRI WORK_DIR [quick|full]
#
# quick (default): short runs that finish in minutes on the software adapter.
# full: the assets' own lengths (the Min system's 240 s takes minutes on a data-centre GPU), and
#       larger ensembles.
# Exits non-zero and names the files that differ.
set -euo pipefail
if [[ $# -lt 3 ]]; then
    echo "usage: $0 OLD_PETRI NEW_PETRI WORK_DIR [quick|full]" >&2
    exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
work=$3
size=${4:-quick}
cd "$(dirname "$0")/.."

case $size in
quick)
    angio=(assets/angiogenesis.json --steps 100 --checkpoint-every 50)
    min=(assets/min-system.json --steps 2000 --checkpoint-every 1000)
    vilar=(--trajectories 256 --t-end 20 --points 21)
    ;;
full)
    angio=(assets/angiogenesis.json --checkpoint-every 500)
    min=(assets/min-system.json --steps 1200000 --checkpoint-every 600000)
    vilar=(--trajectories 10000 --t-end 200 --points 201)
    ;;
*)
    echo "size must be quick or full, not $size" >&2
    exit 2
    ;;
esac

# name: arguments of `petri run` (the output folder is added per binary)
runs=(
    "angiogenesis|${angio[*]}"
    "min-system|${min[*]}"
    "vilar-direct-cpu|assets/vilar.json --method direct --device cpu ${vilar[*]}"
    "vilar-odm-cpu|assets/vilar.json --method odm --device cpu ${vilar[*]}"
    "vilar-tau-cpu|assets/vilar.json --method tau --device cpu ${vilar[*]}"
    "vilar-direct-gpu|assets/vilar.json --method direct --device gpu ${vilar[*]} --trajectories-csv"
    "vilar-tau-gpu|assets/vilar.json --method tau --device gpu ${vilar[*]}"
    "birth-death-gpu|assets/birth-death.json --device gpu --trajectories 1000 --t-end 10 --points 11"
)

# A manifest without what depends on the machine, the clock or the build.
normalise() {
    jq -S 'walk(if type == "object" then del(.timings, .adapter, .adapters, .petri_version, .timing, .wall_s, .elapsed_s) else . end)' "$1"
}

status=0
for entry in "${runs[@]}"; do
    name=${entry%%|*}
    read -r -a args <<<"${entry#*|}"
    for side in old new; do
        bin=$old
        [[ $side == new ]] && bin=$new
        dir=$work/$side/$name
        rm -rf "$dir"
        mkdir -p "$dir"
        start=$(date +%s%N)
        "$bin" run "${args[@]}" --out "$dir" >"$dir.log" 2>&1 || {
            echo "FAIL $name: $side binary exited with an error (log: $dir.log)"
            tail -5 "$dir.log"
            status=1
            continue 2
        }
        echo "$name $side: $((($(date +%s%N) - start) / 1000000)) ms"
    done
    differ=()
    files=$(cd "$work/old/$name" && find . -type f | sort)
    if [[ "$files" != "$(cd "$work/new/$name" && find . -type f | sort)" ]]; then
        differ+=("(file lists differ)")
    fi
    for f in $files; do
        a=$work/old/$name/$f
        b=$work/new/$name/$f
        if [[ $f == *.petri ]]; then
            # Checkpoints are compared by resuming (tests), not by bytes: their format may change.
            continue
        elif [[ $f == *manifest.json ]]; then
            cmp -s <(normalise "$a") <(normalise "$b") || differ+=("$f")
        else
            cmp -s "$a" "$b" || differ+=("$f")
        fi
    done
    if [[ ${#differ[@]} -eq 0 ]]; then
        echo "SAME $name: $(echo "$files" | wc -l) files"
    else
        echo "DIFF $name: ${differ[*]}"
        status=1
    fi
done
exit $status
