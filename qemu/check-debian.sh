#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debian: does the series build where users build it?
#
#  debian   Debian's own amd64 config (package linux-config-6.12) with
#           CONFIG_PAGE_PREZERO=y and =n: every object the series touches
#           compiles with W=1, and has no W=1 warning that the same object
#           of the unpatched tree does not have.
#  module   the module sources compile against the PAGE_PREZERO=y build.
#  configs  the test config (tinyconfig + qemu/kernel.config + the series'
#           options) with each fragment of qemu/check-configs/ merged on
#           top builds vmlinux; every option a fragment asks for must
#           survive olddefconfig.
#  dkms     qemu/check-dkms.sh: dkms add/build of module/ (dkms.conf)
#           against the PAGE_PREZERO=y build, in a private dkms tree.
#
# usage: check-debian.sh [debian|module|configs|dkms ...]   (default: all)
#
# Everything lives under $KSCRUB_CACHE/check-debian (~/.cache/kscrub), out
# of the repository.  A step whose inputs (tarball, series, config, this
# script, its fragment) are unchanged and that passed before is not
# rebuilt: a stamp holding the hash of its inputs says so.  Compiles run
# under nice -n 19.  Ends with "N passed, N failed".
set -uo pipefail
export LC_ALL=C	# plain quotes in compiler messages, whatever the locale

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KSCRUB_CACHE:-$HOME/.cache/kscrub}
work=$cache/check-debian
tarball=${KSCRUB_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
debcfg=${KSCRUB_DEBIAN_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_amd64.xz}
jobs=${KSCRUB_JOBS:-$(nproc)}
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(debian module configs dkms)

pass=0
failn=0
log() { echo "check-debian: $*" >&2; }
result() {	# result NAME PASS|FAIL [why]
	printf '%-52s %s%s\n' "$1" "$2" "${3:+  ($3)}"
	if [ "$2" = PASS ]; then pass=$((pass + 1)); else failn=$((failn + 1)); fi
}
kmake() { nice -n 19 make -s "$@"; }
now() { date +%s; }

# Install what is missing, as qemu/deps.sh does.
need_pkgs() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}

need_pkgs linux-source-6.12 linux-config-6.12 gcc make bc flex bison \
	libelf-dev libssl-dev xz-utils || exit 1
[ -r "$tarball" ] || { log "missing $tarball"; exit 1; }
[ -r "$debcfg" ] || { log "missing $debcfg"; exit 1; }

