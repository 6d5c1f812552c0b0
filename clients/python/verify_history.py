#!/usr/bin/env python3
"""Checks the chain links and seals of a raes-tool-actions history (docs/integrity.md).

Standard library only. Reads JSON Lines, one stored event per line, in position order:
  {"position": "12", "stream": "...", "revision": "3", "type": "...", "data": ..., "metadata": {...} | null}
(position and revision as decimal strings or JSON numbers).

Usage: verify_history.py EVENTS.jsonl   (or - for standard input)
Exit codes: 0 sound, 1 findings, 2 usage error or unreadable input.
"""

import base64
import hashlib
import json
import sys

CHAIN_KEY = "raes_chain"
SEAL_STREAM = "integrity-seals"
SEAL_EVENT_TYPE = "HistorySealed"


def ecmascript_number(value):
    """The text ECMAScript's Number.prototype.toString gives a number (RFC 8785, section 3.2.2.3)."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        return str(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError("canonical JSON has no text for %r" % value)
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # repr gives the shortest digits that read back as the same double; only the layout differs.
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    shift = int(exponent) if exponent else 0
    # Where the decimal point sits after the first significant digit's place (ECMAScript's n).
    point = (len(whole) if whole != "0" else -(len(fraction) - len(fraction.lstrip("0")))) + shift
    digits = digits.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        shown = n - 1
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if shown >= 0 else "-") + str(abs(shown))
    return sign + text


def canonical_json(value):
    """Canonical JSON after RFC 8785: sorted members (by UTF-16 code units), no whitespace."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return ecmascript_number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, dict):
        names = sorted(value, key=lambda name: name.encode("utf-16-be"))
        return "{" + ",".join(json.dumps(name, ensure_ascii=False) + ":" + canonical_json(value[name]) for name in names) + "}"
    raise TypeError("not a JSON value: %r" % (value,))


def sha256_hex(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_base64url(text):
    """The SHA-256 of the UTF-8 text in base64url without padding (RFC 4648, section 5)."""
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode("utf-8")).digest()).rstrip(b"=").decode("ascii")


def link_of(metadata):
    """The event's chain link as {"v", "digest", "previous"}, whichever version it is stored in, or None."""
    link = metadata.get(CHAIN_KEY) if isinstance(metadata, dict) else None
    if not isinstance(link, dict):
        return None
    version = link.get("v")
    if isinstance(version, bool) or version not in (1, 2):
        return None
    digest_name, previous_name = ("digest", "previous") if version == 1 else ("d", "p")
    if previous_name not in link:
        return None
    digest, previous = link.get(digest_name), link[previous_name]
    if not isinstance(digest, str) or (previous is not None and not isinstance(previous, str)):
        return None
    return {"v": version, "digest": digest, "previous": previous}


def link_digest(link, stream, revision, event_type, data):
    """The digest the event's link must state, by the rule of its version."""
    if link["v"] == 1:
        content = {"previous": link["previous"], "stream": stream, "revision": revision, "type": event_type, "data": data}
        return sha256_hex(canonical_json(content))
    data_digest = sha256_hex(event_type + "\n" + canonical_json(data))
    linked = {"data_sha256": data_digest, "previous": link["previous"], "revision": revision, "stream": stream, "v": 2}
    return sha256_base64url(canonical_json(linked))


def seal_rolling(version, rolling, digests):
    """The running digest a seal linked in `version` states after `rolling`, over the digests it covers."""
    if version == 1:
        for digest in digests:
            rolling = sha256_hex(rolling + "\n" + digest)
        return rolling
    return sha256_base64url("\n".join([rolling] + digests))


def as_seal(data):
    if not isinstance(data, dict) or data.get("type") != SEAL_EVENT_TYPE:
        return None
    through, count, rolling = data.get("through_position"), data.get("event_count"), data.get("rolling_digest")
    if not isinstance(through, str) or not through.isdigit() or not isinstance(rolling, str):
        return None
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        return None
    return int(through), count, rolling


