/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * libmnl, opened with dlopen() by whoever needs netlink: the module's live probe (hw.c) and
 * the tool's status view (lib/model/status.c).  Nothing links libmnl, so a machine without it
 * still logs in and runs the tool; only the netlink answers are missing.  Its soname comes
 * from configure (config.h).  Built without libmnl (--disable-xdp), there is nothing here.
 */
#include "config.h"

#ifdef HAVE_LIBMNL
#include <libmnl/libmnl.h>

/* The libmnl functions the project calls, typed by libmnl's own declarations. */
struct mnl_fns {
        void *handle;
        __typeof__(mnl_socket_open2) *socket_open2;
        __typeof__(mnl_socket_bind) *socket_bind;
        __typeof__(mnl_socket_close) *socket_close;
        __typeof__(mnl_socket_get_portid) *socket_get_portid;
        __typeof__(mnl_socket_get_fd) *socket_get_fd;
        __typeof__(mnl_socket_sendto) *socket_sendto;
        __typeof__(mnl_socket_recvfrom) *socket_recvfrom;
        __typeof__(mnl_cb_run) *cb_run;
        __typeof__(mnl_nlmsg_put_header) *nlmsg_put_header;
        __typeof__(mnl_nlmsg_put_extra_header) *nlmsg_put_extra_header;
        __typeof__(mnl_attr_get_type) *attr_get_type;
        __typeof__(mnl_attr_validate) *attr_validate;
        __typeof__(mnl_attr_parse) *attr_parse;
        __typeof__(mnl_attr_get_u16) *attr_get_u16;
        __typeof__(mnl_attr_get_u32) *attr_get_u32;
        __typeof__(mnl_attr_get_u64) *attr_get_u64;
        __typeof__(mnl_attr_put_strz_check) *attr_put_strz_check;
};

/* 0, -ELIBACC when libmnl cannot be opened, -ELIBBAD when it lacks a function; on failure
 * nothing stays open.  mnl_unload() closes it (and may be called on a zeroed table). */
int mnl_load(struct mnl_fns *f);
void mnl_unload(struct mnl_fns *f);

/* A netlink socket of bus, close-on-exec and bound with an automatic port id; -errno. */
int mnl_open(const struct mnl_fns *f, int bus, struct mnl_socket **ret);
#endif
