#!/usr/bin/env bash
# A kvlab matrix as a Slurm job array: one array task per shard (--shard K/N from SLURM_ARRAY_TASK_ID), shard
# bundles on a shared filesystem, then one merge job that runs when every task succeeded:
#
#   cd /shared/kvlab && ./kvlab --version                          # build the CLI jar once, before the array
#   jid=$(MATRIX=$PWD/ablations/smoke.yaml sbatch --parsable --array=1-8 deploy/slurm/matrix-array.sh)
#   sbatch --dependency=afterok:$jid --wrap "./kvlab merge shards/$jid/shard-*/*/ --out results/runs"
#
# The array's size is N (task ids 1..N, any range works: K counts from the array's first id). A requeued task
# runs the same command; --resume continues its shard from the last finished run.
#
# SPLIT=requests (with MODE=live, a matrix of openai cells): every task runs every cell but sends only every N-th
# request of its stream, so N client hosts offer one cell a load no single host can; start the tasks together
# (one array, enough nodes) and the merge adds them into one cell per run, "driven from N hosts".
#SBATCH --job-name=kvlab-matrix
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --output=kvlab-%A_%a.log
set -euo pipefail
MATRIX=${MATRIX:?set MATRIX to the matrix file (on the shared filesystem)}
N=${SLURM_ARRAY_TASK_COUNT:?run this with sbatch --array=1-N}
K=$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1))
OUT=${OUT:-$PWD/shards/$SLURM_ARRAY_JOB_ID}
cd "${KVLAB_HOME:-$SLURM_SUBMIT_DIR}"
exec ./kvlab run "$MATRIX" --mode "${MODE:-sim}" --shard "$K/$N" --split "${SPLIT:-runs}" --out "$OUT/shard-$K" --resume
