"""A harness in Python for `raes-tools run --harness command:python3 examples/python/portal_harness.py`.

Each invocation: probe the portal (a stand-in tool that succeeds), then ask for a tool the scenario
does not afford (refused: it never runs). From attempt 2 on, the probe raises a timeout: its effects
are unknown, which stops the participant until an operator resolves it. Exits 0 when a call succeeded.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))

from raes_tool_actions_client import RemotePort, run_tool  # noqa: E402

PORTAL_CLIENT = {
    "tool_affordance_address": "participant.behavior-specification.participant-behavior.tool-affordance.portal-client",
    "action_contract_address": "participant.action-contract.probe-customer-portal-login",
    "observation_boundary_address": "participant.observation-boundary.participant-view",
    "target_addresses": ["provision.node.customer-portal.service.http"],
    "evidence_refs": ["content.participant-observation"],
}
UNAFFORDED = dict(PORTAL_CLIENT, tool_affordance_address="participant.behavior-specification.participant-behavior.tool-affordance.shell")


def probe():
    if int(os.environ.get("RAES_ATTEMPT", "1")) >= 2:
        raise TimeoutError("the portal did not answer in time")
    return True


def main():
    port = RemotePort.from_env()
    values = port.values()
    outcomes = [
        run_tool(port, "probe-1", PORTAL_CLIENT, probe, values),
        run_tool(port, "shell-1", UNAFFORDED, lambda: sys.exit("a refused call must never run"), values),
    ]
    for outcome in outcomes:
        print("%s %s" % (outcome["kind"], outcome.get("refusal") or outcome.get("status") or ""))
    return 0 if any(o["kind"] == "completed" for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