patches=()
for p in "$top"/hook-patch/*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	[ -e "$p" ] && patches+=("$p")
done

tarkey=$(stat -c '%s %Y' "$tarball" | sha256sum | cut -c1-16)
serieskey=$( { echo "$tarkey"; for p in "${patches[@]}"; do sha256sum < "$p"; done; } |
	sha256sum | cut -c1-16)
# Bump a step's version when what it does changes, so that its stamps go.
v_debian=debian-1 v_module=module-1 v_configs=configs-1 v_dkms=dkms-1
mkdir -p "$work"

# tree DIR [patches...]: extract the tarball into DIR, apply the patches.
# Kept between runs; trees of other keys are removed.
make_tree() {
	local tree=$1 p
	shift
	[ -f "$tree/.kscrub-tree" ] && return 0
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	log "extracting $(basename "$tarball") into $tree"
	tar -xf "$tarball" -C "$tree.tmp" --strip-components=1
	for p in "$@"; do
		patch -d "$tree.tmp" -p1 --quiet --forward --batch < "$p" >&2 ||
			{ log "FAILED to apply $(basename "$p")"; return 1; }
	done
	touch "$tree.tmp/.kscrub-tree"
	mv "$tree.tmp" "$tree"
}
base_tree=$work/tree-base-$tarkey
ser_tree=$work/tree-$serieskey
for t in "$work"/tree-*; do
	case $t in "$base_tree"|"$ser_tree") ;; *) [ -e "$t" ] && rm -rf "$t" ;; esac
done
make_tree "$base_tree" || exit 1
make_tree "$ser_tree" "${patches[@]}" || { result host/series-applies FAIL; exit 1; }

# --- Debian's config, W=1 ----------------------------------------------------
# Objects the series touches, or that take blocks off the free lists, and
# the option that builds each.
objects=(
	mm/page_alloc.o:y mm/mm_init.o:y mm/vmstat.o:y mm/show_mem.o:y
	mm/memory.o:MMU mm/page_prezero.o:PAGE_PREZERO
	mm/huge_memory.o:TRANSPARENT_HUGEPAGE mm/shuffle.o:SHUFFLE_PAGE_ALLOCATOR
	mm/compaction.o:COMPACTION mm/page_reporting.o:PAGE_REPORTING
	mm/page_isolation.o:MEMORY_ISOLATION mm/memory-failure.o:MEMORY_FAILURE
	mm/memory_hotplug.o:MEMORY_HOTPLUG fs/proc/meminfo.o:PROC_FS
	drivers/base/node.o:NUMA
)
# Changes to Debian's config, all of them needed only because this is not
# Debian's build machine: no Debian certificates to embed (empty key
# lists; modules get an auto-generated key), no pahole (no BTF).
deb_adjust=(--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
	--set-str MODULE_SIG_KEY certs/signing_key.pem --disable DEBUG_INFO_BTF)

# Compiler warnings, normalised: tree path, line and column numbers and
# objtool offsets removed, so that base and patched compare.  Host tools
# (scripts/, e.g. genksyms' bison conflicts) are not the series' business.
normalise() {	# normalise TREE BUILD < make output
	sed -e "s|$1/||g" -e "s|$2/||g" |
		grep -E '(warning|error): ' | grep -v '^scripts/' |
		sed -E -e 's/:[0-9]+:[0-9]+:/:/' -e 's/:[0-9]+:/:/' \
			-e 's/\+0x[0-9a-f]+(\/0x[0-9a-f]+)?//g' |
		sort
}

# variant NAME TREE y|n|base: configure Debian's config in build-NAME and
# compile the objects with W=1; leaves warnings in build-NAME/warnings.
debian_variant() {
	local name=$1 tree=$2 pz=$3 b key start o opt objs=() rc=0
	b=$work/build-$name
	key=$( { echo "$v_debian $tree $pz ${deb_adjust[*]} ${objects[*]}"; sha256sum < "$debcfg"; } |
		sha256sum | cut -c1-16)
	if [ -f "$b/.kscrub-stamp" ] && [ "$(cat "$b/.kscrub-stamp")" = "$key" ]; then
		log "$name: cached ($b)"
		return 0
	fi
	rm -f "$b/.kscrub-stamp" "$b/.kscrub-modules-prepared"
	# A build directory made from another tree is started afresh.
	[ "$(readlink "$b/source" 2>/dev/null)" = "$tree" ] || rm -rf "$b"
	mkdir -p "$b"
	start=$(now)
	xz -dc "$debcfg" > "$b/.config"
	"$tree/scripts/config" --file "$b/.config" "${deb_adjust[@]}"
	case $pz in
	y) "$tree/scripts/config" --file "$b/.config" --enable PAGE_PREZERO ;;
	n) "$tree/scripts/config" --file "$b/.config" --disable PAGE_PREZERO ;;
	esac
	kmake -C "$tree" O="$b" olddefconfig >&2 || return 1
	case $pz in
	y) grep -qx 'CONFIG_PAGE_PREZERO=y' "$b/.config" || { log "PAGE_PREZERO lost"; return 1; } ;;
	*) ! grep -q '^CONFIG_PAGE_PREZERO=' "$b/.config" || { log "PAGE_PREZERO on"; return 1; } ;;
	esac
	for o in "${objects[@]}"; do
		opt=${o#*:}
		[ "$opt" = y ] || grep -q "^CONFIG_$opt=y" "$b/.config" || continue
		objs+=("${o%%:*}")
	done
	# Up-to-date objects print no warnings: compile them all again.
	for o in "${objs[@]}"; do rm -f "$b/$o"; done
	log "$name: make W=1 ${objs[*]}"
	# -k: every object is tried; warnings and errors go to build.log.
	kmake -C "$tree" O="$b" -j"$jobs" -k W=1 "${objs[@]}" > "$b/build.log" 2>&1 || rc=1
	normalise "$tree" "$b" < "$b/build.log" > "$b/warnings"
	printf '%s\n' "${objs[@]}" > "$b/objects"
	log "$name: $(wc -l < "$b/warnings") warnings, $(( $(now) - start )) s"
	if [ $rc != 0 ]; then
		grep -E 'error|Error' "$b/build.log" | head -n 30 | sed 's/^/    /' >&2
		return 1
	fi
	echo "$key" > "$b/.kscrub-stamp"
}

check_debian() {
	local v new
	if ! debian_variant base "$base_tree" base; then
		result debian/base-builds FAIL "see $work/build-base/build.log"
		return
	fi
	for v in y n; do
		if ! debian_variant "prezero-$v" "$ser_tree" "$v"; then
			result "debian/prezero-$v/builds-w1" FAIL "see $work/build-prezero-$v/build.log"
			continue
		fi
		result "debian/prezero-$v/builds-w1" PASS "$(wc -l < "$work/build-prezero-$v/objects") objects"
		# Warnings in patched and not in base, counted (comm on sorted
		# lists keeps duplicates).
		new=$(comm -13 "$work/build-base/warnings" "$work/build-prezero-$v/warnings")
		if [ -z "$new" ]; then
			result "debian/prezero-$v/no-new-w1-warning" PASS
		else
			result "debian/prezero-$v/no-new-w1-warning" FAIL "$(echo "$new" | wc -l) new"
			echo "$new" | sed 's/^/    /'
		fi
	done
}

# --- the module against Debian's config ----------------------------------------
# Built from a copy of module/ (6.12 has no MO=; building in module/ would
# clobber the objects make test built there against the guest kernel).
# No vmlinux is built, so there is no Module.symvers: modpost's unresolved
# symbols are warnings (KBUILD_MODPOST_WARN=1) and are listed.
check_module() {
	local b=$work/build-prezero-y src=$work/module-src key rc=0
	[ -f "$b/.kscrub-stamp" ] || { result debian/module-builds FAIL "no PAGE_PREZERO=y build"; return; }
	key=$( { echo "$v_module"; cat "$b/.kscrub-stamp" "$top"/module/Kbuild "$top"/module/*.[ch]; } |
		sha256sum | cut -c1-16)
	if [ -f "$src/.kscrub-stamp" ] && [ "$(cat "$src/.kscrub-stamp")" = "$key" ]; then
		result debian/module-builds PASS cached
		return
	fi
	if [ ! -f "$b/.kscrub-modules-prepared" ]; then
		log "module: make modules_prepare"
		kmake -C "$b" -j"$jobs" modules_prepare >&2 || { result debian/module-builds FAIL "modules_prepare"; return; }
		touch "$b/.kscrub-modules-prepared"
	fi
	rm -rf "$src"
	mkdir -p "$src"
	cp "$top"/module/Kbuild "$top"/module/*.[ch] "$src/"
	rm -f "$src"/*.mod.c
	KBUILD_MODPOST_WARN=1 kmake -C "$b" -j"$jobs" W=1 M="$src" modules > "$src/build.log" 2>&1 || rc=1
	grep -E 'warning:|error:|undefined' "$src/build.log" | sed "s|$src/||g" > "$src/warnings"
	if [ $rc != 0 ]; then
		result debian/module-builds FAIL "see $src/build.log"
		grep -E 'error' "$src/build.log" | head -n 20 | sed 's/^/    /'
		return
	fi
	# Compiler warnings fail.  modpost's "undefined" lines are expected
	# without Module.symvers.
	if grep -vq 'modpost' "$src/warnings"; then
		result debian/module-builds FAIL "W=1 warnings"
		grep -v 'modpost' "$src/warnings" | sed 's/^/    /'
		return
	fi
	# What the shipped modules (those dkms.conf builds) take from the
	# series must be exported by it: a symbol they leave undefined that the
	# series names in an added line must be in an EXPORT_SYMBOL of the
	# series or of the unpatched tree.
	local sym bad=() exports=$base_tree/.kscrub-exports
	[ -f "$exports" ] || grep -rhoE --include='*.[chS]' 'EXPORT_SYMBOL(_GPL)?\(\w+\)' \
		"$base_tree" | sort -u > "$exports"
	grep -h '^+' "${patches[@]}" > "$src/series-added"
	nm --defined-only "$src/kscrubd.ko" "$src/bte_zero.ko" | awk '{ print $3 }' > "$src/defined"
	for sym in $(nm -u "$src/kscrubd.ko" "$src/bte_zero.ko" | awk '$1 == "U" { print $2 }' | sort -u); do
		grep -qxF -- "$sym" "$src/defined" && continue
		grep -qw -- "$sym" "$src/series-added" || continue
		echo "$sym" >> "$src/from-series"
		grep -qE "^\+EXPORT_SYMBOL(_GPL)?\($sym\)" "$src/series-added" && continue
		grep -qE "EXPORT_SYMBOL(_GPL)?\($sym\)" "$exports" && continue
		bad+=("$sym")
	done
	if [ ${#bad[@]} -gt 0 ]; then
		result debian/module-builds FAIL "used by the modules, not exported by the series: ${bad[*]}"
		return
	fi
	echo "$key" > "$src/.kscrub-stamp"
	result debian/module-builds PASS
}

# --- odd configs ---------------------------------------------------------------
# One build directory, one fragment after the other: switching options
# rebuilds only what depends on them.  Fragments: qemu/check-configs/*.config.
check_configs() {
	local b=$work/build-configs frag name key stamp start missing line opt val
	mkdir -p "$b"
	for frag in "$top"/qemu/check-configs/*.config; do
		name=$(basename "$frag" .config)
		stamp=$b/.kscrub-stamp-$name
		key=$( { echo "$v_configs $ser_tree"; cat "$top/qemu/kernel.config" \
			"$top/Kconfig.snippet" "$frag"; } | sha256sum | cut -c1-16)
		if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
			result "configs/$name" PASS cached
			continue
		fi
		rm -f "$stamp"
		[ "$(readlink "$b/source" 2>/dev/null)" = "$ser_tree" ] || { rm -rf "$b"; mkdir -p "$b"; }
		start=$(now)
		{ cat "$top/qemu/kernel.config"
		  sed -n 's/^config \([A-Z0-9_]*\).*/CONFIG_\1=y/p' "$top/Kconfig.snippet"
		  cat "$frag"; } > "$b/kscrub.config"
		rm -f "$b/.config"
		kmake -C "$ser_tree" O="$b" tinyconfig >&2
		"$ser_tree/scripts/kconfig/merge_config.sh" -m -O "$b" "$b/.config" \
			"$b/kscrub.config" > "$b/merge-$name.log" 2>&1
		kmake -C "$ser_tree" O="$b" olddefconfig >&2
		# Every option asked for must have survived, as the last
		# fragment to set it says (as build-kernel.sh checks).
		missing=
		while IFS= read -r line; do
			opt=${line%%=*}; val=${line#*=}
			if [ "$val" = n ]; then
				! grep -q "^$opt=" "$b/.config" || missing+=" $opt=n"
			elif ! grep -qx "$opt=$val" "$b/.config"; then
				missing+=" $line"
			fi
		done < <(sed -n -e 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1=n/p' \
				-e '/^CONFIG_[A-Z0-9_]*=/p' "$b/kscrub.config" |
			awk -F= '{ last[$1] = $0 } END { for (o in last) print last[o] }')
		if [ -n "$missing" ]; then
			result "configs/$name" FAIL "lost:$missing"
			continue
		fi
		log "configs/$name: make vmlinux"
		if ! kmake -C "$ser_tree" O="$b" -j"$jobs" vmlinux > "$b/build-$name.log" 2>&1; then
			result "configs/$name" FAIL "see $b/build-$name.log"
			grep -E 'error|Error|undefined' "$b/build-$name.log" | head -n 20 | sed 's/^/    /'
			continue
		fi
		echo "$key" > "$stamp"
		result "configs/$name" PASS "$(( $(now) - start )) s"
	done
}

