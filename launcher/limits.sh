# launcher/limits.sh: the hardware limits a run is judged against (sourced by collbench-run;
# plots/limits.py reads them). cb_limits_write DIR NODES writes DIR/limits.json:
#   {"nvlink_gbs": N|null, "pcie": {"gen": G, "width": W}|null, "nics": [{"name", "gbs"}]}
# NVLink per direction: DIR/link_gbs (nvidia-smi nvlink -s on GPU 0: the sum of its active links'
# rates); PCIe: GPU 0's current link generation and width (nvidia-smi); NICs (runs on more than
# one node only): every InfiniBand port's rate (/sys/class/infiniband/*/ports/*/rate, "200 Gb/sec
# (4X HDR)") or, without InfiniBand, every up Ethernet interface's speed (/sys/class/net/*/speed,
# Mb/s). A rate that cannot be read is null: the verdict then says "limit unknown". Measured on
# the host collbench-run runs on; the nodes of a run are assumed identical. A NIC name keeps
# letters, digits and _.:- (anything else, a quote or backslash included, becomes '?': the JSON
# stays valid); the file is written by cb_newfile (launcher/newfile.sh).
. "$(dirname -- "${BASH_SOURCE[0]}")/newfile.sh" # cb_newfile
cb_limits_write() {
  local dir=$1 nodes=$2 nv="null" pcie="null" nics="" gen width f name rate
  [ -s "$dir/link_gbs" ] && nv=$(cat "$dir/link_gbs")
  read -r gen width < <(nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.width.current --format=csv,noheader,nounits -i 0 \
    2> /dev/null | tr -d ' ' | tr ',' ' ')
  [[ "${gen:-}" =~ ^[0-9]+$ ]] && [[ "${width:-}" =~ ^[0-9]+$ ]] && pcie="{\"gen\": $gen, \"width\": $width}"
  if [ "$nodes" -gt 1 ]; then
    for f in /sys/class/infiniband/*/ports/*/rate; do
      [ -e "$f" ] || continue
      name=$(printf '%s' "$f" | awk -F/ '{print $5 ":" $7}' | tr -c 'A-Za-z0-9_.:-' '?')
      rate=$(awk '{ if ($1 ~ /^[0-9.]+$/ && $2 == "Gb/sec") printf "%.1f", $1 / 8 }' "$f" 2> /dev/null)
      nics+="${nics:+, }{\"name\": \"$name\", \"gbs\": ${rate:-null}}"
    done
    if [ -z "$nics" ]; then
      for f in /sys/class/net/*/speed; do
        name=$(basename "$(dirname "$f")")
        [ "$name" != lo ] && [ "$(cat "/sys/class/net/$name/operstate" 2> /dev/null)" = up ] || continue
        rate=$(awk '{ if ($1 ~ /^[0-9]+$/ && $1 > 0) printf "%.1f", $1 / 8000 }' "$f" 2> /dev/null)
        nics+="${nics:+, }{\"name\": \"$(printf '%s' "$name" | tr -c 'A-Za-z0-9_.:-' '?')\", \"gbs\": ${rate:-null}}"
      done
    fi
  fi
  printf '{"nvlink_gbs": %s, "pcie": %s, "nics": [%s]}\n' "$nv" "$pcie" "$nics" | cb_newfile "$dir/limits.json"
}
