#!/bin/bash
# Here: stage.sh BUNDLE_DIR STAGE_DIR [TEST_TARGET...]
# Copies what the GPU machine needs into STAGE_DIR (inside the work tree, so that `device` can
# carry it): the bundle, cuda_runner, the named GPU test binaries (e.g.
# //compiler/codegen/cuda:gpu_run_test), and the shared libraries of ours they load that the GPU
# machine lacks (abseil, libstdc++). The binaries link no LLVM and none of our libraries
# dynamically; the CUDA driver and NVRTC are the GPU machine's own.
set -euo pipefail
bundle=$1
stage=$2
shift 2
cd "$(dirname "$0")/../.."
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib"
cp -r "$bundle" "$stage/bundle"
targets=(//compiler/runtime/cuda:cuda_runner "$@")
# ./tessel's flags, so that its cached actions are reused.
packages=$(sed 's/#.*//' third_party/debian_packages.txt | awk 'NF { print $1 }' |
  xargs dpkg-query -W -f='${Package}=${Version}\n' | sha1sum | cut -c1-16)
flags=(--config=opt --action_env=TESSEL_DEBIAN_PACKAGES="$packages")
bazel build "${flags[@]}" --jobs=2 "${targets[@]}" >&2
bin=$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)
for t in "${targets[@]}"; do
  path=${t#//}
  cp "$bin/${path%%:*}/${path##*:}" "$stage/bin/"
done
for b in "$stage"/bin/*; do
  ldd "$b" | awk '/libabsl|libstdc\+\+|libgcc_s/ {print $3}'
done | sort -u | xargs -r -I{} cp {} "$stage/lib/"
du -sh "$stage" >&2
