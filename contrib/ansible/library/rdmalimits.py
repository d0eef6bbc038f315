#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Ansible module: memlock limits through rdmalimits(8)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: rdmalimits
short_description: Give users and groups (or a systemd unit) a locked-memory limit
description:
  - Runs C(rdmalimits --json apply) or C(rdmalimits --json remove), which keep the memlock
    entries of a drop-in in C(/etc/security/limits.d) (or C(LimitMEMLOCK=) in a systemd unit
    drop-in) validated, idempotent and atomically written.
  - Check mode runs the tool with C(--check); diff mode returns the tool's unified diff.
options:
  domain:
    description:
      - The pam_limits domain, a user, C(@group), C(*), or a uid/gid range.
      - Exactly one of I(domain) and I(unit) is required.
    type: str
  unit:
    description:
      - A systemd unit; the limit goes into C(LimitMEMLOCK=) of a drop-in for it
        (C(rdmalimits apply --unit UNIT SIZE)).
      - Needs an rdmalimits with C(apply --unit); an older one fails with its own message.
    type: str
  memlock:
    description:
      - The size for soft and hard (C(K M G T) as powers of 1024, or C(unlimited)).
        A bare number is refused by the tool.
      - Required with I(state=present) unless I(soft) or I(hard) is given.
    type: str
  soft:
    description: The soft limit, when it differs from I(memlock).
    type: str
  hard:
    description: The hard limit, when it differs from I(memlock).
    type: str
  file:
    description: The drop-in name in limits.d (the tool's default is C(90-rdmalimits.conf)).
    type: str
  state:
    description: C(present) applies the limit, C(absent) removes the domain's (or unit's) entries.
    type: str
    choices: [present, absent]
    default: present
  root:
    description: Operate on ROOT/etc instead of /etc (images, tests).
    type: path
  force:
    description: Take over a drop-in that lacks the rdmalimits marker.
    type: bool
    default: false
  daemon_reload:
    description: With I(unit), run C(systemctl daemon-reload) after a change.
    type: bool
    default: false
  executable:
    description: The rdmalimits program (default C(rdmalimits) in PATH or C(/usr/sbin)).
    type: path
notes:
  - Supports check mode and diff mode.
requirements:
  - rdmalimits (Debian package C(rdmalimits))
"""

EXAMPLES = r"""
- name: RDMA users may pin 1 GiB
  rdmalimits:
    domain: "@rdma_users"
    memlock: 1G

- name: alice, soft 4 GiB, hard 8 GiB, in a drop-in of her own
  rdmalimits:
    domain: alice
    memlock: 4G
    hard: 8G
    file: 80-alice.conf

- name: an AF_XDP service
  rdmalimits:
    unit: xdp-fwd.service
    memlock: 256M
    daemon_reload: true

- name: no more
  rdmalimits:
    domain: "@old_group"
    state: absent
"""

RETURN = r"""
changed:
  description: Whether the drop-in changed (in check mode, would change).
  type: bool
  returned: always
file:
  description: The drop-in the tool wrote or would write.
  type: str
  returned: success
  sample: /etc/security/limits.d/90-rdmalimits.conf
diff:
  description: The unified diff of the drop-in (in diff mode, as C(prepared)).
  type: dict
  returned: diff mode
unit:
  description: The unit, with I(unit).
  type: str
  returned: with unit
cmd:
  description: The command that ran.
  type: list
  returned: always
"""

import json

from ansible.module_utils.basic import AnsibleModule

EXIT_WOULD_CHANGE = 3


def build_command(module, exe):
    p = module.params
    cmd = [exe, "--json"]
    if p["root"]:
        cmd += ["--root", p["root"]]
    if p["state"] == "present":
        cmd.append("apply")
        if p["unit"]:
            cmd += ["--unit", p["unit"]]
        else:
            cmd.append(p["domain"])
        if p["memlock"]:
            cmd.append(p["memlock"])
        if p["soft"]:
            cmd += ["--soft", p["soft"]]
        if p["hard"]:
            cmd += ["--hard", p["hard"]]
    else:
        cmd.append("remove")
        if p["unit"]:
            cmd += ["--unit", p["unit"]]
        else:
            cmd.append(p["domain"])
    if p["file"]:
        cmd += ["--file", p["file"]]
    if p["force"]:
        cmd.append("--force")
    if p["daemon_reload"]:
        cmd.append("--reload")
    if module.check_mode:
        cmd.append("--check")
    if module._diff:
        cmd.append("--diff")
    return cmd


def main():
    module = AnsibleModule(
        argument_spec=dict(
            domain=dict(type="str"),
            unit=dict(type="str"),
            memlock=dict(type="str"),
            soft=dict(type="str"),
            hard=dict(type="str"),
            file=dict(type="str"),
            state=dict(type="str", default="present", choices=["present", "absent"]),
            root=dict(type="path"),
            force=dict(type="bool", default=False),
            daemon_reload=dict(type="bool", default=False),
            executable=dict(type="path"),
        ),
        mutually_exclusive=[("domain", "unit")],
        required_one_of=[("domain", "unit")],
        required_if=[("state", "present", ("memlock", "soft", "hard"), True)],
        supports_check_mode=True,
    )
    p = module.params
    if p["state"] == "absent":
        for key in ("memlock", "soft", "hard"):
            if p[key]:
                module.fail_json(msg="%s does not apply to state=absent" % key)
    if p["daemon_reload"] and not p["unit"]:
        module.fail_json(msg="daemon_reload needs unit")

    exe = p["executable"] or module.get_bin_path("rdmalimits", required=True, opt_dirs=["/usr/sbin", "/sbin"])
    cmd = build_command(module, exe)
    rc, out, err = module.run_command(cmd)

    if rc != 0 and not (rc == EXIT_WOULD_CHANGE and module.check_mode):
        msg = err.strip() or out.strip() or "rdmalimits exited with status %d" % rc
        # the tool ends usage errors with a pointer to --help, of no use here
        msg = "\n".join(l for l in msg.splitlines() if not l.startswith("Try 'rdmalimits --help'"))
        module.fail_json(msg=msg, rc=rc, cmd=cmd, stdout=out, stderr=err)
    try:
        res = json.loads(out)
    except ValueError:
        module.fail_json(msg="rdmalimits printed no JSON object", rc=rc, cmd=cmd, stdout=out, stderr=err)

    result = dict(changed=bool(res.get("changed")), file=res.get("file"), cmd=cmd)
    if p["unit"]:
        result["unit"] = res.get("unit", p["unit"])
        if "reloaded" in res:
            result["reloaded"] = res["reloaded"]
    if module._diff and res.get("diff"):
        result["diff"] = dict(prepared=res["diff"])
    if err.strip():
        result["warnings"] = [l for l in err.strip().splitlines()]
    module.exit_json(**result)


if __name__ == "__main__":
    main()
