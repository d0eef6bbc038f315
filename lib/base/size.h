/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The one number parser of the project.  Nothing else calls strto*()/atoi()/sscanf().
 *
 * Strict parsers (for the CLI and the policy) refuse empty strings, signs, leading or
 * trailing junk and overflow.  The c_strtou*() functions reproduce what the C library's
 * strtoul()/strtoull() do, for modelling how pam_limits reads its files; they are used
 * nowhere else.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* RLIM_INFINITY on Linux; "unlimited" everywhere in this project. */
#define SIZE_INFINITY UINT64_MAX

/* Longest string size_format() writes, with the NUL. */
#define SIZE_FMT_MAX 32

/*
 * Parse a size with a unit: B, K, KiB, M, MiB, G, GiB, T, TiB (powers of 1024; the unit's
 * case does not matter), or "unlimited"/"infinity" (SIZE_INFINITY).  "0" needs no unit.
 * Errors: -EINVAL (empty, sign, junk, unknown unit, fraction), -ERANGE (overflow or a value
 * equal to SIZE_INFINITY), -EDOM (a bare number without a unit: see size_hint()).
 * *ret is untouched on error.
 */
int size_parse(const char *s, uint64_t *ret);

/* A one-line explanation for a size_parse() error, e.g. the KiB hint for -EDOM. */
const char *size_hint(int error);

/*
 * A systemd limit size (LimitMEMLOCK=, DefaultLimitMEMLOCK=) as systemd reads it (parse_size()
 * with base 1024, then rlimit_parse_size()): "infinity", or numbers with an exact-case suffix
 * E P T G M K B or none (powers of 1024), added up ("1G 512M"), each suffix smaller than the one
 * before; a decimal fraction ("1.5G": its bytes truncated); blanks before a number and before its
 * suffix ("512 M"), none after a suffix; a '+' sign.  -ERANGE for a '-' sign, an overflow, or
 * 2^64-1 (infinity only by name); -EINVAL for the rest.
 */
int size_parse_systemd(const char *s, uint64_t *ret);

/* The decimal digits at the start of s (at least one; -EINVAL without, -ERANGE on
 * overflow); *ret_end, when not NULL, points after them.  For fields inside a text. */
int parse_u64_prefix(const char *s, uint64_t *ret, const char **ret_end);

/* Strict decimal integers: digits only, no sign, no junk, no overflow. */
int parse_u64(const char *s, uint64_t *ret);
int parse_u32(const char *s, uint32_t *ret);

/*
 * Bytes as a human string: "unlimited", the largest exact binary unit ("1 GiB", "64 KiB",
 * "4097 B"), never rounded.  Returns buf.
 */
char *size_format(uint64_t bytes, char buf[static SIZE_FMT_MAX]);

/* The same in the unit-suffix form the CLI and the policy accept ("1G", "64K", "4097B"). */
char *size_format_arg(uint64_t bytes, char buf[static SIZE_FMT_MAX]);

/* The same in the form systemd accepts in LimitMEMLOCK= ("1G", "infinity"). */
char *size_format_systemd(uint64_t bytes, char buf[static SIZE_FMT_MAX]);

/*
 * C library emulation, base 10: skips leading isspace(), accepts one '+' or '-' (a '-'
 * negates in unsigned arithmetic), saturates at the type's maximum on overflow.  *ret_end
 * points after the last digit consumed, or at s when no digit was read.  *ret_erange is
 * set when the value overflowed.
 */
unsigned long long c_strtoull(const char *s, const char **ret_end, bool *ret_erange);
unsigned long c_strtoul(const char *s, const char **ret_end, bool *ret_erange);
long c_strtol(const char *s, const char **ret_end, bool *ret_erange);
