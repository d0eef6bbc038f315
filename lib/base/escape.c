/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

static bool plain(unsigned char c) {
        return c >= 0x20 && c < 0x7f && c != '\\';
}

size_t str_escape_byte(unsigned char c, char out[static 5]) {
        static const char hex[] = "0123456789abcdef";

        if (plain(c)) {
                out[0] = (char)c;
                return 1;
        }
        if (c == '\\') {
                out[0] = out[1] = '\\';
                return 2;
        }
        out[0] = '\\';
        out[1] = 'x';
        out[2] = hex[c >> 4];
        out[3] = hex[c & 15];
        return 4;
}

size_t str_escaped_len(const char *s) {
        size_t n = 0;
        char tmp[5];

        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                n += str_escape_byte(*p, tmp);
        return n;
}

const char *str_escape(const char *s, char *buf, size_t size) {
        /* when it does not all fit, keep room for "..." and stop at an escape boundary */
        size_t limit = str_escaped_len(s) < size ? size - 1 : size >= 4 ? size - 4 : 0, n = 0;
        char tmp[5];

        if (size == 0)
                return buf;
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                size_t k = str_escape_byte(*p, tmp);
                if (n + k > limit) {
                        if (size >= 4) {
                                memcpy(buf + n, "...", 3);
                                n += 3;
                        }
                        break;
                }
                memcpy(buf + n, tmp, k);
                n += k;
        }
        buf[n] = '\0';
        return buf;
}

int str_escape_fputs(const char *s, FILE *f) {
        const unsigned char *p = (const unsigned char *)s;
        char tmp[5];

        while (*p) {
                /* a run of bytes that stand for themselves in one write, then one escape */
                size_t run = 0;
                while (p[run] && plain(p[run]))
                        run++;
                if (run > 0 && fwrite(p, 1, run, f) != run)
                        return -EIO;
                p += run;
                if (!*p)
                        break;
                size_t k = str_escape_byte(*p++, tmp);
                if (fwrite(tmp, 1, k, f) != k)
                        return -EIO;
        }
        return 0;
}
