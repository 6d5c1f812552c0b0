#!/usr/bin/env python3
"""Checks a signed bundle of raes-tool-actions (docs/integrity.md, signed bundles) without its code.

Standard library only, so it checks what the standard library can: every stream's chain and the seals
over the bundle's events, the chain heads, and the content digest. It does not check the Ed25519
signature (Python's standard library has no Ed25519): check that with `raes-tools verify` or any
Ed25519 library, over the UTF-8 bytes of the bundle's content_digest.

Usage: verify_bundle.py BUNDLE.json
Exit codes: 0 sound (signature not checked), 1 a failed check (the first is named), 2 usage error or unreadable input.
"""

import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify_history import Verifier, canonical_json, link_of  # noqa: E402

BUNDLE_FORMAT = "raes-tool-actions-bundle/v1"
CONTENT_MEMBERS = ("bundle_format", "created_at", "history", "events", "chain_heads")


def check(bundle):
    """The first failed check as (code, message), or None."""
    if not isinstance(bundle, dict) or bundle.get("bundle_format") != BUNDLE_FORMAT:
        return "bundle_malformed", "not a %s bundle" % BUNDLE_FORMAT
    for member in CONTENT_MEMBERS + ("content_digest", "signature"):
        if member not in bundle:
            return "bundle_malformed", "the bundle has no %s" % member
    verifier = Verifier()
    heads = {}
    for event in bundle["events"]:
        verifier.add({
            "position": int(event["position"]),
            "stream": event["stream"],
            "revision": int(event["revision"]),
            "type": event["type"],
            "data": event["data"],
            "metadata": event.get("metadata"),
        })
        link = link_of(event.get("metadata"))
        heads[event["stream"]] = (event["revision"], link["digest"] if link else None)
    if verifier.findings:
        code, position, stream, revision, message = verifier.findings[0]
        return code, "the event at position %d (stream '%s', revision %d): %s" % (position, stream, revision, message)
    for head in bundle["chain_heads"]:
        found = heads.pop(head["stream"], None)
        if found is None or found[0] != head["revision"]:
            return "chain_head_mismatch", "stream '%s' does not end at its chain head (revision %s): events at its end were removed or added" % (head["stream"], head["revision"])
        if found[1] != head["digest"]:
            return "chain_head_mismatch", "stream '%s' ends at its chain head's revision %s, but its last event's link digest is not the head's: that event or the head was changed" % (head["stream"], head["revision"])
    if heads:
        return "chain_head_mismatch", "stream '%s' has events but no chain head" % next(iter(heads))
    content = {member: bundle[member] for member in CONTENT_MEMBERS}
    digest = "sha256:" + hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()
    if digest != bundle["content_digest"]:
        return "content_digest_mismatch", "the content digests to %s, not to the signed %s" % (digest, bundle["content_digest"])
    return None


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 0 if len(argv) == 2 else 2
    try:
        with open(argv[1], encoding="utf-8") as source:
            bundle = json.load(source)
    except (OSError, ValueError) as error:
        sys.stderr.write("verify_bundle: cannot read %s: %s\n" % (argv[1], error))
        return 2
    try:
        failure = check(bundle)
    except (KeyError, TypeError, ValueError) as error:
        failure = ("bundle_malformed", "an event or chain head lacks a field or has the wrong type: %r" % (error,))
    if failure is not None:
        print("FAILED %s: %s" % failure)
        return 1
    print("sound: %d events, chains, heads and content digest hold (the Ed25519 signature is not checked here)" % len(bundle["events"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
