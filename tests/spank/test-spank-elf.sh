#!/bin/bash
# spank_rdmalimit.so as slurmstepd loads it, the checks tests/pam/test-module.sh makes of the
# module: it needs only libc (its Slurm calls are resolved from slurmstepd or srun at load
# time; it imports no dlopen: the policy's syntax is read without libconfig), names no RDMA
# library (no code path can load one), imports no getenv, secure_getenv or environ (the job's environment is the user's:
# the plugin reads none of it), and exports only its slurm_spank_* hooks and the version
# symbols of SPANK_PLUGIN().  No root needed.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../tap.sh
. "$here/../tap.sh"
: "${SPANK_PLUGIN:=$top_builddir/spank/.libs/spank_rdmalimit.so}"

require_built "$SPANK_PLUGIN"
for t in readelf nm; do
	command -v "$t" >/dev/null || skip_all "$t is missing (Debian: binutils)"
done
plan 6
needed=$(readelf -d "$SPANK_PLUGIN" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -vE '^(libasan|libubsan)' |
	sort | tr '\n' ' ')
if [ "$needed" = "libc.so.6 " ]; then
	ok "the plugin needs only libc (no libslurm, libconfig, libibverbs, librdmacm, libmnl)"
else
	not_ok "the plugin needs only libc (no libslurm, libconfig, libibverbs, librdmacm, libmnl)" "NEEDED: $needed"
fi
if grep -qaE 'lib(ibverbs|rdmacm|mlx[45]|efa)' "$SPANK_PLUGIN"; then
	not_ok "the plugin names no RDMA library: no code path loads one" \
		"$(grep -aoE 'lib(ibverbs|rdmacm|mlx[45]|efa)[^ ]*' "$SPANK_PLUGIN" | sort -u)"
else
	ok "the plugin names no RDMA library: no code path loads one"
fi
dlsyms=$(nm -D --undefined-only "$SPANK_PLUGIN" | awk '{ print $2 }' | grep -E '^dl(open|mopen|sym|vsym)' || true)
if [ -z "$dlsyms" ]; then
	ok "the plugin imports no dlopen or dlsym: it loads no library"
else
	not_ok "the plugin imports no dlopen or dlsym: it loads no library" "$dlsyms"
fi
envsyms=$(nm -D --undefined-only "$SPANK_PLUGIN" | awk '{ print $2 }' | grep -E '^(secure_)?getenv|^environ|^clearenv|^spank_getenv' || true)
if [ -z "$envsyms" ]; then
	ok "the plugin imports no getenv, secure_getenv, environ or spank_getenv"
else
	not_ok "the plugin imports no getenv, secure_getenv, environ or spank_getenv" "$envsyms"
fi
syms=$(nm -D --defined-only "$SPANK_PLUGIN" | awk '$2 != "A" { print $3 }' | sort | tr '\n' ' ')
want="plugin_name plugin_type plugin_version slurm_spank_init slurm_spank_task_init slurm_spank_task_init_privileged spank_plugin_version "
if [ "$syms" = "$want" ]; then
	ok "exports only the slurm_spank_* hooks and SPANK_PLUGIN()'s symbols"
else
	not_ok "exports only the slurm_spank_* hooks and SPANK_PLUGIN()'s symbols" "exports: $syms"
fi
# the one Slurm call that touches the job's environment removes a variable, never reads one
slurm=$(nm -D --undefined-only "$SPANK_PLUGIN" | awk '{ print $2 }' | grep -E '^(spank_|slurm_)' | sort | tr '\n' ' ')
if [ "$slurm" = "slurm_debug slurm_error slurm_info spank_get_item spank_remote spank_strerror spank_unsetenv " ]; then
	ok "its Slurm calls: logging, spank_get_item, spank_remote, spank_unsetenv"
else
	not_ok "its Slurm calls: logging, spank_get_item, spank_remote, spank_unsetenv" "imports: $slurm"
fi
done_testing
