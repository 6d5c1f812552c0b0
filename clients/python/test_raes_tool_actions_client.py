"""Tests of the remote port client: what it puts on the wire and how it reads the answers, against an
HTTP server in this process that answers as the remote port's protocol says (docs/remote-port.openapi.json).
The client against the real engine is covered by specs/clients/python/command-harness.e2e.spec.ts.
Run: python3 -m unittest discover -s clients/python"""

import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from raes_tool_actions_client import (
    RemotePort,
    RemotePortRefused,
    action_result,
    run_tool,
    tool_action_request,
)

INVOCATION = "policy.p:participant.behavior.agent:1"
SECRET = "s3cret"
VALUES = {
    "invocation_action_instance_id": INVOCATION,
    "participant_address": "participant.behavior.agent",
    "episode_id": "episode-1",
    "participant_implementation_ref": "impl",
    "execution_scope_ref": "scope",
    "execution_generation": 0,
    "observation_point": "point",
}
RELATION = {
    "tool_affordance_address": "a.tool-affordance.t",
    "action_contract_address": "a.action-contract.c",
    "observation_boundary_address": "a.observation-boundary.b",
    "target_addresses": ["t1"],
    "evidence_refs": ["content.e"],
}


class Recorder:
    def __init__(self):
        self.requests = []
        # verb -> (status, body) answered next
        self.answers = {}


def handler_for(recorder):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _answer(self, body):
            verb = self.path.rsplit("/", 1)[-1]
            recorder.requests.append(
                {"method": self.command, "path": self.path, "authorization": self.headers.get("Authorization"), "body": body}
            )
            if self.headers.get("Authorization") != "Bearer " + SECRET:
                status, payload = 401, {"error": "secret_invalid", "message": "the secret is wrong"}
            else:
                status, payload = recorder.answers.get(verb, (200, {"accepted": True}))
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._answer(None)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            self._answer(json.loads(self.rfile.read(length).decode("utf-8")))

    return Handler


class RemotePortClientTest(unittest.TestCase):
    def setUp(self):
        self.recorder = Recorder()
        self.recorder.answers["values"] = (200, VALUES)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(self.recorder))
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.port = RemotePort(self.url, INVOCATION, SECRET)

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()

    def test_reads_values_with_get_on_the_quoted_path_and_the_bearer_secret(self):
        self.assertEqual(self.port.values(), VALUES)
        request = self.recorder.requests[0]
        self.assertEqual(request["method"], "GET")
        self.assertEqual(request["path"], "/invocations/policy.p%3Aparticipant.behavior.agent%3A1/values")
        self.assertEqual(request["authorization"], "Bearer " + SECRET)

    def test_posts_each_verb_with_its_body(self):
        self.port.admit({"tool_call_id": "c"})
        self.port.admit_and_dispatch({"tool_call_id": "c"})
        self.port.dispatch("a:tool=1")
        self.port.complete("a:tool=1", {"status": "succeeded"})
        self.port.report_unknown("a:tool=1", "timeout")
        self.port.cancel("a:tool=1")
        seen = [(r["method"], r["path"].rsplit("/", 1)[-1], r["body"]) for r in self.recorder.requests]
        self.assertEqual(
            seen,
            [
                ("POST", "admit", {"request": {"tool_call_id": "c"}}),
                ("POST", "admit-and-dispatch", {"request": {"tool_call_id": "c"}}),
                ("POST", "dispatch", {"action_instance_id": "a:tool=1"}),
                ("POST", "complete", {"action_instance_id": "a:tool=1", "result": {"status": "succeeded"}}),
                ("POST", "report-unknown", {"action_instance_id": "a:tool=1", "reason": "timeout"}),
                ("POST", "cancel", {"action_instance_id": "a:tool=1"}),
            ],
        )

    def test_answers_a_domain_refusal_as_a_value(self):
        self.recorder.answers["dispatch"] = (200, {"accepted": False, "refusal": "state_conflict", "message": "m"})
        self.assertEqual(self.port.dispatch("a:tool=1")["refusal"], "state_conflict")

    def test_raises_remote_port_refused_for_a_refused_secret(self):
        port = RemotePort(self.url, INVOCATION, "wrong")
        with self.assertRaises(RemotePortRefused) as caught:
            port.values()
        self.assertEqual((caught.exception.status, caught.exception.error), (401, "secret_invalid"))

    def test_from_env_names_what_is_missing(self):
        with self.assertRaises(ValueError) as caught:
            RemotePort.from_env({"RAES_PORT_URL": self.url})
        self.assertIn("RAES_INVOCATION_ID", str(caught.exception))
        self.assertIn("RAES_PORT_SECRET", str(caught.exception))
        port = RemotePort.from_env({"RAES_PORT_URL": self.url, "RAES_INVOCATION_ID": INVOCATION, "RAES_PORT_SECRET": SECRET})
        self.assertEqual(port.values(), VALUES)

    def test_builds_the_request_from_values_and_relation_only(self):
        request = tool_action_request(VALUES, "call-1", RELATION)
        self.assertEqual(request["tool_call_id"], "call-1")
        self.assertEqual(request["invocation_action_instance_id"], INVOCATION)
        self.assertEqual(request["target_addresses"], ["t1"])
        self.assertNotIn("observation_point", request)
        result = action_result(VALUES, "a:tool=1", RELATION, "failed", "backend_error")
        self.assertEqual(result["evidence_refs"], ["content.e"])
        self.assertEqual(result["failure_class"], "backend_error")

    def test_run_tool_runs_only_after_an_accepted_dispatch_and_completes(self):
        self.recorder.answers["admit-and-dispatch"] = (200, {"admitted": True, "action_instance_id": "a:tool=1", "accepted": True})
        ran = []
        outcome = run_tool(self.port, "call-1", RELATION, lambda: ran.append(1) or True, VALUES)
        self.assertEqual(outcome, {"kind": "completed", "status": "succeeded", "action_instance_id": "a:tool=1"})
        self.assertEqual(ran, [1])
        self.assertEqual([r["path"].rsplit("/", 1)[-1] for r in self.recorder.requests], ["admit-and-dispatch", "complete"])

    def test_run_tool_never_runs_a_refused_call(self):
        self.recorder.answers["admit-and-dispatch"] = (200, {"admitted": False, "refusal": "affordance_unbound", "message": "m"})
        outcome = run_tool(self.port, "call-1", RELATION, lambda: self.fail("a refused call ran"), VALUES)
        self.assertEqual(outcome, {"kind": "refused", "refusal": "affordance_unbound"})

    def test_run_tool_reports_unknown_when_the_tool_raises(self):
        self.recorder.answers["admit-and-dispatch"] = (200, {"admitted": True, "action_instance_id": "a:tool=1", "accepted": True})

        def tool():
            raise TimeoutError("slow")

        outcome = run_tool(self.port, "call-1", RELATION, tool, VALUES)
        self.assertEqual(outcome["kind"], "unknown")
        self.assertEqual(self.recorder.requests[-1]["body"], {"action_instance_id": "a:tool=1", "reason": "TimeoutError"})


if __name__ == "__main__":
    unittest.main()
