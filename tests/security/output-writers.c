/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bytes through the writers of tool/output.c, for test-output-parse.sh to parse:
 *   output-writers json SEED N   one JSON document a line: {"hex": the bytes in hex, "s":
 *                                json_str(), "keyed": {json_key(): 1}, "lines": json_klines()}
 *   output-writers prom SEED N   one Prometheus sample a line, the bytes as a label value
 * The cases: each byte 0x01..0xff alone, all of them in a row, then N strings of 0 to 64
 * random bytes (no NUL: C strings) from SEED.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "size.h"

static uint64_t state;

static unsigned rnd(unsigned n) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return (unsigned)(state % n);
}

/* case i into s (at least 256 bytes), NUL-terminated */
static void make_case(unsigned i, unsigned char *s) {
        size_t n = 0;
        if (i < 255)
                s[n++] = (unsigned char)(i + 1);
        else if (i == 255)
                for (unsigned b = 1; b < 256; b++)
                        s[n++] = (unsigned char)b;
        else
                for (unsigned len = rnd(65); n < len;)
                        s[n++] = (unsigned char)(1 + rnd(255));
        s[n] = 0;
}

static void hex(const unsigned char *s, char *out) {
        for (; *s; s++, out += 2)
                sprintf(out, "%02x", *s);
        *out = 0;
}

int main(int argc, char **argv) {
        unsigned char s[512];
        char h[1024];
        uint32_t seed, n;

        if (argc != 4 || (strcmp(argv[1], "json") && strcmp(argv[1], "prom")) || parse_u32(argv[2], &seed) < 0 ||
            parse_u32(argv[3], &n) < 0) {
                fprintf(stderr, "usage: output-writers json|prom SEED N\n");
                return 2;
        }
        state = 0x9e3779b97f4a7c15u ^ seed;
        bool json = !strcmp(argv[1], "json");
        if (!json)
                printf("# HELP t_bytes Label values of arbitrary bytes.\n# TYPE t_bytes gauge\n");
        for (unsigned i = 0; i < 256 + n; i++) {
                make_case(i, s);
                hex(s, h);
                if (json) {
                        struct json j;
                        json_doc_begin(&j);
                        json_kstr(&j, "hex", h);
                        json_kstr(&j, "s", (const char *)s);
                        json_kobj_begin(&j, "keyed");
                        json_ku64(&j, (const char *)s, 1);
                        json_obj_end(&j);
                        json_klines(&j, "lines", (const char *)s);
                        json_doc_end(&j);
                } else {
                        printf("t_bytes{case=\"%u\",hex=\"%s\",v=", i, h);
                        prom_label_value(stdout, (const char *)s);
                        printf("} 1\n");
                }
        }
        return fflush(stdout) == 0 ? 0 : 1;
}
