/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <stddef.h>

#include "hw-names.h"
#include "macro.h"

static const char *name_of(const char *const *names, size_t n, int i, const char *other) {
        return i >= 0 && (size_t)i < n && names[i] ? names[i] : other;
}

const char *hw_port_state_name(int state) {
        static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };
        return name_of(names, ELEMENTSOF(names), state, "UNKNOWN");
}

const char *hw_link_layer_name(int ll) {
        static const char *const names[] = { [1] = "InfiniBand", [2] = "Ethernet" };
        return name_of(names, ELEMENTSOF(names), ll, "unspecified");
}

const char *hw_node_type_name(int nt) {
        static const char *const names[] = {
                [1] = "CA", "switch", "router", "RNIC", "usNIC", "usNIC_UDP", "unspecified",
        };
        return name_of(names, ELEMENTSOF(names), nt, "unknown");
}
