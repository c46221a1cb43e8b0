source bench/h200_env.sh >/dev/null 2>&1
export CUDA_HOME=/usr/local/cuda
python3 bench/probes/cuda_diff_probe.py 2>&1 | tail -3
timeout 60 python3 -m pytest -q -p no:cacheprovider -k "cuda and not tint and not differential" tests 2>&1 | tail -2
PYSHADE_DIFF_KERNELS=1000 PYSHADE_DIFF_DEVICES=cpu,cuda timeout 250 python3 -m pytest -q -p no:cacheprovider tests/test_differential.py > $OUT/h200_cuda_diff.txt 2>&1
tail -2 $OUT/h200_cuda_diff.txt; grep -E "^E         cuda|^E .*Error" $OUT/h200_cuda_diff.txt | head -8
