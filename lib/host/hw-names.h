/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* The names rdmalimits shows for the numbers of sysfs and libibverbs (enum ibv_port_state,
 * the link layer, enum ibv_node_type). */

const char *hw_port_state_name(int state);   /* "ACTIVE", ... "UNKNOWN" */
const char *hw_link_layer_name(int ll);      /* "InfiniBand", "Ethernet", "unspecified" */
const char *hw_node_type_name(int nt);       /* "CA", ... "unknown" */
