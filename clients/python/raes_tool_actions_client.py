"""A client of the raes-tool-actions remote port, for Python 3, standard library only.

A harness started by ``raes-tools run --harness command:<command line>`` finds its invocation's port
in the environment (RAES_PORT_URL, RAES_INVOCATION_ID, RAES_PORT_SECRET). Every call returns the
port's answer as a dict; a domain refusal is a value (``{"admitted": False, "refusal": ...}`` or
``{"accepted": False, "refusal": ...}``), never an exception. A refused secret or a malformed request
raises RemotePortRefused; a broken connection raises the urllib error. The protocol is
docs/remote-port.openapi.json.

    port = RemotePort.from_env()
    relation = {"tool_affordance_address": ..., "action_contract_address": ...,
                "observation_boundary_address": ..., "target_addresses": [...]}
    outcome = run_tool(port, "call-1", relation, lambda: my_tool())
"""

import json
import os
import urllib.error
import urllib.parse
import urllib.request

__all__ = [
    "RemotePort",
    "RemotePortRefused",
    "tool_action_request",
    "action_result",
    "run_tool",
    "PORT_URL_ENV",
    "INVOCATION_ID_ENV",
    "PORT_SECRET_ENV",
]

PORT_URL_ENV = "RAES_PORT_URL"
INVOCATION_ID_ENV = "RAES_INVOCATION_ID"
PORT_SECRET_ENV = "RAES_PORT_SECRET"

_PORT_VALUE_FIELDS = (
    "invocation_action_instance_id",
    "participant_address",
    "episode_id",
    "participant_implementation_ref",
    "execution_scope_ref",
    "execution_generation",
    "observation_point",
)


class RemotePortRefused(Exception):
    """The remote port refused the HTTP request itself (secret, method, body); see ``status`` and ``error``."""

    def __init__(self, status, error, message):
        super().__init__("the remote port refused the call (%s %s): %s" % (status, error, message))
        self.status = status
        self.error = error
        self.message = message


class RemotePort:
    """The port of one invocation, over HTTP."""

    def __init__(self, url, invocation_action_instance_id, secret, timeout=30.0):
        if not url or not invocation_action_instance_id or not secret:
            raise ValueError("url, invocation_action_instance_id and secret are all needed to reach a remote port")
        self.url = url.rstrip("/")
        self.invocation_action_instance_id = invocation_action_instance_id
        self._secret = secret
        self._timeout = timeout

    @classmethod
    def from_env(cls, environ=None, timeout=30.0):
        """The port named by RAES_PORT_URL, RAES_INVOCATION_ID and RAES_PORT_SECRET."""
        environ = os.environ if environ is None else environ
        missing = [name for name in (PORT_URL_ENV, INVOCATION_ID_ENV, PORT_SECRET_ENV) if not environ.get(name)]
        if missing:
            raise ValueError("set %s (raes-tools run --harness command:... sets them for each invocation)" % ", ".join(missing))
        return cls(environ[PORT_URL_ENV], environ[INVOCATION_ID_ENV], environ[PORT_SECRET_ENV], timeout)

    def values(self):
        """The port values: identity of the invocation, to build requests and outcomes from."""
        return self._send("values", None)

    def admit(self, request):
        return self._send("admit", {"request": request})

    def admit_and_dispatch(self, request):
        return self._send("admit-and-dispatch", {"request": request})

    def dispatch(self, action_instance_id):
        return self._send("dispatch", {"action_instance_id": action_instance_id})

    def complete(self, action_instance_id, result):
        return self._send("complete", {"action_instance_id": action_instance_id, "result": result})

    def report_unknown(self, action_instance_id, reason):
        return self._send("report-unknown", {"action_instance_id": action_instance_id, "reason": reason})

    def cancel(self, action_instance_id):
        return self._send("cancel", {"action_instance_id": action_instance_id})

    def _send(self, verb, body):
        path = "/invocations/%s/%s" % (urllib.parse.quote(self.invocation_action_instance_id, safe=""), verb)
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method="GET" if body is None else "POST",
            headers={"Authorization": "Bearer " + self._secret, "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as refused:
            try:
                payload = json.loads(refused.read().decode("utf-8"))
            except ValueError:
                payload = {}
            raise RemotePortRefused(refused.code, payload.get("error", "unknown"), payload.get("message", "no message")) from None


def tool_action_request(values, tool_call_id, relation):
    """The admission request of one tool call: identity from the port values, the relation's addresses.
    Tool arguments have no place in it."""
    request = {name: values[name] for name in _PORT_VALUE_FIELDS if name != "observation_point"}
    request["tool_call_id"] = tool_call_id
    request["tool_affordance_address"] = relation["tool_affordance_address"]
    request["action_contract_address"] = relation["action_contract_address"]
    request["observation_boundary_address"] = relation["observation_boundary_address"]
    request["target_addresses"] = list(relation["target_addresses"])
    return request


def action_result(values, action_instance_id, relation, status, failure_class=None):
    """A completed call's ParticipantActionResultModel: identities, the relation's contract and evidence."""
    result = {
        "status": status,
        "participant_address": values["participant_address"],
        "episode_id": values["episode_id"],
        "action_instance_id": action_instance_id,
        "action_contract_address": relation["action_contract_address"],
        "observation_point": values["observation_point"],
    }
    if relation.get("evidence_refs"):
        result["evidence_refs"] = list(relation["evidence_refs"])
    if failure_class is not None:
        result["failure_class"] = failure_class
    return result


def run_tool(port, tool_call_id, relation, tool, values=None):
    """Admits and dispatches one call, runs ``tool()`` only if dispatch was accepted, and settles it:
    True/None -> succeeded, False -> failed, an exception -> effects unknown (reported, then re-raised
    as the second element). Returns a dict: {"kind": "refused"|"completed"|"unknown", ...}."""
    values = port.values() if values is None else values
    answer = port.admit_and_dispatch(tool_action_request(values, tool_call_id, relation))
    if not answer.get("admitted"):
        return {"kind": "refused", "refusal": answer.get("refusal")}
    action_instance_id = answer["action_instance_id"]
    if not answer.get("accepted"):
        port.cancel(action_instance_id)
        return {"kind": "refused", "refusal": answer.get("refusal"), "action_instance_id": action_instance_id}
    try:
        ran = tool()
    except Exception as error:  # the tool may or may not have had its effect
        port.report_unknown(action_instance_id, type(error).__name__)
        return {"kind": "unknown", "action_instance_id": action_instance_id, "error": error}
    status = "failed" if ran is False else "succeeded"
    receipt = port.complete(action_instance_id, action_result(values, action_instance_id, relation, status, "backend_error" if ran is False else None))
    if not receipt.get("accepted"):
        port.report_unknown(action_instance_id, "outcome_refused:%s" % receipt.get("refusal"))
        return {"kind": "unknown", "action_instance_id": action_instance_id, "refusal": receipt.get("refusal")}
    return {"kind": "completed", "status": status, "action_instance_id": action_instance_id}
