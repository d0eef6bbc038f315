/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * doctor, Kubernetes: a pod has no ulimit field; its processes inherit the memlock of the
 * container runtime that starts them, containerd (containerd.service) or CRI-O (crio.service),
 * as their units and drop-ins set it.  A kubelet host is recognised by kubelet.service,
 * /var/lib/kubelet or /etc/kubernetes.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doctor-internal.h"

static const struct daemon_unit runtimes[] = {
        { .unit = "containerd.service", .short_name = "containerd", .group = DOCTOR_CONTAINERS,
          .inherits = "every container it starts inherits it, Kubernetes pods included",
          .id_low = "runtime-memlock-low", .id_ok = "runtime-memlock" },
        { .unit = "crio.service", .short_name = "crio", .group = DOCTOR_CONTAINERS,
          .inherits = "every container it starts inherits it, Kubernetes pods included",
          .id_low = "runtime-memlock-low", .id_ok = "runtime-memlock" },
};

/* What says this is a Kubernetes node, or NULL. */
static int kubelet_evidence(struct doc *d, char **ret) {
        _cleanup_(unit_info_clear) struct unit_info u = {};
        int r = unit_load(d, "kubelet.service", DOCTOR_CONTAINERS, &u);

        *ret = NULL;
        if (r < 0)
                return r;
        const char *found = u.path                                        ? u.path
                            : exists_rooted(d, "/var/lib/kubelet", true) ? "/var/lib/kubelet"
                            : exists_rooted(d, "/etc/kubernetes", true)  ? "/etc/kubernetes"
                                                                           : NULL;
        return found && !(*ret = strdup(disp(d, found))) ? -ENOMEM : 0;
}

int check_kubernetes(struct doc *d) {
        _cleanup_free_ char *node = NULL;
        bool found, any = false;
        int r = kubelet_evidence(d, &node);

        if (r < 0)
                return r;
        if (node)
                ADD_ID(d, DOCTOR_CONTAINERS, DIAG_INFO, "kubernetes-node", node, NULL,
                       "a Kubernetes node: pods have no ulimit field, their processes get the memlock of the "
                       "container runtime (containerd.service or crio.service LimitMEMLOCK=).  CAP_IPC_LOCK lifts the "
                       "accounting only for a process that has it in its effective set; a non-root container process "
                       "given it in securityContext.capabilities gets it in its bounding and permitted sets only (no "
                       "ambient set), so its UMEMs and MRs still count against that limit");
        for (size_t i = 0; i < ELEMENTSOF(runtimes); i++) {
                if ((r = daemon_unit_check(d, &runtimes[i], &found)) < 0)
                        return r;
                any = any || found;
        }
        if (node && !any)
                ADD_ID(d, DOCTOR_CONTAINERS, DIAG_WARNING, "kubernetes-no-runtime-unit", node,
                       "give the runtime's unit the memlock the pods need: rdmalimits apply --unit containerd SIZE "
                       "(or crio)",
                       "a Kubernetes node without a containerd.service or crio.service unit: the pods' memlock "
                       "cannot be checked");
        return 0;
}
