#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracefs for the tests that need it (tracepoints, perf probe, perf sched), as a ctest fixture
# (tests/lib/CMakeLists.txt: FIXTURES_SETUP/FIXTURES_CLEANUP tracefs): whether a test finds
# tracefs must not depend on which test ran before it, and the machine's mounts are left as they
# were.
#
#   tracefs-fixture.sh setup STATE     mounts tracefs at /sys/kernel/tracing when it is not there,
#                                      and writes in STATE whether it did
#   tracefs-fixture.sh cleanup STATE   unmounts it again when setup mounted it
#
# setup exits 77 (skip) when tracefs cannot be mounted here (not root, or a kernel without it); the
# tests that need it then skip on their own look at the filesystem (perf_probe tracepoint:...).
# perf and perftop mount tracefs themselves where it is absent and never unmount it: with the
# fixture around them they find it mounted, and cleanup takes away what setup put there.
root=/sys/kernel/tracing
what=$1 state=$2
[ -n "$state" ] || { echo "usage: $0 setup|cleanup STATE_FILE" >&2; exit 2; }
case $what in
setup)
	mkdir -p "$(dirname "$state")"
	if [ -d "$root/events" ]; then
		# Mounted by an earlier setup whose cleanup never ran (an interrupted ctest): still ours.
		if [ "$(cat "$state" 2>/dev/null)" = mounted ]; then
			echo "tracefs at $root: mounted by an earlier run of this fixture, unmounted at cleanup"
		else
			echo present >"$state"
			echo "tracefs at $root: already mounted, left as it is"
		fi
		exit 0
	fi
	rm -f "$state"
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: tracefs is not mounted at $root and mounting it needs root"
		exit 77
	fi
	if ! grep -qw tracefs /proc/filesystems; then
		echo "SKIP: this kernel has no tracefs (not in /proc/filesystems)"
		exit 77
	fi
	if ! err=$(mount -t tracefs nodev "$root" 2>&1) || [ ! -d "$root/events" ]; then
		echo "SKIP: tracefs cannot be mounted at $root: $err"
		exit 77
	fi
	echo mounted >"$state"
	echo "tracefs mounted at $root (unmounted at cleanup)"
	;;
cleanup)
	if [ "$(cat "$state" 2>/dev/null)" = mounted ]; then
		if ! err=$(umount "$root" 2>&1); then
			# Something of the tests still holds it: a process they left behind.
			echo "FAIL: cannot unmount tracefs at $root: $err"
			fuser -vm "$root" 2>&1 | head -20
			exit 1
		fi
		echo "tracefs at $root unmounted, as it was before setup"
	else
		echo "tracefs at $root left as setup found it"
	fi
	rm -f "$state"
	;;
*)
	echo "usage: $0 setup|cleanup STATE_FILE" >&2
	exit 2
	;;
esac
