/* SPDX-License-Identifier: MIT */
/*
 * What the tools' option parsers share: strict number parsers and the
 * getopt_long epilogue (a missing value, an unknown option, a stray operand).
 */
#ifndef RTS_TOOLS_OPTS_H
#define RTS_TOOLS_OPTS_H

#include <stddef.h>
#include <stdint.h>

/*
 * A decimal integer in [min, max] and nothing else (no sign, no blanks, no
 * suffix). text may be NULL (a missing value). Returns 0 or EINVAL.
 */
int opts_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);
/* A finite number in [min, max] and nothing else; text may be NULL. Returns 0 or EINVAL. */
int opts_parse_double(const char *text, double min, double max, double *out);

/*
 * getopt_long(argc, argv, ":", ...) returned c, no option of the caller's:
 * ':' is a missing value ("--x needs a value"), anything else an unknown
 * option ("unknown option '--x'"). Writes the message into err.
 */
void opts_bad_option(int c, char *const argv[], char *err, size_t err_size);
/* Once getopt_long returned -1: EINVAL and "unexpected argument 'x'" if an operand is left, else 0. */
int opts_no_operands(int argc, char *const argv[], char *err, size_t err_size);

#endif
