#!/bin/bash
# Here: fig15_stage.sh STAGE_DIR FIG15_BUNDLE BATCHES_DIR PRIOR_BUNDLE|- LAYER...
# What one call to the GPU machine carries for Fig. 15 with tuning, cut to LAYER... (a visit in
# parts, when the batches of every layer together pass the carry limit): stage.sh's cuda_runner
# and libraries with kernel_timer_test (its GPU cases check the graph timer there), FIG15_BUNDLE
# (fig15_bundle's fallback kernels) cut to the layers, PRIOR_BUNDLE cut to the layers its
# choices.json names (a later visit: fig15_bundle built from the earlier visits' logs, with the
# earlier visit's choices.json copied in; "-" for none), and the layers' tuning batches
# BATCHES_DIR/<layer> packed into batches.tar.xz. On the GPU machine fig15_device.sh unpacks and
# measures it; merge_fig15.py joins the parts' results.
set -euo pipefail
stage=$1
fig15=$2
batches_dir=$3
prior=$4
shift 4
here=$(dirname "$(realpath "$0")")
"$here/stage.sh" "$fig15" "$stage" //compiler/runtime/cuda:kernel_timer_test
python3 - "$stage" "$fig15" "$prior" "$@" <<'PY'
import json, os, shutil, sys
stage, fig15, prior, layers = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4:])

def cut(src, dst, keep):
    """Copies bundle `src` into `dst` with the entries named in `keep` and their modules."""
    with open(os.path.join(src, "bundle.json")) as f:
        bundle = json.load(f)
    bundle["entries"] = [e for e in bundle["entries"] if e["name"] in keep]
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for e in bundle["entries"]:
        for suffix in ("", ".json"):
            shutil.copyfile(os.path.join(src, e["module"] + suffix),
                            os.path.join(dst, e["module"] + suffix))
    with open(os.path.join(dst, "bundle.json"), "w") as f:
        json.dump(bundle, f, indent=1)
    return len(bundle["entries"])

print("fig15_stage: %d fallback kernels" % cut(fig15, os.path.join(stage, "bundle"), layers))
if prior != "-":
    with open(os.path.join(prior, "choices.json")) as f:
        choices = {k: v for k, v in json.load(f).items() if k in layers}
    n = cut(prior, os.path.join(stage, "prior"), set(choices))
    with open(os.path.join(stage, "prior", "choices.json"), "w") as f:
        json.dump(choices, f, indent=1)
    print("fig15_stage: %d earlier best kernels" % n)
PY
packed=()
for layer in "$@"; do
  if [ -f "$batches_dir/$layer/bundle.json" ]; then packed+=("$layer"); fi
done
if [ ${#packed[@]} -gt 0 ]; then
  tar -C "$batches_dir" -cf - "${packed[@]}" | xz -T2 -6 > "$stage/batches.tar.xz"
fi
echo "fig15_stage: batches of ${packed[*]:-no layer}" >&2
du -sh "$stage" >&2
