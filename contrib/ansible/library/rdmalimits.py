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
    description: The drop-in name in limits.d (the tool's default is C(zz-rdmalimits.conf)).
    type: str
  state:
    description:
      - C(present) applies the limit, C(absent) removes the domain's (or unit's) entries.
      - C(status) changes nothing and gathers facts (C(rdmalimits --json status) and
        C(rdmalimits --json probe)) into C(ansible_facts.rdmalimits_status), per user and per
        unit the memlock limit, what the kernel charges, the headroom, and whether the limit is
        below what the host's hardware needs (the policy's C(auto) value, or I(needed)).
        I(domain) (a user name) and I(unit) narrow it to that user's or unit's processes.
    type: str
    choices: [present, absent, status]
    default: present
  needed:
    description:
      - With I(state=status), the limit the hardware needs (C(K M G T)); default the C(auto)
        value C(rdmalimits probe) derives from the policy (unknown without a policy).
    type: str
  root:
    description: Operate on ROOT/etc instead of /etc (images, tests).
    type: path
  allow_overridden:
    description:
      - Write the entry even when another entry still wins for one of the domain's users
        (a vendor file read later, a stronger rank). Without it the task fails, names the
        winning file and line, and writes nothing.
    type: bool
    default: false
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

- name: memlock facts of every user and unit (one table for a fleet)
  rdmalimits:
    state: status
  register: st
- debug:
    msg: "{{ ansible_facts.rdmalimits_status.users | selectattr('below_needed') | map(attribute='user') | list }}"
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
  sample: /etc/security/limits.d/zz-rdmalimits.conf
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
ansible_facts:
  description: >-
    With I(state=status), C(rdmalimits_status): C(needed) (bytes or null) and C(needed_from)
    ("auto", "needed" or null), C(methods) (as C(status --json)), C(users) and C(units), each
    with C(limit) (the soft limit, bytes or "unlimited"), C(hard), C(charged), C(charged_method),
    C(headroom) and C(below_needed) (true, false, or null when either side is unknown).
  type: dict
  returned: state=status
