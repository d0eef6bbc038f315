/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "tool.h"

int cmd_probe(struct ctx *c) {
        log_error("probe: the hardware probe is not available in this build yet");
        return EXIT_FINDINGS;
}
