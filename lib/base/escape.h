/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * Escaping of bytes that come from users (PAM_USER, /proc/PID/comm, names from NSS, file
 * contents) before they reach a log line or a terminal: every byte below 0x20, 0x7f, every
 * byte of 0x80 and above, and the backslash itself become \xHH (\\ for the backslash), so a
 * newline, an escape sequence or a byte that is not ASCII can neither start a forged log line
 * nor move an admin's cursor.  Printable ASCII is kept as it is.
 *
 * This is the one escaper of the project: every output that carries such bytes goes through
 * str_escape_byte(), whatever its format.  Text and log lines are its output as it is.  A JSON
 * string is its output with '"' and '\\' written as \" and \\ (tool/output.c json_str(): the
 * byte 0xff is the JSON text "\\xff", the string \xff once parsed), so JSON is pure ASCII; a
 * Prometheus label value likewise (prom_label_value()).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The escaped form of the byte c into out (not NUL-terminated): 1, 2 or 4 bytes, returned. */
size_t str_escape_byte(unsigned char c, char out[static 5]);

/* s escaped onto f, never cut.  0 or -EIO. */
int str_escape_fputs(const char *s, FILE *f);

/* Bytes that str_escape() writes for s, without the terminating NUL. */
size_t str_escaped_len(const char *s);

/* s escaped into buf[size], NUL-terminated; a result that does not fit is cut at an escape
 * boundary and ends in "..." (size >= 4).  Returns buf. */
const char *str_escape(const char *s, char *buf, size_t size);

/* For a fixed-size log field: a name of up to 64 bytes, escaped, fits. */
#define ESCAPE_NAME_MAX (64 * 4 + 4)
