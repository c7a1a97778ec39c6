#!/bin/sh
# Install the current build tree into a temporary prefix, then build and run
# the consumer project against it three ways: CMake find_package, pkg-config,
# and a plain -lrtpi link of a librtpi program.
#   run_consumer.sh BUILD_DIR CONSUMER_SRC CC LIBDIR SANITIZE GENERATOR [CXX]
# With CXX, also a librtpi C++ program (<rtpi/mutex.hpp>, <rtpi/condition_variable.hpp>).
set -eu
build=$1 src=$2 cc=$3 libdir=$4 sanitize=$5 generator=$6 cxx=${7:-}

if [ -n "$sanitize" ]; then
	echo "SKIP: sanitizer build ($sanitize): the installed library needs the sanitizer runtime"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtsched-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

step() { echo "== $*"; }

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
test -f "$prefix/include/rtsched/rtsched.h"
test -f "$prefix/include/rtsched/version.h"
test -f "$prefix/include/rtpi.h"
test -f "$prefix/include/rtpi/mutex.hpp"
test -f "$prefix/include/rtpi/condition_variable.hpp"
test -f "$prefix/include/litmus.h"
test -f "$prefix/$libdir/cmake/rtsched/rtschedConfig.cmake"

export LD_LIBRARY_PATH="$prefix/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

step "find_package(rtsched) build"
cmake -S "$src" -B "$tmp/build" -G "$generator" -DCMAKE_C_COMPILER="$cc" \
	-DCMAKE_PREFIX_PATH="$prefix" >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/build"
"$tmp/build/app"
"$tmp/build/app_static"
"$tmp/build/rtpi_app"
test -x "$tmp/build/litmus_app" # built only: it runs as test_litmus_app (real-time)

if command -v pkg-config >/dev/null 2>&1; then
	export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
	# The .pc files carry the configure-time prefix; point them at this one.
	pc="pkg-config --define-variable=prefix=$prefix"
	step "pkg-config rtsched build: $($pc --cflags --libs rtsched)"
	# shellcheck disable=SC2046
	"$cc" "$src/app.c" -o "$tmp/app_pc" $($pc --cflags --libs rtsched) -pthread
	"$tmp/app_pc"
	step "pkg-config librtpi build: $($pc --cflags --libs librtpi)"
	# shellcheck disable=SC2046
	"$cc" "$src/rtpi_app.c" -o "$tmp/rtpi_pc" $($pc --cflags --libs librtpi) -pthread
	"$tmp/rtpi_pc"
	if [ "$(pkg-config --variable=prefix rtsched)" != "$prefix" ]; then
		echo "note: rtsched.pc says prefix=$(pkg-config --variable=prefix rtsched), not relocatable"
	fi
else
	echo "note: no pkg-config, pkg-config builds not tried"
fi

step "plain -lrtpi build"
"$cc" "$src/rtpi_app.c" -o "$tmp/rtpi_plain" -I"$prefix/include" -L"$prefix/$libdir" -lrtpi \
	-Wl,-rpath-link,"$prefix/$libdir" -pthread
"$tmp/rtpi_plain"

step "plain -llitmus build of a LITMUS^RT program (built only)"
"$cc" "$src/litmus_app.c" -o "$tmp/litmus_plain" -I"$prefix/include" -L"$prefix/$libdir" -llitmus \
	-Wl,-rpath-link,"$prefix/$libdir" -pthread
test -x "$tmp/litmus_plain"

if [ -n "$cxx" ]; then
	step "plain -lrtpi build of a librtpi C++ program"
	"$cxx" "$src/rtpi_cxx_app.cpp" -o "$tmp/rtpi_cxx_plain" -I"$prefix/include" -L"$prefix/$libdir" \
		-lrtpi -Wl,-rpath-link,"$prefix/$libdir" -pthread
	"$tmp/rtpi_cxx_plain"
else
	echo "note: no C++ compiler, the librtpi C++ program not tried"
fi
echo "consumer: all builds ok"
