#!/usr/bin/env bash
# Runs two petri binaries (e.g. the last release and a refactor) on every asset with the same
# arguments and checks that every output file is byte for byte the same. Manifests are compared
# without the fields that describe the machine or the clock (timings, adapter, version);
# checkpoints are left out (their format may change between versions; tests resume them bitwise).
#
#   scripts/compare-runs.sh OLD_PETRI NEW_PETRI WORK_DIR [quick|full]
#
# quick (default): short runs that finish in minutes on the software adapter.
# full: the angiogenesis asset's own length, a tenth of the Min system's 240 s, and Vilar
#       ensembles of 2,000 (CPU) and 10,000 (GPU) trajectories: minutes on a data-centre GPU.
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
    vilar_cpu=(--trajectories 256 --t-end 20 --points 21)
    vilar_gpu=("${vilar_cpu[@]}")
    ;;
full)
    angio=(assets/angiogenesis.json --checkpoint-every 500)
    min=(assets/min-system.json --steps 1200000 --checkpoint-every 600000)
    vilar_cpu=(--trajectories 2000 --t-end 200 --points 201)
    vilar_gpu=(--trajectories 10000 --t-end 200 --points 201)
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
    "vilar-direct-cpu|assets/vilar.json --method direct --device cpu ${vilar_cpu[*]}"
    "vilar-odm-cpu|assets/vilar.json --method odm --device cpu ${vilar_cpu[*]}"
    "vilar-tau-cpu|assets/vilar.json --method tau --device cpu ${vilar_cpu[*]}"
    "vilar-direct-gpu|assets/vilar.json --method direct --device gpu ${vilar_gpu[*]} --trajectories-csv"
    "vilar-tau-gpu|assets/vilar.json --method tau --device gpu ${vilar_gpu[*]}"
    "birth-death-gpu|assets/birth-death.json --device gpu --trajectories 1000 --t-end 10 --points 11"
)

# A manifest without what depends on the machine, the clock or the build.
normalise() {
    jq -S 'walk(if type == "object" then del(.timings, .adapter, .adapters, .devices, .petri_version, .run_s, .trajectories_per_s, .cpu_threads, .status) else . end)' "$1"
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
            if ! cmp -s <(normalise "$a") <(normalise "$b"); then
                differ+=("$f")
                # diff exits 1 when the files differ: shown, not fatal (set -e).
                diff <(normalise "$a") <(normalise "$b") | head -20 || true
            fi
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
