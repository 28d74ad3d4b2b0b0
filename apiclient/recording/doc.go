// Package recording is the file format of kubewire's recordings: what an API server
// answered to a LIST and to the watches after it, byte for byte, with the places where
// the connection ended, stalled or broke. Recordings are made from a real
// kube-apiserver (listwatch.Record, `kubewire record`) and replayed by the test server
// in apiclient/apitest, so a reflector test sees exactly the bytes a real server sent.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^
//	the wire bytes of the API server, as apiclient receives them: written by
//	listwatch.Record, replayed by apitest. It lives under apiclient because it is
//	about HTTP exchanges, not about reflecting, and because apitest (part of the
//	apiclient stage) may import nothing further down the pipeline.
//
// # The format
//
// A recording is a text file of lines. The first says what it is; then come
// exchanges, one request and its response each:
//
//	kubewire-recording v1
//	# how it was made: free text, kept with the file
//	> GET /api/v1/namespaces/demo/pods?limit=500&resourceVersion=0
//	< 200
//	{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1200"},"items":[…]}
//	> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=1200&timeoutSeconds=300&watch=true
//	< 200
//	{"type":"ADDED","object":{…}}
//	{"type":"BOOKMARK","object":{…}}
//	< end
//
// Line by line:
//
//	> METHOD TARGET          a request: the method and the path with its query
//	< CODE [retry-after=N]   the status line of its response (and a Retry-After header)
//	{…} or […]               one line of the body, verbatim: the server writes a LIST as
//	                         one JSON document and a watch as one event per line
//	| TEXT                   a body line that is not JSON (a malformed line in a fault
//	                         script); TEXT is sent as it is
//	< end                    the server finished the body (the default)
//	< close                  the connection dropped after the last line
//	< cut N                  only the first N bytes of the last line were sent, then the
//	                         connection dropped: an event cut in half
//	< stall                  nothing more comes, but the connection stays open until the
//	                         client gives up; right after "> …" it means no answer at all
//	# TEXT                   a comment, kept with the exchange that follows
//
// An end line may carry a note after "#": "< stall # the client stopped reading
// here".
//
// Blank lines are ignored. Nothing else is allowed, so that a typo in a hand-written
// fault script is an error with a line number rather than a silently different test.
//
// Why text lines and not JSON or HAR: the wire format is already one JSON document per
// line, so a recording is the wire with a few markers in between. A reader can follow
// a scenario in an editor, cut it, or add a fault with one line, and git diffs stay
// readable.
//
// # Secrets
//
// Recordings are meant to be committed. The recorder (Transport) passes every byte of
// a body that reaches the file through one rule — whole lines, the last line of a
// body, the part of a line a cut connection left, an error's body (a Status) — and
// the note of a request that got no answer through the same:
//
//   - What was asked for decides first. A request that names the secrets resource,
//     in any form of its path (/api/v1/secrets, /api/v1/namespaces/NS/secrets, one
//     Secret by name, the old /api/v1/watch/… prefix, a list or a watch, with any
//     query, under a proxy's prefix, escaped or not), has its answer redacted by
//     RedactSecrets: every object in it, at any depth, is a Secret whatever its kind
//     says or whether it says one, and a line that is not one whole JSON document is
//     replaced whole, whatever it holds. Its failure note keeps an error only when the
//     error cannot quote the server (the client gave up, no connection).
//   - Any other answer goes through Redact: a Secret's data and stringData values and
//     its last-applied-configuration annotation are replaced wherever the Secret
//     stands (a list's item, a watch event's object, a Table row's object) when it
//     says it is one — any of its kind members, wherever they stand, or its
//     SecretList's; anywhere, a string under a key that names a credential
//     (password, token, apiKey, …) or that looks like one (PEM private keys, JWTs,
//     "Bearer …", "Basic …"). A line that does not parse is replaced whole when any
//     of its strings, unescaped, mentions a Secret or a credential, or starts like
//     one where a cut ended it; past such a line, every later line of the body that
//     does not parse is replaced whole too.
//
// What Redact cannot know, it does not claim: in the answer of another resource, a
// Secret that names its kind only after its data, on a line that does not reach the
// recorder whole (a cut, a document split over lines), is not known for a Secret
// there. The rule from the request is what keeps the secrets resource safe in every
// shape. Everything else stays byte for byte. Request headers, where the credentials
// travel, are never recorded. Create makes new files readable by their owner only
// (0600), and changes the mode of no file it did not make.
//
// # Guarantees
//
//   - Parse never panics, whatever the input (FuzzParse); errors name the line.
//   - A recording made by Transport holds no byte of what the rules above redact,
//     whatever the shape of the answer: kind missing, late, wrong or twice; a list,
//     events, a Table; a line cut at any byte, a document split over lines or two on
//     one; no answer but an error quoting one (FuzzTransport_records_no_secret).
//   - Write then Parse gives back the same Recording.
//   - What Transport holds of a body is at most one line of MaxLine bytes: a line
//     longer than a recording may hold is not kept, nor the rest of its body (the
//     exchange ends "stall" with a note), so the recorder never holds a second
//     copy of a list as large as the client's bound allows; every recording it
//     writes parses.
//   - A Writer writes each line whole; it is safe for concurrent use, but exchanges
//     must come one at a time to make sense (the recorder makes one request at a time).
//
// # Compared with client-go
//
// client-go has no recorder. Its tests fake a watch with watch.NewFake or
// httptest handlers written by hand; kube-rs does the same with a mocked service. A
// recording from the real server catches what hand-written JSON gets wrong: field
// order, bookmarks' shape, the exact Status of a 410, the initial-events-end
// annotation.
package recording
