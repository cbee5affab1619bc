#!/bin/bash
# kernel-tests/ccache-cc, the compiler the gate and kernel-tests/run hand
# to the kernel's make: C sources hit ccache in depend mode, and nothing
# an assembler .incbin pulls in is ever served stale (ccache 4.7.5 does
# not notice .incbin in depend mode; this is how it once booted the
# previous kernel's compressed image).
. "$(dirname "$0")/lib.bash"

cc=$top/kernel-tests/ccache-cc
export CCACHE_DIR=$tmp/ccache
mkdir -p "$tmp/a" "$tmp/b"
cd "$tmp" || exit 1

# compile DIR SRC: as kbuild does, with -Wp,-MMD; prints the status.
compile() {
	local status=0
	(cd "$1" && "$cc" -Wp,-MMD,.obj.o.d -I"$tmp/inc" -c -o obj.o "$tmp/$2") >"$tmp/cc.log" 2>&1 ||
		status=$?
	echo "$status"
}
stat_of() { # direct_cache_hit | cache_miss | ...
	ccache --print-stats | awk -F'\t' -v k="$1" '$1 == k { print $2 }'
}

mkdir -p inc
printf '#define GREETING "hello"\n' >inc/greeting.h
printf '#include "greeting.h"\nconst char *greeting(void) { return GREETING; }\n' >plain.c

ccache --zero-stats >/dev/null
expect_eq "plain C: first compile" 0 "$(compile a plain.c)"
expect_eq "plain C: a second build directory" 0 "$(compile b plain.c)"
expect_eq "plain C: the second compile is a direct hit, no preprocessor run" 1 \
	"$(stat_of direct_cache_hit)"
expect_eq "plain C: the same object" "$(sha256sum <a/obj.o)" "$(sha256sum <b/obj.o)"

printf '#define GREETING "goodbye"\n' >inc/greeting.h
compile b plain.c >/dev/null
expect_contains "plain C: a changed header is compiled again" goodbye "$(strings b/obj.o)"

# .incbin from a header, as an inline-asm macro would bring it
printf 'PAYLOAD-ONE' >payload.bin
printf '#define EMBED(f) asm(".section .rodata\\n.incbin \\"" f "\\"\\n.previous")\n' >inc/embed.h
printf '#include "embed.h"\nEMBED("%s/payload.bin");\n' "$tmp" >embed.c
expect_eq "C with .incbin: first compile" 0 "$(compile a embed.c)"
expect_contains "C with .incbin: the payload is in the object" PAYLOAD-ONE "$(strings a/obj.o)"
printf 'PAYLOAD-TWO' >payload.bin
expect_eq "C with .incbin: compile after the payload changed" 0 "$(compile a embed.c)"
expect_contains "C with .incbin: the new payload, not the cached one" PAYLOAD-TWO "$(strings a/obj.o)"

# .incbin in an assembler source, as arch/x86/boot/compressed/piggy.S
printf 'PIGGY-ONE' >payload.bin
printf '.section .rodata\n.incbin "%s/payload.bin"\n' "$tmp" >piggy.S
compile a piggy.S >/dev/null
printf 'PIGGY-TWO' >payload.bin
expect_eq "assembler with .incbin: compile after the payload changed" 0 "$(compile b piggy.S)"
expect_contains "assembler with .incbin: the new payload" PIGGY-TWO "$(strings b/obj.o)"

# A compile error is the compiler's, with its status.
printf 'int broken(void) { return }\n' >broken.c
expect_eq "a compile error: non-zero status" 1 "$(compile a broken.c)"
expect_contains "a compile error: gcc's message" "error:" "$(cat "$tmp/cc.log")"
