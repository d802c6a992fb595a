#!/bin/sh
# Settings that make a Weft GPU bundle (scripts/gpu-bundle.sh) run from
# wherever its folder lies: its programs first on the PATH, and the plug-in
# folders of libfabric, PMIx and hwloc inside it, so that nothing of the
# target machine but the GPU driver is loaded.
#
#   . /path/to/bundle/weft-env.sh            (bash, zsh, ksh)
#   eval "$(/path/to/bundle/weft-env.sh)"    (any POSIX shell: run, it
#                                             prints the settings)
#
# Every path is taken from where this file is now, never from where the
# bundle was built, so the folder keeps working after a mv or a copy.
# Plain sh: the target machine may have no bash.

# Where this file is: bash names a sourced file in BASH_SOURCE; run as a
# program its path is $0; sourced by another shell, the caller (bin/weft)
# says where in WEFT_HOME.
# shellcheck disable=SC3028
weft_env_self=${BASH_SOURCE:-$0}
weft_env_print=0
case "$weft_env_self" in
*weft-env.sh)
    [ "$weft_env_self" = "$0" ] && weft_env_print=1
    weft_env_home=$(cd "$(dirname "$weft_env_self")" && pwd -P) ;;
*)
    weft_env_home=${WEFT_HOME:-} ;;
esac
if [ -z "$weft_env_home" ] || [ ! -d "$weft_env_home/lib" ]; then
    echo "weft-env.sh: cannot tell where the bundle is; source this file from bash, or run it: eval \"\$(/path/to/bundle/weft-env.sh)\"" >&2
    # return when sourced, exit when run
    return 1 2>/dev/null || exit 1
fi

export WEFT_HOME="$weft_env_home"
export PATH="$WEFT_HOME/bin${PATH:+:$PATH}"
# No LD_LIBRARY_PATH: each program of the bundle is a script that starts
# it through the bundle's glibc loader with the bundle's libraries
# (gpu-bundle.sh). Those libraries need that glibc, so on the library path
# of this machine's own programs (the shell, timeout) they could stop them.

# libfabric's DL providers: the bundle's folder (perhaps empty) replaces
# the compiled-in one, which on the target could hold another libfabric's.
export FI_PROVIDER_PATH="$WEFT_HOME/lib/libfabric"
# PMIx finds its plug-ins, parameter file and help texts in its install
# folders, which it takes from these variables before its compiled-in
# ones; Debian's are absolute, not under the prefix, so each is named.
export PMIX_PREFIX="$WEFT_HOME/lib/pmix2"
export PMIX_LIBDIR="$PMIX_PREFIX/lib" PMIX_PKGLIBDIR="$PMIX_PREFIX/lib/pmix"
export PMIX_SYSCONFDIR="$PMIX_PREFIX/share" PMIX_DATADIR="$PMIX_PREFIX/share"
export PMIX_PKGDATADIR="$PMIX_PREFIX/share/pmix"
# Its plug-in search path also names the compiled-in folder itself.
export PMIX_MCA_mca_base_component_path="$PMIX_PKGLIBDIR"
# hwloc opens every plug-in of this folder when a topology is loaded.
export HWLOC_PLUGINS_PATH="$WEFT_HOME/lib/hwloc"

# Which glibc the programs use. Said when run, or sourced by a person;
# bin/weft and run-gpu-tests.sh source this file quietly.
weft_env_glibc=
[ -f "$WEFT_HOME/lib/glibc/version" ] && read -r weft_env_glibc <"$WEFT_HOME/lib/glibc/version"
case "$weft_env_print$-" in
1* | *i*)
    weft_env_have=$(getconf GNU_LIBC_VERSION 2>/dev/null) || weft_env_have='a glibc'
    echo "weft-env.sh: the bundle's programs start through its own loader, $WEFT_HOME/lib/glibc/ld-linux-x86-64.so.2 (glibc ${weft_env_glibc:-?}); this machine's ${weft_env_have} is not used by them" >&2 ;;
esac

if [ "$weft_env_print" = 1 ]; then
    for weft_env_v in WEFT_HOME PATH FI_PROVIDER_PATH \
        PMIX_PREFIX PMIX_LIBDIR PMIX_PKGLIBDIR PMIX_SYSCONFDIR PMIX_DATADIR \
        PMIX_PKGDATADIR PMIX_MCA_mca_base_component_path HWLOC_PLUGINS_PATH; do
        eval "weft_env_x=\${$weft_env_v}"
        # single-quoted for eval, a quote inside as '\''
        printf "export %s='%s'\n" "$weft_env_v" \
            "$(printf '%s' "$weft_env_x" | sed "s/'/'\\\\''/g")"
    done
fi
unset weft_env_self weft_env_home weft_env_print weft_env_v weft_env_x \
    weft_env_have weft_env_glibc
