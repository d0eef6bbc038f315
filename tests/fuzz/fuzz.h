/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* What every libFuzzer target of tests/fuzz shares. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "limitsconf.h"

/* A promise of the code under test: abort (the fuzzer keeps the input) when it is broken. */
#define CHECK(cond)                                                                        \
        do {                                                                               \
                if (!(cond)) {                                                             \
                        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
                        abort();                                                           \
                }                                                                          \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The releases of names, n of them, into out (room for n): a name lc_flavour_from_string()
 * does not know aborts, and so does an empty list (a loop that runs zero times tests
 * nothing).  Returns n. */
static inline size_t fuzz_flavours(const char *target, const char *const *names, size_t n, enum lc_flavour *out) {
        for (size_t i = 0; i < n; i++)
                if (lc_flavour_from_string(names[i], &out[i]) < 0) {
                        fprintf(stderr, "%s: unknown flavour %s\n", target, names[i]);
                        abort();
                }
        CHECK(n > 0);
        return n;
}