class Verifier:
    def __init__(self):
        self.heads = {}
        self.findings = []
        self.events = self.chained = self.unchained_prefix = self.seals = 0
        self.sealed_rolling, self.sealed_count, self.sealed_through = "", 0, None
        self.pending = []

    def find(self, code, event, message):
        self.findings.append((code, event["position"], event["stream"], event["revision"], message))

    def add(self, event):
        self.events += 1
        stream, revision, position = event["stream"], event["revision"], event["position"]
        head = self.heads.get(stream)
        expected = 0 if head is None else head[0] + 1
        broken = revision != expected
        if revision > expected:
            self.find("revision_gap", event, "%d event(s) of the stream before it were removed" % (revision - expected))
        elif revision < expected:
            self.find("revision_out_of_order", event, "it comes after revision %d of its stream" % (expected - 1))
        link = link_of(event.get("metadata"))
        self.heads[stream] = (revision, link["digest"] if link else None)
        if link is None:
            if self.chained == 0:
                self.unchained_prefix += 1
            elif not broken:
                self.find("link_missing", event, "it carries no chain link, yet the history before it is chained")
            return
        self.chained += 1
        if not broken:
            if link_digest(link, stream, revision, event["type"], event["data"]) != link["digest"]:
                self.find("chain_digest_mismatch", event, "it does not match its chain link: its data, type or place changed")
            elif link["previous"] != (head[1] if head else None):
                self.find("chain_link_broken", event, "it links to another predecessor than the event before it in its stream")
        is_seal = stream == SEAL_STREAM and event["type"] == SEAL_EVENT_TYPE
        if is_seal:
            self.check_seal(event, link["v"])
        self.pending.append((position, link["digest"], is_seal))

    def check_seal(self, event, version):
        seal = as_seal(event["data"])
        if seal is None:
            self.find("seal_malformed", event, "the seal is not a HistorySealed event")
            return
        self.seals += 1
        through, count, rolling = seal
        if through >= event["position"] or (self.sealed_through is not None and through < self.sealed_through):
            self.find("seal_out_of_order", event, "it covers through position %d" % through)
            return
        covered = 0
        while covered < len(self.pending) and self.pending[covered][0] <= through:
            covered += 1
        computed = seal_rolling(version, self.sealed_rolling, [entry[1] for entry in self.pending[:covered]])
        counted = self.sealed_count + covered
        if computed != rolling or counted != count:
            self.find("seal_mismatch", event, "through position %d the history holds %d linked events (the seal counted %d) or another order" % (through, counted, count))
        self.sealed_rolling, self.sealed_count, self.sealed_through = rolling, count, through
        self.pending = self.pending[covered:]


def read_events(lines):
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            yield {
                "position": int(row["position"]),
                "stream": row["stream"],
                "revision": int(row["revision"]),
                "type": row["type"],
                "data": row["data"],
                "metadata": row.get("metadata"),
            }
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError("line %d is not a stored event (position, stream, revision, type, data, metadata): %s" % (number, error))


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 0 if len(argv) == 2 else 2
    verifier = Verifier()
    try:
        source = sys.stdin if argv[1] == "-" else open(argv[1], encoding="utf-8")
        with source:
            for event in read_events(source):
                verifier.add(event)
    except (OSError, ValueError) as error:
        sys.stderr.write("verify_history: %s\n" % error)
        return 2
    unsealed = sum(1 for entry in verifier.pending if not entry[2])
    print("%d events, %d chained, %d unchained before the chain, %d seals, %d not sealed yet"
          % (verifier.events, verifier.chained, verifier.unchained_prefix, verifier.seals, unsealed))
    if not verifier.findings:
        print("sound: every chain and seal holds")
        return 0
    for code, position, stream, revision, message in verifier.findings:
        print("%s: the event at position %d (stream '%s', revision %d): %s" % (code, position, stream, revision, message))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
