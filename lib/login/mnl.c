/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#ifdef HAVE_LIBMNL
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"
#include "mnl.h"

/* fns->field = the symbol name of version in h, or return -ELIBBAD */
#define RESOLVE(h, fns, field, name, version) DL_ASSIGN((fns)->field, dlvsym((h), (name), (version)))

static int resolve(void *h, struct mnl_fns *f) {
        RESOLVE(h, f, socket_open2, "mnl_socket_open2", "LIBMNL_1.2");
        RESOLVE(h, f, socket_bind, "mnl_socket_bind", "LIBMNL_1.0");
        RESOLVE(h, f, socket_close, "mnl_socket_close", "LIBMNL_1.0");
        RESOLVE(h, f, socket_get_portid, "mnl_socket_get_portid", "LIBMNL_1.0");
        RESOLVE(h, f, socket_get_fd, "mnl_socket_get_fd", "LIBMNL_1.0");
        RESOLVE(h, f, socket_sendto, "mnl_socket_sendto", "LIBMNL_1.0");
        RESOLVE(h, f, socket_recvfrom, "mnl_socket_recvfrom", "LIBMNL_1.0");
        RESOLVE(h, f, cb_run, "mnl_cb_run", "LIBMNL_1.0");
        RESOLVE(h, f, nlmsg_put_header, "mnl_nlmsg_put_header", "LIBMNL_1.0");
        RESOLVE(h, f, nlmsg_put_extra_header, "mnl_nlmsg_put_extra_header", "LIBMNL_1.0");
        RESOLVE(h, f, attr_get_type, "mnl_attr_get_type", "LIBMNL_1.0");
        RESOLVE(h, f, attr_validate, "mnl_attr_validate", "LIBMNL_1.0");
        RESOLVE(h, f, attr_parse, "mnl_attr_parse", "LIBMNL_1.0");
        RESOLVE(h, f, attr_get_u16, "mnl_attr_get_u16", "LIBMNL_1.0");
        RESOLVE(h, f, attr_get_u32, "mnl_attr_get_u32", "LIBMNL_1.0");
        RESOLVE(h, f, attr_get_u64, "mnl_attr_get_u64", "LIBMNL_1.0");
        RESOLVE(h, f, attr_put_strz_check, "mnl_attr_put_strz_check", "LIBMNL_1.0");
        return 0;
}

int mnl_load(struct mnl_fns *f) {
        memset(f, 0, sizeof(*f));
        f->handle = dlopen(LIBMNL_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!f->handle)
                return -ELIBACC;
        int r = resolve(f->handle, f);
        if (r < 0)
                mnl_unload(f);
        return r;
}

void mnl_unload(struct mnl_fns *f) {
        if (f->handle)
                dlclose(f->handle);
        memset(f, 0, sizeof(*f));
}

int mnl_open(const struct mnl_fns *f, int bus, struct mnl_socket **ret) {
        struct mnl_socket *nl = f->socket_open2(bus, SOCK_CLOEXEC);
        if (!nl)
                return negative_errno();
        if (f->socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
                int r = negative_errno();
                f->socket_close(nl);
                return r;
        }
        *ret = nl;
        return 0;
}
#endif
