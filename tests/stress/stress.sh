# shellcheck shell=bash
# stress.sh: the root tree of the stress tests; source it after tests/tap.sh.  Sets T, a
# temporary directory removed on exit; R=$T/root, the tree (not made here); D, its limits.d; F,
# the drop-in rdmalimits writes there; MARKER, the first line rdmalimits gives that drop-in.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
D=$R/etc/security/limits.d
F=$D/zz-rdmalimits.conf
# shellcheck disable=SC2034 # for the tests that source this
MARKER="# rdmalimits: managed file; change it with 'rdmalimits apply' and 'rdmalimits remove'."

# stress_tree: R as the tests start it: root and alice, the group rdma_users (alice), a
# limits.conf of 8 MiB soft and hard for everyone, an empty limits.d and proc/1
stress_tree() {
	mkdir -p "$D" "$R/proc/1"
	printf 'root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n' > "$R/etc/passwd"
	printf 'root:x:0:\nrdma_users:x:2000:alice\n' > "$R/etc/group"
	printf '*\tsoft\tmemlock\t8192\n*\thard\tmemlock\t8192\n' > "$R/etc/security/limits.conf"
}
