# Machines on one switch, for the scripts that run cowatch in network namespaces: sourced,
# then `machines_up TAG SUBNET NAME…` makes a bridge namespace `cw-TAG-switch` and, for
# each NAME, a namespace `cw-TAG-NAME` on it at 10.SUBNET.0.1, .2, … (in ADDRESS[NAME]);
# `machines_down TAG NAME…` kills what runs in them and removes them all.

machines_down() {  # tag name…
  local tag=$1 name pid
  shift
  for name in "$@"; do
    for pid in $(ip netns pids "cw-$tag-$name" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "cw-$tag-$name" 2>/dev/null || true
  done
  ip netns del "cw-$tag-switch" 2>/dev/null || true
  return 0
}

machines_up() {  # tag subnet name…
  local tag=$1 subnet=$2 switch="cw-$1-switch" number=1 name ns
  shift 2
  machines_down "$tag" "$@"
  ip netns add "$switch"
  ip -n "$switch" link add br0 type bridge
  ip -n "$switch" link set br0 up
  declare -gA ADDRESS
  for name in "$@"; do
    ns="cw-$tag-$name"
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip link add "$tag-$name" netns "$switch" type veth peer name eth0 netns "$ns"
    ip -n "$switch" link set "$tag-$name" master br0 up
    ip -n "$ns" addr add "10.$subnet.0.$number/24" dev eth0
    ip -n "$ns" link set eth0 up
    ADDRESS[$name]="10.$subnet.0.$number"
    number=$((number + 1))
  done
}
