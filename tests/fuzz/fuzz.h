/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* What every libFuzzer target of tests/fuzz shares. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A promise of the code under test: abort (the fuzzer keeps the input) when it is broken. */
#define CHECK(cond)                                                                        \
        do {                                                                               \
                if (!(cond)) {                                                             \
                        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
                        abort();                                                           \
                }                                                                          \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
