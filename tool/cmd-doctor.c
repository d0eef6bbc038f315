/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "tool.h"

int cmd_doctor(struct ctx *c) {
        log_error("doctor: not built yet");
        return EXIT_FINDINGS;
}