"""

import json

from ansible.module_utils.basic import AnsibleModule

EXIT_WOULD_CHANGE = 3
EXIT_NOT_EFFECTIVE = 4   # apply: another entry still wins


def build_command(module, exe):
    p = module.params
    cmd = [exe, "--json"]
    if p["root"]:
        cmd += ["--root", p["root"]]
    cmd.append("apply" if p["state"] == "present" else "remove")
    # the arguments after "--": a value starting with '-' is never read as an option
    args = []
    if p["unit"]:
        cmd += ["--unit=" + p["unit"]]
    else:
        args.append(p["domain"])
    if p["state"] == "present":
        if p["memlock"]:
            args.append(p["memlock"])
        if p["soft"]:
            cmd += ["--soft=" + p["soft"]]
        if p["hard"]:
            cmd += ["--hard=" + p["hard"]]
    if p["file"]:
        cmd += ["--file=" + p["file"]]
    if p["force"]:
        cmd.append("--force")
    if p["allow_overridden"] and p["state"] == "present":
        cmd.append("--allow-overridden")
    if p["daemon_reload"]:
        cmd.append("--reload")
    if module.check_mode:
        cmd.append("--check")
    if module._diff:
        cmd.append("--diff")
    return cmd + ["--"] + args


def parse_size(s):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    t = s.strip().upper()
    if t in ("UNLIMITED", "INFINITY"):
        return "unlimited"
    for suffix in ("KIB", "MIB", "GIB", "TIB"):
        if t.endswith(suffix):
            t = t[:-2]
    num, unit = t.rstrip("KMGT"), t[len(t.rstrip("KMGT")):]
    if not num.isdigit() or unit not in units or unit == "":
        raise ValueError("size '%s': give a unit (K, M, G, T) or unlimited" % s)
    return int(num) * units[unit]


def below(limit, needed):
    if limit is None or needed is None:
        return None
    if limit == "unlimited":
        return False
    if needed == "unlimited":
        return True
    return limit < needed


def run_json(module, cmd):
    rc, out, err = module.run_command(cmd)
    if rc != 0:
        module.fail_json(msg=err.strip() or "rdmalimits exited with status %d" % rc, rc=rc, cmd=cmd)
    try:
        return json.loads(out)
    except ValueError:
        module.fail_json(msg="rdmalimits printed no JSON object", rc=rc, cmd=cmd, stdout=out, stderr=err)


def gather_status(module, exe):
    p = module.params
    base = [exe, "--json"]
    if p["root"]:
        base += ["--root", p["root"]]
    cmd = [exe, "--json", "status"]
    if p["unit"]:
        cmd += ["--unit=" + p["unit"]]
    if p["domain"]:
        cmd += ["--", p["domain"]]
    st = run_json(module, cmd)
    needed, needed_from = None, None
    if p["needed"]:
        try:
            needed, needed_from = parse_size(p["needed"]), "needed"
        except ValueError as e:
            module.fail_json(msg=str(e))
    else:
        pr = run_json(module, base + ["probe"])
        auto = pr.get("auto") or {}
        if isinstance(auto.get("value"), (int, str)) and auto.get("value") not in ("", "none"):
            needed, needed_from = auto["value"], "auto"

    def entry(x, name_key):
        m = x.get("memlock") or {}
        return dict(name=x.get(name_key), limit=m.get("soft"), hard=m.get("hard"), charged=x.get("charged"),
                    charged_method=x.get("charged_method"), headroom=x.get("headroom"),
                    processes=x.get("processes"), below_needed=below(m.get("soft"), needed))

    users = []
    for u in st.get("users", []):
        e = entry(u, "user")
        e["user"], e["uid"] = e.pop("name"), u.get("uid")
        users.append(e)
    units = []
    for u in st.get("units", []):
        e = entry(u, "unit")
        e["unit"], e["kind"] = e.pop("name"), u.get("kind")
        units.append(e)
    facts = dict(needed=needed, needed_from=needed_from, methods=st.get("methods"), users=users, units=units,
                 below_needed=[x["user"] or str(x["uid"]) for x in users if x["below_needed"]]
                 + [x["unit"] for x in units if x["below_needed"]])
    module.exit_json(changed=False, cmd=cmd, ansible_facts=dict(rdmalimits_status=facts))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            domain=dict(type="str"),
            unit=dict(type="str"),
            memlock=dict(type="str"),
            soft=dict(type="str"),
            hard=dict(type="str"),
            file=dict(type="str"),
            state=dict(type="str", default="present", choices=["present", "absent", "status"]),
            needed=dict(type="str"),
            root=dict(type="path"),
            force=dict(type="bool", default=False),
            allow_overridden=dict(type="bool", default=False),
            daemon_reload=dict(type="bool", default=False),
            executable=dict(type="path"),
        ),
        mutually_exclusive=[("domain", "unit")],
        required_if=[
            ("state", "present", ("memlock", "soft", "hard"), True),
            ("state", "present", ("domain", "unit"), True),
            ("state", "absent", ("domain", "unit"), True),
        ],
        supports_check_mode=True,
    )
    p = module.params
    exe = p["executable"] or module.get_bin_path("rdmalimits", required=True, opt_dirs=["/usr/sbin", "/sbin"])
    for key in ("domain", "unit"):
        if p[key] is not None and (p[key] == "" or p[key].startswith("-")):
            what = "unit name" if key == "unit" else "pam_limits domain"
            module.fail_json(msg="%s '%s': a %s does not start with '-'" % (key, p[key], what))
    if p["state"] == "status":
        for key in ("memlock", "soft", "hard", "file"):
            if p[key]:
                module.fail_json(msg="%s does not apply to state=status" % key)
        gather_status(module, exe)
    elif p["needed"]:
        module.fail_json(msg="needed applies to state=status only")
    if p["state"] == "absent":
        for key in ("memlock", "soft", "hard"):
            if p[key]:
                module.fail_json(msg="%s does not apply to state=absent" % key)
    if p["daemon_reload"] and not p["unit"]:
        module.fail_json(msg="daemon_reload needs unit")

    cmd = build_command(module, exe)
    rc, out, err = module.run_command(cmd)

    if rc == EXIT_NOT_EFFECTIVE:
        # the entry would not take effect: fail, with what wins, as the tool's JSON says
        try:
            res = json.loads(out)
        except ValueError:
            res = {}
        module.fail_json(msg="the entry would not take effect: " + "; ".join(res.get("overridden_by") or [err.strip()]),
                         rc=rc, cmd=cmd, effective=False, overridden_by=res.get("overridden_by", []),
                         file=res.get("file"), stderr=err)
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
    if "effective" in res:
        result["effective"] = res["effective"]
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