check_dkms() {
	local b=$work/build-prezero-y key stamp=$work/.kscrub-dkms-stamp
	if [ ! -f "$b/.kscrub-modules-prepared" ]; then
		result dkms/add-build-install-remove FAIL "no prepared PAGE_PREZERO=y build (run the module step)"
		return
	fi
	key=$( { echo "$v_dkms"; cat "$b/.kscrub-stamp" "$work/build-prezero-n/.kscrub-stamp" \
		"$top/qemu/check-dkms.sh" "$top"/module/dkms.conf "$top"/module/Kbuild \
		"$top"/module/*.[ch]; } | sha256sum | cut -c1-16)
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
		result dkms/add-build-install-remove PASS cached
		return
	fi
	rm -f "$stamp"
	if bash "$top/qemu/check-dkms.sh" "$b" "$work/build-prezero-n"; then
		echo "$key" > "$stamp"
		result dkms/add-build-install-remove PASS
	else
		result dkms/add-build-install-remove FAIL "see $cache/check-dkms"
	fi
}

for s in "${steps[@]}"; do
	case $s in
	debian) check_debian ;;
	module) check_module ;;
	configs) check_configs ;;
	dkms) check_dkms ;;
	*) log "unknown step $s"; failn=$((failn + 1)) ;;
	esac
done

echo "$pass passed, $failn failed"
[ $failn = 0 ]
