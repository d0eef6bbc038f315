/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fault.c compiled into a test program (fault.h), with the allocators interposed too. */
#define FAULT_ALLOC 1
#include "fault.c"
